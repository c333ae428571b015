package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEpsQueriesBracketExact checks eps_low <= eps_exact <= eps_up for the
// Gauss closed form, eps_exact found by bisection on exactGauss.
func TestEpsQueriesBracketExact(t *testing.T) {
	for _, c := range []struct {
		sigma float64
		r     int
	}{{200 * math.Sqrt2, 512}, {20, 100}, {3, 7}} {
		m, _ := Gauss(c.sigma, 1, 0)
		res, err := Compose(context.Background(), m, c.r, Options{Buckets: 20000})
		if err != nil {
			t.Fatal(err)
		}
		mu := math.Sqrt(float64(c.r)) / c.sigma
		for _, delta := range []float64{1e-2, 1e-5, 1e-9} {
			lo, hi := 0.0, 50.0
			for i := 0; i < 200; i++ {
				mid := (lo + hi) / 2
				if exactGauss(mu, mid) > delta {
					lo = mid
				} else {
					hi = mid
				}
			}
			up, low := res.EpsUpper(delta), res.EpsLower(delta)
			if up < lo || low > hi || low > up {
				t.Errorf("sigma=%v r=%d delta=%v: [%v, %v] does not contain exact eps in [%v, %v]", c.sigma, c.r, delta, low, up, lo, hi)
			}
		}
	}
}

// TestEpsSharedSearch checks that Eps, whose lower bound's search starts
// from the upper bound's evaluations, returns verified ends: delta_up at
// Upper is at most delta, delta_low at Lower exceeds delta (or Lower is
// 0), and both agree with the separate searches to their precision.
func TestEpsSharedSearch(t *testing.T) {
	t.Parallel()
	sgd, _ := SGD(2, 0.05)
	gauss, _ := Gauss(3, 1, 0)
	rr, _ := RandomizedResponse(0.6)
	for _, c := range []struct {
		m Mechanism
		r int
	}{{sgd, 200}, {gauss, 40}, {rr, 30}} {
		res, err := Compose(context.Background(), c.m, c.r, Options{Buckets: 8000})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []float64{0.3, 1e-3, 1e-6, 1e-10} {
			e := res.Eps(d)
			up, lo := res.EpsUpper(d), res.EpsLower(d)
			if !math.IsInf(e.Upper, 1) && !(res.DeltaUpper(e.Upper) <= d) {
				t.Errorf("%s r=%d delta %g: delta_up(%v) = %v > delta", c.m, c.r, d, e.Upper, res.DeltaUpper(e.Upper))
			}
			if e.Lower > 0 && !math.IsInf(e.Lower, 1) && !(res.DeltaLower(e.Lower) > d) {
				t.Errorf("%s r=%d delta %g: delta_low(%v) = %v <= delta", c.m, c.r, d, e.Lower, res.DeltaLower(e.Lower))
			}
			if e.Upper != up {
				t.Errorf("%s r=%d delta %g: Eps upper %v, EpsUpper %v", c.m, c.r, d, e.Upper, up)
			}
			if math.Abs(e.Lower-lo) > 4e-12*math.Max(lo, 1e-300) {
				t.Errorf("%s r=%d delta %g: Eps lower %v, EpsLower %v", c.m, c.r, d, e.Lower, lo)
			}
			if e.Lower > e.Upper {
				t.Errorf("%s r=%d delta %g: lower %v above upper %v", c.m, c.r, d, e.Lower, e.Upper)
			}
		}
	}
}

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
