package engine

import "math"

// Renyi returns lower and upper bounds on the Renyi divergence D_alpha of
// the composed pair, maximised over both directions, for alpha > 1 (Section
// 5.7: D_alpha = 1/(alpha-1) ln sum_x P_A(x)^alpha P_B(x)^(1-alpha)): the
// tighter of the grouped list's bounds (Jensen's inequality within a bucket
// below, the chord over its ratio interval above) and the grid lists'; the
// lower bound comes from the lower pair where the composed pair only
// dominates the mechanism (see Lower pairs in the package documentation; 0
// when none is known). The upper bound is +Inf when a corner with unbounded
// ratios holds mass; RenyiEstimate gives the paper's approximation in that
// case.
func (r *Result) Renyi(alpha float64) (lower, upper float64) {
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return math.NaN(), math.NaN()
	}
	lower, upper = 0, math.Inf(1)
	if r.l != nil {
		lower, upper = r.renyiGrouped(alpha)
	}
	if r.g != nil {
		gl, gu := r.g.gridRenyi(alpha, r.gb)
		lower, upper = math.Max(lower, gl), math.Min(upper, gu)
	}
	if r.s != nil {
		// the swapped pair's (gridswap.go): the maximum over both
		// directions is the same for (A, B) and (B, A)
		sl, su := r.s.gridRenyi(alpha, r.sb)
		lower, upper = math.Max(lower, sl), math.Min(upper, su)
	}
	lower = r.lowerRenyi(alpha, lower) // a lower pair's (lowerpair.go)
	return lower, upper
}

// renyiGrouped returns lower and upper bounds on the Renyi divergence D_alpha
// of the composed pair from the grouped list, maximised over both
// directions, for alpha > 1 (Section
// 5.7: D_alpha = 1/(alpha-1) ln sum_x P_A(x)^alpha P_B(x)^(1-alpha)). Within a
// bucket the lower bound uses Jensen's inequality and the upper bound the
// chord over the bucket's ratio interval. The upper bound is +Inf when the
// infinity corner holds mass (its ratios are unbounded); Estimate gives the
// paper's approximation in that case.
func (r *Result) renyiGrouped(alpha float64) (lower, upper float64) {
	l, b := r.l, r.b
	ul := l.u * l.lambda
	// far: the other corner, whose events have ratio at most f^-n in this
	// direction; it adds at most its mass times f^(-n(alpha-1)).
	u := unitRoundoff
	g := 1 + gamma(2*l.n+8) // the sums over all offsets
	// dir returns ln of the lower bound (in log space: the terms may
	// exceed the float64 range) and the upper bound of one direction.
	dir := func(p, q []float64, ep, eq []float64, sign float64, cornerP, far val, dist val) (float64, float64) {
		var lo logSum
		var hi float64
		for o := 0; o < 2*l.n; o++ { // all offsets: see list.delta
			pl, ph := math.Max(0, p[o]-ep[o]), p[o]+ep[o]
			ql, qh := math.Max(0, q[o]-eq[o]), q[o]+eq[o]
			if pl > 0 && qh > 0 {
				lp, lq := ln(pl), ln(qh)
				// exp of a sum with absolute error of a few u of its parts
				eps := 4 * u * (2 + alpha*(math.Abs(lp)+math.Abs(lq)))
				lo.add(alpha*lp + (1-alpha)*lq + math.Log1p(-eps))
			}
			if ph == 0 {
				continue
			}
			// Ratios of the bucket's events lie in [lLo, lHi] (widened by
			// the rounding of L and u*lambda).
			L := sign * l.loss(o)
			lHi := L + 4*u*math.Abs(L)
			if sign < 0 {
				lHi = L + ul + 4*u*(math.Abs(L)+ul)
			}
			d := ul * (1 + 8*u)
			if ul > 0 {
				d += 8 * u * math.Abs(L)
			}
			a1 := alpha - 1
			// cap: every event has ratio at most e^lHi.
			h1 := math.Exp(a1 * lHi)
			capv := ph * h1 * (1 + 4*u*(2+a1*math.Abs(lHi)))
			if d == 0 {
				hi += capv
				continue
			}
			// chord of y^(1-alpha) on [y1, y2] = [e^-lHi, e^-(lHi-d)] at
			// y = q/p, evaluated with a rigorous allowance for rounding
			// (catastrophic when the interval is narrow; the cap then wins).
			y1 := math.Exp(-lHi)
			den := y1 * math.Expm1(d)
			y2 := y1 + den
			h2 := math.Exp(a1 * (lHi - d))
			c := (h1*(ph*y2-ql) + h2*(ql-ph*y1)) / den
			mag := (h1*(ph*y2+ql) + h2*(ql+ph*y1)) / den
			c += 16 * u * (4 + alpha*math.Abs(lHi) + alpha*d) * mag
			if !(c < capv) { // also NaN (overflowed chord): the cap holds
				c = capv
			}
			hi += math.Max(c, 0)
		}
		if fu := far.upper(); fu > 0 {
			hi += fu * math.Exp(-(alpha-1)*float64(l.n)*l.lambda) * (1 + 4*u*(2+(alpha-1)*float64(l.n)*l.lambda))
		}
		if cornerP.v > 0 || dist.v > 0 || math.IsNaN(hi) {
			hi = math.Inf(1)
		}
		return lo.lower() - math.Log1p(g-1)*(1+4*u), hi * g
	}
	lnLoAB, hiAB := dir(l.a, l.c, b.ea, b.ec, 1, l.hiA, l.loA, l.distA)
	lnLoBA, hiBA := dir(l.c, l.a, b.ec, b.ea, -1, l.loC, l.hiC, l.distB)
	// ln is accurate to an ulp of its result; divide, then round outwards.
	lower = math.Max(lnLoAB, lnLoBA) / (alpha - 1)
	upper = ln(math.Max(hiAB, hiBA)) / (alpha - 1)
	lower = math.Nextafter(math.Nextafter(lower, math.Inf(-1)), math.Inf(-1))
	upper = math.Nextafter(math.Nextafter(upper, math.Inf(1)), math.Inf(1))
	return math.Max(lower, 0), upper
}

