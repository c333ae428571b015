package engine

import (
	"math"
	"slices"
)

// Saddle-point tilts. The tilts of chooseTilts are 3.5 over the
// standard deviation of the privacy loss: for a Gaussian loss the tilted
// mean then sits 3.5 standard deviations above the mean, where the tails
// that delta queries read begin. A right tail heavier than a Gaussian one
// (subsampled mechanisms, whose tilted moments of order T are e^(T D_(T+1))
// with a Renyi divergence that grows fast in the order) reaches that point
// at a much smaller tilt, and the tilt 3.5/sd is then so strong that the
// tilted moments, which the FFT error envelopes are relative to, dwarf the
// tail they should resolve. The saddle-point tilt T solves
//
//	K1(T) = K1(0) + 3.5 sqrt(K2(0))
//
// for the first two derivatives K1, K2 of the cumulant generating function
// K(tau) = ln E_A[e^(tau L)] of the composed loss, the sum over the
// composed mechanisms of count times each leaf's. It is 3.5/sd for a
// Gaussian loss and smaller for heavier right tails. Any tilt is sound
// (the error analysis holds for every tilt within the caps); this only
// chooses where the envelopes are tight.

// cgfBlocks bounds the blocks of a leaf's copy (newCGF): a leaf of up to
// cgfBlocks buckets is copied exactly, a larger one coarsened, so that a
// saddle-point tilt costs about 170,000 exponentials (under 2 ms) whatever
// the buckets.
const cgfBlocks = 4096

// cgf is a copy of a leaf's A-masses for the derivatives of its cumulant
// generating function, inside the range (the corners are left out, as the
// tilted sequences leave them out): every bucket with mass at its loss, or
// for more than cgfBlocks buckets at most cgfBlocks blocks of consecutive
// buckets, each with its mass at its mass-weighted mean loss.
type cgf struct{ loss, mass []float64 }

// newCGF returns the copy of the A-masses of l.
func newCGF(l *list) cgf {
	var c cgf
	if l.lo > l.hi {
		return c
	}
	b := (l.hi - l.lo + cgfBlocks) / cgfBlocks
	if b == 1 {
		for o := l.lo; o <= l.hi; o++ {
			if l.a[o] > 0 {
				c.loss = append(c.loss, l.loss(o))
				c.mass = append(c.mass, l.a[o])
			}
		}
		return c
	}
	for o0 := l.lo; o0 <= l.hi; o0 += b {
		var m, ml float64
		for o := o0; o < o0+b && o <= l.hi; o++ {
			if a := l.a[o]; a > 0 {
				m += a
				ml += a * l.loss(o)
			}
		}
		if m > 0 {
			c.loss = append(c.loss, ml/m)
			c.mass = append(c.mass, m)
		}
	}
	return c
}

// derivs returns K1(tau) and K2(tau), the tilted mean and variance of the
// loss, and false when c holds no mass.
func (c cgf) derivs(tau float64) (k1, k2 float64, ok bool) {
	lo, hi := lossExtremes(c.loss)
	return c.derivsIn(tau, lo, hi)
}

// derivsIn is derivs with the loss's extremes lo and hi (lossExtremes)
// given: one pass over the masses.
func (c cgf) derivsIn(tau, lo, hi float64) (k1, k2 float64, ok bool) {
	mx := maxProduct(tau, lo, hi, len(c.loss))
	var s0, s1, s2 float64
	for i, L := range c.loss {
		w := c.mass[i] * math.Exp(tau*L-mx)
		s0 += w
		s1 += w * L
		s2 += w * L * L
	}
	if !(s0 > 0) {
		return 0, 0, false
	}
	m := s1 / s0
	return m, s2/s0 - m*m, true
}

// saddleOf returns the saddle-point tilt T in (0, tMax] of the composition
// of the mechanisms and counts in names, whose leaves' copies are in cgfs:
// K1(T) = K1(0) + 3.5 sqrt(K2(0)), by 40 halvings (evaluated only inside
// saddleBracket's bracket of the root). It returns 0 when a
// mechanism has no copy or the loss has no variance, tMax when K1(tMax)
// stays below the target.
func saddleOf(cgfs map[string]cgf, names []nameCount, tMax float64) float64 {
	if !(tMax > 0) || math.IsInf(tMax, 0) || len(names) == 0 {
		return 0
	}
	// each copy's loss extremes, once (derivsIn)
	type copyOf struct {
		c      cgf
		lo, hi float64
		found  bool
	}
	copies := make([]copyOf, len(names))
	for i, nc := range names {
		c, found := cgfs[nc.name]
		copies[i] = copyOf{c: c, found: found}
		copies[i].lo, copies[i].hi = lossExtremes(c.loss)
	}
	k := func(tau float64) (k1, k2 float64, ok bool) {
		for i, nc := range names {
			cp := copies[i]
			if !cp.found {
				return 0, 0, false
			}
			d1, d2, ok := cp.c.derivsIn(tau, cp.lo, cp.hi)
			if !ok {
				return 0, 0, false
			}
			k1 += float64(nc.count) * d1
			k2 += float64(nc.count) * d2
		}
		return k1, k2, true
	}
	mu, v, ok := k(0)
	if !ok || !(v > 0) {
		return 0
	}
	target := mu + 3.5*math.Sqrt(v)
	if d, _, ok := k(tMax); !ok || !(d > target) {
		return tMax
	}
	a, b := saddleBracket(k, target, tMax, math.Abs(mu)+math.Sqrt(v))
	lo, hi := 0.0, tMax
	for i := 0; i < 40; i++ {
		mid := (lo + hi) / 2
		switch {
		case mid <= a:
			lo = mid
		case mid >= b:
			hi = mid
		default:
			if d, _, ok := k(mid); ok && d > target {
				hi = mid
			} else {
				lo = mid
			}
		}
	}
	return hi
}

