package memory

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Unlimited is the budget used when none is given and the machine's
// available memory is unknown: no limit.
const Unlimited = 1 << 62

// LimitRuntime sets the Go runtime's soft memory limit
// (runtime/debug.SetMemoryLimit) to budget for the duration of a run and
// returns the function that restores the previous limit.
//
// The budget admits jobs by engine.EstimateMemory, which counts live bytes;
// with the default GOGC=100 alone the collector lets the heap grow to about
// twice the live bytes before it collects, so jobs admitted within the
// budget together overshoot it (measured with four Gauss compositions at
// 100,000 buckets, two at a time, and a budget of twice the estimate of one,
// 229 MB: 297-340 MB of Go memory without the limit, 217-228 MB with it;
// experiments/README.md, Memory). The soft limit makes the collector run earlier (and return freed
// pages to the OS) as the process nears the budget. When the live heap
// itself is near the limit, the runtime caps the collector at about half
// the CPU, so a run slows down rather than fails.
//
// Nothing is changed when the GOMEMLIMIT environment variable is set (the
// user's limit wins), when budget is unknown (<= 0 or Unlimited), or when
// the current limit is already at most budget. The setting is process-wide:
// runs that overlap in one process should not use different budgets (the
// command runs one at a time).
func LimitRuntime(budget int64) (restore func()) {
	if budget <= 0 || budget >= Unlimited || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(-1)
	if prev <= budget {
		return func() {}
	}
	debug.SetMemoryLimit(budget)
	return func() { debug.SetMemoryLimit(prev) }
}

// Available returns the memory the machine can give this process in
// bytes (MemAvailable of /proc/meminfo, or the cgroup limit if lower), or
// 0 when unknown.
func Available() int64 {
	var avail int64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		s := bufio.NewScanner(f)
		for s.Scan() {
			fields := strings.Fields(s.Text())
			if len(fields) >= 2 && fields[0] == "MemAvailable:" {
				if kb, err := strconv.ParseInt(fields[1], 10, 64); err == nil {
					avail = kb * 1024
				}
			}
		}
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if data, err := os.ReadFile(p); err == nil {
			if lim, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && lim > 0 && (avail == 0 || lim < avail) {
				avail = lim
			}
		}
	}
	return avail
}

// ParseBytes parses a memory size: a number of bytes with an optional
// unit, SI (k, KB, M, MB, G, GB, T, TB: powers of 1000) or IEC (KiB, MiB,
// GiB, TiB, also Ki, Mi, Gi, Ti as Kubernetes writes them: powers of 1024),
// upper or lower case, B for bytes: "512MiB", "8GB", "8GiB", "2G", "1000".
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	lower := strings.ToLower(t)
	// Longest suffixes first, so that "kib" is not read as "b".
	units := []struct {
		suffix string
		mult   int64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"ki", 1 << 10}, {"mi", 1 << 20}, {"gi", 1 << 30}, {"ti", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}, {"b", 1},
	}
	for _, u := range units {
		if strings.HasSuffix(lower, u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("memory size %q: want a positive size like 512MiB, 8GiB or 8GB (units B, KB, MB, GB, TB: powers of 1000; KiB, MiB, GiB, TiB: powers of 1024)", s)
	}
	return int64(v * float64(mult)), nil
}

// FormatBytes renders a byte count for messages.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
