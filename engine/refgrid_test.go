package engine

import (
	"math"
)

// A rigorous bracket of delta_r(eps) for small r, for any reference pair
// of refpairs_test.go (and for histograms), independent of the engine: no
// buckets, no FFT, no shared code. In direction A||B (B||A exchanges the
// masses and negates the loss),
//
//	delta_r(eps) = E[f(L_1 + ... + L_r)],  f(x) = (1 - e^(eps - x))^+,
//
// with L_k independent, each distributed as the privacy loss of one step
// under A (+Inf on events with B-mass 0: f = 1). f is non-decreasing, and
// G(x) = 1 - e^(eps - x) is concave with G <= f, f = G where x >= eps.
//
// Cells. Each step's events are cut into cells (atoms, or t-intervals
// between the points where the loss crosses the grid x_i = i h) with
// masses P_c, Q_c known to a relative rounding bound, and losses in
// [l_c, u_c] (the cell's computed ends widened by the loss's error bound).
// On a cell, E_A[L | c] is bracketed without knowing the loss's
// distribution inside it: Jensen's inequality for e^-L gives E[L | c] >=
// ln(P_c/Q_c) (since E[e^-L | c] = Q_c/P_c), and Hoeffding's lemma for the
// range u_c - l_c = w_c gives E[L | c] <= ln(P_c/Q_c) + w_c^2/8. Each cell
// is filed under the grid point x = floor(l_c/h) h with the offset D = L -
// x in [0, u_c - x].
//
// Composition. Sequences of cells (c_1..c_r) are grouped by X = sum x_k (a
// grid point); D = sum D_k. Direct convolution of the arrays of masses M,
// of masses times mean offsets S (and, for the lower bound, times squared
// mean offsets V) gives, per grid point j, M_j = sum P(seq), S_j = sum
// P(seq) m(seq) and V_j = sum P(seq) m(seq)^2, m(seq) = sum_k E[D_k | c_k]
// (with the cell's lower or upper bound on the mean in place of the mean).
//
//   - Upper bound: on x_j >= eps, f(x_j + D) = G(x_j + D), concave in D,
//     so Jensen's inequality (within a sequence and across the sequences of
//     the bin) gives at most M_j G(x_j + S_j/M_j), increasing in the upper
//     bounds of the means. Below eps (c = eps - x_j in (0, W), W the
//     largest D), f(x_j + D) <= min(f(x_j + W), D (W - c)/W) (the chord of
//     the convex (D - c)^+ on [0, W], and monotonicity): concave and
//     increasing in D, so the same aggregation holds.
//   - Lower bound: G has |G''| <= K = e^(eps - x_j) on D >= 0, so
//     G(x_j + D) >= G(x_j + m) + G'(x_j + m)(D - m) - K (D - m)^2/2 for any
//     m; with m = S_j/M_j the bin's mean, E[f] >= E[G] >= M_j (G(x_j +
//     S_j/M_j) - K/2 (VarW + VarB)) with VarB = V_j/M_j - (S_j/M_j)^2 the
//     spread of the sequences' means and VarW <= r w^2/4 the spread within
//     a sequence (Popoviciu, w the widest cell). The lower means are used:
//     G is increasing, and lowering every mean lowers E[G].
//
// Cells that are not narrow (the ends of the grid's range) enter the upper
// bound with their loss rounded up to the next grid point (offset 0; +Inf
// for an unbounded cell: f <= 1) and the lower bound with their loss
// rounded down to l_c (dropped when l_c = -Inf; f >= 0). Mass bounds enter
// the upper bound inflated and the lower bound deflated (the lower bound
// then describes a sub-measure, which is allowed because f >= 0; the upper
// bound is increasing in M_j and S_j). Infinite losses: 1 - (1 - p)^r of
// the mass is on sequences with one, counted with f = 1. Partial sums that
// can no longer reach eps >= 0 (the largest loss of the remaining steps
// does not get them there) are dropped, and the outermost entries of a
// partial result holding less than 1e-150 of mass in total are dropped
// from the lower bound and moved to the +Inf mass of the upper bound.
// Floating-point sums of non-negative terms: a relative error of at most
// (n+3)u per convolution of n terms, accumulated over the levels and
// applied at the end, plus an absolute 1e-290 for underflow. The error of
// the bracket is of second order in h (r h^2 per step for the upper bound,
// r w^2 for the lower), except the first-order width of the bins next to
// eps in the upper bound, whose mass is of order h.

