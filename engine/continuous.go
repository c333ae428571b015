package engine

import "math"

// monotonePair describes a pair of continuous distributions on the real line
// (in a standardised variable t) whose privacy loss L(t) = ln(p_A(t)/p_B(t))
// is monotone on [tMin, tMax]. It is embedded exactly, per Section 5.1: for
// each bucket i the set of t with L(t) in ((i-1) lambda, i lambda] is an
// interval, and the bucket receives the A- and B-probabilities of that
// interval, computed from accurate distribution functions. Binning the
// densities into a histogram first would be post-processing and could only
// lower delta, making the "upper" bound unsound.
type monotonePair struct {
	increasing bool
	tMin, tMax float64
	loss       func(t float64) float64 // L(t)
	lossErr    func(t float64) float64 // bound on the rounding error of loss(t)
	inv        func(L float64) float64 // t with L(t) = L (approximately)
	massA      func(t1, t2 float64) float64
	massB      func(t1, t2 float64) float64
	// lossAtMin, lossAtMax: limits of L at tMin and tMax (may be infinite).
	lossAtMin, lossAtMax float64
}

// embed adds the pair's events to b.
func (mp *monotonePair) embed(b *leafBuilder) {
	lam := b.l.lambda
	n := b.l.n
	lLo, lHi := mp.lossAtMin, mp.lossAtMax
	if !mp.increasing {
		lLo, lHi = mp.lossAtMax, mp.lossAtMin
	}
	// Bucket borders k*lambda for k = kLo..kHi (clipped to -n..n); the
	// border of bucket k is moved down by a tiny margin so that the loss at
	// the computed border is still <= k*lambda.
	kLo := max(-n, int(math.Floor(math.Max(lLo, -float64(n+1)*lam)/lam)))
	kHi := min(n, int(math.Ceil(math.Min(lHi, float64(n+1)*lam)/lam)))
	border := func(k int) float64 {
		L := float64(k) * lam
		if L <= lLo {
			if mp.increasing {
				return mp.tMin
			}
			return mp.tMax
		}
		if L >= lHi {
			if mp.increasing {
				return mp.tMax
			}
			return mp.tMin
		}
		margin := 1e-13 * math.Max(lam, math.Abs(L))
		x := L - margin
		if x <= lLo {
			if mp.increasing {
				return mp.tMin
			}
			return mp.tMax
		}
		t := mp.inv(x)
		if math.IsNaN(t) {
			return t // no border here: the caller merges the pieces
		}
		return math.Max(mp.tMin, math.Min(mp.tMax, t))
	}
	// piece adds the events with t between t1 and t2 (in loss order from
	// low to high: for increasing L, t1 < t2).
	piece := func(ta, tb float64) {
		t1, t2 := math.Min(ta, tb), math.Max(ta, tb)
		if !(t2 > t1) {
			return
		}
		pa := mp.massA(t1, t2)
		pb := mp.massB(t1, t2)
		l1, l2 := mp.lossBounds(t1), mp.lossBounds(t2)
		lo := math.Min(l1.lo, l2.lo)
		hi := math.Max(l1.hi, l2.hi)
		b.add(pa, pb, lo, hi)
	}
	lowEnd := mp.tMin
	if !mp.increasing {
		lowEnd = mp.tMax
	}
	prev := lowEnd
	for k := kLo; k <= kHi; k++ {
		t := border(k)
		if math.IsNaN(t) {
			// The inverse failed (e.g. a loss level its formula cannot
			// reach in float64): leave the border out. The pieces on both
			// sides become one, whose loss interval comes from its own
			// ends (lossBounds), so it is placed soundly, only less
			// precisely; skipping the piece would lose its mass.
			continue
		}
		piece(prev, t)
		prev = t
	}
	highEnd := mp.tMax
	if !mp.increasing {
		highEnd = mp.tMin
	}
	piece(prev, highEnd)
}

type lossInterval struct{ lo, hi float64 }

func (mp *monotonePair) lossBounds(t float64) lossInterval {
	if math.IsInf(t, 0) || t == mp.tMin || t == mp.tMax {
		// At an end of the support use the limit there.
		var L float64
		switch {
		case t == mp.tMin || math.IsInf(t, -1):
			L = mp.lossAtMin
		default:
			L = mp.lossAtMax
		}
		if !math.IsInf(L, 0) {
			e := mp.lossErr(t)
			return lossInterval{L - e, L + e}
		}
		return lossInterval{L, L}
	}
	L := mp.loss(t)
	e := mp.lossErr(t)
	return lossInterval{L - e, L + e}
}
