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
// decreasing order (the tables grow either way), and that the computed
// D_alpha(Q||P) never exceeds the ceiling above which it is not computed.
func TestSGMEvalMatchesOrderByOrder(t *testing.T) {
	orders := append(DefaultOrders(), DefaultCDPOrders()...)
	orders = append(orders, 1.0001, 2.5, 17.3, 300, 1000.5)
	for _, c := range []struct{ sigma, q float64 }{{1.1, 0.01}, {0.6, 0.001}, {4, 0.3}, {0.8, 0.9}, {30, 0.05}} {
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
				if ceil := e.qpCeiling(a); !(qp <= ceil) {
					t.Errorf("sigma %g q %g alpha %g: D(Q||P) computed %v above its ceiling %v", c.sigma, c.q, a, qp, ceil)
				}
				want := math.Max(sgmRenyiPQ(a, c.sigma, c.q), qp)
				if got := e.renyi(a); math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("sigma %g q %g alpha %g: %v, order by order %v", c.sigma, c.q, a, got, want)
				}
			}
		}
	}
}