// gbCell is one group of events of one step in one direction: bounds on
// its P-mass (the direction's first distribution) and Q-mass, and an
// interval holding the privacy loss ln(dP/dQ) of every event in it.
type gbCell struct{ pLo, pHi, qLo, qHi, lo, hi float64 }

// gbCells is one step of a pair, cut into cells along the grid of width h
// over the losses [gLo, gHi] (direction A||B).
type gbCells []gbCell

// swap returns the cells of the direction B||A.
func (cs gbCells) swap() gbCells {
	out := make(gbCells, len(cs))
	for i, c := range cs {
		out[i] = gbCell{c.qLo, c.qHi, c.pLo, c.pHi, -c.hi, -c.lo}
	}
	return out
}

// massBounds returns bounds on e^l for l known to dl.
func massBounds(l, dl float64) (float64, float64) {
	if math.IsInf(l, -1) {
		return 0, 0
	}
	if !(dl < 0.5) {
		return 0, math.Inf(1)
	}
	return math.Exp(l - dl), math.Exp(l + dl)
}

// pairCells cuts one step of rp into cells at the grid losses i h inside
// [gLo, gHi].
func pairCells(rp rpPair, h, gLo, gHi float64) gbCells {
	var out gbCells
	for i := range rp {
		p := &rp[i]
		if p.atom {
			la, dla, lb, dlb := p.atomMasses()
			L, dL := p.atomLoss()
			c := gbCell{lo: L - dL, hi: L + dL}
			c.pLo, c.pHi = massBounds(la, dla)
			c.qLo, c.qHi = massBounds(lb, dlb)
			if math.IsInf(L, 0) {
				c.lo, c.hi = L, L
			}
			out = append(out, c)
			continue
		}
		out = append(out, p.cells(h, gLo, gHi)...)
	}
	return out
}

// cells cuts a continuous piece at the grid losses x_i = i h in [gLo, gHi]
// strictly inside its loss range: each cut is a point where the computed
// loss minus its error bound is at least x_i, so that the cell above it
// has losses >= x_i.
func (p *rpPiece) cells(h, gLo, gHi float64) gbCells {
	inc := p.increasing()
	lo, hi := p.lossRange()
	// the low-loss and high-loss ends of the piece in t
	tLow, tHigh := p.t1, p.t2
	if !inc {
		tLow, tHigh = p.t2, p.t1
	}
	_, eLow := p.lossAt(tLow)
	_, eHigh := p.lossAt(tHigh)
	var cuts []float64 // in order of increasing loss
	var cutLoss []float64
	iLo := math.Ceil(math.Max(lo, gLo) / h)
	iHi := math.Floor(math.Min(hi, gHi) / h)
	prev := tLow
	for i := iLo; i <= iHi; i++ {
		x := i * h
		if !(x > lo && x < hi) {
			continue
		}
		okHigh := func(t float64) bool { L, e := p.lossAt(t); return L-e >= x }
		a, b := p.threshold(x)
		start, dir, limit := b, 1.0, p.t2
		if !inc {
			start, dir, limit = a, -1, p.t1
		}
		t := expandTo(okHigh, start, dir, limit)
		if t == limit || (inc && t <= prev) || (!inc && t >= prev) {
			continue
		}
		cuts = append(cuts, t)
		L, e := p.lossAt(t)
		cutLoss = append(cutLoss, L-e)
		prev = t
	}
	var out gbCells
	add := func(ta, tb, l, u float64) {
		t1, t2 := ta, tb
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		if !(t2 > t1) {
			return
		}
		c := gbCell{lo: l, hi: u}
		c.pLo, c.pHi = p.massBoundsOf(t1, t2, true)
		c.qLo, c.qHi = p.massBoundsOf(t1, t2, false)
		out = append(out, c)
	}
	// from the low-loss end to the first cut, between cuts, to the end
	a, la := tLow, lo-eLow
	for k, t := range cuts {
		L, e := p.lossAt(t)
		add(a, t, la, L+e)
		a, la = t, cutLoss[k]
	}
	add(a, tHigh, la, hi+eHigh)
	return out
}

