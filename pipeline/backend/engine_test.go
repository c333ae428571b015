package backend

import (
	"context"
	"math"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// TestRenyiUpperIsTheEngines checks that the single-round Renyi upper
// bound fed to rdp and cdp and reported by the buckets method
// (RenyiBounds, engine.Result.Renyi unpadded) lies above the exact D_alpha
// of randomized response with fine buckets (where a chord bound that
// ignores its rounding falls below it).
func TestRenyiUpperIsTheEngines(t *testing.T) {
	cases := []struct {
		p       float64
		buckets int
		alphas  []float64
	}{
		{0.501, 200000, []float64{1.01, 2, 32}},
		{0.51, 2000000, []float64{1.001, 1.5, 8}},
		{0.9, 20000, []float64{1.01, 4}},
	}
	for _, c := range cases {
		spec := manifest.MechanismSpec{Kind: manifest.KindRandomizedResponse, Params: map[string]float64{"p": c.p}}
		m, err := Engine{}.Mechanism(spec)
		if err != nil {
			t.Fatal(err)
		}
		opt := manifest.DefaultEngineOptions()
		opt.Buckets = c.buckets
		states, err := Engine{}.ComposeMany(context.Background(), m, []int{1}, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := states[0].(*engineState)
		q := 1 - c.p                   // exact
		x := math.Log1p((c.p - q) / q) // ln(p/q); p - q is exact
		for _, a := range c.alphas {
			// D_alpha = ln(p (p/q)^(a-1) + q (q/p)^(a-1)) / (a-1), the same
			// in both directions, without cancellation against 1
			y := (a - 1) * x
			exact := math.Log1p(c.p*math.Expm1(y)+q*math.Expm1(-y)) / (a - 1)
			_, up, _ := st.RenyiBounds(a)
			if !(up >= exact*(1-1e-13)) { // exact is within about 1e-13 relative
				t.Errorf("p %v, %d buckets, alpha %v: upper bound %.17g not above the exact %.17g", c.p, c.buckets, a, up, exact)
			}
		}
	}
}
