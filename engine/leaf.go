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
	// adds counts the masses summed into each regular bucket: a bucket's
	// rounding error is that of its own sum (gamma of its count), not of
	// all events'.
	adds    []int32
	maxAdds int32
	// sums of corner masses
	hiA, hiC, loA, loC, distA, distB float64
	// extra absolute errors of hiA and hiC (addUnknown)
	hiAErr, hiCErr float64
}

func newLeafBuilder(n int, lambda float64, tau []float64) *leafBuilder {
	return &leafBuilder{l: newList(n, lambda, tau)}
}

func (b *leafBuilder) grid() (float64, int) { return b.l.lambda, b.l.n }

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
// [lossLo, lossHi]. pa, pb >= 0; lossHi may be +Inf only with pb == 0.
func (b *leafBuilder) add(pa, pb, lossLo, lossHi float64) {
	if pa == 0 && pb == 0 {
		return
	}
	b.events++
	l := b.l
	n := l.n
	if pb == 0 {
		b.distA += pa
		return
	}
	if pa == 0 {
		b.distB += pb
		return
	}
	if lossHi > float64(n)*l.lambda*(1+1e-12)+l.lambda {
		b.hiA += pa
		b.hiC += pb
		return
	}
	if lossHi < -float64(n+2)*l.lambda {
		b.loA += pa
		b.loC += pb
		return
	}
	if math.IsInf(lossLo, -1) || math.IsNaN(lossLo) || math.IsNaN(lossHi) {
		// No lower bound on the ratio: keep the group in a corner (counted
		// in full in both directions, which is always sound).
		if lossHi <= 0 {
			b.loA += pa
			b.loC += pb
		} else {
			b.hiA += pa
			b.hiC += pb
		}
		return
	}
	i := bucketOf(lossHi, l.lambda)
	if i > float64(n) {
		b.hiA += pa
		b.hiC += pb
		return
	}
	if i <= float64(-n) {
		b.loA += pa
		b.loC += pb
		return
	}
	o := int(i) + n - 1
	l.a[o] += pa
	l.c[o] += pb
	if b.adds == nil {
		b.adds = make([]int32, 2*n)
	}
	b.adds[o]++
	b.maxAdds = max(b.maxAdds, b.adds[o])
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
	aLo, cLo = math.Max(aLo, 0), math.Max(cLo, 0)
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
	l.distA, l.distB = mk(b.distA), mk(b.distB)
	l.u = b.uMax
	l.compositions = 1
	l.names = []nameCount{{name, 1}}
	l.lo, l.hi = 0, 2*l.n-1
	l.trim()
	// every regular entry is within r of its value (no envelope yet)
	sa, sc := l.regularMass()
	l.l1A, l.l1C = rReg*sa*(1+4*unitRoundoff), rReg*sc*(1+4*unitRoundoff)
	return l
}