// massBoundsOf returns bounds on the P-mass (pSide) or Q-mass of (t1, t2)
// of the piece (flip applied); where the log-space value is not accurate
// (a very narrow interval), the upper bound is the smaller of the two
// tails around it.
func (p *rpPiece) massBoundsOf(t1, t2 float64, pSide bool) (float64, float64) {
	la, dla, lb, dlb := p.masses(t1, t2)
	if !pSide {
		la, dla = lb, dlb
	}
	lo, hi := massBounds(la, dla)
	if !math.IsInf(hi, 1) {
		return lo, hi
	}
	l1, d1, m1, e1 := p.masses(t1, p.t2)
	l2, d2, m2, e2 := p.masses(p.t1, t2)
	if !pSide {
		l1, d1, l2, d2 = m1, e1, m2, e2
	}
	_, h1 := massBounds(l1, d1)
	_, h2 := massBounds(l2, d2)
	return 0, math.Min(1, math.Min(h1, h2))
}

// gbDist is a (partial) composition in one direction: masses m, mass times
// mean offset s and (lower bound) times squared mean offset v, indexed
// from grid point lo; pInf the mass on +Inf; steps the steps composed.
type gbDist struct {
	lo      int
	m, s, v []float64
	dmax    []float64 // upper bound: the largest offset of the entry's sequences
	pInf    float64
	steps   int
}

// gbFloor returns i with i h <= l < (i+1) h in float64 (the grid points
// are float64(i)*h everywhere).
func gbFloor(l, h float64) int {
	i := int(math.Floor(l / h))
	for float64(i)*h > l {
		i--
	}
	for float64(i+1)*h <= l {
		i++
	}
	return i
}

// gbCeil returns the smallest i with i h >= l in float64.
func gbCeil(l, h float64) int {
	i := gbFloor(l, h)
	if float64(i)*h < l {
		i++
	}
	return i
}

// maxPlus returns the max-plus convolution of x and y over the entries
// where both masses are positive (-1: none).
func maxPlus(x, y, mx, my []float64) []float64 {
	out := make([]float64, len(x)+len(y)-1)
	for i := range out {
		out[i] = -1
	}
	for j, b := range y {
		if !(my[j] > 0) {
			continue
		}
		for i, a := range x {
			if mx[i] > 0 && a+b > out[i+j] {
				out[i+j] = a + b
			}
		}
	}
	return out
}

// gbStep is the per-step data of one direction's bracket.
type gbStep struct {
	up, low gbDist
	h       float64
	offUp   float64 // largest offset of the upper cells
	gapUp   float64 // largest excess of an upper mean over the true mean
	wUp     float64 // widest narrow cell (upper bound)
	offLow  float64 // largest offset of the lower cells
	wLow    float64 // widest narrow cell (lower bound)
	iMaxUp  int     // largest grid index of a finite upper entry
}

