package engine

import (
	"context"
	"math"
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
