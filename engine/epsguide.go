package engine

import "math"

// This file holds the guide of the eps searches (eps.go): a cheap,
// unverified approximation of a grid list's delta_up and delta_low that
// tells the searches where to evaluate the sound bounds. The guide decides
// only where delta is evaluated; every end an eps query returns is still a
// point where the sound bound (Result.deltaOwn) was evaluated and verified.
//
// The delta sums of a grid list (gridDeltaWith) are, direction by
// direction and apart from the rounding allowances and the error bounds,
//
//	A||B:  sum_(L_o > eps - w) m_o (1 - e^(eps - w - L_o))
//	     = S_0 - e^(eps - w) S_1,
//	B||A:  sum_(L_o < w - eps) m_o e^(w - L_o) (1 - e^(eps + L_o - w))
//	     = e^w H_1 - e^eps H_0,
//
// with S_j the sums of m_o e^(-j L_o) over the atoms above eps (a suffix of
// the offsets) and H_j those over the atoms below -eps (a prefix); m is the
// upper pair's masses with their error bounds (w = wUp) for delta_up and
// the lower pair's (w = -wLo) for delta_low. The guide keeps these sums at
// every guideBlock-th offset, so that one evaluation at any eps costs at
// most two partial blocks per sum: the eps searches solve the guide many
// times per sound evaluation.
//
// The suffix sums are accumulated from the top and the prefix sums from the
// bottom, so each is accurate relative to itself (the tail beyond eps),
// not to the total mass: the guide's values are smooth in eps to about the
// unit roundoff times the cancellation S_0 / delta, which the guided search
// needs (it fits only the guide's small, smooth discrepancy from the sound
// bound).

// guideBlock is the spacing of the guide's stored partial sums (offsets).
const guideBlock = 16

// epsGuide approximates a grid list's delta_up and delta_low at any eps
// (see above). It is built once per Result (Result.epsGuide).
type epsGuide struct {
	l *list
	t *gridTable
	// tail*[b] is the sum over the offsets o >= b guideBlock, head*[b] over
	// o < b guideBlock, of m_o (U: the upper pair's masses t.up, L: the
	// lower pair's t.low) and, in *T, of m_o e^(-L_o).
	tailU, tailUT, tailL, tailLT []float64
	headU, headUT, headL, headLT []float64
	// the eps-independent terms: the corners and distinguishing masses of
	// delta_up, the distinguishing masses of delta_low, per direction
	cUpAB, cUpBA, cLoAB, cLoBA float64
}

// newEpsGuide returns the guide of the grid list l with its table t, nil
// where e^(-L) leaves float64 on the grid (the guide's sums would not be
// finite) or the list is empty.
func newEpsGuide(l *list, t *gridTable) *epsGuide {
	m := 2 * l.n
	if m == 0 || !(float64(l.n+2)*l.lambda+math.Max(l.wUp, l.wLo) < 600) {
		return nil
	}
	for _, e := range t.t {
		if !(e > 0) || math.IsInf(e, 1) {
			return nil
		}
	}
	nb := (m + guideBlock - 1) / guideBlock
	mk := func() []float64 { return make([]float64, nb+1) }
	g := &epsGuide{l: l, t: t,
		tailU: mk(), tailUT: mk(), tailL: mk(), tailLT: mk(),
		headU: mk(), headUT: mk(), headL: mk(), headLT: mk(),
	}
	for b := nb - 1; b >= 0; b-- {
		var su, sut, sl, slt float64
		for o := min(m, (b+1)*guideBlock) - 1; o >= b*guideBlock; o-- {
			su += t.up[o]
			sut += t.up[o] * t.t[o]
			sl += t.low[o]
			slt += t.low[o] * t.t[o]
		}
		g.tailU[b] = g.tailU[b+1] + su
		g.tailUT[b] = g.tailUT[b+1] + sut
		g.tailL[b] = g.tailL[b+1] + sl
		g.tailLT[b] = g.tailLT[b+1] + slt
	}
	for b := 0; b < nb; b++ {
		var su, sut, sl, slt float64
		for o := b * guideBlock; o < min(m, (b+1)*guideBlock); o++ {
			su += t.up[o]
			sut += t.up[o] * t.t[o]
			sl += t.low[o]
			slt += t.low[o] * t.t[o]
		}
		g.headU[b+1] = g.headU[b] + su
		g.headUT[b+1] = g.headUT[b] + sut
		g.headL[b+1] = g.headL[b] + sl
		g.headLT[b+1] = g.headLT[b] + slt
	}
	g.cUpAB = l.distA.upper() + l.hiA.upper() + l.loA.upper()
	g.cUpBA = l.distB.upper() + l.loC.upper() + l.hiC.upper()
	g.cLoAB = l.lowDistA.lower()
	g.cLoBA = l.lowDistB.lower()
	return g
}

// firstAbove returns the first offset whose loss exceeds x (2n: none).
func (g *epsGuide) firstAbove(x float64) int {
	l := g.l
	m := 2 * l.n
	k := x/l.lambda + float64(l.n)
	if !(k > 0) {
		return 0
	}
	if k >= float64(m) {
		return m
	}
	o := int(k)
	for o < m && !(l.loss(o) > x) {
		o++
	}
	for o > 0 && l.loss(o-1) > x {
		o--
	}
	return o
}

// tail returns sum_(o >= k) m_o (t nil) or m_o t_o over offsets from the
// stored sums tails and the partial block above k.
func (g *epsGuide) tail(tails, m, t []float64, k int) float64 {
	b := (k + guideBlock - 1) / guideBlock
	s := tails[b]
	for o := min(b*guideBlock, len(m)) - 1; o >= k; o-- {
		if t == nil {
			s += m[o]
		} else {
			s += m[o] * t[o]
		}
	}
	return s
}

