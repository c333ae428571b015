package engine

import (
	"fmt"
	"math"
)

// Lower bounds against upper references of the real mechanism (the
// soundness property test's subsampled cases, soundness_pairs_test.go).
//
// A subsampled pair of the engine may only dominate the mechanism it
// stands for (lowerpair.go); its own references (refpairs_test.go) then
// bound the mechanism's delta from above only, and a lower bound checked
// against them may still exceed the mechanism's delta. These checks use
// references that bound the real mechanism from above, written down from
// the mechanism's definition, not from the engine's pairs:
//
//   - the largest privacy loss eps0 of one step over all neighbouring data
//     sets (Laplace noise; the Gaussian's is unbounded), so every step is
//     eps0-DP and every r-step run is dominated by r-fold randomized
//     response with that eps0 (Kairouz, Oh, Viswanath 2015): its exact
//     delta (r <= 20,000, refEpsDelta) or, for any r, the Renyi-DP bound
//     r D_alpha(RR_eps0) with the conversion delta <= e^(-(alpha-1)(eps -
//     r D_alpha)); delta is 0 beyond r eps0;
//   - Renyi: the lower end of Result.Renyi is at most r D_alpha(RR_eps0);
//   - one step of a pair that only dominates: the lower bound is at most
//     the exact delta of the worst-case instance the lower pair stands for
//     (rpLowerPair; for Poisson replace-one Laplace the antipodal pair).
//
// The largest losses, with m = sensitivity/scale and the instance's
// components F_u (batch without the record) and F_a, F_b (with it), each
// pair within the sensitivity bound: with g(x) = ln(1-q+q e^x), convex and
// increasing, the loss at t is g(x) - g(y) for x = ln(f_a/f_u)(t), y =
// ln(f_b/f_u)(t):
//
//	poisson,    add_remove:  g(m)                     (y = 0, x <= m)
//	poisson,    replace_one: g(m) - g(-m)             (|x|, |y| <= m)
//	fixed_size, add_remove:  g(2m), q the batch rate  (as the coupling of subsampled.go: x <= 2m, y = 0)
//	fixed_size, replace_one: g(2m)                    (x - y <= 2m, x <= 2m, y >= -2m: g convex puts the maximum at x = 2m, y = 0)
//
// (for Laplace, |ln(f_a/f_u)| <= |a - u|).

// subInfo describes a subsampled mechanism of the property test by its
// inputs.
type subInfo struct {
	lap    bool
	s      Sampling
	rel    Relation
	q, m   float64
	exists bool
}

// realRef is an upper reference of the real mechanism of r steps.
type realRef struct {
	r    int
	eps0 float64 // the largest privacy loss of one step; +Inf: unbounded
	// lower1 is the exact delta of one step of the lower pair's instance
	// (nil: not checked).
	lower1 refFn
}

// realLargestLoss returns eps0 of the table above (+Inf for the Gaussian).
func realLargestLoss(si subInfo) float64 {
	if !si.lap {
		return math.Inf(1)
	}
	g := func(x float64) float64 { return math.Log1p(si.q * math.Expm1(x)) }
	var L float64
	switch {
	case si.s == Poisson && si.rel == AddRemove:
		L = g(si.m)
	case si.s == Poisson:
		L = g(si.m) - g(-si.m)
	default:
		L = g(2 * si.m)
	}
	// rounding of m and the functions: a few units of roundoff
	return L * (1 + 1e-13)
}

// newRealRef returns the upper references of r steps of si's mechanism.
func newRealRef(si subInfo, r int) *realRef {
	rr := &realRef{r: r, eps0: realLargestLoss(si)}
	if r == 1 {
		if rp, distinct, ok := rpLowerPair(si.lap, si.s, si.rel, si.q, si.m); ok && distinct {
			rr.lower1 = rpRef1(rp)
		}
	}
	return rr
}

