package engine

import (
	"math"
	"runtime"
	"sync"
)

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
	// lossBoth and masses, when set, compute (loss(t), lossErr(t)) and
	// (massA(t1, t2), massB(t1, t2)) in one call, bit for bit the same
	// values, sharing the work the two have in common (one logMix, one
	// normMass); TestFusedPairFunctions compares them with the separate
	// functions. The separate functions remain the definition.
	lossBoth func(t float64) (L, e float64)
	masses   func(t1, t2 float64) (pa, pb float64)
	// lossAtMin, lossAtMax: limits of L at tMin and tMax (may be infinite).
	lossAtMin, lossAtMax float64
	// bothSides cuts every bucket border twice, below and above the loss
	// error, for pairs whose events are also added mirrored (mirrorSink):
	// a piece within [(k-1) lambda, k lambda] and its mirror image then
	// both have a misplacement of at most 1 (u of the leaf stays about 1
	// instead of 2), at the cost of a thin piece straddling each border.
	bothSides bool
}

// eventSink receives groups of atomic events: A-mass pa, B-mass pb and an
// interval [lossLo, lossHi] holding the privacy loss of every event in the
// group (leafBuilder.add, or a transformation of it such as mirrorSink).
// The loss of every event of a monotone pair is known to within its
// rounding, so a sink needs no way to take events of unknown loss (the
// leaves that have them call leafBuilder.addUnknown directly).
type eventSink interface {
	add(pa, pb, lossLo, lossHi float64)
	// grid returns the bucket width lambda = ln f and n of the list built.
	grid() (lambda float64, n int)
}

// embed adds the pair's events to b. Both densities are positive on (tMin,
// tMax): a piece whose computed mass is 0 or subnormal has underflowed, and
// the leaf builder keeps it with its underflow allowance (tinyMass).
func (mp *monotonePair) embed(b eventSink) {
	mp.embedWorkers(b, runtime.GOMAXPROCS(0))
}

