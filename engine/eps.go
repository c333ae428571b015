package engine

import (
	"fmt"
	"math"
)

// EpsBound is the answer to an eps(delta) query.
type EpsBound struct {
	Delta float64
	// Upper is an eps found with delta_up(eps) <= Delta (bisection to a
	// relative precision of 1e-12, the bracket's verified end): the
	// mechanism is (Upper, Delta)-DP. +Inf when delta_up stays above Delta
	// at every eps (the distinguishing events or the corner buckets hold
	// more than Delta).
	Upper float64
	// Lower is an eps with delta_low(Lower) > Delta (the bracket's verified
	// end; 0 when delta_low(0) <= Delta): for every eps below it the
	// mechanism is not (eps, Delta)-DP. +Inf when delta_low(+Inf), the
	// lower bound on the distinguishing mass, exceeds Delta. It comes from
	// the lower pair where the composed pair only dominates the mechanism
	// (see Lower pairs in the package documentation), and is 0 with a note
	// when none is known. NaN when
	// error correction is disabled.
	Lower float64
	// Note says why Upper (or Lower) is +Inf, or why Lower is absent;
	// empty otherwise.
	Note string
}

// Eps returns both bounds on the tight eps for delta, with a note when one
// of them is infinite.
//
// Both searches share their evaluations: every evaluation of Delta gives
// both bounds, so the upper bound's search records them and the lower
// bound's search starts from the narrowest bracket they establish. Where
// the result has a grid list, both searches are guided by a cheap
// approximation of its delta (epsguide.go), which puts the evaluations
// next to the root: about two evaluations per end instead of 6 to 15.
// Each returned end is still one where the bound was evaluated and
// verified.
func (r *Result) Eps(delta float64) EpsBound {
	var m deltaMemo
	up, nu := r.epsUpperMemo(delta, &m)
	lo, nl := r.epsLowerMemo(delta, &m)
	note := nu
	if nl != "" && nu != "" {
		note += "; " + nl
	} else if nl != "" {
		note = nl
	}
	return EpsBound{Delta: delta, Upper: up, Lower: lo, Note: note}
}

// epsRange returns an eps beyond every bucket's log-ratios, (n+u+2)
// lambda: delta_up and delta_low are constant above it except for the
// lower terms of the corners.
func (r *Result) epsRange() float64 {
	e := r.epsMax()
	if !(e < math.MaxFloat64/4) {
		e = math.MaxFloat64 / 4
	}
	return e
}

// epsUpper returns EpsBound.Upper and its note.
func (r *Result) epsUpper(delta float64) (float64, string) {
	return r.epsUpperMemo(delta, nil)
}

// deltaMemo records the evaluations of Delta of one eps query (Eps), so
// that the lower bound's search reuses the upper bound's.
type deltaMemo struct {
	eps, upper, lower []float64
}

// eval returns Delta(e) through the memo m (nil: no memo).
//
// It evaluates r's own lists (deltaOwn): their lower bound is the
// result's only when ownLower, and epsLowerMemo reads the memo only then.
func (r *Result) evalMemo(m *deltaMemo, e float64) (up, low float64) {
	e = math.Max(e, 0)
	if m == nil {
		d := r.deltaOwn(e)
		return d.Upper, d.Lower
	}
	for i, x := range m.eps {
		if x == e {
			return m.upper[i], m.lower[i]
		}
	}
	d := r.deltaOwn(e)
	m.eps = append(m.eps, e)
	m.upper = append(m.upper, d.Upper)
	m.lower = append(m.lower, d.Lower)
	return d.Upper, d.Lower
}

// epsUpperMemo is epsUpper recording its evaluations in m (nil: none).
func (r *Result) epsUpperMemo(delta float64, m *deltaMemo) (float64, string) {
	return r.epsUpperGuided(delta, m, r.epsGuide())
}

