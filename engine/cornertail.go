package engine

import (
	"math"
	"sync"
)

// Chernoff bounds on the corners of grouped lists (far tails).
//
// The overflow of a composition x × y (the regular pairs whose index sum
// leaves -n+1..n) is summed from the computed entries with their
// per-offset error bounds (overflow, tightenOverflow). At the ends of the
// range, 10 to 15 standard deviations of a level's privacy loss out, the
// true masses are far below the FFT error envelopes (no tilt points that
// far), so the overflow's error bound, not its mass, is what the corners
// collect; it doubles with every later composition and was the floor of
// the far tail (Vuvuzela conversation, r = 1,024: 3e-20 in each corner
// where the corners' values were 1e-23).
//
// A grouped list also knows the moment generating function of its regular
// events: every event of the leaf's regular buckets has its loss in
// [L(o) - u lambda, L(o)] and its masses below the bucket's upper end, so
//
//	M_A(tau) = sum_regular P_A(x) e^(tau L(x)),  M_B(tau) = sum_regular P_B(x) e^(tau L(x))
//
// are bounded from the leaf for every tau (tailMoments). The regular events
// of x × y are pairs of regular events of x and y (corners absorb, the
// overflow leaves), and the loss of a pair is the sum of the losses, so
// the bounds multiply (log-bounds add) through compositions; squaring
// moves no event out of the regular buckets. With Lemma 6 (every event of
// offset o of a list with counter u has loss at least L(o) - u lambda and
// at most L(o)), Markov's inequality bounds the true regular mass at the
// offsets >= o by min_tau>0 M(tau) e^(-tau (L(o) - u lambda)) and at the
// offsets <= o by min_tau<0 M(tau) e^(-tau L(o)). These tail bounds cap
// the masses that the overflow sums (overflowTail), and the corner keeps
// the enclosure [its old lower end, the smaller upper end].

// tailTaus are the tilts at which the leaves' moment bounds are kept:
// +-2^(k/2), k = -4..47 (0.25 to about 1.2e7 per unit of loss), so that the
// best tilt for a Gaussian tail is within 2^(1/4) of one of them (which
// keeps 96% of the exponent of the Chernoff bound).
var tailTaus = func() []float64 {
	var t []float64
	for k := -4; k < 48; k++ {
		v := math.Exp2(float64(k) / 2)
		t = append(t, v, -v)
	}
	return t
}()

// tailSkip: terms more than tailSkip below the largest term of a moment
// sum are bounded by e^-tailSkip each instead of being computed.
const tailSkip = 60

// tailMoments returns upper bounds on ln M_A(tau) and ln M_B(tau) for the
// tilts tailTaus over the regular buckets of the leaf l (grouped lists
// only): every mass at most its value times (1 + relA), plus abs, and
// every loss in [L(o) - u lambda, L(o)]. -Inf when the leaf has no regular
// mass.
func (l *list) tailMoments() (ma, mc []float64) {
	ma = make([]float64, len(tailTaus))
	mc = make([]float64, len(tailTaus))
	u := unitRoundoff
	lnA := make([]float64, 2*l.n)
	lnC := make([]float64, 2*l.n)
	for o := range lnA {
		lnA[o] = math.Log((l.a[o]*(1+l.relA)*(1+4*u) + l.abs) * (1 + 4*u))
		lnC[o] = math.Log((l.c[o]*(1+l.relC)*(1+4*u) + l.abs) * (1 + 4*u))
	}
	concurrently(func() {
		for k, tau := range tailTaus {
			ma[k] = lnMoment(lnA, tau, l.n, l.lambda, l.u)
		}
	}, func() {
		for k, tau := range tailTaus {
			mc[k] = lnMoment(lnC, tau, l.n, l.lambda, l.u)
		}
	})
	return ma, mc
}

