package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// # Random allocation with k > 1 participations per epoch
//
// Every record is used in k of the epoch's t steps, a uniformly random
// k-subset. Upper bound: the reduction of Feldman and Shenfeld ("Privacy
// amplification by random allocation", arXiv 2502.08202; applied with the
// same floor/ceil split by their PLD_accounting package): with b =
// floor(t/k) and r = t - k b, one epoch is dominated by the composition of
// k - r allocations of 1 out of b steps and r allocations of 1 out of
// b + 1 steps. Proof sketch: cut the t steps into k blocks of sizes b and
// b + 1 by a uniformly random ordered partition and allocate z to one
// uniform step of each block; the chosen set is a k-subset whose law is
// invariant under every permutation of the steps, hence uniform. So the
// epoch's output law is a mixture, over the (hidden) partition, of block
// allocations; the hockey-stick divergence is jointly convex, so each
// direction's delta of the mixture is at most the average over partitions
// of the block allocations' deltas, all equal up to a relabelling of the
// steps. A block allocation runs one 1-out-of-|block| allocation per block
// with independent choices: for the pair of the non-adaptive worst case
// (z's contribution on one fixed axis in every step) its pair is the
// product of the blocks' pairs after reordering the coordinates, and the
// adaptive case is Feldman and Shenfeld's. Each block's pair is
// allocation.go's pair for t = b or b + 1 (Chua et al. 2025), so the
// product of their dominating pairs (allocation_pairs.go) dominates an
// epoch in both directions.
//
// The product is computed here on atoms (A-mass, B-mass) of the blocks'
// dominating pairs by doubling: every product of two atoms is a
// mean-preserving spread (in the likelihood ratio, under B) onto the two
// neighbouring points of a geometric ratio grid, with both fractions
// rounded up so that the result is a super-measure of the exact spread
// (both dominate, allocation_pairs.go); tails whose A- and B-mass are
// both below allocKTail go to the atoms at +-inf (a perfectly
// distinguishing split of an atom dominates it). The widths of the grid
// are chosen per level (about 3000 points over the level's range, at
// least 1e-4 nats), so k > 1 is looser than k = 1: the bracket is that of
// the reduction, and its width is not bounded by the tightness goals.
//
// Lower bound: the pair of the non-adaptive worst case (z contributes m
// along one fixed axis in every selected step) is attained; summing all t
// coordinates (a garbling: the orthogonal complement is discarded) gives
// N(k m / sqrt(t), 1) against N(0, 1), whatever the k-subset. So one epoch
// dominates the Gaussian mechanism with mu = k m / sqrt(t), which is the
// lower pair (lowerPaired). It is exact for k = t and loose for k << t.

// allocKTail: a tail of the product pair whose A-mass and B-mass are both
// below it is moved to the atoms at +-inf (costs at most that much delta).
const allocKTail = 1e-20

// kPair is a dominating pair held as atoms of exact ratio pa/pb (sorted by
// ratio) plus the atoms at loss +inf (A-mass aInf) and -inf (B-mass bInf).
// Every mass is an exact value of the pair (no relative error).
type kPair struct {
	pa, pb     []float64
	aInf, bInf float64
}

// kPairOf turns the upper groups of a one-block allocation (pairGroups)
// into a kPair, inflated by their relative error rel (a super-measure).
func kPairOf(gs []leafGroup, rel float64) *kPair {
	p := &kPair{}
	s := 1 + 2*rel + 4*unitRoundoff
	type at struct{ a, b float64 }
	var ats []at
	for _, g := range gs {
		switch {
		case g.lossLo >= 1e8 || g.pb == 0:
			p.aInf += g.pa * s
		case g.lossHi <= -1e8 || g.pa == 0:
			p.bInf += g.pb * s
		default:
			ats = append(ats, at{g.pa * s, g.pb * s})
		}
	}
	slices.SortFunc(ats, func(x, y at) int {
		rx, ry := x.a/x.b, y.a/y.b
		switch {
		case rx < ry:
			return -1
		case rx > ry:
			return 1
		}
		return 0
	})
	for _, a := range ats {
		p.pa = append(p.pa, a.a)
		p.pb = append(p.pb, a.b)
	}
	p.aInf *= 1 + 4*unitRoundoff
	p.bInf *= 1 + 4*unitRoundoff
	return p
}

// sums returns upper bounds of the total finite A- and B-mass.
func (p *kPair) sums() (sa, sb float64) {
	for i := range p.pa {
		sa += p.pa[i]
		sb += p.pb[i]
	}
	g := 1 + gamma(len(p.pa)+2)
	return sa * g, sb * g
}

