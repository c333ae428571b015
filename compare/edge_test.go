package compare

import (
	"math"
	"testing"
)

// No curve may panic or leave [0, 1] on odd inputs; NaN maps to NaN.
func TestEdgeInputs(t *testing.T) {
	d0, _ := GaussDelta0(3, 1)
	rr0, _ := RRDelta0(0.6)
	g, _ := GaussRenyi(3, 1)
	sg, _ := SampledGaussianRenyi(2, 0.05)
	var curves []Curve
	add := func(c Curve, err error) {
		if err != nil {
			t.Fatal(err)
		}
		curves = append(curves, c)
	}
	add(ExactGauss(3, 1, 10))
	add(ExactRR(0.6, 10))
	add(ExactLaplace(3, 1))
	add(KOV(rr0, 10, KOVOptions{}))
	add(KOV(d0, 10, KOVOptions{Ratio: 1.2}))
	add(Advanced(d0, 10, AdvancedOptions{}))
	add(Naive(d0, 10))
	add(Adaptive(d0, 10))
	add(RDP(g, 10, Classic, RDPOptions{}))
	add(RDP(sg, 10, Improved, RDPOptions{}))
	add(CDP(g, 10, CDPOptions{}))
	add(CDP(sg, 10, CDPOptions{}))
	inf := math.Inf(1)
	for i, c := range curves {
		for _, e := range []float64{-inf, -1, 0, 1e-300, 1, 1e6, 1e300, inf} {
			if d := c.Delta(e); !(d >= 0 && d <= 1) {
				t.Errorf("curve %d (%T): Delta(%g) = %g", i, c, e, d)
			}
		}
		for _, d := range []float64{-1, 0, 1e-300, 0.5, 1, 2, inf} {
			if e := c.Eps(d); !(e >= 0) {
				t.Errorf("curve %d (%T): Eps(%g) = %g", i, c, d, e)
			}
		}
		if !math.IsNaN(c.Delta(math.NaN())) || !math.IsNaN(c.Eps(math.NaN())) {
			t.Errorf("curve %d (%T): NaN input must give NaN", i, c)
		}
		if c.Eps(1) != 0 {
			t.Errorf("curve %d (%T): Eps(1) = %g, want 0", i, c, c.Eps(1))
		}
	}
}
