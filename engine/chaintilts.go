package engine

import (
	"math"
	"slices"
)

// Tilts for the results of a chain. ComposeMany computes the 2^k-fold
// states once and shares them between its results; the final tilts of
// every level are chosen for the largest r (tiltsFor), and each level adds
// its own (+-3.5 of its loss's standard deviations). A result r far below
// the end then lacks its own final tilt +-3.5/sd_r on the levels before its
// last: the envelopes its compositions inherit are re-tilted (retilt) from
// tilts far above and far below its own, and in its far tail (8 or more of
// its standard deviations) its bounds are orders of magnitude looser than
// alone (Gauss sigma 200 sqrt 2, r = 1,024 in a chain to 65,536, delta at
// 1e-20: lower end 220 times below the exact value, alone 1.12 times). The
// tilt that resolves r's far tail is the same at every level (the loss of
// a level that reaches r's tail at L sits near L times its share of r's
// variance: the tilted mean of the same tilt), so a recomposition of r's
// top levels alone (a side chain) does not recover it: with r's tilts on its
// top 6 of 10 levels, r = 4,096 stayed 25 times below at delta 1e-20.
//
// Instead every level of the chain carries the tilts of the results it
// leads to, grouped: the results at most half the largest count fall into
// groups of counts within a factor 2 of an aim total/4^k (k >= 1), and the
// levels up to the group's top count (twice its aim) add +-T for the aim's
// final loss (T = 3.5/sd of the aim's loss, or its saddle-point tilt when
// that is below 0.9 T; capped as the final tilts), unless within a fifth of
// a tilt already chosen. A level adds at most maxChainTilts groups' tilts,
// those nearest above it (the envelopes of the early levels weigh least in
// a result's tail). The saddle-point tilts of the results far below the end
// (formerly their own saddle targets) are among them.
//
// Measured (Gauss sigma 200 sqrt 2, r = 1, 2, 4, ..., 65,536, 100,000
// buckets, delta at 1e-20): every r's lower end at most 1.4 times as far
// below the exact value as alone's and its upper end at most alone's, at
// 1.5 times the chain's CPU and 1.35 times its peak heap (composing each r
// alone: 10 times the CPU). Two groups per level instead of four left
// r = 4,096 82 times below (alone 3.3).

// chainTilt is a group of results of a ComposeMany chain: the levels of at
// most top observations add its tilts (addChainTilts).
type chainTilt struct {
	top int
	// sd is the standard deviation of the aim's final loss, saddle its
	// saddle-point tilt (0: none); the tilt is chosen from them per range
	sd, saddle float64
}

// chainTiltBase is the ratio between the aims of two groups of results.
const chainTiltBase = 4

// maxChainTilts is the largest number of groups whose tilts a level adds.
const maxChainTilts = 4

// chainGroup returns the group k >= 1 of a result r of a chain to total
// (0: the final tilts serve it): the k whose aim total/4^k is nearest to r
// in ratio.
func chainGroup(r, total int) int {
	if r < 1 || 2*r > total {
		return 0
	}
	return int(math.Floor(math.Log(float64(total)/float64(r))/math.Log(chainTiltBase) + 0.5))
}

// chainGroupTop returns the largest count of group k of a chain to total:
// twice its aim total/4^k.
func chainGroupTop(k, total int) int {
	return int(math.Floor(2 * float64(total) / math.Pow(chainTiltBase, float64(k))))
}

// setChainTilts records the groups of the results rs of a ComposeMany chain
// of the single mechanism m (chainTilts), sorted by top, largest first.
// With fewer than 3 tilts or without error correction there are none.
func (p *plan) setChainTilts(m Mechanism, rs []int) {
	p.chainTilts = nil
	if p.opt.DisableErrorCorrection || p.opt.Tilts < 3 {
		return
	}
	v := p.leaves[m].variance
	var ks []int
	for _, r := range rs {
		if k := chainGroup(r, p.total); k > 0 && !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	for _, k := range ks {
		aim := float64(p.total) / math.Pow(chainTiltBase, float64(k))
		sd := math.Sqrt(aim * v)
		if !(sd > 0) {
			continue
		}
		// the saddle-point tilt of the aim (rounded to a count: the cgf
		// sums count copies of the leaf's)
		count := max(1, int(math.Round(aim)))
		s := saddleOf(p.cgfs, []nameCount{{m.String(), count}}, 3.5/sd)
		p.chainTilts = append(p.chainTilts, chainTilt{top: chainGroupTop(k, p.total), sd: sd, saddle: s})
	}
}

// addChainTilts returns tau with the tilts of the groups that a composition
// of count observations over the range rangeL (nats) leads to: +-T for at
// most maxChainTilts groups whose top is at least count, the nearest first,
// each unless within a fifth of a positive tilt already in tau. T is
// capped as tiltsFor caps the final tilts; tau is not modified.
func (p *plan) addChainTilts(tau []float64, count int, rangeL float64) []float64 {
	if len(tau) < 3 || len(p.chainTilts) == 0 {
		return tau
	}
	c := math.Min(farTiltCap, math.Max(tiltCap, tiltCap*rangeL/swapRange))
	out := tau
	kept := 0
	for i := len(p.chainTilts) - 1; i >= 0 && kept < maxChainTilts; i-- {
		g := p.chainTilts[i]
		if count > g.top {
			continue
		}
		kept++
		T := chooseTiltsCap(g.sd, 3, rangeL, c)[1]
		if g.saddle > 0 && g.saddle < 0.9*T {
			T = g.saddle
		}
		if apart(out, T) {
			out = append(slices.Clip(out), T, -T)
		}
	}
	return out
}