// trimTails moves the atoms below and above the ratios where the tails'
// A- and B-masses both stay below allocKTail to the atoms at -inf and
// +inf (a split into a perfectly distinguishing pair dominates an atom).
func (p *kPair) trimTails() {
	n := len(p.pa)
	hi := n
	var ca, cb float64
	for hi > 0 && ca+p.pa[hi-1] <= allocKTail && cb+p.pb[hi-1] <= allocKTail {
		hi--
		ca += p.pa[hi]
		cb += p.pb[hi]
	}
	lo := 0
	var da, db float64
	for lo < hi && da+p.pa[lo] <= allocKTail && db+p.pb[lo] <= allocKTail {
		da += p.pa[lo]
		db += p.pb[lo]
		lo++
	}
	g := 1 + gamma(n+2)
	p.aInf += (ca + da) * g
	p.bInf += (cb + db) * g
	p.pa, p.pb = p.pa[lo:hi], p.pb[lo:hi]
}

// kProduct returns a dominating pair of the product of x and y: every
// product atom spread onto a geometric grid of ratios (see the top of the
// file).
func kProduct(ctx context.Context, x, y *kPair) (*kPair, error) {
	u := unitRoundoff
	out := &kPair{}
	// the atoms at +-inf: A-only times anything with A-mass, B-only times
	// anything with B-mass
	sax, sbx := x.sums()
	say, sby := y.sums()
	out.aInf = (x.aInf*(say+y.aInf) + y.aInf*sax) * (1 + 4*u)
	out.bInf = (x.bInf*(sby+y.bInf) + y.bInf*sbx) * (1 + 4*u)
	if len(x.pa) == 0 || len(y.pa) == 0 {
		return out, nil
	}
	// the range of the products' losses and the grid step
	lmin := math.Log(x.pa[0]/x.pb[0]) + math.Log(y.pa[0]/y.pb[0])
	lmax := math.Log(x.pa[len(x.pa)-1]/x.pb[len(x.pb)-1]) + math.Log(y.pa[len(y.pa)-1]/y.pb[len(y.pb)-1])
	w := math.Max(1e-4, (lmax-lmin)/3000)
	j0 := int(math.Floor(lmin/w)) - 2
	nj := int(math.Ceil(lmax/w)) - j0 + 4
	g := make([]float64, nj) // grid ratios, increasing
	for j := range g {
		g[j] = math.Exp(float64(j0+j) * w)
	}
	acc := make([]float64, nj)
	cnt := make([]int32, nj)
	for i := range x.pa {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for k := range y.pa {
			a := x.pa[i] * y.pa[k]
			b := x.pb[i] * y.pb[k]
			if b == 0 || a == 0 {
				// underflowed: both to the perfectly distinguishing atoms
				// (the product of the masses is at most 1e-300 or so;
				// bounded by the larger of the factors' products, rounded up)
				out.aInf += (a + 1e-300) * (1 + 4*u)
				out.bInf += (b + 1e-300) * (1 + 4*u)
				continue
			}
			// v within a relative 2u of a/b, a and b within u of the exact
			// products: the exact ratio within (1 +- 5u) v
			v := a / b
			j := int(math.Floor(math.Log(v)/w)) - j0
			for j > 0 && g[j] > v {
				j--
			}
			for j+2 < nj && g[j+1] < v {
				j++
			}
			d := g[j+1] - g[j]
			e := 5 * u * v / d
			th := ((v-g[j])/d + e) * (1 + 4*u)
			tl := ((g[j+1]-v)/d + e) * (1 + 4*u)
			bu := b * (1 + 2*u)
			acc[j+1] += bu * math.Min(1, th)
			acc[j] += bu * math.Min(1, tl)
			cnt[j]++
			cnt[j+1]++
		}
	}
	for j := range acc {
		if acc[j] == 0 {
			continue
		}
		b := acc[j] * (1 + gamma(int(cnt[j])+2))
		out.pb = append(out.pb, b)
		out.pa = append(out.pa, g[j]*b*(1+2*u))
	}
	out.trimTails()
	return out, nil
}

// allocKMech is the one-epoch dominating pair of k-out-of-t random
// allocation (k > 1): the product of the blocks' pairs.
type allocKMech struct {
	sigma, sens float64
	t, k        int
	name        string
	blocks      []*allocMech // the block sizes b (and b + 1)
	counts      []int        // how many blocks of each size
	low         Mechanism
	lowWhy      string // why low is nil

	once             buildOnce
	pair             *kPair
	absLoss, cumMass []float64
}