// epsUpperGuided is epsUpperMemo with the guide g of the search (nil: the
// unguided search alone).
func (r *Result) epsUpperGuided(delta float64, m *deltaMemo, g *epsGuide) (float64, string) {
	if math.IsNaN(delta) {
		return math.NaN(), ""
	}
	if m == nil {
		m = &deltaMemo{}
	}
	f := func(e float64) float64 { up, _ := r.evalMemo(m, e); return up }
	// ok is false for NaN, so the search never takes an unverified end.
	okv := func(v float64) bool { return v <= delta }
	if g != nil {
		if _, hi, ok := guidedSearch(f, g.up, okv, delta, r.epsRange(), m.points(false)); ok {
			return hi, ""
		}
	}
	f0 := f(0)
	if okv(f0) {
		return 0, ""
	}
	eMax := r.epsRange()
	fMax := f(eMax)
	if !okv(fMax) {
		// Above eMax only the corners and distinguishing events are left,
		// and delta_up counts them in full at every finite eps.
		d := r.deltaOwn(math.Inf(1))
		if d.Upper > delta {
			return math.Inf(1), fmt.Sprintf("eps_up is +Inf for delta below %.3g: the distinguishing events (impossible under the other distribution) hold up to that mass", d.Upper)
		}
		floor := r.deltaOwn(eMax).Upper
		if l := r.cornerList(); l.cornerValue() > delta/2 {
			return math.Inf(1), fmt.Sprintf("eps_up is +Inf for delta below %.3g: the corner buckets (privacy loss beyond the bucket range %.4g) hold mass %.3g; more buckets or a larger factor would help", floor, l.lambda*float64(l.n), l.cornerValue())
		}
		return math.Inf(1), fmt.Sprintf("eps_up is +Inf for delta below %.3g: delta_up does not fall below it at any eps (rounding-error bounds of the composed buckets)", floor)
	}
	lo, hi := 0.0, eMax
	flo, fhi := f0, fMax
	for i, x := range m.eps {
		// every evaluated point inside the bracket narrows it (its value
		// was computed, so the ends stay verified)
		if x > lo && x < hi {
			if v := m.upper[i]; okv(v) {
				hi, fhi = x, v
			} else {
				lo, flo = x, v
			}
		}
	}
	_, hi = searchEps(f, okv, delta, lo, hi, flo, fhi)
	return hi, ""
}

// epsLower returns EpsBound.Lower and its note.
func (r *Result) epsLower(delta float64) (float64, string) {
	return r.epsLowerMemo(delta, nil)
}

// epsLowerMemo is epsLower reusing and recording evaluations in m (nil:
// none): the search starts from the narrowest bracket of evaluated points.
func (r *Result) epsLowerMemo(delta float64, m *deltaMemo) (float64, string) {
	return r.epsLowerGuided(delta, m, true)
}

// epsLowerGuided is epsLowerMemo, guided by the result's guide when guided
// (else the unguided search alone).
func (r *Result) epsLowerGuided(delta float64, m *deltaMemo, guided bool) (float64, string) {
	if !r.ec || math.IsNaN(delta) {
		return math.NaN(), ""
	}
	switch {
	case r.lowerAbsent != "": // (lowerpair.go)
		return 0, "eps_low is 0: no lower bound is known for this mechanism (see Result.Notes)"
	case r.hasSlack(): // Delta's lower bound, no memo of the own lists
		return epsLowerSearch(func(e float64) float64 { return r.Delta(e).Lower }, delta, r.epsRange()+math.Max(r.slackA, r.slackC), nil)
	case r.lowerFrom != nil: // the lower pair's
		return r.lowerFrom.epsLowerGuided(delta, nil, guided)
	}
	if m == nil {
		m = &deltaMemo{}
	}
	f := func(e float64) float64 { _, low := r.evalMemo(m, e); return low }
	var g *epsGuide
	if guided {
		g = r.epsGuide()
	}
	if g != nil && !(f(math.Inf(1)) > delta) {
		// (the guide's bracket needs no delta_low(0): where delta_low
		// exceeds delta at lo > 0 it does at 0)
		above := func(v float64) bool { return v > delta }
		if lo, _, ok := guidedSearch(f, g.low, func(v float64) bool { return !above(v) }, delta, r.epsRange(), m.points(true)); ok {
			return lo, ""
		}
	}
	return epsLowerSearch(f, delta, r.epsRange(), m)
}

// points returns the memo's evaluations of the upper bound (lower false)
// or the lower bound at finite eps.
func (m *deltaMemo) points(lower bool) []guidePoint {
	var p []guidePoint
	for i, x := range m.eps {
		if math.IsInf(x, 1) {
			continue
		}
		v := m.upper[i]
		if lower {
			v = m.lower[i]
		}
		p = append(p, guidePoint{x, v})
	}
	return p
}

