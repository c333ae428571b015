package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// gaussTPR is the exact largest TPR at FPR alpha of r composed Gaussian
// mechanisms with sensitivity/sigma = m: mu-GDP with mu = sqrt(r) m (Dong,
// Roth, Su 2022, Corollary 3.3), TPR = Phi(Phi^-1(alpha) + mu).
func gaussTPR(alpha, mu float64) float64 {
	// Phi^-1(alpha) refined by Newton steps on Phi(x) = alpha (math.Erfcinv
	// is off by 3e-8 relative at alpha = 1e-9)
	x := normalQuantile(alpha)
	for i := 0; i < 3 && alpha > 0 && alpha < 1; i++ {
		x -= (0.5*math.Erfc(-x/math.Sqrt2) - alpha) / (math.Exp(-x*x/2) / math.Sqrt(2*math.Pi))
	}
	z := x + mu
	return 0.5 * math.Erfc(-z/math.Sqrt2)
}

// exactTPRDiscrete returns the largest TPR at FPR alpha of the pair (a, b)
// of discrete distributions (null b, alternative a): the Neyman-Pearson
// test, randomised on the boundary ratio.
func exactTPRDiscrete(a, b []float64, alpha float64) float64 {
	idx := make([]int, len(a))
	for i := range idx {
		idx[i] = i
	}
	ratio := func(i int) float64 {
		if b[i] == 0 {
			return math.Inf(1)
		}
		return a[i] / b[i]
	}
	sort.Slice(idx, func(i, j int) bool { return ratio(idx[i]) > ratio(idx[j]) })
	tpr, fpr := 0.0, 0.0
	for _, i := range idx {
		if fpr+b[i] <= alpha {
			fpr += b[i]
			tpr += a[i]
			continue
		}
		if b[i] > 0 {
			tpr += a[i] * (alpha - fpr) / b[i]
		}
		break
	}
	return math.Min(1, tpr)
}

// rrComposed returns the r-fold randomized response pair as the laws of
// the number of truthful answers: A ~ Bin(r, p), B ~ Bin(r, 1-p).
func rrComposed(p float64, r int) (a, b []float64) {
	a = make([]float64, r+1)
	b = make([]float64, r+1)
	for k := 0; k <= r; k++ {
		lc, _ := math.Lgamma(float64(r + 1))
		l1, _ := math.Lgamma(float64(k + 1))
		l2, _ := math.Lgamma(float64(r - k + 1))
		c := lc - l1 - l2
		a[k] = math.Exp(c + float64(k)*math.Log(p) + float64(r-k)*math.Log1p(-p))
		b[k] = math.Exp(c + float64(k)*math.Log1p(-p) + float64(r-k)*math.Log(p))
	}
	return a, b
}

// checkTPR fails t when the bracket b misses the exact TPR (with a
// relative slack of 1e-12 for the reference's own rounding) or is not a
// bracket.
func checkTPR(t *testing.T, name string, b TPRBound, exact float64) {
	t.Helper()
	slack := 1e-12 * exact
	if !(b.Lower <= b.Upper) || math.IsNaN(b.Lower) || math.IsNaN(b.Upper) {
		t.Errorf("%s fpr %g: not a bracket [%g, %g]", name, b.FPR, b.Lower, b.Upper)
	}
	if b.Upper < exact-slack {
		t.Errorf("%s fpr %g: upper %.12g below exact %.12g", name, b.FPR, b.Upper, exact)
	}
	if b.Lower > exact+slack {
		t.Errorf("%s fpr %g: lower %.12g above exact %.12g", name, b.FPR, b.Lower, exact)
	}
	if b.Lower < b.FPR || b.Upper > 1 {
		t.Errorf("%s fpr %g: bracket [%g, %g] outside [fpr, 1]", name, b.FPR, b.Lower, b.Upper)
	}
}