// head returns sum_(o < k) m_o (t nil) or m_o t_o from the stored sums
// heads and the partial block below k.
func (g *epsGuide) head(heads, m, t []float64, k int) float64 {
	b := k / guideBlock
	s := heads[b]
	for o := b * guideBlock; o < k; o++ {
		if t == nil {
			s += m[o]
		} else {
			s += m[o] * t[o]
		}
	}
	return s
}

// sums returns the guide's two directions at eps with the window w (wUp
// for delta_up, -wLo for delta_low) from the masses m and their sums.
func (g *epsGuide) sums(eps, w float64, m []float64, tail0, tail1, head0, head1 []float64) (ab, ba float64) {
	k := g.firstAbove(eps - w)
	ab = g.tail(tail0, m, nil, k) - math.Exp(eps-w)*g.tail(tail1, m, g.t.t, k)
	// B||A: the atoms with L < w - eps, the offsets below the first with
	// L >= w - eps
	kb := g.firstAbove(w - eps)
	for kb > 0 && !(g.l.loss(kb-1) < w-eps) {
		kb--
	}
	ba = math.Exp(w)*g.head(head1, m, g.t.t, kb) - math.Exp(eps)*g.head(head0, m, nil, kb)
	return math.Max(ab, 0), math.Max(ba, 0)
}

// up approximates delta_up(eps) of the grid list (unverified).
func (g *epsGuide) up(eps float64) float64 {
	ab, ba := g.sums(eps, g.l.wUp, g.t.up, g.tailU, g.tailUT, g.headU, g.headUT)
	return math.Max(ab+g.cUpAB, ba+g.cUpBA)
}

// low approximates delta_low(eps) of the grid list (unverified).
func (g *epsGuide) low(eps float64) float64 {
	ab, ba := g.sums(eps, -g.l.wLo, g.t.low, g.tailL, g.tailLT, g.headL, g.headLT)
	return math.Max(ab+g.cLoAB, ba+g.cLoBA)
}

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
// Each point is the root of the model ln guide(x) + c(x) = ln delta, c the
// discrepancy ln eval - ln guide interpolated linearly through the two
// sound evaluations nearest to the last model root (a constant with one,
// 0 with none). The discrepancy is smooth, so the model's root converges
// faster than a secant's on eval alone; once it moves by less than a
// quarter of the target width, the remaining evaluations close the
// bracket from each side at a quarter width off the root. The returned
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
	done := func() bool {
		return haveLo && haveHi && hi > lo && hi-lo <= 1e-12*hi
	}
	xr := math.NaN() // the last model root
	for it := 0; ; it++ {
		if done() {
			return lo, hi, true
		}
		if it == guidedMaxEvals {
			return lo, hi, false
		}
		c := discrepancy(cx, cv, xr)
		model := func(x float64) float64 { return ln(guide(x)) - lnd + c(x) }
		a, b := 0.0, eMax
		if haveLo {
			a = lo
		}
		if haveHi {
			b = hi
		}
		ma, mb := model(a), model(b)
		if !(a < b) || math.IsNaN(ma) || math.IsNaN(mb) {
			return lo, hi, false
		}
		// the model's root in [a, b]: an end where the model has none
		// inside (the root is then within rounding of that end)
		var x0 float64
		switch {
		case ma <= 0:
			x0 = a
		case mb > 0:
			x0 = b
		default:
			for i := 0; i < 200 && b-a > 1e-15*b; i++ {
				mid := a + (b-a)/2
				if model(mid) > 0 {
					a = mid
				} else {
					b = mid
				}
			}
			x0 = a + (b-a)/2
		}
		if !(x0 > 1e-300) {
			return lo, hi, false
		}
		h := 0.24e-12 * x0 // 3h is below the target width 1e-12 hi
		x := x0
		if len(cx) >= 2 && math.Abs(x0-xr) < h {
			// the model has settled: close the bracket
			switch {
			case haveHi && hi-x0 <= 2*h:
				x = hi - 3*h
			case haveLo && x0-lo <= 2*h:
				x = lo + 3*h
			default:
				x = x0 + h
			}
		} else if haveLo && haveHi && hi-lo > 2*h {
			x = math.Min(math.Max(x, lo+h), hi-h)
		}
		xr = x0
		if x < 0 || (haveLo && x <= lo) || (haveHi && x >= hi) {
			return lo, hi, false
		}
		add(x, eval(x))
	}
}

// discrepancy returns the linear interpolation of the points (cx, cv)
// through the two nearest to x0 (all of them when x0 is NaN: the last
// two), a constant with one point and 0 with none.
func discrepancy(cx, cv []float64, x0 float64) func(float64) float64 {
	switch len(cx) {
	case 0:
		return func(float64) float64 { return 0 }
	case 1:
		c := cv[0]
		return func(float64) float64 { return c }
	}
	i, j := len(cx)-1, len(cx)-2
	if !math.IsNaN(x0) {
		i, j = -1, -1
		for k, x := range cx {
			d := math.Abs(x - x0)
			switch {
			case i < 0 || d < math.Abs(cx[i]-x0):
				i, j = k, i
			case j < 0 || d < math.Abs(cx[j]-x0):
				j = k
			}
		}
	}
	xi, ci, xj, cj := cx[i], cv[i], cx[j], cv[j]
	if xi == xj {
		return func(float64) float64 { return ci }
	}
	s := (cj - ci) / (xj - xi)
	return func(x float64) float64 { return ci + s*(x-xi) }
}