// newGbStep files the cells of one direction under the grid of width h
// whose range is [gLo, gHi]: cells entirely above it count as +Inf in the
// upper bound (f <= 1) and are dropped from the lower bound, cells
// entirely below it are rounded up to gLo (upper) or dropped (lower).
func newGbStep(cs gbCells, h, gLo, gHi float64) *gbStep {
	st := &gbStep{h: h}
	bottom := 0
	if !math.IsInf(gLo, 0) {
		bottom = gbCeil(gLo, h)
	}
	type ent struct {
		i          int
		m, s, v, d float64
	}
	var up, low []ent
	narrow := 1.5 * h
	for _, c := range cs {
		above, below := c.lo > gHi+h, c.hi < gLo-h
		// upper bound
		if c.pHi > 0 {
			switch {
			case c.lo == math.Inf(1) || c.hi == math.Inf(1) || math.IsInf(c.pHi, 1) || above:
				st.up.pInf += math.Min(c.pHi, 1)
			case below && c.hi != math.Inf(-1):
				up = append(up, ent{i: bottom, m: c.pHi})
			case c.hi == math.Inf(-1):
				// P-mass of an event with loss -Inf is 0
			case c.hi-c.lo > narrow || math.IsInf(c.lo, -1) || c.qLo == 0:
				up = append(up, ent{i: gbCeil(c.hi, h), m: c.pHi})
			default:
				i := gbFloor(c.lo, h)
				x := float64(i) * h
				w := c.hi - c.lo
				mu := math.Min(c.hi, ln(c.pHi)-ln(c.qLo)+w*w/8+8*u64*(1+math.Abs(c.hi)))
				off := math.Max(0, mu-x)
				st.offUp = math.Max(st.offUp, c.hi-x)
				// the true mean is at least max(lo, ln(pLo/qHi))
				muLo := c.lo
				if c.pLo > 0 && c.qHi > 0 && !math.IsInf(c.qHi, 1) {
					muLo = math.Max(c.lo, ln(c.pLo)-ln(c.qHi)-8*u64*(1+math.Abs(c.lo)))
				}
				st.gapUp = math.Max(st.gapUp, mu-muLo)
				st.wUp = math.Max(st.wUp, w)
				up = append(up, ent{i: i, m: c.pHi, s: c.pHi * off, v: c.pHi * off * off, d: c.hi - x})
			}
		}
		// lower bound
		if c.pLo > 0 {
			switch {
			case c.lo == math.Inf(1):
				st.low.pInf += c.pLo
			case math.IsInf(c.lo, -1) || above || below:
				// dropped
			default:
				i := gbFloor(c.lo, h)
				x := float64(i) * h
				mu := c.lo
				w := c.hi - c.lo
				if w <= narrow {
					st.wLow = math.Max(st.wLow, w)
					if c.qHi > 0 && !math.IsInf(c.qHi, 1) {
						mu = math.Max(c.lo, ln(c.pLo)-ln(c.qHi)-8*u64*(1+math.Abs(c.lo)))
					}
				}
				off := mu - x
				if c.hi-c.lo <= narrow {
					st.offLow = math.Max(st.offLow, c.hi-x)
				} else {
					st.offLow = math.Max(st.offLow, off)
				}
				low = append(low, ent{i: i, m: c.pLo, s: c.pLo * off, v: c.pLo * off * off})
			}
		}
	}
	fill := func(es []ent, d *gbDist, withD bool) {
		if len(es) == 0 {
			return
		}
		lo, hi := es[0].i, es[0].i
		for _, e := range es {
			lo, hi = min(lo, e.i), max(hi, e.i)
		}
		d.lo = lo
		n := hi - lo + 1
		d.m, d.s, d.v = make([]float64, n), make([]float64, n), make([]float64, n)
		if !withD {
			d.dmax = nil
		} else {
			d.dmax = make([]float64, n)
		}
		for _, e := range es {
			d.m[e.i-lo] += e.m
			d.s[e.i-lo] += e.s
			d.v[e.i-lo] += e.v
			if withD {
				d.dmax[e.i-lo] = math.Max(d.dmax[e.i-lo], e.d)
			}
		}
	}
	fill(up, &st.up, true)
	fill(low, &st.low, false)
	st.up.steps, st.low.steps = 1, 1
	st.iMaxUp = st.up.lo + len(st.up.m) - 1
	return st
}

