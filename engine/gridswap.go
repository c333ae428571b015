package engine

import (
	"context"
	"fmt"
	"math"
)

// This file adds the swapped grid chain: a grid list of the pair
// (B, A) next to the grid list of (A, B), for very non-private compositions.
//
// A grid list stores A-masses and derives the B-masses as a_o e^-L_o
// (grid.go). Once the composed loss spans hundreds of nats the B-masses that
// decide delta in direction B||A sit at losses near -L_B (the mean loss
// under B), where the A-masses are about e^-(L_A + L_B) times the bulk's:
// below the FFT error envelopes (the tilts are capped at 600 over the range,
// gridTilts) or below float64 altogether (e^-745). They are then zeroed as
// noise or lost to underflow, and delta_up(B||A) is made of error bounds
// only: Gauss sigma 10, r = 2^16 at eps = 300 gave B||A in [0.830, 0.871]
// while A||B was [0.85107, 0.85116] (the pair is symmetric, so the two are
// equal). On the cases measured, the upper pair's
// derived B-mass sum_o a_o e^-L_o was within 1e-8 of 1 for composed ranges
// up to 324 nats, 0.02% to 0.6% short between 348 and 560, and all lost from
// 752 on.
//
// The swapped chain composes the grid list of (B, A): its A-masses are the
// B-masses of (A, B), held directly, at losses -L. Dominance is Blackwell's
// order, which swapping both pairs keeps: if (A', B') dominates (B, A), then
// (B', A') dominates (A, B). So the swapped list's A||B bounds are bounds on
// the B||A delta of the mechanism and its B||A bounds on A||B (all four
// sound, upper and lower), and Result.Delta takes in each direction the
// tightest of the grouped list, the grid list and the swapped grid list.
// The swapped leaf is the grid leaf of the same groups with the roles of the
// masses exchanged and the losses negated (the corners exchanged likewise),
// so the whole grid machinery (spread, merge, tilts, corners, errors)
// applies unchanged and its proofs with it.
//
// The swapped chain is composed only when a composed grid list's range (n+1)
// lambda exceeds swapRange, after the other chains (so its cost is paid by
// those compositions only).

// swapRange is the composed grid range (n+1) lambda, in nats, above which
// the swapped grid chain is composed: well above the rows of
// BenchmarkLists (at most 348 nats) and the moderately private DP-SGD cases (up to
// 560 measured, where the B side is still held), below the ranges at which
// the B side was lost entirely (752 nats and up).
const swapRange = 600

// needSwap reports whether the composed grid list g calls for the swapped
// chain.
func needSwap(g *list) bool {
	return g != nil && float64(g.n+1)*g.lambda > swapRange
}

// swapSource is what the swapped grid leaf of one mechanism is built from:
// the leaf builder that recorded its groups and corners, and the relative
// error of their masses.
type swapSource struct {
	b    *leafBuilder
	rel  float64
	name string
	leaf *list // built on first use
}

// keepSwapSource records the builder of m's grid leaf (plan.leafUntilted).
func (p *plan) keepSwapSource(m Mechanism, b *leafBuilder, rel float64) {
	if p.swapSources == nil {
		p.swapSources = map[Mechanism]*swapSource{}
	}
	p.swapSources[m] = &swapSource{b: b, rel: rel, name: m.String()}
}

// swappedBuilder returns a leaf builder holding the groups and corners of b
// for the pair (B, A): each group's masses exchanged and its loss interval
// negated, the corners above the range exchanged with those below it
// (their A- and B-masses exchanged too), the distinguishing masses
// exchanged.
func (b *leafBuilder) swappedBuilder() *leafBuilder {
	s := &leafBuilder{l: newList(b.l.n, b.l.lambda, nil), events: b.events, inexact: b.inexact, cellCuts: b.cellCuts, halfCuts: b.halfCuts}
	s.groups = make([]leafGroup, len(b.groups))
	for k, e := range b.groups {
		s.groups[k] = leafGroup{pa: e.pb, pb: e.pa, lossLo: -e.lossHi, lossHi: -e.lossLo, tiny: e.tiny}
	}
	if b.lowGroups != nil {
		s.lowGroups = make([]leafGroup, len(b.lowGroups))
		for k, e := range b.lowGroups {
			s.lowGroups[k] = leafGroup{pa: e.pb, pb: e.pa, lossLo: -e.lossHi, lossHi: -e.lossLo, tiny: e.tiny}
		}
	}
	s.hiA, s.hiC, s.hiAErr, s.hiCErr = b.loC, b.loA, b.loCErr, b.loAErr
	s.loA, s.loC, s.loAErr, s.loCErr = b.hiC, b.hiA, b.hiCErr, b.hiAErr
	s.distA, s.distB, s.distAErr, s.distBErr = b.distB, b.distA, b.distBErr, b.distAErr
	return s
}

