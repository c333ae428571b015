package compare

import (
	"github.com/pbuckets/pbuckets/internal/bigref"
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// TestSampledGaussianRenyiUpperRandom is a randomized soundness sweep over
// sigma in [0.1, 1000], q in [1.5e-8, 1), integer orders 2..63 (against
// A_alpha in math/big and the quadrature of B_alpha where it converges to
// 1e-12) and fractional orders (against the quadratures of both
// directions).
func TestSampledGaussianRenyiUpperRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	n := 300
	if testing.Short() {
		n = 30
	}
	for i := 0; i < n; i++ {
		s := math.Exp(rng.Float64()*math.Log(1e4)) * 0.1 // 0.1 .. 1000
		q := math.Exp(-rng.Float64() * 18)               // 1.5e-8 .. 1
		if q >= 1 {
			q = 0.999
		}
		a := 2 + rng.Intn(62)
		f, _ := SampledGaussianRenyiUpper(s, q)
		u := f(float64(a))
		if math.IsInf(u, 1) {
			continue
		}
		x := new(big.Float).Mul(bigref.F(float64(a-1)), bigref.F(u))
		if bigref.Exp(x).Cmp(bigref.A(a, s, q)) < 0 {
			t.Errorf("sigma %g q %g alpha %d: exp((alpha-1) U) < A_alpha (U = %g)", s, q, a, u)
		}
		// B via quadrature where it converges
		lb, lb2 := quadLogB(a, s, q, s/32), quadLogB(a, s, q, s/64)
		if math.Abs(lb-lb2) <= 1e-12*lb && float64(a-1)*u < lb2*(1-1e-10) {
			t.Errorf("sigma %g q %g alpha %d: below the quadrature of ln B_alpha", s, q, a)
		}
		// fractional
		af := float64(a) - rng.Float64()
		if af > 1 {
			uf := f(af)
			la, la2 := quadLogA(af, s, q, s/32), quadLogA(af, s, q, s/64)
			lbf := quadLogB2(af, s, q, s/64)
			if math.Abs(la-la2) <= 1e-12*la && (af-1)*uf < math.Max(la2, lbf)*(1-1e-10) {
				t.Errorf("sigma %g q %g alpha %g: (alpha-1) U = %g below the quadratures' %g", s, q, af, (af-1)*uf, math.Max(la2, lbf))
			}
		}
	}
}