// convolve3 returns the masses m = xm*ym, the first moments s = xs*ym +
// xm*ys and the second moments v = xv*ym + 2 xs*ys + xm*yv of the sum of
// two independent offsets, in one pass.
func convolve3(xm, xs, xv, ym, ys, yv []float64) (m, s, v []float64) {
	n := len(xm) + len(ym) - 1
	m, s, v = make([]float64, n), make([]float64, n), make([]float64, n)
	for j, bm := range ym {
		if bm == 0 {
			continue
		}
		bs, bv := ys[j], yv[j]
		om, os, ov := m[j:j+len(xm)], s[j:j+len(xm)], v[j:j+len(xm)]
		for i, am := range xm {
			as := xs[i]
			om[i] += am * bm
			os[i] += as*bm + am*bs
			ov[i] += xv[i]*bm + am*bv + 2*as*bs
		}
	}
	return m, s, v
}

// gbBracket is the r-fold bracket of one direction.
type gbBracket struct {
	st       *gbStep
	r        int
	up, low  gbDist
	gamma    float64 // relative rounding bound of the composed entries
	trimmed  float64 // mass moved to +Inf by the trimming (upper bound)
	maxEntry int     // largest array composed (for the cost)
}

// combine composes two partial results; lower selects the lower bound's
// trimming.
func (g *gbBracket) combine(x, y gbDist, lower bool) gbDist {
	var d gbDist
	d.steps = x.steps + y.steps
	d.lo = x.lo + y.lo
	d.pInf = x.pInf + y.pInf - x.pInf*y.pInf
	d.m, d.s, d.v = convolve3(x.m, x.s, x.v, y.m, y.s, y.v)
	if x.dmax != nil {
		d.dmax = maxPlus(x.dmax, y.dmax, x.m, y.m)
	}
	n := min(len(x.m), len(y.m))
	g.gamma += float64(n+3) * u64 * 2
	return g.trim(d, lower)
}

// gbTrimMass is the most mass the trimming of the outer entries may move.
const gbTrimMass = 1e-150

// trim drops the entries of d that can no longer reach eps >= 0, and the
// outermost entries holding less than gbTrimMass in total (moved to +Inf
// in the upper bound).
func (g *gbBracket) trim(d gbDist, lower bool) gbDist {
	rem := g.r - d.steps
	h := g.st.h
	off := g.st.offUp
	if lower {
		off = g.st.offLow
	}
	// i h + rem iMax h + (steps + rem) off < 0: never reaches 0
	a := 0
	for a < len(d.m) {
		i := d.lo + a
		top := float64(i)*h + float64(rem)*float64(g.st.iMaxUp)*h + float64(d.steps+rem)*(off+h)
		if lower {
			top = float64(i)*h + float64(rem)*(float64(g.st.iMaxUp)+2)*h + float64(d.steps+rem)*(off+h)
		}
		if top >= 0 {
			break
		}
		a++
	}
	// outer entries with little mass
	b := len(d.m)
	var cut float64
	for b > a && cut+d.m[b-1] < gbTrimMass/2 {
		cut += d.m[b-1]
		b--
	}
	for a < b && cut+d.m[a] < gbTrimMass {
		cut += d.m[a]
		a++
	}
	if !lower {
		d.pInf += cut
		g.trimmed += cut
	}
	d.lo += a
	d.m, d.s, d.v = d.m[a:b], d.s[a:b], d.v[a:b]
	if d.dmax != nil {
		d.dmax = d.dmax[a:b]
	}
	if len(d.m) > g.maxEntry {
		g.maxEntry = len(d.m)
	}
	return d
}

// newGbBracket composes r steps of one direction by binary powering.
func newGbBracket(st *gbStep, r int) *gbBracket {
	g := &gbBracket{st: st, r: r}
	var accUp, accLow *gbDist
	pUp, pLow := st.up, st.low
	for k := r; ; {
		if k&1 == 1 {
			if accUp == nil {
				u, l := pUp, pLow
				accUp, accLow = &u, &l
			} else {
				u := g.combine(*accUp, pUp, false)
				l := g.combine(*accLow, pLow, true)
				accUp, accLow = &u, &l
			}
		}
		k >>= 1
		if k == 0 {
			break
		}
		pUp = g.combine(pUp, pUp, false)
		pLow = g.combine(pLow, pLow, true)
	}
	g.up, g.low = *accUp, *accLow
	return g
}