// epsLowerSearch returns EpsBound.Lower for the lower bound f on delta,
// constant beyond eRange except for the corners' lower terms; m, if not
// nil, holds evaluations of f (its lower values) that narrow the bracket.
func epsLowerSearch(f func(float64) float64, delta, eRange float64, m *deltaMemo) (float64, string) {
	// above is true only when delta_low(e) > delta is established (false
	// for NaN): the returned end always has it.
	abovev := func(v float64) bool { return v > delta }
	f0 := f(0)
	if !abovev(f0) {
		return 0, ""
	}
	if d := f(math.Inf(1)); d > delta {
		return math.Inf(1), fmt.Sprintf("eps_low is +Inf for delta below %.3g: the distinguishing events hold at least that mass (not (eps, delta)-DP for any finite eps)", d)
	}
	// delta_low(eps) is not constant beyond the bucket range (the corners'
	// lower terms p - e^eps q fall with eps): search outwards.
	lo, hi := 0.0, eRange
	flo, fhi := f0, f(hi)
	for abovev(fhi) {
		lo, flo = hi, fhi
		if hi > math.MaxFloat64/4 {
			return lo, ""
		}
		hi *= 2
		fhi = f(hi)
	}
	if m != nil {
		// every evaluated point inside the bracket narrows it (its value
		// was computed, so the ends stay verified)
		for i, x := range m.eps {
			if !(x > lo && x < hi) {
				continue
			}
			if v := m.lower[i]; abovev(v) {
				lo, flo = x, v
			} else {
				hi, fhi = x, v
			}
		}
	}
	lo, _ = searchEps(f, func(v float64) bool { return !abovev(v) }, delta, lo, hi, flo, fhi)
	return lo, ""
}

// searchEps returns a bracket [lo, hi] of relative width 1e-12 (at most
// 200 evaluations of f) with ok(f(hi)) true and ok(f(lo)) false, given
// both at the start (flo = f(lo), fhi = f(hi)). The ends keep their
// verified values whatever f does, as in bisect; f is a delta bound,
// monotone and smooth in eps, so each point is chosen by the secant
// through the last two evaluations of ln f - ln target (a handful of
// evaluations instead of about 45 halvings), and by halving where that is
// undefined (f = 0 or 1), falls outside the bracket or stops shrinking it.
func searchEps(f func(float64) float64, ok func(float64) bool, target, lo, hi, flo, fhi float64) (float64, float64) {
	g := func(v float64) float64 {
		if !(v > 0) || math.IsInf(v, 0) || !(target > 0) {
			return math.NaN()
		}
		return ln(v) - ln(target)
	}
	x0, g0, x1, g1 := lo, g(flo), hi, g(fhi)
	prevWidth := hi - lo
	halve := false
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		x := lo + (hi-lo)/2
		if !halve {
			if s := x1 - g1*(x1-x0)/(g1-g0); s > lo && s < hi {
				// never within a quarter of the target width of an end
				// (the next step then closes the bracket from the other
				// side)
				tol := 0.25e-12 * hi
				x = math.Min(math.Max(s, lo+tol), hi-tol)
			}
		}
		v := f(x)
		if ok(v) {
			hi = x
		} else {
			lo = x
		}
		x0, g0, x1, g1 = x1, g1, x, g(v)
		// halve when two steps did not halve the bracket
		halve = false
		if i%2 == 1 {
			halve = hi-lo > prevWidth/2 && hi-lo > 1e-9*hi
			prevWidth = hi - lo
		}
	}
	return lo, hi
}

// bisect returns a bracket [lo, hi] of relative width 1e-12 (at most 200
// halvings) with ok(hi) true and ok(lo) false, given ok(hi0) true and
// ok(lo0) false; ok must be monotone for the bracket to be narrow, but the
// returned ends keep their verified values whatever ok does.
func bisect(ok func(float64) bool, lo, hi float64) (float64, float64) {
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		m := lo + (hi-lo)/2
		if ok(m) {
			hi = m
		} else {
			lo = m
		}
	}
	return lo, hi
}