// TestTPRGaussClosedForm checks the TPR bracket of r composed Gaussian
// mechanisms against mu-GDP's exact trade-off curve over seeded random
// sigma, r and FPR (down to 1e-9), and that it is tight.
func TestTPRGaussClosedForm(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 22))
	cases := 12
	if testing.Short() {
		cases = 4
	}
	for c := 0; c < cases; c++ {
		mu := math.Exp(rng.Float64()*math.Log(40)) / 10 // 0.1 .. 4
		r := 1 + rng.IntN(300)
		sigma := math.Sqrt(float64(r)) / mu
		m, err := Gauss(sigma, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Compose(context.Background(), m, r, Options{Buckets: 8000})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("gauss mu %.4g r %d", mu, r)
		for _, fpr := range []float64{0, 1e-9, 1e-6, 1e-3, 0.01, 0.1, 0.5, 0.9, 1} {
			b := res.TPR(fpr)
			exact := gaussTPR(fpr, mu)
			if fpr == 0 {
				exact = 0
			}
			checkTPR(t, name, b, exact)
			if fpr > 0 && fpr < 1 && b.Upper-b.Lower > 1e-3*exact+1e-12 {
				t.Errorf("%s fpr %g: bracket [%.8g, %.8g] wider than 1e-3 of exact %.8g", name, fpr, b.Lower, b.Upper, exact)
			}
		}
	}
}

// TestTPRRandomizedResponseEnumeration checks the bracket against the
// Neyman-Pearson test of the exactly enumerated r-fold randomized
// response (atoms: the staircase must hold at jumps of delta's slope).
func TestTPRRandomizedResponseEnumeration(t *testing.T) {
	for _, tc := range []struct {
		p float64
		r int
	}{{0.6, 1}, {0.75, 1}, {0.6, 5}, {0.9, 8}, {0.55, 40}} {
		m, err := RandomizedResponse(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Compose(context.Background(), m, tc.r, Options{Buckets: 4000})
		if err != nil {
			t.Fatal(err)
		}
		a, b := rrComposed(tc.p, tc.r)
		name := fmt.Sprintf("rr p %g r %d", tc.p, tc.r)
		for _, fpr := range []float64{1e-12, 1e-6, 1e-4, 0.003, 0.05, 0.2, 0.4, 0.7} {
			checkTPR(t, name, res.TPR(fpr), exactTPRDiscrete(a, b, fpr))
		}
	}
}

// TestTPREpsDelta checks the bracket of the (eps, delta) pair against its
// trade-off function f(alpha) = max(0, 1 - delta - e^eps alpha,
// e^-eps (1 - delta - alpha)) (Kairouz et al.; Dong, Roth, Su 2022,
// Proposition 2.5).
func TestTPREpsDelta(t *testing.T) {
	for _, tc := range []struct{ eps, delta float64 }{{0.5, 0}, {1, 1e-5}, {3, 0.01}, {0, 0.1}} {
		m, err := EpsDelta(tc.eps, tc.delta)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Compose(context.Background(), m, 1, Options{Buckets: 400})
		if err != nil {
			t.Fatal(err)
		}
		for _, fpr := range []float64{0, 1e-8, 1e-3, 0.05, 0.3, 0.6, 0.99} {
			// 1 - f, written without cancellation
			exact := math.Min(1, math.Min(tc.delta+math.Exp(tc.eps)*fpr, 1-math.Exp(-tc.eps)*(1-tc.delta-fpr)))
			checkTPR(t, fmt.Sprintf("eps_delta %g %g", tc.eps, tc.delta), res.TPR(fpr), exact)
		}
	}
}

// TestTPRInvalid checks that an FPR outside [0, 1] gives NaN, not a bound.
func TestTPRInvalid(t *testing.T) {
	m, _ := RandomizedResponse(0.7)
	res, err := Compose(context.Background(), m, 2, Options{Buckets: 400})
	if err != nil {
		t.Fatal(err)
	}
	for _, fpr := range []float64{-1e-9, 1.5, math.NaN(), math.Inf(1)} {
		if b := res.TPR(fpr); !math.IsNaN(b.Upper) || !math.IsNaN(b.Lower) {
			t.Errorf("fpr %v: got [%v, %v], want NaN", fpr, b.Lower, b.Upper)
		}
	}
}

// TestGaussianTradeoffMu checks the mu of the GDP curve through a point
// against the curve itself.
func TestGaussianTradeoffMu(t *testing.T) {
	for _, mu := range []float64{0.1, 1, 3.7} {
		for _, fpr := range []float64{1e-6, 0.01, 0.3} {
			if got := GaussianTradeoffMu(fpr, gaussTPR(fpr, mu)); math.Abs(got-mu) > 1e-9*math.Max(1, mu) {
				t.Errorf("mu %g fpr %g: got %.12g", mu, fpr, got)
			}
		}
	}
	if !math.IsNaN(GaussianTradeoffMu(-1, 0.5)) || !math.IsInf(GaussianTradeoffMu(0.1, 1), 1) {
		t.Error("edge cases")
	}
}

// randomPMFPair draws a pair of distributions on k atoms (exponential
// weights, normalised).
func randomPMFPair(rng *rand.Rand, k int) (a, b []float64) {
	a, b = make([]float64, k), make([]float64, k)
	sa, sb := 0.0, 0.0
	for i := range a {
		a[i], b[i] = rng.ExpFloat64(), rng.ExpFloat64()
		sa, sb = sa+a[i], sb+b[i]
	}
	for i := range a {
		a[i], b[i] = a[i]/sa, b[i]/sb
	}
	return a, b
}

// productPMF enumerates the r-fold product of the pair (a, b) (product).
func productPMF(a, b []float64, r int) (pa, pb []float64) {
	as, bs := make([][]float64, r), make([][]float64, r)
	for i := range as {
		as[i], bs[i] = a, b
	}
	return product(as, bs)
}

// TestTPRHistogramEnumeration checks the bracket against the exact
// Neyman-Pearson TPR of seeded random histogram pairs composed up to three
// times, enumerated as product distributions (atoms at arbitrary losses,
// kinks of delta at every one of them).
func TestTPRHistogramEnumeration(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(20, 22))
	cases := 30
	if testing.Short() {
		cases = 8
	}
	for c := 0; c < cases; c++ {
		k := 2 + rng.IntN(5)
		a, b := randomPMFPair(rng, k)
		m, err := Histogram(a, b)
		if err != nil {
			t.Fatal(err)
		}
		r := 1 + rng.IntN(3)
		res, err := Compose(context.Background(), m, r, Options{Buckets: 8000})
		if err != nil {
			t.Fatal(err)
		}
		pa, pb := productPMF(a, b, r)
		name := fmt.Sprintf("histogram %d atoms r %d", k, r)
		for _, fpr := range []float64{1e-9, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.8} {
			bd := res.TPR(fpr)
			// the histogram is read with a tolerance of 1e-9 on its sums
			// (mechanisms.go), so the reference gets that much slack
			exact := math.Max(exactTPRDiscrete(pa, pb, fpr), exactTPRDiscrete(pb, pa, fpr))
			if bd.Upper < exact-1e-9 || bd.Lower > exact+1e-9 {
				t.Errorf("%s fpr %g: [%.12g, %.12g] misses exact %.12g", name, fpr, bd.Lower, bd.Upper, exact)
			}
			if bd.Upper-bd.Lower > 1e-3 {
				t.Errorf("%s fpr %g: bracket [%.12g, %.12g] wider than 1e-3", name, fpr, bd.Lower, bd.Upper)
			}
		}
	}
}