// delta returns bounds on delta_r(eps) of the direction (eps >= 0 or
// +Inf).
func (g *gbBracket) delta(eps float64) (lo, hi float64) {
	h := g.st.h
	r := float64(g.r)
	gam := g.gamma + float64(len(g.up.m)+len(g.low.m)+8)*u64
	if math.IsInf(eps, 1) {
		return g.low.pInf * (1 - gam), math.Min(1, g.up.pInf*(1+gam)+1e-290)
	}
	// upper
	up := g.up.pInf
	for k, m := range g.up.m {
		if !(m > 0) {
			continue
		}
		x := float64(g.up.lo+k) * h
		mbar := g.up.s[k] / m
		c := eps - x
		W := g.up.dmax[k] * (1 + 1e-12)
		switch {
		case c <= 0:
			up += m * -math.Expm1(c-mbar)
		case c < W:
			up += m * g.kinkUpper(c, W, mbar, g.up.v[k]/m, gam)
		}
	}
	hi = math.Min(1, up*(1+gam)+1e-290)
	// lower
	low := 0.0
	varW := r * g.st.wLow * g.st.wLow / 4
	for k, m := range g.low.m {
		if !(m > 0) {
			continue
		}
		x := float64(g.low.lo+k) * h
		c := eps - x
		mbar := g.low.s[k] / m
		if c-mbar > 40 {
			continue // G < -e^40: the bound is negative
		}
		varB := math.Max(0, g.low.v[k]/m-mbar*mbar) + 4*gam*g.low.v[k]/m
		K := math.Exp(c)
		v := -math.Expm1(c-mbar) - K*(varW+varB)/2 - math.Exp(c-mbar)*2*gam*(1+mbar)
		if v > 0 {
			low += m * v
		}
	}
	// the composed pInf is the mass of the sequences with an infinite loss
	lo = math.Max(0, (g.low.pInf+low)*(1-gam)-1e-290)
	return lo, hi
}

// kinkUpper bounds E f(x + D) per unit mass for a bin whose offsets D in
// [0, W] straddle the kink c = eps - x of f(x + D) = max(0, G(D)), G(D) =
// 1 - e^(c - D), given the bin's mean of the upper means mbar and mean of
// their squares v2. Two majorants of f on [0, W]: the chord bound
// min(f(W), D (W - c)/W), and, for points p > c, the quadratic T_p(D) +
// kappa (D - p)^2 (T_p the tangent of G at p, which is above G, and
// kappa the smallest curvature keeping it >= 0 on [0, c]: with T_p's root
// D0 <= c, kappa = G'(p) max over D in [0, D0] of (D0 - D)/(p - D)^2).
// Its mean is G(p) + G'(p)(E D - p) + kappa E (D - p)^2 with E D <= mbar
// and E (D - p)^2 <= r w^2/4 (within a sequence) + the mean of (m - p)^2
// over the sequences' true means m, each at most gapUp r below its upper
// mean.
func (g *gbBracket) kinkUpper(c, W, mbar, v2, gam float64) float64 {
	best := math.Min(-math.Expm1(c-W), mbar*(W-c)/W)
	r := float64(g.r)
	e := r * g.st.gapUp
	varW := r * g.st.wUp * g.st.wUp / 4
	try := func(p float64) {
		Gp, dG := -math.Expm1(c-p), math.Exp(c-p)
		D0 := p - Gp/dG
		var kappa float64
		switch {
		case D0 <= 0:
			kappa = 0
		case 2*D0-p >= 0:
			kappa = dG / (4 * (p - D0))
		default:
			kappa = dG * D0 / (p * p)
		}
		// the mean of (m - p)^2 over the upper means, then the true ones
		sq := math.Max(0, v2-2*p*mbar+p*p) + 4*gam*(v2+p*p)
		sq += 2*e*(W+p) + e*e
		v := Gp + dG*(mbar-p) + kappa*(varW+sq)
		if v < best {
			best = v
		}
	}
	for _, f := range []float64{0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 1} {
		try(c + f*(W-c))
	}
	if mbar > c {
		try(mbar)
	}
	return math.Max(0, best)
}

