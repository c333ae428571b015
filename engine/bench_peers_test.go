package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The rows of the comparison with dp_accounting's PLD accountant
// (scripts/bench/peers.sh runs them beside dp_accounting): Compose plus
// the row's queries, in-process, with the CPU time of the process (both
// composers run at once, so CPU exceeds wall).
//
//	PB_BUCKETS=8000,100000 go test -run '^$' -bench 'Peers/sgd4$' ./engine
//
// BenchmarkPeers/ROW/BUCKETS reports cpu-s/op, the bounds and the relative
// width (upper-lower)/upper of the row's worst bracket (relw);
// BenchmarkAccuracyTarget/ROW the refinement of an accuracy target
// (PB_TARGET, default 1e-4) from a cheap first round, as pipeline/methods
// refines it.
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

func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return def
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

// BenchmarkAccuracyTarget: the refinement of pipeline/methods' accuracy
// target (accuracy.go) for one row, from Buckets = 0: the power path from
// 2^14 points where PowerQualifies, each next length the power of two at or
// above N (w/target)^(1/p) (p = 2, then the rate measured between the
// last two rounds), at least a doubling and at most 64 times N; the chain
// from 100,000 buckets where the mechanism does not qualify or the power
// path's worst bracket narrowed more slowly than N^-1, doubling once,
// then jumping at its measured rate times 1.2 (counts rounded up to two
// significant digits). It stops when the worst relative width is at most
// PB_TARGET (default 1e-4), a chain round no longer narrowed it by 0.9,
// or the chain's rate would not reach the target by 2^26 buckets. The CPU
// of every round (and of PowerQualifies) is counted; points (or buckets)
// and rounds are those of the last round, power = 1 when it was the power
// path's.
func BenchmarkAccuracyTarget(b *testing.B) {
	target := envFloat("PB_TARGET", 1e-4)
	for _, row := range peersRows {
		b.Run(row.name, func(b *testing.B) {
			var last peersAnswer
			var cpu, wall float64
			var n, rounds int
			var power bool
			for i := 0; i < b.N; i++ {
				last, cpu, wall, n, rounds, power = row.refine(b, target)
			}
			// every round's CPU in the JSON line (scripts/bench/peers.sh)
			last.cpu, last.wall = cpu, wall
			last.report(b, row)
			b.ReportMetric(cpu, "cpu-s")
			b.ReportMetric(wall, "wall-s")
			b.ReportMetric(float64(n), "buckets")
			b.ReportMetric(float64(rounds), "rounds")
			b.ReportMetric(map[bool]float64{false: 0, true: 1}[power], "power")
		})
	}
}

// refine mirrors pipeline/methods' refinement (BenchmarkAccuracyTarget)
// for the row's worst bracket and returns the last round's answer, the
// CPU and wall seconds of all rounds, the last round's size, the number
// of rounds and whether the last round was the power path's.
func (row peersRow) refine(tb testing.TB, target float64) (last peersAnswer, cpu, wall float64, n, rounds int, power bool) {
	m, err := row.mech()
	if err != nil {
		tb.Fatal(err)
	}
	c0, w0 := cpuSeconds(), time.Now()
	power, err = PowerQualifies(context.Background(), m, row.r, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	cpu, wall = cpuSeconds()-c0, time.Since(w0).Seconds()
	n = defaultBuckets
	switch {
	case power:
		n = 1 << 14
	case ComposesInClosedForm(m, row.r, Options{}):
		n = 4096 // pipeline/methods' closedFormStartBuckets
	}
	prevN, prevW := 0, math.Inf(1)
	for {
		opt := Options{Path: PathChain, Buckets: n}
		if power {
			opt.Path = PathPower
		}
		a := row.answerWith(tb, opt)
		cpu, wall, rounds, last = cpu+a.cpu, wall+a.wall, rounds+1, a
		w := a.relw
		if w <= target {
			return
		}
		p := math.NaN()
		if prevN > 0 && !math.IsInf(prevW, 0) && w > 0 {
			p = math.Log(prevW/w) / math.Log(float64(n)/float64(prevN))
		}
		if power && prevN > 0 && !(p >= 1 && w <= 0.9*prevW) {
			// the power path stopped narrowing at its rate: the chain
			power, n, prevN, prevW = false, defaultBuckets, 0, math.Inf(1)
			continue
		}
		if !power && prevN > 0 && (!(w <= 0.9*prevW) || !(w*math.Pow(float64(1<<26)/float64(n), -p) <= target)) {
			return
		}
		f, margin := 2.0, 1.2
		if power {
			margin = 1
		}
		switch {
		case p > 0:
			f = math.Pow(w/target, 1/min(p, 3)) * margin
		case power:
			f = math.Sqrt(w/target) * margin
		}
		x := float64(n) * min(64, max(2, f))
		prevN, prevW = n, w
		if power {
			n = 1 << 14
			for float64(n) < x {
				n *= 2
			}
			if n > 1<<22 {
				return
			}
			continue
		}
		scale := math.Pow(10, math.Max(0, math.Floor(math.Log10(x))-1))
		n = (int(math.Ceil(x/scale-1e-9)*scale) + 3) / 4 * 4
		if n > 1<<26 {
			return
		}
	}
}