// saddleMargin is the relative distance (of the loss's scale |K1(0)| +
// sqrt(K2(0))) from the target by which saddleBracket's ends must clear
// it: a thousand times the rounding of K1's sums over a few thousand
// blocks.
const saddleMargin = 1e-10

// saddleBracket returns a < b in (0, tMax) around the root of K1(t) =
// target (k's first value) whose values K1(a) and K1(b) lie below and
// above the target by more than saddleMargin scale, so that saddleOf's
// bisection knows the outcome at every midpoint outside [a, b] without
// evaluating it (K1 increases: its derivative K2 is a variance), and
// evaluates only the few inside: its tilt is bitwise that of evaluating
// every midpoint (TestSaddleOfBitwise). The root is found by Newton's
// method safeguarded by bisection in [0, tMax] (K1(0) < target < K1(tMax));
// where no such bracket is found, (-Inf, +Inf): every midpoint evaluated.
func saddleBracket(k func(float64) (float64, float64, bool), target, tMax, scale float64) (a, b float64) {
	none := func() (float64, float64) { return math.Inf(-1), math.Inf(1) }
	margin := saddleMargin * scale
	if !(margin > 0) || math.IsInf(margin, 0) {
		return none()
	}
	lo, hi := 0.0, tMax
	x := tMax / 2
	var d, d2 float64
	for range 30 {
		var ok bool
		if d, d2, ok = k(x); !ok {
			return none()
		}
		if d > target {
			hi = x
		} else {
			lo = x
		}
		if math.Abs(d-target) <= margin {
			break
		}
		next := x - (d-target)/d2
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		x = next
	}
	if !(d2 > 0) {
		return none()
	}
	// ends 4 margins from the target by the local slope, checked
	delta := 4 * margin / d2
	a, b = x-delta, x+delta
	if !(a > 0) || !(b < tMax) {
		return none()
	}
	da, _, okA := k(a)
	db, _, okB := k(b)
	if !okA || !okB || !(da < target-margin) || !(db > target+margin) {
		return none()
	}
	return a, b
}

// saddleTarget is a result a chain of compositions reaches (count
// observations, loss standard deviation sd) and its saddle-point tilt (0:
// none).
type saddleTarget struct {
	count    int
	sd, tilt float64
}

// ChainCounts returns the numbers of compositions among rs that shape the
// states ComposeMany(m, rs, opt) computes, sorted and without repeats: the
// largest (the automatic factor and the final tilts are chosen for it) and,
// for each group of results at most half of it whose tilts the chain's
// levels add (chaintilts.go), the smallest r of rs in the group (any r of
// a group adds the same tilts). Every other r of rs only reads the chain's
// levels. So two calls with the same mechanism, options and ChainCounts
// give bitwise the same Result for every r they share, and a cache of
// composed states keys them by it (pipeline/cache).
func ChainCounts(rs []int) []int {
	if len(rs) == 0 {
		return nil
	}
	total := slices.Max(rs)
	first := map[int]int{} // group -> its smallest r
	for _, r := range rs {
		if k := chainGroup(r, total); k > 0 {
			if f, ok := first[k]; !ok || r < f {
				first[k] = r
			}
		}
	}
	out := []int{total}
	for _, r := range first {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// setTargets records the tilts of the results for rs of the single
// mechanism m (ComposeMany) that the levels of the chain add
// (setChainTilts): among them the saddle-point tilts of the results far
// below the final count. Measured: DP-SGD sigma 1.1, q 0.01, r = 1,000 in
// a chain to 100,000, delta at e^eps 16: [0, 5.2e-11] without them
// (alone: [2.220e-11, 2.221e-11]).
func (p *plan) setTargets(m Mechanism, rs []int) {
	p.setChainTilts(m, rs)
}
