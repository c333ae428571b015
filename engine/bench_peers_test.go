package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The rows of the comparison with dp_accounting's PLD accountant
// (scripts/bench/peers.sh runs them beside dp_accounting): Compose plus
// the row's queries, in-process, with the CPU time of the process (both
// composers run at once, so CPU exceeds wall).
//
//	PB_BUCKETS=8000,100000 go test -run '^$' -bench 'Peers/sgd4$' ./engine
//
// BenchmarkPeers/ROW/BUCKETS reports cpu-s/op, the bounds and the relative
// width (upper-lower)/upper of the row's worst bracket (relw). The
// refinement of an accuracy target, what the one-liners run, is
// pipeline/methods' BenchmarkAccuracyTarget (the same rows).
type peersRow struct {
	name  string
	mech  func() (Mechanism, error)
	r     int
	delta float64   // eps(delta) query when > 0
	eEps  []float64 // delta(eps) queries at these e^eps
}

var peersRows = []peersRow{
	{"sgd1", func() (Mechanism, error) { return SGD(1.1, 0.01) }, 10000, 1e-5, nil},
	{"sgd4", func() (Mechanism, error) { return SGD(4, 0.01) }, 65536, 1e-5, nil},
	{"sgd1k", func() (Mechanism, error) { return SGD(1, 0.001) }, 250000, 1e-6, nil},
	{"gauss512", func() (Mechanism, error) { return Gauss(200*math.Sqrt2, 1, 0) }, 512, 0, []float64{1.01, 1.5}},
	{"vuvuzela", func() (Mechanism, error) { return VuvuzelaConversation(NoiseGauss, 15000, 2500) }, 65536, 1e-4, nil},
}

// peersAnswer is one row's answer at one bucket count.
type peersAnswer struct {
	eps  EpsBound
	dlt  []DeltaBound
	relw float64 // the worst relative width over the row's brackets
	cpu  float64 // seconds of process CPU
	wall float64
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func relWidth(up, low float64) float64 {
	if math.IsNaN(up) || math.IsNaN(low) || math.IsInf(up, 1) || up <= 0 {
		if up == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return max(0, (up-low)/up)
}

func (row peersRow) answer(tb testing.TB, buckets int) peersAnswer {
	return row.answerWith(tb, Options{Buckets: buckets})
}

// benchBuckets runs row at each bucket count of PB_BUCKETS (default
// 100,000) as a sub-benchmark named by the count, reporting the last op's
// metrics (BenchmarkPeers, BenchmarkGaussR).
func (row peersRow) benchBuckets(b *testing.B) {
	for _, n := range envInts("PB_BUCKETS", []int{100000}) {
		b.Run(itoa(n), func(b *testing.B) {
			var a peersAnswer
			for i := 0; i < b.N; i++ {
				a = row.answer(b, n)
			}
			a.report(b, row)
		})
	}
}

func envInts(name string, def []int) []int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err == nil {
			out = append(out, n)
		}
	}
	return out
}

func (a peersAnswer) report(b *testing.B, row peersRow) {
	if os.Getenv("PB_JSON") != "" {
		// one line in inproc.py's format, for scripts/bench/peers.sh
		var vals []string
		if row.delta > 0 {
			vals = append(vals, fmt.Sprintf("eps lower=%.10g upper=%.10g", a.eps.Lower, a.eps.Upper))
		}
		for i, d := range a.dlt {
			vals = append(vals, fmt.Sprintf("e_eps=%g delta lower=%.10g upper=%.10g", row.eEps[i], d.Lower, d.Upper))
		}
		line, _ := json.Marshal(map[string]any{"cmd": b.Name(), "cpu": a.cpu, "wall": a.wall, "relw": a.relw, "values": vals})
		fmt.Println(string(line))
	}
	b.ReportMetric(a.cpu, "cpu-s")
	b.ReportMetric(a.relw, "relw")
	if row.delta > 0 {
		b.ReportMetric(a.eps.Upper, "eps_up")
		b.ReportMetric(a.eps.Lower, "eps_low")
	}
	for i, d := range a.dlt {
		b.ReportMetric(d.Upper, "d_up@"+ftoa(row.eEps[i]))
		b.ReportMetric(d.Lower, "d_low@"+ftoa(row.eEps[i]))
	}
}

// BenchmarkPeers: one row at fixed bucket counts (PB_BUCKETS, default
// 100,000). Run with -benchtime 1x: the metrics are those of the last op.
func BenchmarkPeers(b *testing.B) {
	for _, row := range peersRows {
		b.Run(row.name, func(b *testing.B) {
			row.benchBuckets(b)
		})
	}
}