// logSum accumulates ln sum_k e^(x_k) without overflow; value returns it
// rounded to nearest, lower rounded down by a few units of roundoff of its
// magnitude. Terms -Inf and NaN are skipped.
type logSum struct {
	m, s float64 // sum = e^m s, s >= 1 once a term was added
	n    int
}

// add adds the term e^x.
func (ls *logSum) add(x float64) {
	if math.IsInf(x, -1) || math.IsNaN(x) {
		return
	}
	ls.n++
	if ls.n == 1 {
		ls.m, ls.s = x, 1
		return
	}
	if x <= ls.m {
		ls.s += math.Exp(x - ls.m)
	} else {
		ls.s = ls.s*math.Exp(ls.m-x) + 1
		ls.m = x
	}
}

// value returns ln of the sum rounded to nearest (-Inf when empty): the
// callers that need a bound round outwards themselves.
func (ls *logSum) value() float64 {
	if ls.n == 0 {
		return math.Inf(-1)
	}
	return ls.m + ln(ls.s)
}

// lower returns a lower bound on ln of the sum (-Inf when empty): each
// exponential and addition rounds by at most 2u relatively, and the
// exponents carry absolute errors of a few u of m.
func (ls *logSum) lower() float64 {
	if ls.n == 0 {
		return math.Inf(-1)
	}
	v := ls.m + ln(ls.s)
	return v - math.Log1p(gamma(2*ls.n+4)) - 8*unitRoundoff*(math.Abs(ls.m)+math.Abs(v)+1)
}

// RenyiEstimate returns the paper's approximation of D_alpha from the
// buckets (5.7), ignoring the corners, maximised over both directions.
func (r *Result) RenyiEstimate(alpha float64) float64 {
	l := r.l
	if l == nil {
		return r.g.gridRenyiEstimate(alpha)
	}
	var sAB, sBA float64
	for o := l.lo; o <= l.hi; o++ {
		if l.a[o] > 0 && l.c[o] > 0 {
			la, lc := ln(l.a[o]), ln(l.c[o])
			sAB += math.Exp(alpha*la + (1-alpha)*lc)
			sBA += math.Exp(alpha*lc + (1-alpha)*la)
		}
	}
	return ln(math.Max(sAB, sBA)) / (alpha - 1)
}