// embedWorkers is embed computing the cuts and the pieces' masses on up to
// workers goroutines (they call only the pair's functions, which are pure);
// the pieces reach b one after the other in loss order, so the leaf is the
// same for any number of workers (TestEmbedWorkersIdentical).
func (mp *monotonePair) embedWorkers(b eventSink, workers int) {
	lam, n := b.grid()
	lLo, lHi := mp.lossAtMin, mp.lossAtMax
	if !mp.increasing {
		lLo, lHi = mp.lossAtMax, mp.lossAtMin
	}
	// Bucket borders k*lambda for k = kLo..kHi (clipped to -n..n); the
	// border of bucket k is moved down by a margin so that the upper end of
	// the loss interval at the computed border (loss plus its error bound)
	// is still <= k*lambda: the piece below it then goes to bucket k, with
	// a misplacement of about 1 (a margin below the error bound would push
	// it to bucket k+1 and leave a misplacement of 2). The margin grows
	// until that holds, up to lambda/4 (beyond which the piece simply goes
	// one bucket up, which is sound). Cuts never go back past the previous
	// one, so the pieces partition the line.
	kLo := max(-n, int(math.Floor(max(lLo, -float64(n+1)*lam)/lam)))
	kHi := min(n, int(math.Ceil(min(lHi, float64(n+1)*lam)/lam)))
	clamp := func(t float64) float64 { return max(mp.tMin, min(mp.tMax, t)) }
	// border returns the cut at loss level k*lambda moved down (side = -1:
	// the loss interval at the cut ends at or below k*lambda) or up (side =
	// +1: it starts at or above k*lambda), by a margin grown until that
	// holds, up to lambda/4.
	//
	// It also returns the loss interval at the cut when it computed it
	// (have): each cut's loss bounds are computed once and shared by the
	// test here and the two pieces the cut ends.
	border := func(k int, side float64) (cut float64, lb lossInterval, have bool) {
		L := float64(k) * lam
		if L < lLo || (side < 0 && L == lLo) {
			if mp.increasing {
				return mp.tMin, lb, false
			}
			return mp.tMax, lb, false
		}
		if L > lHi || (side > 0 && L == lHi) {
			if mp.increasing {
				return mp.tMax, lb, false
			}
			return mp.tMin, lb, false
		}
		memoT := math.NaN()
		var memo lossInterval
		bounds := func(t float64) lossInterval {
			if math.Float64bits(t) != math.Float64bits(memoT) {
				memo, memoT = mp.lossBounds(t), t
			}
			return memo
		}
		ok := func(t float64) bool {
			// the test of bucketOf, exactly: hi <= k*lambda (or lo >= k*lambda)
			b := bounds(t)
			if side < 0 {
				return math.FMA(float64(k), lam, -b.hi) >= 0
			}
			return math.FMA(float64(k), lam, -b.lo) <= 0
		}
		// at returns the cut for the loss level x, NaN where the inverse
		// fails (no border there: cut merges the pieces on both sides).
		at := func(x float64) float64 {
			switch {
			case x <= lLo:
				if mp.increasing {
					return mp.tMin
				}
				return mp.tMax
			case x >= lHi:
				if mp.increasing {
					return mp.tMax
				}
				return mp.tMin
			}
			t := mp.inv(x)
			if math.IsNaN(t) {
				return t
			}
			return clamp(t)
		}
		margin := 1e-13 * max(lam, math.Abs(L))
		t := at(L + side*margin)
		for it := 0; it < 8 && !math.IsNaN(t) && !ok(t) && margin < lam/4; it++ {
			b := bounds(t)
			miss := max(b.hi-L, L-b.lo)
			if math.IsNaN(miss) {
				break
			}
			margin = min(2*margin+2*miss, lam/4)
			if t2 := at(L + side*margin); !math.IsNaN(t2) {
				t = t2
			} else {
				break
			}
		}
		same := math.Float64bits(t) == math.Float64bits(memoT)
		return t, memo, same
	}
	// The cuts at every border k = kLo..kHi, computed in parallel; with
	// bothSides each border has a second cut, above it: a thin piece
	// straddling k*lambda (bucket k+1, misplacement about 1), so that the
	// next piece starts at or above k*lambda.
	per := 1
	if mp.bothSides {
		per = 2
	}
	// (the cuts sit at index 1.. of arrays with room for the pieces' ends
	// before and after them, which are written over the cuts below)
	nc := max(0, kHi-kLo+1) * per
	endBuf := make([]float64, nc+2)
	endLBBuf := make([]lossInterval, nc+2)
	cuts, cutLB := endBuf[1:nc+1], endLBBuf[1:nc+1]
	parallelRange(len(cuts), workers, func(i0, i1 int) {
		for i := i0; i < i1; i++ {
			side := -1.0
			if i%per == 1 {
				side = 1
			}
			t, lb, have := border(kLo+i/per, side)
			if !have && !math.IsNaN(t) {
				lb = mp.lossBounds(t)
			}
			cuts[i], cutLB[i] = t, lb
		}
	})
	lowEnd, highEnd := mp.tMin, mp.tMax
	if !mp.increasing {
		lowEnd, highEnd = mp.tMax, mp.tMin
	}
	// The pieces' ends in loss order: each cut, never back past the
	// previous one, so the pieces partition the line; endLB[i] is
	// lossBounds(ends[i]). They are written over the cuts: the end of cut
	// ci goes to index at most ci+1 of endBuf, where cut ci was, after
	// cut ci is read and before any later one would be.
	ends, endLB := endBuf[:1], endLBBuf[:1]
	ends[0], endLB[0] = lowEnd, mp.lossBounds(lowEnd)
	prev, prevLB := lowEnd, endLB[0]
	for ci, t := range cuts {
		if math.IsNaN(t) {
			// The inverse failed (e.g. a loss level its formula cannot
			// reach in float64): leave the border out. The pieces on both
			// sides become one, whose loss interval comes from its own
			// ends (lossBounds), so it is placed soundly, only less
			// precisely; skipping the piece would lose its mass.
			continue
		}
		c := t
		if mp.increasing {
			t = max(t, prev)
		} else {
			t = min(t, prev)
		}
		var lb lossInterval
		switch math.Float64bits(t) {
		case math.Float64bits(c):
			lb = cutLB[ci]
		case math.Float64bits(prev):
			lb = prevLB
		default:
			lb = mp.lossBounds(t)
		}
		ends = append(ends, t)
		endLB = append(endLB, lb)
		prev, prevLB = t, lb
	}
	ends = append(ends, highEnd)
	endLB = append(endLB, mp.lossBounds(highEnd))
	// Each piece holds the events with t between its ends (in loss order
	// from low to high: for increasing L, t1 < t2); empty pieces add
	// nothing. The masses are computed on all workers, the rest of each
	// piece (its emptiness, its loss interval) from the ends as it is
	// added.
	piece := func(i int) (t1, t2 float64, l1, l2 lossInterval, empty bool) {
		// (the ends are distinct: t1 and t2 are two of them, with their
		// loss bounds)
		t1, t2 = ends[i], ends[i+1]
		l1, l2 = endLB[i], endLB[i+1]
		if t1 > t2 {
			t1, t2, l1, l2 = t2, t1, l2, l1
		}
		return t1, t2, l1, l2, !(t2 > t1)
	}
	type pieceMass struct{ pa, pb float64 }
	pieces := make([]pieceMass, len(ends)-1)
	parallelRange(len(pieces), workers, func(i0, i1 int) {
		for i := i0; i < i1; i++ {
			t1, t2, _, _, empty := piece(i)
			if empty {
				continue
			}
			var pa, pb float64
			if mp.masses != nil {
				pa, pb = mp.masses(t1, t2)
			} else {
				pa, pb = mp.massA(t1, t2), mp.massB(t1, t2)
			}
			pieces[i] = pieceMass{pa: pa, pb: pb}
		}
	})
	if r, ok := b.(groupReserver); ok {
		k := 0
		for i := range pieces {
			if _, _, _, _, empty := piece(i); !empty {
				k++
			}
		}
		r.reserveGroups(k)
	}
	for i, pc := range pieces {
		if _, _, l1, l2, empty := piece(i); !empty {
			b.add(pc.pa, pc.pb, min(l1.lo, l2.lo), max(l1.hi, l2.hi))
		}
	}
}

