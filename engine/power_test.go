package engine

import (
	"context"
	"math"
	"testing"
)

// TestPowerGaussClosedForm checks the power path's bounds on the Gauss
// pair against the closed form of delta.
func TestPowerGaussClosedForm(t *testing.T) {
	cases := []struct {
		sigma float64
		r     int
	}{{200 * math.Sqrt2, 512}, {2, 100}, {10, 1000}, {1, 7}}
	for _, c := range cases {
		m, err := Gauss(c.sigma, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Compose(context.Background(), m, c.r, Options{Buckets: 1 << 14, power: powerOn})
		if err != nil {
			t.Fatal(err)
		}
		if res.g == nil || res.g.compositions != c.r || res.g.squarings != 0 || res.l != nil {
			t.Fatalf("sigma=%v r=%d: not composed by the power path", c.sigma, c.r)
		}
		mu := math.Sqrt(float64(c.r)) / c.sigma
		for _, eps := range []float64{0, 0.001, 0.01, 0.1, 0.3, 0.7, 1, 2, 4} {
			ex := exactGauss(mu, eps)
			d := res.Delta(eps)
			t.Logf("sigma=%v r=%d eps=%v: [%.10g, %.10g] exact %.10g", c.sigma, c.r, eps, d.Lower, d.Upper, ex)
			if d.Upper < ex*(1-1e-13) || d.Lower > ex*(1+1e-13) {
				t.Errorf("sigma=%v r=%d eps=%v: [%.10g, %.10g] does not contain exact %.10g", c.sigma, c.r, eps, d.Lower, d.Upper, ex)
			}
		}
	}
}