// BenchmarkTPR measures one TPR query on a DP-SGD result at the default
// 100,000 buckets (the composition is done once, outside the timing).
func BenchmarkTPR(b *testing.B) {
	m, err := SubsampledGauss(1.1, 1, 0.01, Poisson, AddRemove)
	if err != nil {
		b.Fatal(err)
	}
	res, err := Compose(context.Background(), m, 10000, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		res.TPR(1e-3)
	}
}

// TestTPRLowerNotTrivial checks that the lower TPR stays near the upper one
// where delta's bracket is tight: random allocation (100 epochs of 100
// steps, sigma 1.1) once gave the trivial lower bound TPR >= FPR, because
// steep secants through refined grid points carried rounding allowances
// that sank the per-segment bound below the plain staircase.
func TestTPRLowerNotTrivial(t *testing.T) {
	t.Parallel()
	m, err := RandomAllocationGauss(1.1, 1, 100, 1, AddRemove)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, 100, Options{Buckets: 40000})
	if err != nil {
		t.Fatal(err)
	}
	for _, fpr := range []float64{1e-6, 1e-3} {
		b := res.TPR(fpr)
		if !(b.Lower >= 0.98*b.Upper) {
			t.Errorf("fpr %g: [%g, %g]: the lower bound is far below the upper", fpr, b.Lower, b.Upper)
		}
	}
}
