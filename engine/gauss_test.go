package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGaussClosedForm checks the squaring chain's bounds against the
// closed form for randomized sigma and r, including r = 2^16 (Theorem 2 on
// a continuous mechanism: the upper bound must hold for the real
// mechanism). ComposeMany composes such pairs in closed form
// (gaussclosed.go); the chain still composes Gauss parts of mixed
// sequences, and is called directly here.
func TestGaussClosedForm(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 3))
	cases := []struct {
		sigma float64
		r     int
	}{{200 * math.Sqrt2, 512}, {200 * math.Sqrt2, 1 << 16}}
	for i := 0; i < 6; i++ {
		cases = append(cases, struct {
			sigma float64
			r     int
		}{math.Exp(rng.Float64()*6 - 1), 1 + rng.IntN(1<<rng.IntN(17))})
	}
	for _, c := range cases {
		m, err := Gauss(c.sigma, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		out, err := composeManyPlain(context.Background(), m, []int{c.r}, Options{Buckets: 20000})
		if err != nil {
			t.Fatal(err)
		}
		res := out[0]
		mu := math.Sqrt(float64(c.r)) / c.sigma
		for _, eps := range []float64{0, 0.001, 0.01, 0.1, 0.3, 0.7, 1, 2, 4} {
			ex := exactGauss(mu, eps)
			d := res.Delta(eps)
			if d.Upper < ex*(1-1e-13) || d.Lower > ex*(1+1e-13) {
				t.Errorf("sigma=%v r=%d eps=%v: [%.10g, %.10g] does not contain exact %.10g", c.sigma, c.r, eps, d.Lower, d.Upper, ex)
			}
		}
	}
}
