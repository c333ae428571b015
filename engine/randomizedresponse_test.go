package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestRandomizedResponseExact checks the bounds against the binomial sum.
func TestRandomizedResponseExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 4))
	type tc struct {
		p float64
		r int
	}
	cases := []tc{{0.51, 512}, {0.51, 64}, {0.51, 4}, {0.6, 1000}}
	for i := 0; i < 5; i++ {
		cases = append(cases, tc{0.5 + 0.45*rng.Float64(), 1 + rng.IntN(3000)})
	}
	for _, c := range cases {
		m, _ := RandomizedResponse(c.p)
		for _, ec := range []bool{true, false} {
			res, err := Compose(context.Background(), m, c.r, Options{Buckets: 20000, DisableErrorCorrection: !ec})
			if err != nil {
				t.Fatal(err)
			}
			for _, ee := range []float64{1, 1.001, 1.1, 1.3, 1.5, 2, 5} {
				eps := math.Log(ee)
				ex := exactRR(c.p, c.r, eps)
				d := res.Delta(eps)
				if d.Upper < ex*(1-1e-12) {
					t.Errorf("p=%v r=%d ec=%v e^eps=%v: upper %.12g < exact %.12g", c.p, c.r, ec, ee, d.Upper, ex)
				}
				if ec && d.Lower > ex*(1+1e-12) {
					t.Errorf("p=%v r=%d e^eps=%v: lower %.12g > exact %.12g", c.p, c.r, ee, d.Lower, ex)
				}
			}
		}
	}
}