// lnMoment returns an upper bound on ln sum_o e^(lnV[o] + tau L), L the
// loss of offset o taken at the end of [L(o) - u lambda, L(o)] that
// maximises tau L.
func lnMoment(lnV []float64, tau float64, n int, lambda, u float64) float64 {
	shift := 0.0
	if tau < 0 {
		shift = u
	}
	x := func(o int) float64 { return lnV[o] + tau*(float64(o-n+1)-shift)*lambda }
	mx := math.Inf(-1)
	for o := range lnV {
		if v := x(o); v > mx {
			mx = v
		}
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	var s float64
	skipped := 0
	for o := range lnV {
		if lnV[o] == math.Inf(-1) {
			continue
		}
		d := x(o) - mx
		if d < -tailSkip {
			skipped++
			continue
		}
		s += math.Exp(d)
	}
	s += float64(skipped) * math.Exp(-tailSkip+1)
	// the exponents' rounding (relative 4u of |x| each), exp's and the
	// sum's (gamma of the count), and the logarithm's
	// (s >= 1: the largest term is 1)
	e := 8*unitRoundoff*(math.Abs(mx)+math.Abs(tau)*float64(n+1+int(u+1))*lambda+800) + gamma(len(lnV)+8) + 1e-12
	return mx + math.Log(s)*(1+8*unitRoundoff) + e
}

// addMoments returns the moment bounds of a composition: ln M_x + ln M_y,
// rounded up; nil when either is unknown.
func addMoments(x, y []float64) []float64 {
	if x == nil || y == nil {
		return nil
	}
	z := make([]float64, len(x))
	for k := range x {
		s := x[k] + y[k]
		if !math.IsInf(s, 0) {
			s += math.Abs(s) * 2 * unitRoundoff
		}
		z[k] = s // NaN (-Inf + Inf) is skipped by tailBounds
	}
	return z
}

// tailStride is the spacing of the offsets at which tailBounds evaluates
// the Chernoff bound; between them the bound of the nearer end towards the
// bulk is used (the tail masses are monotone in the offset).
const tailStride = 256

// tailBounds returns, for one side of the grouped list l (moment bounds
// lnM), per block of tailStride offsets (offset o in block o/tailStride)
// upper bounds hiT on the true regular mass at the offsets >= the block's
// first offset (so >= o) and loT on that at the offsets <= the block's
// last (so <= o).
func (l *list) tailBounds(lnM []float64) (hiT, loT []float64) {
	m := 2 * l.n
	nb := (m + tailStride - 1) / tailStride
	hiT = make([]float64, nb)
	loT = make([]float64, nb)
	eval := func(pos float64, high bool) float64 {
		best := math.Inf(1)
		for k, tau := range tailTaus {
			if (tau > 0) != high || math.IsInf(lnM[k], 1) || math.IsNaN(lnM[k]) {
				continue
			}
			L := pos * l.lambda
			if high {
				L = (pos - l.u) * l.lambda
			}
			e := lnM[k] - tau*L
			e += 8 * unitRoundoff * (math.Abs(lnM[k]) + math.Abs(tau*L) + 1)
			best = math.Min(best, e)
		}
		if best >= 0 {
			return math.Inf(1)
		}
		return math.Exp(best) * (1 + 4*unitRoundoff)
	}
	for k := range hiT {
		o0 := k * tailStride
		o1 := min(m-1, o0+tailStride-1)
		hiT[k] = eval(float64(o0-l.n+1), true)
		loT[k] = eval(float64(o1-l.n+1), false)
	}
	return hiT, loT
}

// overflowTail returns upper bounds on the true masses of the high and the
// low overflow of x × y on one side (values vx, vy with per-offset error
// bounds ex, ey; moment bounds mx, my; regular totals' upper ends totX,
// totY): for a cut J, the pairs with x's offset beyond J weigh at most
// x's tail bound at J times totY, the others at most their x upper end
// times the smaller of y's summed upper ends and y's tail bound.
func overflowTail(x, y *list, vx, vy, ex, ey, mx, my []float64, totY float64) (hiU, loU float64) {
	n := x.n
	m := 2 * n
	hxT, lxT := x.cachedTailBounds(mx)
	hyT, lyT := y.cachedTailBounds(my)
	// High: pairs (ox, k) with k >= 3n-1-ox, ox >= n.
	hiU = math.Inf(1)
	var s, suf float64
	k := m
	for J := n; J <= m; J++ {
		// cut at J: pairs with ox >= J count through x's tail bound
		if J < m {
			if c := s + hxT[J/tailStride]*totY; c < hiU {
				hiU = c
			}
		} else if s < hiU {
			hiU = s
		}
		if J == m {
			break
		}
		kk := 3*n - 1 - J
		for k > kk {
			k--
			suf += vy[k] + ey[k]
		}
		ys := math.Min(suf, hyT[kk/tailStride])
		s += (vx[J] + ex[J]) * ys
	}
	// Low: pairs (ox, k) with k <= n-2-ox, ox <= n-2.
	loU = math.Inf(1)
	s = 0
	var pre float64
	k = -1
	for J := n - 2; J >= -1; J-- {
		if J >= 0 {
			if c := s + lxT[J/tailStride]*totY; c < loU {
				loU = c
			}
		} else if s < loU {
			loU = s
		}
		if J < 0 {
			break
		}
		kk := n - 2 - J
		for k < kk {
			k++
			pre += vy[k] + ey[k]
		}
		ys := math.Min(pre, lyT[kk/tailStride])
		s += (vx[J] + ex[J]) * ys
	}
	g := (1 + gamma(4*n+8)) * (1 + 1e-12)
	return hiU*g + 0x1p-1070, loU*g + 0x1p-1070
}

// capCorner returns c with its upper end lowered to u when u is smaller,
// keeping its lower end: the enclosure [c.lower(), min(c.upper(), u)].
// Caps of 1 or more are not taken (a mass is at most about 1, and the
// midpoint of a huge enclosure would make later products overflow).
func capCorner(c val, u float64) val {
	if !(u < c.upper()) || !(u < 1) {
		return c
	}
	lo := c.lower()
	if !(lo >= 0 && lo < math.Inf(1)) {
		lo = 0 // an undefined lower end (an infinite value): 0 is one
	}
	if u < lo {
		u = lo // both ends are sound: only rounding can cross them
	}
	v := lo + (u-lo)/2
	e := math.Max(u-v, v-lo)*(1+4*unitRoundoff) + 0x1p-1070
	return val{v, e}
}

// rawCorners returns the computed values of l's corners before any
// Chernoff cap (the capped values are midpoints of enclosures): hiA, loA,
// distA, hiC, loC, distB.
func (l *list) rawCorners() [6]float64 {
	if l.hasWatch {
		return l.raw
	}
	return [6]float64{l.hiA.v, l.loA.v, l.distA.v, l.hiC.v, l.loC.v, l.distB.v}
}

// rawMix returns the raw corner values of x × y from the operands' raw
// values, the regular sums and the uncapped overflow (the values of
// cornerMix, whose values depend on values alone).
func rawMix(x, y *list, rxA, ryA, ovHA, ovLA, rxC, ryC, ovHC, ovLC val) [6]float64 {
	px, py := x.rawCorners(), y.rawCorners()
	v := func(f float64) val { return val{f, 0} }
	dA, lA, hA := cornerMix(rxA, v(px[0]), v(px[1]), v(px[2]), ryA, v(py[0]), v(py[1]), v(py[2]), ovHA, ovLA)
	dC, lC, hC := cornerMix(rxC, v(px[3]), v(px[4]), v(px[5]), ryC, v(py[3]), v(py[4]), v(py[5]), ovHC, ovLC)
	return [6]float64{hA.v, lA.v, dA.v, hC.v, lC.v, dC.v}
}

// tailCache holds a list's tail bounds (tailBounds) for its two moment
// bounds, computed once: the same list is the operand of a trial
// composition and of the composition itself, and both operands of a
// squaring. It is shared by the list's re-tilted copies (the tail bounds
// do not depend on the tilts) and dropped by squaring.
type tailCache struct {
	mu     sync.Mutex
	moms   [2][]float64
	hi, lo [2][]float64
}

// cachedTailBounds returns l.tailBounds(lnM) through l's cache when lnM
// is one of l's moment bounds.
func (l *list) cachedTailBounds(lnM []float64) (hiT, loT []float64) {
	c := l.tails
	if c == nil || len(lnM) == 0 {
		return l.tailBounds(lnM)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.moms {
		if c.moms[i] != nil && &c.moms[i][0] == &lnM[0] {
			return c.hi[i], c.lo[i]
		}
	}
	hiT, loT = l.tailBounds(lnM)
	for i := range c.moms {
		if c.moms[i] == nil {
			c.moms[i], c.hi[i], c.lo[i] = lnM, hiT, loT
			break
		}
	}
	return hiT, loT
}