// parallelRangeMin is the shortest range parallelRange splits: below it the
// goroutines' start and handoffs cost more CPU than they save wall time
// (at 4,096 DP-SGD 1.1/0.01, r 10^4 at target 1e-4 took 20% more CPU and 9%
// more wall time, 60 answers in one process on 2 cores, with the
// transforms' parallelMin at 2^17 beside it; answers at 2^20 points and
// more, and the chain at 100,000 buckets, within 3% either way).
const parallelRangeMin = 1 << 15

// groupReserver is an eventSink that records the groups it is given
// (leafBuilder with recordGroups): reserveGroups(k) makes room for k more
// before they come, so the record grows once, by what it needs.
type groupReserver interface {
	reserveGroups(k int)
}

// parallelRange calls f on consecutive parts [i0, i1) of [0, count), on up
// to workers goroutines (one when the range is shorter than
// parallelRangeMin), and waits for them.
func parallelRange(count, workers int, f func(i0, i1 int)) {
	if workers < 2 || count < parallelRangeMin {
		f(0, count)
		return
	}
	workers = min(workers, count/2048)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(i0, i1 int) {
			defer wg.Done()
			f(i0, i1)
		}(count*w/workers, count*(w+1)/workers)
	}
	wg.Wait()
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
	if mp.lossBoth != nil {
		L, e := mp.lossBoth(t)
		return lossInterval{L - e, L + e}
	}
	L := mp.loss(t)
	e := mp.lossErr(t)
	return lossInterval{L - e, L + e}
}

// mirrorSink adds every group of events twice: as given, and with the roles
// of A and B exchanged (loss negated). It builds the symmetrised pairs of
// subsampled.go from the positive-loss part of a pair.
type mirrorSink struct{ b eventSink }

func (m mirrorSink) add(pa, pb, lossLo, lossHi float64) {
	m.b.add(pa, pb, lossLo, lossHi)
	m.b.add(pb, pa, -lossHi, -lossLo)
}

func (m mirrorSink) grid() (float64, int) { return m.b.grid() }

// reserveGroups makes room for k groups added twice each.
func (m mirrorSink) reserveGroups(k int) {
	if r, ok := m.b.(groupReserver); ok {
		r.reserveGroups(2 * k)
	}
}
