package engine

import "math"

// This file holds the guide of the eps searches (eps.go): a cheap,
// unverified approximation of a grid list's delta_up and delta_low that
// tells the searches where to evaluate the sound bounds. The guide decides
// only where delta is evaluated; every end an eps query returns is still a
// point where the sound bound (Result.deltaOwn) was evaluated and verified.
//
// The sums of a grid list's delta (gridDeltaWith) take, at an atom of loss
// L_o and mass m_o, the factor f = 1 - e^(eps - L_o) widened by the window
// w (f + wUp for the upper pair, f - wLo for the lower); summed over the
// atoms where it is positive,
//
//	A||B:  sum_(L_o > eps - w) m_o (1 + w - e^eps e^(-L_o))
//	     = (1 + w) S_0 - e^eps S_1,
//	B||A:  sum_(L_o < w - eps) m_o e^(-L_o) (1 + w - e^eps e^(L_o))
//	     = (1 + w) H_1 - e^eps H_0   (times e^w and the weights' error),
//
// with S_j the sums of m_o e^(-j L_o) over the atoms above eps (a suffix of
// the offsets) and H_j those over the atoms below -eps (a prefix). The
// guide keeps these sums at every guideBlock-th offset for the four masses
// gridDeltaWith sums (the upper pair's with and without their error
// bounds, the lower pair's likewise), so that one evaluation at any eps
// costs two partial blocks per sum, and combines them as gridDeltaWith does
// (the pointwise, total and tilted total error bounds, the corners, the
// factor of the summation error). It leaves out only the rounding
// allowances of the factors (relative 1e-13 or less), so it agrees with the
// sound bound to about that: the guided search then needs two sound
// evaluations per end.
//
// The suffix sums are accumulated from the top and the prefix sums from the
// bottom, so each is accurate relative to itself (the tail beyond eps), not
// to the total mass. They are the grid table's (gridSums), from which the
// sound bound itself sums the atoms far from eps, with the rounding
// allowances the guide leaves out (griddeltasums.go).

// guideBlock is the spacing of the guide's stored partial sums (offsets).
const guideBlock = 16

// guideSums are the stored partial sums of one mass m of a grid list:
// tail[b] (tailT[b]) is the sum of m_o (m_o e^(-L_o)) over the offsets
// o >= b guideBlock, head[b] and headT[b] over o < b guideBlock.
type guideSums struct {
	m                        []float64
	tail, tailT, head, headT []float64
}

// epsGuide approximates a grid list's delta_up and delta_low at any eps
// (see above). It is built once per Result (Result.epsGuide).
type epsGuide struct {
	l *list
	t *gridTable
	// the sums of the upper pair's masses with their error bounds (up),
	// of its computed values (a), of the lower pair's lower ends (low) and
	// of its values (c)
	sUp, sA, sLow, sC guideSums
	// tl1Sum's tilted bounds of the upper pair
	sa []float64
}

// newGuideSums returns the stored sums of m with the weights t = e^(-L).
func newGuideSums(m, t []float64) guideSums {
	n := len(m)
	nb := (n + guideBlock - 1) / guideBlock
	g := guideSums{m: m, tail: make([]float64, nb+1), tailT: make([]float64, nb+1),
		head: make([]float64, nb+1), headT: make([]float64, nb+1)}
	// the block sums, then the suffix sums from the top and the prefix
	// sums from the bottom (in the tail's and in the head's arrays)
	for b := 0; b < nb; b++ {
		var s, st float64
		for o := b * guideBlock; o < min(n, (b+1)*guideBlock); o++ {
			s += m[o]
			st += m[o] * t[o]
		}
		g.tail[b], g.tailT[b] = s, st
	}
	for b := 0; b < nb; b++ {
		g.head[b+1], g.headT[b+1] = g.head[b]+g.tail[b], g.headT[b]+g.tailT[b]
	}
	for b := nb - 1; b >= 0; b-- {
		g.tail[b] += g.tail[b+1]
		g.tailT[b] += g.tailT[b+1]
	}
	return g
}