// newAllocK returns the pair of k-out-of-t allocation (k > 1, checked by
// the caller).
func newAllocK(sigma, sens float64, t, k int) (Mechanism, error) {
	b, r := t/k, t%k
	a := &allocKMech{sigma: sigma, sens: sens, t: t, k: k}
	sizes := []int{b}
	a.counts = []int{k - r}
	if r > 0 {
		sizes = append(sizes, b+1)
		a.counts = append(a.counts, r)
	}
	for _, s := range sizes {
		m, err := RandomAllocationGauss(sigma, sens, s, 1, AddRemove)
		if err != nil {
			return nil, err
		}
		a.blocks = append(a.blocks, m.(*allocMech))
	}
	// the sum statistic: mu = k m / sqrt(t), i.e. the Gaussian mechanism
	// with sigma' = sigma sqrt(t)/k, rounded up (a smaller mu is dominated)
	sl := sigma * math.Sqrt(float64(t)) / float64(k) * (1 + 8*unitRoundoff)
	if low, err := Gauss(sl, sens, 0); err == nil {
		a.low = low
	} else {
		a.lowWhy = fmt.Sprintf("no lower bound: the sum statistic's Gaussian pair (sigma %s) is outside the Gaussian mechanism's range: %v", fmtFloat(sl), err)
	}
	a.name = fmt.Sprintf("random_allocation_gauss(sigma=%s, steps_per_epoch=%d, participations=%d", fmtFloat(sigma), t, k)
	if sens != 1 {
		a.name += ", sensitivity=" + fmtFloat(sens)
	}
	a.name += ")"
	return a, nil
}

func (a *allocKMech) String() string { return a.name }

// lowerPair: the Gaussian pair of the sum statistic (see the top).
func (a *allocKMech) lowerPair() (Mechanism, bool, string) {
	if a.low == nil {
		return nil, true, a.lowWhy
	}
	return a.low, true, ""
}

func (a *allocKMech) prepare(ctx context.Context) error { return a.once.do(ctx, a.build) }

func (a *allocKMech) build(ctx context.Context) error {
	var acc *kPair
	for i, blk := range a.blocks {
		if err := blk.prepare(ctx); err != nil {
			return err
		}
		base := kPairOf(blk.upGroups, blk.relPairs)
		base.trimTails()
		pw, err := byDoubling(ctx, base, a.counts[i], kProduct)
		if err != nil {
			return err
		}
		if acc == nil {
			acc = pw
		} else if acc, err = kProduct(ctx, acc, pw); err != nil {
			return err
		}
	}
	a.pair = acc
	// |loss| table for lossRange, descending, with cumulative mass
	type lm struct{ l, w float64 }
	tab := make([]lm, len(acc.pa))
	for i := range acc.pa {
		tab[i] = lm{math.Abs(math.Log(acc.pa[i] / acc.pb[i])), acc.pa[i] + acc.pb[i]}
	}
	slices.SortFunc(tab, func(x, y lm) int {
		switch {
		case x.l > y.l:
			return -1
		case x.l < y.l:
			return 1
		}
		return 0
	})
	s := acc.aInf + acc.bInf
	a.absLoss, a.cumMass = a.absLoss[:0], a.cumMass[:0]
	for _, e := range tab {
		s += e.w
		a.absLoss = append(a.absLoss, e.l)
		a.cumMass = append(a.cumMass, s)
	}
	return nil
}

func (a *allocKMech) embed(b *leafBuilder) error {
	if err := a.prepare(context.Background()); err != nil {
		return err
	}
	u := unitRoundoff
	p := a.pair
	for i := range p.pa {
		l := math.Log(p.pa[i] / p.pb[i])
		wd := 8*u*(math.Abs(l)+1) + 1e-300
		b.add(p.pa[i], p.pb[i], l-wd, l+wd)
	}
	b.add(p.aInf, 0, math.Inf(1), math.Inf(1))
	b.add(0, p.bInf, math.Inf(-1), math.Inf(-1))
	return nil
}

// relErr: the atoms are exact values of a dominating super-measure.
func (a *allocKMech) relErr() float64 { return 4 * unitRoundoff }

// lossRange: the largest |loss| outside a tail of mass p.
func (a *allocKMech) lossRange(p float64) float64 {
	if err := a.prepare(context.Background()); err != nil {
		return 1
	}
	for i, l := range a.absLoss {
		if a.cumMass[i] > p {
			return l
		}
	}
	return 1e-3
}
