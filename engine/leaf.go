package engine

import (
	"math"
)

// leafBuilder builds the leaf list B(A, B, f, n) of Definition 4 and 7 from
// groups of atomic events. Each group is described by its A-mass, its B-mass
// and an interval [lossLo, lossHi] holding the privacy-loss log-ratio
// ln(P_A(x)/P_B(x)) of every event in it. A group goes to the smallest index
// i with i*lambda >= lossHi (so Lemma 6 holds exactly), and the counter u of
// the leaf becomes the largest misplacement i - lossLo/lambda over all groups
// (1 for a continuous distribution, about 0 for atoms on bucket borders).
type leafBuilder struct {
	l      *list
	uMax   float64
	events int
	// inexact: the masses come from distribution functions whose results
	// below 2^-1022 (or 0) may be off by up to tinyMass (see exactMasses);
	// each such mass adds tinyMass to the error of its bucket or corner.
	inexact bool
	tiny    []int32 // per regular bucket: masses added with that allowance
	maxTiny int32
	// adds counts the masses summed into each regular bucket: a bucket's
	// rounding error is that of its own sum (gamma of its count), not of
	// all events'.
	adds    []int32
	maxAdds int32
	// sums of corner masses
	hiA, hiC, loA, loC, distA, distB float64
	// extra absolute errors of the corners (addUnknown, underflowed masses)
	hiAErr, hiCErr, loAErr, loCErr, distAErr, distBErr float64
	// grid: record the groups placed in regular buckets, for the grid
	// leaf (finishGrid)
	recordGroups bool
	groups       []leafGroup
	// cellCuts: a builder that records groups cuts them at the cells
	// (grid), not at half cells (the grouped leaf of the same embedding
	// keeps its numbers); halfCuts: grid gave a mechanism the half-cell
	// borders, so every group lies in one half cell (finishGrid then
	// merges half cells; otherwise whole cells)
	cellCuts, halfCuts bool
	// lowGroups, when not nil, are the groups of a separate pair that the
	// mechanism dominates: the grid leaf's lower pair is built from them
	// and its upper pair from groups alone (a mechanism that replaces
	// groups by a dominating pair, allocation_pairs.go)
	lowGroups []leafGroup
}

// tinyOf returns tinyMass if tiny, else 0.
func tinyOf(tiny bool) float64 {
	if tiny {
		return tinyMass
	}
	return 0
}

// exactMasses is implemented by mechanisms whose event masses are exact
// float64 numbers (histograms as given): no underflow allowance is needed.
type exactMasses interface{ exactMasses() bool }

func newLeafBuilder(n int, lambda float64, tau []float64) *leafBuilder {
	return &leafBuilder{l: newList(n, lambda, tau)}
}

// reserveGroups makes room in the groups' record (recordGroups) for k more
// groups and a few single ones beside them (groupReserver: the pieces of a
// continuous pair, a mechanism's atom or mirror next to them), in an array
// of just that size where the record has no room.
func (b *leafBuilder) reserveGroups(k int) {
	const slack = 16
	if need := len(b.groups) + k + slack; b.recordGroups && cap(b.groups) < need {
		g := make([]leafGroup, len(b.groups), need)
		copy(g, b.groups)
		b.groups = g
	}
}

// grid returns the spacing and the half-range of the borders at which a
// continuous mechanism cuts its events into groups: the buckets' unless a
// grid leaf is built from the groups alone (recordGroups without
// cellCuts); then half the bucket width (twice the borders), so that the
// grid leaf's lower pair knows on which side of each cell's midpoint its
// events lie (finishGrid merges the events within half a cell of each grid
// point; grid records that in halfCuts). A bucket then receives two
// groups, one more rounding in its sums.
func (b *leafBuilder) grid() (float64, int) {
	if b.recordGroups && !b.cellCuts {
		b.halfCuts = true
		return b.l.lambda / 2, 2 * b.l.n
	}
	return b.l.lambda, b.l.n
}

// bucketOf returns the smallest i with i*lambda >= loss, exactly (the sign of
// i*lambda - loss is taken from a fused multiply-add, which rounds once).
func bucketOf(loss, lambda float64) float64 {
	q := math.Ceil(loss / lambda)
	for math.FMA(q, lambda, -loss) < 0 {
		q++
	}
	for math.FMA(q-1, lambda, -loss) >= 0 {
		q--
	}
	return q
}

