package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSearchEps checks the eps searches' bracket on random non-increasing
// functions (smooth decays, steps, flat pieces, values 0 and 1, NaN at
// random points): the returned ends keep their verified sides, the bracket
// is as narrow as bisection's (1e-12 relative) for monotone functions, and
// smooth ones take far fewer evaluations than its 40 or so halvings.
func TestSearchEps(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	var evals, smooth int
	for trial := 0; trial < 3000; trial++ {
		a := math.Exp(6 * rng.Float64())
		b := rng.Float64() * 3
		kind := rng.IntN(5)
		steps := 1 + rng.IntN(20)
		nanAt := -1.0
		if rng.IntN(5) == 0 {
			nanAt = rng.Float64() * 10
		}
		f := func(e float64) float64 {
			if math.Abs(e-nanAt) < 1e-3 {
				return math.NaN()
			}
			switch kind {
			case 0: // Gaussian-like tail
				return 0.5 * math.Erfc((e/a+b)/math.Sqrt2)
			case 1: // exponential
				return math.Min(1, math.Exp(-a*e+b))
			case 2: // steps
				return math.Pow(0.5, math.Floor(e*float64(steps)/10))
			case 3: // flat, then falls to 0
				if e < b {
					return 1
				}
				return math.Max(0, 1-(e-b)*a)
			default: // hits 0 exactly
				return math.Max(0, math.Exp(-a*e)-1e-30)
			}
		}
		delta := math.Pow(10, -1-29*rng.Float64())
		ok := func(v float64) bool { return v <= delta }
		lo, hi := 0.0, 10.0
		flo, fhi := f(lo), f(hi)
		if ok(flo) || !ok(fhi) {
			continue
		}
		n := 0
		fc := func(e float64) float64 { n++; return f(e) }
		l, h := searchEps(fc, ok, delta, lo, hi, flo, fhi)
		if ok(f(l)) || !ok(f(h)) {
			t.Fatalf("trial %d (kind %d): bracket [%v, %v] has unverified ends (f %v, %v, delta %v)", trial, kind, l, h, f(l), f(h), delta)
		}
		if nanAt < 0 && h-l > 1e-12*h {
			t.Fatalf("trial %d (kind %d): bracket [%v, %v] wider than 1e-12 after %d evaluations", trial, kind, l, h, n)
		}
		if kind <= 1 && nanAt < 0 {
			evals += n
			smooth++
			if testing.Verbose() && n > 30 {
				t.Logf("kind %d a %g b %g delta %g: %d evals", kind, a, b, delta, n)
			}
		}
	}
	if smooth == 0 || float64(evals)/float64(smooth) > 20 {
		t.Errorf("smooth functions took %.1f evaluations on average (bisection: about 40)", float64(evals)/float64(max(smooth, 1)))
	}
	t.Logf("smooth functions: %.1f evaluations on average", float64(evals)/float64(smooth))
}
