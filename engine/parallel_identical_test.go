package engine

import (
	"context"
	"math"
	"runtime"
	"testing"
)

// TestParallelPartsIdentical: the parts of a composition that run on all
// cores (corner sums per side, error bounds per side, moments, tilt
// weights in blocks, the grid squaring's pairs, envelope table and
// realised factor) give bitwise the results of one core. Each case is
// large enough for parallelRange to split (at least 4096 items: weights
// blocks need 2n >= 131072).
func TestParallelPartsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("composes 140,000-bucket lists")
	}
	run := func(procs int, m Mechanism, r int, opt Options) []uint64 {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		res, err := Compose(context.Background(), m, r, opt)
		if err != nil {
			t.Fatal(err)
		}
		var out []uint64
		for _, e := range []float64{0, 0.05, 0.3, 1, 3, 10, 50} {
			d := res.Delta(e)
			for _, v := range []float64{d.UpperAB, d.LowerAB, d.UpperBA, d.LowerBA} {
				out = append(out, math.Float64bits(v))
			}
		}
		c := res.Corners()
		for _, v := range []float64{c.InfinityA, c.InfinityB, c.LowA, c.LowB, c.DistinguishingA, c.DistinguishingB} {
			out = append(out, math.Float64bits(v))
		}
		return out
	}
	gauss, _ := Gauss(3, 1, 0)
	sgd, _ := SGD(1, 0.05)
	lap, _ := Laplace(2, 1, 0)
	for _, c := range []struct {
		name string
		m    Mechanism
		r    int
		opt  Options
	}{
		{"gauss 140k buckets", gauss, 300, Options{Buckets: 140000}},
		{"sgd 140k buckets grid", sgd, 1000, Options{Buckets: 140000, Lists: ListsGrid}},
		{"sgd 20k buckets", sgd, 4096, Options{Buckets: 20000}},
		{"laplace 30k buckets", lap, 100, Options{Buckets: 30000}},
	} {
		one := run(1, c.m, c.r, c.opt)
		many := run(4, c.m, c.r, c.opt)
		for i := range one {
			if one[i] != many[i] {
				t.Fatalf("%s: value %d differs: %v on one core, %v on four", c.name, i,
					math.Float64frombits(one[i]), math.Float64frombits(many[i]))
			}
		}
	}
}

// TestWeightsIntoParallelIdentical compares the tilt weights computed in
// parallel blocks with a one-block-at-a-time loop.
func TestWeightsIntoParallelIdentical(t *testing.T) {
	n := 70000
	for _, tau := range []float64{3.5, -4.5, 0.25, 120} {
		for _, lambda := range []float64{1e-5, 3e-3} {
			w := make([]float64, 2*n)
			old := runtime.GOMAXPROCS(4)
			rel := weightsInto(w, n, lambda, tau)
			runtime.GOMAXPROCS(1)
			w1 := make([]float64, 2*n)
			rel1 := weightsInto(w1, n, lambda, tau)
			runtime.GOMAXPROCS(old)
			if math.Float64bits(rel) != math.Float64bits(rel1) {
				t.Fatalf("tau %v lambda %v: rel %v vs %v", tau, lambda, rel, rel1)
			}
			for o := range w {
				if math.Float64bits(w[o]) != math.Float64bits(w1[o]) {
					t.Fatalf("tau %v lambda %v: offset %d: %v vs %v", tau, lambda, o, w[o], w1[o])
				}
			}
		}
	}
}