// renyiRR returns an upper bound on D_alpha of randomized response with
// loss eps0 (alpha > 1): with p = 1/(1+e^-eps0), q = 1-p and x = (alpha-1)
// eps0, sum p^alpha q^(1-alpha) + q^alpha p^(1-alpha) = 1 + p expm1(x) + q
// expm1(-x), the sum taken with a rounding allowance.
func renyiRR(eps0, alpha float64) float64 {
	p := 1 / (1 + math.Exp(-eps0))
	q := 1 / (1 + math.Exp(eps0))
	x := (alpha - 1) * eps0
	a, b := p*math.Expm1(x), q*math.Expm1(-x)
	s := a + b + 8*u64*(math.Abs(a)+math.Abs(b)) + 1e-300
	return math.Log1p(s) * (1 + 8*u64) / (alpha - 1)
}

// realAlphas are the Renyi orders of the references.
var realAlphas = []float64{1.01, 1.1, 1.5, 2, 3, 5, 8, 16, 32, 64, 128, 256, 1024}

// lnDeltaUpper returns ln of an upper bound on the real mechanism's delta
// at eps (-Inf: 0).
func (rr *realRef) lnDeltaUpper(eps float64) float64 {
	if math.IsInf(rr.eps0, 1) {
		return 0
	}
	R := float64(rr.r)
	if eps > R*rr.eps0*(1+1e-12) {
		return math.Inf(-1)
	}
	if rr.r <= 20000 {
		v, unc := refEpsDelta(rr.eps0, 0, rr.r, eps)
		return v + unc + 1e-12*(1+math.Abs(v))
	}
	best := 0.0
	for _, a := range realAlphas {
		best = math.Min(best, -(a-1)*(eps-R*renyiRR(rr.eps0, a)))
	}
	return best + 1e-9
}

// epsUpper returns an upper bound on the real mechanism's eps at delta.
func (rr *realRef) epsUpper(delta float64) float64 {
	if math.IsInf(rr.eps0, 1) {
		return math.Inf(1)
	}
	R := float64(rr.r)
	best := R * rr.eps0 * (1 + 1e-12)
	if rr.r <= 20000 {
		ref := func(eps float64) (float64, float64) { return rr.lnDeltaUpper(eps), 0 }
		return math.Min(best, refEps(ref, delta)*(1+1e-12))
	}
	for _, a := range realAlphas {
		best = math.Min(best, R*renyiRR(rr.eps0, a)+ln(1/delta)/(a-1))
	}
	return best * (1 + 1e-9)
}

// checkRealLower checks res's lower bounds against rr: delta_low (each
// direction) at most the reference's delta, eps_low at most its eps, the
// Renyi lower bound at most r D_alpha(RR_eps0), and for one step at most
// the lower pair instance's exact delta.
func checkRealLower(res *Result, rr *realRef, epsList, deltas []float64, ec bool, st *propStats) []string {
	if !ec || (math.IsInf(rr.eps0, 1) && rr.lower1 == nil) {
		return nil
	}
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	for _, eps := range epsList {
		d := res.Delta(eps)
		ub := rr.lnDeltaUpper(eps)
		if rr.lower1 != nil {
			v, unc := rr.lower1(eps)
			ub = math.Min(ub, v+unc+1e-12*(1+math.Abs(v)))
		}
		st.realChecks++
		for _, l := range []struct {
			name string
			v    float64
		}{{"lower", d.Lower}, {"lowerAB", d.LowerAB}, {"lowerBA", d.LowerBA}} {
			if l.v > 0 && (math.IsInf(ub, -1) || ln(l.v) > ub) {
				fail("eps=%v: %s %.17g above the real mechanism's upper reference %.17g", eps, l.name, l.v, math.Exp(ub))
			}
		}
	}
	if math.IsInf(rr.eps0, 1) {
		return fails
	}
	for _, delta := range deltas {
		eb := res.Eps(delta)
		st.realChecks++
		if up := rr.epsUpper(delta); eb.Lower > up {
			fail("delta=%v: eps lower %.17g above the real mechanism's upper reference %.17g", delta, eb.Lower, up)
		}
	}
	for _, a := range []float64{1.5, 2, 8, 64} {
		lo, _ := res.Renyi(a)
		st.realChecks++
		if ref := float64(rr.r) * renyiRR(rr.eps0, a); lo > ref*(1+1e-9)+1e-12 {
			fail("alpha=%v: Renyi lower %.17g above r D_alpha(RR_eps0) = %.17g", a, lo, ref)
		}
	}
	return fails
}