// gridBracket is the bracket of both directions of an r-fold pair: the
// engine's Delta is the larger direction, so ln of the larger lower and the
// larger upper bound.
type gridBracket struct {
	ab, ba *gbBracket
	cells  int
}

// newGridBracketCells builds the bracket from the cells of one step, with
// an unbounded grid range.
func newGridBracketCells(cs gbCells, r int, h float64, oneDir bool) *gridBracket {
	return newGridBracketRange(cs, r, h, math.Inf(-1), math.Inf(1), oneDir)
}

// newGridBracketRange builds the bracket from the cells of one step on the
// grid of width h over the losses [gLo, gHi] (A||B; negated for B||A).
func newGridBracketRange(cs gbCells, r int, h, gLo, gHi float64, oneDir bool) *gridBracket {
	gb := &gridBracket{cells: len(cs)}
	gb.ab = newGbBracket(newGbStep(cs, h, gLo, gHi), r)
	if !oneDir {
		gb.ba = newGbBracket(newGbStep(cs.swap(), h, -gHi, -gLo), r)
	}
	return gb
}

// bracket returns ln of the lower and upper bound of max(delta_{A||B},
// delta_{B||A})(eps).
func (gb *gridBracket) bracket(eps float64) (float64, float64) {
	lo, hi := gb.ab.delta(eps)
	if gb.ba != nil {
		l2, h2 := gb.ba.delta(eps)
		lo, hi = math.Max(lo, l2), math.Max(hi, h2)
	}
	return ln(lo), ln(hi)
}

// lossSpan returns the losses (A||B) of rp's events: the ends of every
// continuous piece restricted to the t where its mixtures hold more than
// about 1e-88 of mass (20 units around the normal components, 200 around
// the Laplace ones), and every finite atom.
func (rp rpPair) lossSpan() (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range rp {
		p := &rp[i]
		if p.atom {
			if L, _ := p.atomLoss(); !math.IsInf(L, 0) {
				lo, hi = math.Min(lo, L), math.Max(hi, L)
			}
			continue
		}
		w := 20.0 // Q(20) = 2.8e-89
		if p.A.lap {
			w = 200
		}
		sMin, sMax := math.Inf(1), math.Inf(-1)
		for _, m := range []*rpMix{p.A, p.B} {
			for k, s := range m.s {
				if !math.IsInf(m.lw[k], -1) {
					sMin, sMax = math.Min(sMin, s), math.Max(sMax, s)
				}
			}
		}
		t1, t2 := math.Max(p.t1, sMin-w), math.Min(p.t2, sMax+w)
		if !(t2 >= t1) {
			continue
		}
		a, _ := p.lossAt(t1)
		b, _ := p.lossAt(t2)
		lo, hi = math.Min(lo, math.Min(a, b)), math.Max(hi, math.Max(a, b))
	}
	if !(hi > lo) {
		// a single loss (or none): a grid of width 1 around it
		if math.IsInf(lo, 1) {
			lo, hi = 0, 0
		}
		lo, hi = lo-0.5, hi+0.5
	}
	return lo, hi
}

// multiBracket intersects the brackets of several grids.
type multiBracket struct {
	gs  []*gridBracket
	hs  []float64 // their widths
	max int       // the largest array composed
}