// tails returns the sums of m_o and m_o t_o over the offsets o >= k.
func (g *guideSums) tails(t []float64, k int) (s, st float64) {
	b := (k + guideBlock - 1) / guideBlock
	s, st = g.tail[b], g.tailT[b]
	for o := min(b*guideBlock, len(g.m)) - 1; o >= k; o-- {
		s += g.m[o]
		st += g.m[o] * t[o]
	}
	return s, st
}

// heads returns the sums of m_o and m_o t_o over the offsets o < k.
func (g *guideSums) heads(t []float64, k int) (s, st float64) {
	b := k / guideBlock
	s, st = g.head[b], g.headT[b]
	for o := b * guideBlock; o < k; o++ {
		s += g.m[o]
		st += g.m[o] * t[o]
	}
	return s, st
}

// newEpsGuide returns the guide of the grid list l with its table t, nil
// where e^(-L) leaves float64 on the grid (the guide's sums would not be
// finite) or the list is empty.
func newEpsGuide(l *list, t *gridTable) *epsGuide {
	s := t.sums // nil under the same conditions (newGridSums)
	if s == nil {
		return nil
	}
	g := &epsGuide{l: l, t: t, sUp: s.up, sA: s.a, sLow: s.low, sC: s.c}
	g.sa, _ = l.tl1Sum()
	return g
}

// firstAbove returns the first offset whose loss exceeds x (2n: none).
func (g *epsGuide) firstAbove(x float64) int { return g.l.firstAboveLoss(x) }

// lastBelow returns the number of offsets whose loss is below x.
func (g *epsGuide) lastBelow(x float64) int {
	k := g.firstAbove(x)
	for k > 0 && !(g.l.loss(k-1) < x) {
		k--
	}
	return k
}

// eval approximates DeltaBound.Upper (lower false) or Lower at eps,
// following gridDeltaWith (errAll) without the factors' rounding
// allowances.
func (g *epsGuide) eval(eps float64, lower bool) float64 {
	l, t := g.l, g.t
	const u = unitRoundoff
	e := math.Exp(eps)
	gs := 1 + gamma(2*l.n+16)
	gt := (1 + t.trel) * (1 + 4*u)
	// A||B over the atoms above eps - w, B||A below w - eps
	if !lower {
		w := l.wUp
		k := g.firstAbove(eps - w)
		s, st := g.sUp.tails(t.t, k)
		sv, svt := g.sA.tails(t.t, k)
		upAB := (1+w)*s - e*st
		upABv := (1+w)*sv - e*svt
		kb := g.lastBelow(w - eps)
		h, ht := g.sUp.heads(t.t, kb)
		hv, hvt := g.sA.heads(t.t, kb)
		ewU := math.Exp(w) * gt * (1 + 2*u)
		upBA := ewU * ((1+w)*ht - e*h)
		upBAv := ewU * ((1+w)*hvt - e*hv)
		upAB = math.Min(upAB, upABv+l.l1A)
		tAB := upABv + (l.gridTailTL1(l.tl1A, eps-w, false)+l.zA)*(1+2*u)
		tBA := math.Inf(1)
		if eb := l.gridTailTL1(g.sa, eps-w, true); eb < math.Inf(1) {
			tBA = upBAv + mulExp(eb, w, 4*u*(w+1), true)
		}
		upAB, upBA = math.Min(upAB, tAB), math.Min(upBA, tBA)
		ab := (math.Max(upAB, 0) + l.distA.upper() + l.hiA.upper() + l.loA.upper()) * gs
		ba := (math.Max(upBA, 0) + l.distB.upper() + l.loC.upper() + l.hiC.upper()) * gs
		return math.Min(math.Max(ab, ba), 1)
	}
	w := -l.wLo
	k := g.firstAbove(eps - w)
	s, st := g.sLow.tails(t.t, k)
	sv, svt := g.sC.tails(t.t, k)
	loAB := (1+w)*s - e*st
	loABv := (1+w)*sv - e*svt
	kb := g.lastBelow(w - eps)
	h, ht := g.sLow.heads(t.t, kb)
	hv, hvt := g.sC.heads(t.t, kb)
	ewL := math.Exp(w) / gt * (1 - 2*u)
	loBA := ewL * ((1+w)*ht - e*h)
	loBAv := ewL * ((1+w)*hvt - e*hv)
	loAB = math.Max(loAB, loABv-l.l1C*gs)
	tlAB := loABv - l.gridTailTL1(l.tl1C, eps, false)*gs
	tlBA := loBAv - l.gridTailTL1(l.tl1C, eps, true)*gs
	loAB, loBA = math.Max(loAB, tlAB), math.Max(loBA, tlBA)
	ab := math.Max(0, loAB+l.lowDistA.lower()) / gs
	ba := math.Max(0, loBA+l.lowDistB.lower()) / gs
	return math.Min(math.Max(ab, ba), 1)
}

