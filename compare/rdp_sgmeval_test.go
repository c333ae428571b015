package compare

import (
	"math"
	"slices"
	"testing"
)

// TestSGMEvalMatchesOrderByOrder checks that the shared evaluation of the
// sampled Gaussian's Renyi curve (sgmEval) gives bit for bit what
// sgmRenyiPQ and sgmRenyiQP give order by order, at the default orders of
// rdp and cdp and at orders off both grids, asked in increasing and in
// decreasing order (the tables grow either way), and that the bound by
// which D_alpha(Q||P) is not computed where it cannot matter (qpBelow)
// never claims the computed value below itself.
func TestSGMEvalMatchesOrderByOrder(t *testing.T) {
	orders := append(DefaultOrders(), DefaultCDPOrders()...)
	orders = append(orders, 1.0001, 2.5, 17.3, 300, 1000.5)
	for _, c := range []struct{ sigma, q float64 }{{1.1, 0.01}, {0.6, 0.001}, {4, 0.3}, {0.8, 0.9}, {30, 0.05}, {0.3, 0.05}} {
		for _, reverse := range []bool{false, true} {
			os := slices.Clone(orders)
			slices.Sort(os)
			if reverse {
				slices.Reverse(os)
			}
			e := &sgmEval{sigma: c.sigma, q: c.q}
			for _, a := range os {
				if a > sgmMaxOrder || (a+40*c.sigma+2)/(c.sigma/4) > sgmMaxPoints {
					continue // SampledGaussianRenyi's simple bound
				}
				qp := sgmRenyiQP(a, c.sigma, c.q)
				if below := math.Nextafter(qp, 0); qp > 0 && e.qpBelow(a, below) {
					t.Errorf("sigma %g q %g alpha %g: D(Q||P) computed %v, yet bounded by %v", c.sigma, c.q, a, qp, below)
				}
				want := math.Max(sgmRenyiPQ(a, c.sigma, c.q), qp)
				if got := e.renyi(a); math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("sigma %g q %g alpha %g: %v, order by order %v", c.sigma, c.q, a, got, want)
				}
			}
		}
	}
}

// TestLogSumExpSkipsOnlyZeros checks that logSumExp, which skips the
// exponentials below expUnderflow, gives the bits of the full sum (every
// term's exponential added) on sums whose terms span more than the
// exponential's range (and with NaN and infinite terms), and that
// math.Exp is +0 below expUnderflow, which it relies on.
func TestLogSumExpSkipsOnlyZeros(t *testing.T) {
	full := func(xs []float64) float64 {
		m := math.Inf(-1)
		for _, x := range xs {
			if x > m {
				m = x
			}
		}
		if math.IsInf(m, 0) {
			return m
		}
		s := 0.0
		for _, x := range xs {
			s += math.Exp(x - m)
		}
		return m + math.Log(s)
	}
	for _, x := range []float64{expUnderflow, expUnderflow - 1e-9, -1000, -1e300, math.Inf(-1)} {
		if e := math.Exp(x); e != 0 || math.Signbit(e) {
			t.Errorf("math.Exp(%v) = %v, want +0", x, e)
		}
	}
	cases := [][]float64{
		{0, -745, -745.5, -746, -746.5, -800, -5000},
		{3000, 2254.2, 2253.9, 2000, -1e6},
		{1, math.NaN(), -2000},
		{math.Inf(-1), -1, -800},
		{math.Inf(-1), math.Inf(-1)},
		{math.Inf(1), 0},
	}
	for x := -760.0; x <= -730; x += 0.37 {
		cases = append(cases, []float64{0, x, x - 1, 2 * x})
	}
	for _, xs := range cases {
		if got, want := logSumExp(xs), full(xs); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("logSumExp(%v) = %v, the full sum %v", xs, got, want)
		}
	}
}