// newMultiBracket brackets r steps of rp on nested grids of n intervals:
// the pair's whole loss span, and spans 8, 64 and 512 times narrower
// around 0 while they stay wider than 24 sqrt(r) standard deviations of
// one step's loss (under A, estimated from the cells): the bulk of a
// subsampled pair's losses is of the size of q times the shift, which the
// whole span's grid may not resolve. Every grid gives a rigorous bracket;
// their intersection is one too.
func newMultiBracket(rp rpPair, r, n int, oneDir bool) *multiBracket {
	gLo, gHi := rp.lossSpan()
	mb := &multiBracket{}
	span := gHi - gLo
	h0 := span / float64(n)
	cs0 := pairCells(rp, h0, gLo, gHi)
	sd := cellsLossSD(cs0)
	for k := 0; k < 4; k++ {
		w := span / math.Pow(8, float64(k))
		var cs gbCells
		lo, hi := gLo, gHi
		if k == 0 {
			cs = cs0
		} else {
			if w < 24*math.Sqrt(float64(r))*sd || w/float64(n) < 1e-9 {
				break
			}
			lo = math.Max(gLo, -w/2)
			hi = math.Min(gHi, lo+w)
			if hi-lo < w/2 {
				lo = math.Max(gLo, hi-w)
			}
			cs = pairCells(rp, (hi-lo)/float64(n), lo, hi)
		}
		h := (hi - lo) / float64(n)
		g := newGridBracketRange(cs, r, h, lo, hi, oneDir)
		mb.gs = append(mb.gs, g)
		mb.hs = append(mb.hs, h)
		mb.max = max(mb.max, g.ab.maxEntry)
		if g.ba != nil {
			mb.max = max(mb.max, g.ba.maxEntry)
		}
	}
	return mb
}

// cellsLossSD estimates the standard deviation of one step's loss under A
// from its cells (finite cells at their midpoints).
func cellsLossSD(cs gbCells) float64 {
	var m, s1, s2 float64
	for _, c := range cs {
		if math.IsInf(c.lo, 0) || math.IsInf(c.hi, 0) || !(c.pHi > 0) || math.IsInf(c.pHi, 1) {
			continue
		}
		x := (c.lo + c.hi) / 2
		m += c.pHi
		s1 += c.pHi * x
		s2 += c.pHi * x * x
	}
	if !(m > 0) {
		return 0
	}
	return math.Sqrt(math.Max(0, s2/m-(s1/m)*(s1/m)))
}

// bracket returns ln of the lower and upper bound of the engine's delta
// (the larger direction) at eps.
func (mb *multiBracket) bracket(eps float64) (float64, float64) {
	lo, hi := math.Inf(-1), math.Inf(1)
	for _, g := range mb.gs {
		l, h := g.bracket(eps)
		lo, hi = math.Max(lo, l), math.Min(hi, h)
	}
	return lo, hi
}

// dirs returns ln of the lower and upper bounds of each direction's delta
// (A||B, then B||A; equal for a bracket of one direction of a symmetric
// pair).
func (mb *multiBracket) dirs(eps float64) (float64, float64, float64, float64) {
	abLo, abHi, baLo, baHi := math.Inf(-1), math.Inf(1), math.Inf(-1), math.Inf(1)
	for _, g := range mb.gs {
		lo, hi := g.ab.delta(eps)
		abLo, abHi = math.Max(abLo, ln(lo)), math.Min(abHi, ln(hi))
		if g.ba != nil {
			lo, hi = g.ba.delta(eps)
		}
		baLo, baHi = math.Max(baLo, ln(lo)), math.Min(baHi, ln(hi))
	}
	return abLo, abHi, baLo, baHi
}

// histCells returns the cells of one step of the histogram pair (a, b):
// each outcome is an atom with loss ln(a_i/b_i).
func histCells(a, b []float64) gbCells {
	var out gbCells
	for i := range a {
		c := gbCell{pLo: a[i], pHi: a[i], qLo: b[i], qHi: b[i]}
		switch {
		case a[i] == 0 && b[i] == 0:
			continue
		case b[i] == 0:
			c.lo, c.hi = math.Inf(1), math.Inf(1)
		case a[i] == 0:
			c.lo, c.hi = math.Inf(-1), math.Inf(-1)
		default:
			L := ln(a[i]) - ln(b[i])
			e := 4 * u64 * (math.Abs(ln(a[i])) + math.Abs(ln(b[i])) + 1)
			c.lo, c.hi = L-e, L+e
		}
		out = append(out, c)
	}
	return out
}