// swapLeaf returns the swapped grid leaf of m, with the plan's leaf tilts.
func (p *plan) swapLeaf(m Mechanism) *list {
	src := p.swapSources[m]
	if src == nil {
		return nil
	}
	if src.leaf == nil {
		l := src.b.swappedBuilder().finishGrid(src.rel, src.name)
		l.tau = p.tau
		l.envA = make([]float64, len(p.tau))
		l.envC = make([]float64, len(p.tau))
		if g := p.gridLeaves[m]; g != nil {
			l.variance = g.variance
		}
		src.leaf = l
	}
	return src.leaf
}

// addSwapped composes the swapped chain of m for the results out (the
// r-fold compositions for r in rs) whose grid list calls for it, and adds it
// to them. It runs after the other chains, on the grid composer.
func (p *plan) addSwapped(ctx context.Context, m Mechanism, rs []int, out []*Result) error {
	if p.swapDeferred {
		return nil
	}
	var want []int
	var idx []int
	for i, res := range out {
		if needSwap(res.g) {
			want = append(want, rs[i])
			idx = append(idx, i)
		}
	}
	if len(want) == 0 {
		return nil
	}
	leaf := p.swapLeaf(m)
	if leaf == nil {
		return nil
	}
	p.addSteps(powerSteps(want))
	ss, err := p.composePowers(ctx, leaf, want)
	if err != nil {
		return err
	}
	for k, i := range idx {
		out[i].withSwap(ss[k])
	}
	return nil
}

// addSwappedSequence composes the swapped chain of the sequence parts when
// the composed grid list of res calls for it, and adds it to res.
func (p *plan) addSwappedSequence(ctx context.Context, parts []Part, res *Result) error {
	if !needSwap(res.g) {
		return nil
	}
	var acc *list
	for _, part := range parts {
		leaf := p.swapLeaf(part.Mechanism)
		if leaf == nil {
			return nil
		}
		p.addSteps(powerSteps([]int{part.Count}))
		ss, err := p.composePowers(ctx, leaf, []int{part.Count})
		if err != nil {
			return err
		}
		if acc == nil {
			acc = ss[0]
			continue
		}
		if acc, err = p.composePair(ctx, acc, ss[0]); err != nil {
			return err
		}
	}
	res.withSwap(acc)
	return nil
}

// withSwap adds the swapped grid list s (the grid list of (B, A)) of the
// same composition (nil: none).
func (r *Result) withSwap(s *list) *Result {
	if s != nil {
		r.s, r.sb = s, s.bounds()
	}
	return r
}

// swapDelta returns the bounds of the swapped grid list at eps, as bounds
// on the mechanism's pair (A||B and B||A exchanged).
func (r *Result) swapDelta(eps float64) DeltaBound {
	r.stableOnce.Do(func() { r.stable = r.s.gridTable(r.sb) })
	d := r.s.gridDelta(eps, r.stable)
	d.UpperAB, d.UpperBA = d.UpperBA, d.UpperAB
	d.LowerAB, d.LowerBA = d.LowerBA, d.LowerAB
	c := d.Corners
	d.Corners = Corners{InfinityA: c.LowB, DistinguishingA: c.DistinguishingB, LowB: c.InfinityA,
		DistinguishingB: c.DistinguishingA, LowA: c.InfinityB, InfinityB: c.LowA}
	return d
}

// swapEpsMax is the eps beyond which the swapped list has no regular atom.
func (r *Result) swapEpsMax() float64 {
	if s := r.s; s != nil {
		return (float64(s.n)+2)*s.lambda + math.Max(s.wUp, s.wLo)
	}
	return 0
}

// swapFromWire adds the swapped grid list of an encoded result (nil: none).
func (r *Result) swapFromWire(w *gridWire) error {
	s, ok := gridFromWire(w)
	if !ok {
		return fmt.Errorf("engine: decoding result: inconsistent swapped grid list")
	}
	r.withSwap(s)
	return nil
}
