package memory

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// thpBytes returns how many bytes of [lo, hi) lie in mappings that
// /proc/self/smaps marks THPeligible 1.
func thpBytes(t *testing.T, lo, hi uintptr) uintptr {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	var vlo, vhi, covered uintptr
	seen := false
	for s.Scan() {
		line := s.Text()
		if fields := strings.Fields(line); len(fields) > 0 && strings.Contains(fields[0], "-") {
			if _, err := fmt.Sscanf(fields[0], "%x-%x", &vlo, &vhi); err != nil {
				vlo, vhi = 0, 0
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "THPeligible:"); ok {
			seen = true
			if strings.TrimSpace(v) == "1" && vlo < hi && lo < vhi {
				covered += min(hi, vhi) - max(lo, vlo)
			}
		}
	}
	if !seen {
		t.Skip("smaps has no THPeligible fields")
	}
	return covered
}

// TestHugePagesAdvisesHeap checks that the allocations after HugePages land
// in a mapping advised for transparent huge pages (THPeligible 1), where
// the kernel offers them on request only.
func TestHugePagesAdvisesHeap(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(mode), "[madvise]") {
		t.Skipf("kernel huge page mode %q: HugePages does nothing", mode)
	}
	t.Setenv(HugePageEnv, "")
	n, err := HugePages(256 << 20)
	if err != nil {
		t.Skip(err) // overcommit or address-space limits of this machine
	}
	if n < 250<<20 || n > 256<<20 {
		t.Errorf("HugePages(256 MiB) advised %d bytes", n)
	}
	b := make([]float64, 16<<20) // 128 MiB, as the engine's arrays come
	lo := uintptr(unsafe.Pointer(&b[0]))
	hi := lo + uintptr(len(b))*8
	// all but the unaligned 2 MiB at either end of the advised range
	if got := thpBytes(t, lo, hi); got < hi-lo-4<<20 {
		t.Errorf("after HugePages, %d of the %d bytes of a new allocation are advised for huge pages", got, hi-lo)
	}
	runtime.KeepAlive(b)
}

func TestHugePagesOff(t *testing.T) {
	t.Setenv(HugePageEnv, "0")
	if n, err := HugePages(256 << 20); n != 0 || err == nil {
		t.Errorf("HugePages with %s=0: %d, %v; want 0 and a reason", HugePageEnv, n, err)
	}
	t.Setenv(HugePageEnv, "")
	if n, err := HugePages(1 << 20); n != 0 || err == nil {
		t.Errorf("HugePages(1 MiB): %d, %v; want 0 and a reason", n, err)
	}
}