// up approximates delta_up(eps) of the grid list (unverified).
func (g *epsGuide) up(eps float64) float64 { return g.eval(eps, false) }

// low approximates delta_low(eps) of the grid list (unverified).
func (g *epsGuide) low(eps float64) float64 { return g.eval(eps, true) }

// guidePoint is a sound evaluation of a delta bound: v at eps x.
type guidePoint struct{ x, v float64 }

// guidedMaxEvals is the number of sound evaluations a guided search may
// make before it leaves the bracket to the unguided search.
const guidedMaxEvals = 8

// guidedSearch returns a bracket [lo, hi] of relative width below 1e-12
// with ok(eval(hi)) true and ok(eval(lo)) false, found is false when it
// did not establish one within guidedMaxEvals evaluations (the caller then
// searches unguided; every evaluation went through eval, whose memo keeps
// it). eval is the sound delta bound, guide an approximation of it (a
// decreasing function of eps, wrong by a factor that varies slowly with
// eps), pts sound evaluations already made; the root lies in (0, eMax)
// where the guide is meaningful.
//
// Each point is near the root x0 of the model ln guide(x) + c(x) = ln
// delta, c the discrepancy ln eval - ln guide at the sound evaluations
// (discrepancy). While the model's root still moves by more than hs, a
// twentieth of the target width, between evaluations, the next point is
// x0 + h, h = 1e-14 x0 (on the side where eval is expected to be ok); once
// it has settled, the bracket is closed at x0 -+ h from the side still
// open (h grows fourfold when a closing point falls on the other side).
// With a guide as close as epsGuide's (1e-13) the first evaluation
// settles the model, and each end takes two, within about 1e-14 of the
// sound bound's root. The returned
// ends are evaluated points whatever the guide does: the guide chooses
// where to evaluate, never what is returned.
func guidedSearch(eval, guide func(float64) float64, ok func(float64) bool, delta, eMax float64, pts []guidePoint) (lo, hi float64, found bool) {
	if !(delta > 0) || math.IsInf(delta, 1) || !(eMax > 0) {
		return 0, 0, false
	}
	lnd := ln(delta)
	var haveLo, haveHi bool
	var cx, cv []float64 // the discrepancies ln v - ln guide at cx
	add := func(x, v float64) {
		if ok(v) {
			if !haveHi || x < hi {
				hi, haveHi = x, true
			}
		} else if !haveLo || x > lo {
			lo, haveLo = x, true
		}
		if v > 0 && v < math.Inf(1) {
			if p := guide(x); p > 0 && p < math.Inf(1) {
				cx, cv = append(cx, x), append(cv, ln(v)-ln(p))
			}
		}
	}
	for _, p := range pts {
		if p.x >= 0 && p.x <= eMax {
			add(p.x, p.v)
		}
	}
	// root returns the model's root in the bracket (NaN: none found)
	root := func(c func(float64) float64) float64 {
		model := func(x float64) float64 { return ln(guide(x)) - lnd + c(x) }
		a, b := 0.0, eMax
		if haveLo {
			a = lo
		}
		if haveHi {
			b = hi
		}
		if !(a < b) {
			return math.NaN()
		}
		return solveDecreasing(model, a, b)
	}
	xr := math.NaN() // the last model root
	if len(cx) > 0 {
		xr = root(func(float64) float64 { return 0 })
	}
	hRel := 0.01e-12 // the closing offset, relative
	for it := 0; ; it++ {
		if haveLo && haveHi && hi > lo && hi-lo <= 1e-12*hi {
			return lo, hi, true
		}
		if it == guidedMaxEvals {
			return lo, hi, false
		}
		x0 := root(discrepancy(cx, cv, xr))
		if !(x0 > 1e-300) {
			return lo, hi, false
		}
		// hs: the model has settled when its root moves by less; an end
		// within hs of the root is kept. h: the offset of a closing point
		// from the root. The final width is at most hs + h + the model's
		// error, well below the target 1e-12 hi.
		hs, h := 0.05e-12*x0, hRel*x0
		x, want := x0+h, 0 // want: the side expected (1: ok, -1: not ok)
		switch {
		case len(cx) == 0 || !(math.Abs(x0-xr) < hs):
			if haveLo && haveHi && hi-lo > 2*h {
				x = math.Min(math.Max(x, lo+h), hi-h)
			}
		case haveHi && hi-x0 <= hs:
			x, want = math.Min(x0, hi)-h, -1
		case haveLo && x0-lo <= hs:
			x, want = math.Max(x0, lo)+h, 1
		default:
			want = 1
		}
		xr = x0
		if x < 0 || (haveLo && x <= lo) || (haveHi && x >= hi) {
			return lo, hi, false
		}
		v := eval(x)
		add(x, v)
		if want != 0 && ok(v) != (want > 0) {
			// the model erred by more than h: close farther off
			hRel = math.Min(4*hRel, 0.2e-12)
		}
	}
}