// add records events with A-mass pa and B-mass pb whose log-ratios lie in
// [lossLo, lossHi]. pa, pb >= 0. The events are distinguishing exactly
// when the interval says so: lossLo = +Inf (P_B = 0) or lossHi = -Inf
// (P_A = 0). A mass computed as 0 with a finite loss has underflowed (its
// true value is positive) and is kept with its events, not taken for a
// distinguishing event: that would put it into delta_low at every eps.
func (b *leafBuilder) add(pa, pb, lossLo, lossHi float64) {
	tinyA := b.inexact && pa < minNormal
	tinyB := b.inexact && pb < minNormal
	if pa == 0 && pb == 0 && !(tinyA || tinyB) {
		return
	}
	b.events++
	l := b.l
	n := l.n
	if math.IsInf(lossLo, 1) {
		b.distA += pa
		if tinyA {
			b.distAErr += tinyMass
		}
		return
	}
	if math.IsInf(lossHi, -1) {
		b.distB += pb
		if tinyB {
			b.distBErr += tinyMass
		}
		return
	}
	toCorner := func(hi bool) {
		if hi {
			b.hiA += pa
			b.hiC += pb
			b.hiAErr += tinyOf(tinyA)
			b.hiCErr += tinyOf(tinyB)
		} else {
			b.loA += pa
			b.loC += pb
			b.loAErr += tinyOf(tinyA)
			b.loCErr += tinyOf(tinyB)
		}
	}
	if lossHi > float64(n)*l.lambda*(1+1e-12)+l.lambda {
		toCorner(true)
		return
	}
	if lossHi < -float64(n+2)*l.lambda {
		toCorner(false)
		return
	}
	if math.IsInf(lossLo, -1) || math.IsNaN(lossLo) || math.IsNaN(lossHi) {
		// No lower bound on the ratio: keep the group in a corner (counted
		// in full in both directions, which is always sound).
		toCorner(!(lossHi <= 0))
		return
	}
	i := bucketOf(lossHi, l.lambda)
	if i > float64(n) {
		toCorner(true)
		return
	}
	if i <= float64(-n) {
		toCorner(false)
		return
	}
	o := int(i) + n - 1
	l.a[o] += pa
	l.c[o] += pb
	if b.recordGroups {
		b.groups = append(b.groups, leafGroup{pa, pb, lossLo, lossHi, tinyA || tinyB})
	}
	if b.adds == nil {
		b.adds = make([]int32, 2*n)
	}
	b.adds[o]++
	b.maxAdds = max(b.maxAdds, b.adds[o])
	if tinyA || tinyB {
		if b.tiny == nil {
			b.tiny = make([]int32, 2*n)
		}
		b.tiny[o]++
		b.maxTiny = max(b.maxTiny, b.tiny[o])
	}
	// misplacement i - lossLo/lambda, rounded up.
	mis := (math.FMA(i, l.lambda, -lossLo) / l.lambda) * (1 + 4*unitRoundoff)
	if mis > b.uMax {
		b.uMax = mis
	}
}

// addUnknown records events whose privacy loss is not known, with A-mass
// in [aLo, aHi] and B-mass in [cLo, cHi] in total. They go to the corner,
// which upper bounds count in full in both directions and lower bounds
// treat by lowerTerm of the totals: both sound whatever the losses.
func (b *leafBuilder) addUnknown(aLo, aHi, cLo, cHi float64) {
	if aHi <= 0 && cHi <= 0 {
		return
	}
	b.events++
	aLo, cLo = max(aLo, 0), max(cLo, 0)
	b.hiA += (aLo + aHi) / 2
	b.hiC += (cLo + cHi) / 2
	b.hiAErr += (aHi - aLo) / 2 * (1 + 4*unitRoundoff)
	b.hiCErr += (cHi - cLo) / 2 * (1 + 4*unitRoundoff)
}

// finish returns the leaf list; rel bounds the relative error of every mass
// passed to add.
func (b *leafBuilder) finish(rel float64, name string) *list {
	l := b.l
	// corners sum up to all events; a regular bucket only its own
	r := (rel + gamma(b.events+2)) * (1 + 2*unitRoundoff)
	rReg := (rel + gamma(int(b.maxAdds)+2)) * (1 + 2*unitRoundoff)
	l.relA, l.relC = rReg, rReg
	mk := func(v float64) val { return val{v, r * v} }
	l.hiA, l.hiC, l.loA, l.loC = mk(b.hiA), mk(b.hiC), mk(b.loA), mk(b.loC)
	l.hiA.e += b.hiAErr * (1 + 4*unitRoundoff)
	l.hiC.e += b.hiCErr * (1 + 4*unitRoundoff)
	l.loA.e += b.loAErr
	l.loC.e += b.loCErr
	l.distA, l.distB = mk(b.distA), mk(b.distB)
	l.distA.e += b.distAErr
	l.distB.e += b.distBErr
	l.abs = float64(b.maxTiny) * tinyMass
	l.u = b.uMax
	l.compositions = 1
	l.names = []nameCount{{name, 1}}
	l.lo, l.hi = 0, 2*l.n-1
	l.trim()
	// every regular entry is within r of its value (no envelope yet)
	sa, sc := l.regularMass()
	l.l1A, l.l1C = rReg*sa*(1+4*unitRoundoff), rReg*sc*(1+4*unitRoundoff)
	if l.abs > 0 {
		l.l1A += float64(2*l.n) * l.abs
		l.l1C += float64(2*l.n) * l.abs
	}
	return l
}