// solveDecreasing returns a root of the decreasing f in [a, b] to a
// relative precision of 1e-15 by the Illinois variant of regula falsi
// (halving where that leaves the bracket): a where f(a) <= 0, b where
// f(b) > 0, NaN where f is NaN at an end.
func solveDecreasing(f func(float64) float64, a, b float64) float64 {
	fa, fb := f(a), f(b)
	switch {
	case math.IsNaN(fa) || math.IsNaN(fb):
		return math.NaN()
	case fa <= 0:
		return a
	case fb > 0:
		return b
	}
	side := 0
	for i := 0; i < 200 && b-a > 1e-15*b; i++ {
		x := (a*fb - b*fa) / (fb - fa)
		if !(x > a && x < b) {
			x = a + (b-a)/2
		}
		fx := f(x)
		switch {
		case math.IsNaN(fx):
			return math.NaN()
		case fx == 0:
			return x
		case fx > 0:
			a, fa = x, fx
			if side == 1 {
				fb /= 2
			}
			side = 1
		default:
			b, fb = x, fx
			if side == -1 {
				fa /= 2
			}
			side = -1
		}
	}
	return a + (b-a)/2
}

// discrepancy returns the interpolation of the points (cx, cv) near x0:
// linear through the nearest point and the nearest of those at least half
// as far from it as x0 (two points closer together would magnify the
// discrepancy's rounding), the nearest point's value where there is no
// such second point (or x0 is NaN: then the last point), 0 with none.
func discrepancy(cx, cv []float64, x0 float64) func(float64) float64 {
	if len(cx) == 0 {
		return func(float64) float64 { return 0 }
	}
	i := len(cx) - 1
	if math.IsNaN(x0) {
		c := cv[i]
		return func(float64) float64 { return c }
	}
	for k, x := range cx {
		if math.Abs(x-x0) < math.Abs(cx[i]-x0) {
			i = k
		}
	}
	xi, ci := cx[i], cv[i]
	sep := math.Max(math.Abs(x0-xi)/2, 1e-9*math.Abs(xi))
	j := -1
	for k, x := range cx {
		if math.Abs(x-xi) >= sep && (j < 0 || math.Abs(x-x0) < math.Abs(cx[j]-x0)) {
			j = k
		}
	}
	if j < 0 {
		return func(float64) float64 { return ci }
	}
	s := (cv[j] - ci) / (cx[j] - xi)
	return func(x float64) float64 { return ci + s*(x-xi) }
}
