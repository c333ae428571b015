package engine

import (
	"context"
	"fmt"
	"math"
	"math/big"
)

// Gauss compositions in closed form.
//
// The r-fold product of the untruncated Gauss pair (N(0, s^2), N(d, s^2))
// has the privacy loss sum_i (d x_i - d^2/2)/s^2, which is N(mu^2/2, mu^2)
// under the first product and N(-mu^2/2, mu^2) under the second, with
// mu^2 = r d^2/s^2: the law of the one pair (N(0, 1), N(mu, 1)). Equal
// loss laws give equal hockey-stick divergences in both directions, equal
// Renyi divergences and equal trade-off curves (Dong, Roth, Su 2022,
// Corollary 3.3: mu-GDP composes as sqrt(mu_1^2 + ... + mu_k^2); Balle and
// Wang 2018). A heterogeneous sequence of untruncated Gauss parts is the
// same with mu^2 = sum_i r_i d_i^2/s_i^2. ComposeMany and ComposeSequence
// therefore build such compositions as one leaf of that one pair at the
// requested options, with no squaring and no transform: the bounds are the
// leaf's (its bucket error only), and the cost does not depend on r.
//
// Rounding: mu^2 is summed exactly (rationals) and mu is rounded both
// ways. delta_mu(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) is
// increasing in mu (d delta/d mu = phi(mu/2 - eps/mu) > 0), and D_alpha =
// alpha mu^2/2 and the trade-off curve Phi(Phi^-1(1 - alpha) - mu) are
// monotone likewise (the smaller-mu pair is a post-processing of the larger:
// add independent noise and rescale), so the leaf at mu rounded up
// dominates the composition and gives the upper bounds, and the leaf at mu
// rounded down is dominated by it and gives the lower bounds, as a lower
// pair (lowerpair.go; composed only when the two differ). The truncated
// Gauss is not closed under composition and keeps the chain.
//
// Options keep their meaning for the leaf: Buckets (0 means 100,000: the
// power path has nothing to do here), Factor, TailBudget, DeltaFloor,
// Tilts, Lists (the grouped and/or grid leaves, as the leaf builder makes
// them) and DisableErrorCorrection apply to the one leaf, whose factor is
// chosen for it alone (every r of a ComposeMany gets its own leaf, and
// its own factor). TailBudget is then the mass the leaf's corners may hold:
// deltas below about TailBudget/4 are bounded by it (1e-22 by default,
// whatever r). SquaringThreshold and FreeInftyBudget have no squarings
// to steer. The unexported power path options keep the chain (its tests
// compose Gauss pairs on purpose).

// gaussClosedMu returns mu = sqrt(sum_i count_i (sens_i/sigma_i)^2) of a
// sequence whose parts are all untruncated Gauss pairs, rounded down and
// up to float64 (equal when mu is a float), computed exactly; ok is false
// when a part is not an untruncated Gauss pair, a count is below 1, or mu
// lies outside [1e-100, 1e100] (the range of a Gauss leaf's ratio).
func gaussClosedMu(parts []Part) (down, up float64, ok bool) {
	if len(parts) == 0 {
		return 0, 0, false
	}
	sum := new(big.Rat)
	for _, p := range parts {
		g, isGauss := p.Mechanism.(*gaussMech)
		if !isGauss || g.trunc != 0 || p.Count < 1 || p.Count > 1<<40 {
			return 0, 0, false
		}
		var d, s big.Rat
		if d.SetFloat64(g.sens) == nil || s.SetFloat64(g.sigma) == nil || s.Sign() <= 0 {
			return 0, 0, false
		}
		q := new(big.Rat).Quo(&d, &s)
		q.Mul(q, q)
		q.Mul(q, new(big.Rat).SetInt64(int64(p.Count)))
		sum.Add(sum, q)
	}
	down, up = ratSqrtBounds(sum)
	if !(down >= 1e-100 && up <= 1e100) {
		return 0, 0, false
	}
	return down, up, true
}

// ratSqrtBounds returns the largest float64 whose square is at most x and
// the smallest whose square is at least x (x > 0, its square root a
// normal float64); the comparisons are exact.
func ratSqrtBounds(x *big.Rat) (down, up float64) {
	approx, _ := x.Float64()
	f := math.Sqrt(approx)
	cmp := func(v float64) int { // sign of v^2 - x
		var r big.Rat
		r.SetFloat64(v)
		return r.Mul(&r, &r).Cmp(x)
	}
	for f > 0 && cmp(f) > 0 {
		f = math.Nextafter(f, 0)
	}
	for n := math.Nextafter(f, math.Inf(1)); cmp(n) <= 0; n = math.Nextafter(f, math.Inf(1)) {
		f = n
	}
	if cmp(f) == 0 {
		return f, f
	}
	return f, math.Nextafter(f, math.Inf(1))
}

// gaussClosedApplies reports whether the options let the closed form
// replace the chain: not when a test asks for the power path explicitly.
func gaussClosedApplies(opt Options) bool { return opt.power == powerOff }

// ComposesInClosedForm reports whether ComposeMany composes r observations
// of m with opt in closed form, as one leaf of a pair whose loss law is
// the r-fold one (the untruncated Gauss pair: see Gauss compositions in
// closed form in engine/README.md), whatever Options.Path asks: then
// Options.Buckets is the leaf's bucket count, the cost does not depend on
// r, and neither the chain nor the power path runs.
func ComposesInClosedForm(m Mechanism, r int, opt Options) bool {
	if m == nil || r < 1 || !gaussClosedApplies(opt) {
		return false
	}
	_, _, ok := gaussClosedMu([]Part{{Mechanism: m, Count: r}})
	return ok
}

// composeGaussClosed is ComposeMany of an untruncated Gauss pair in closed
// form: one leaf per r (see Gauss compositions in closed form). ok is
// false when m or rs are not such (the caller then composes as usual,
// and reports any invalid input).
func composeGaussClosed(ctx context.Context, m Mechanism, rs []int, opt Options) (out []*Result, ok bool, err error) {
	if !gaussClosedApplies(opt) || len(rs) == 0 {
		return nil, false, nil
	}
	for _, r := range rs {
		if _, _, ok := gaussClosedMu([]Part{{Mechanism: m, Count: r}}); !ok {
			return nil, false, nil
		}
	}
	out = make([]*Result, len(rs))
	byR := map[int]*Result{}
	for i, r := range rs {
		if byR[r] == nil {
			res, err := composeGaussClosedParts(ctx, []Part{{Mechanism: m, Count: r}}, opt)
			if err != nil {
				return nil, true, err
			}
			byR[r] = res
		}
		out[i] = byR[r]
		if opt.Progress != nil {
			opt.Progress(i+1, len(rs))
		}
	}
	return out, true, nil
}

// composeGaussClosedSequence is ComposeSequence of a sequence of
// untruncated Gauss pairs in closed form (one leaf); ok is false when
// parts are not all such.
func composeGaussClosedSequence(ctx context.Context, parts []Part, opt Options) (res *Result, ok bool, err error) {
	if !gaussClosedApplies(opt) {
		return nil, false, nil
	}
	if _, _, ok := gaussClosedMu(parts); !ok {
		return nil, false, nil
	}
	res, err = composeGaussClosedParts(ctx, parts, opt)
	if err == nil && opt.Progress != nil {
		opt.Progress(1, 1)
	}
	return res, true, err
}

// composeGaussClosedParts composes parts, all untruncated Gauss pairs
// (gaussClosedMu), as one leaf at mu rounded up, with the leaf at mu
// rounded down as its lower pair where the two differ, and labels the
// result as the composition of parts.
func composeGaussClosedParts(ctx context.Context, parts []Part, opt Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	down, up, _ := gaussClosedMu(parts)
	o := opt
	o.Progress = nil
	upper := &gaussMech{sigma: 1, sens: up}
	out, err := gaussClosedLeaf(ctx, upper, o)
	if err != nil {
		return nil, err
	}
	if down != up && !o.DisableErrorCorrection {
		lower := &gaussMech{sigma: 1, sens: down}
		low, err := gaussClosedLeaf(ctx, lower, lowerOptions(o, lower))
		if err != nil {
			return nil, err
		}
		out.setLowerFrom(low)
	}
	out.labelGaussClosed(parts, upper, down)
	return out, nil
}

// Alignment. The grid pairs of one leaf are exact for delta at an eps on
// a grid point (Options.AlignEps): delta_{A||B}(eps) = sum over the
// events with loss above eps of A - e^eps B is linear in the masses on
// each side of the kink at loss eps, the upper pair spreads each event
// onto the two points around it keeping its A- and B-mass (grid.go), the
// lower pair merges events of one cell or half cell, and neither moves
// mass across a point; with eps on a point no cell straddles the kink, so
// both pairs' delta_{A||B}(eps) equal the mechanism's, and likewise
// delta_{B||A}(eps) with its kink at loss -eps, also a point of the
// symmetric grid. What remains is rounding and the corners (the range's
// tails). On Gauss sigma 200 sqrt2, r 512 at e^eps 1.5 the relative width
// was 2.1e-5 at 4,096 buckets and 1.5e-4 at 4,000 (the kink's place in
// its cell), 3.7e-12 with the spacing aligned. A composition spreads and
// merges at every level, so the composed lists' widths do not depend on
// where eps falls (DP-SGD chain, Laplace: smooth in the bucket count);
// only the closed form's one leaf aligns.

// alignedSpacing returns the spacing eps/k at or above lambda with k a
// whole number (so that eps = k lambda' is a grid point), and ok = false
// where that spacing would exceed alignMaxCoarsen times lambda (k < 4: eps
// within a few spacings of 0, where aligning would coarsen the whole grid).
// k lambda' is at least eps (the loss of point k is o lambda').
func alignedSpacing(eps, lambda float64) (float64, bool) {
	if !(eps > 0 && lambda > 0) {
		return lambda, false
	}
	k := math.Floor(eps / lambda)
	if !(k >= 1) || (k+1)/k > alignMaxCoarsen {
		return lambda, false
	}
	return atomFactor(eps, k, lambda), true
}

// alignMaxCoarsen is the largest factor by which alignedSpacing coarsens
// the spacing: (k+1)/k for k >= 4 whole spacings below eps.
const alignMaxCoarsen = 1.25

// gaussClosedLeaf returns the Result of one leaf of the Gauss pair m,
// built as the chain builds its leaves (plan.leafUntilted: the factor
// from the loss range at the tail budget, the grouped and the grid leaf
// from one embedding, the chain's final tilts, the swapped grid leaf
// where the range calls for it) except for the leaf's tail-moment tables,
// which only compositions use. Buckets 0 means 100,000: there is no path
// to choose for one leaf.
func gaussClosedLeaf(ctx context.Context, m *gaussMech, opt Options) (*Result, error) {
	if opt.Buckets == 0 {
		opt.Buckets = 100000
	}
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	parts := []Part{{Mechanism: m, Count: 1}}
	o = o.withTailBudget(parts)
	p := &plan{opt: o, n: o.Buckets / 2, total: 1, leaves: map[Mechanism]*list{},
		grid: !o.DisableErrorCorrection && o.Lists != ListsGrouped, gridLeaves: map[Mechanism]*list{}}
	if err := p.chooseFactor(parts, 1); err != nil {
		return nil, err
	}
	if o.Factor == 0 && o.AlignEps > 0 {
		if l, ok := alignedSpacing(o.AlignEps, p.lambda); ok {
			p.lambda, p.gridLambda = l, l
		}
	}
	b := newLeafBuilder(p.n, p.lambda, nil)
	b.recordGroups = p.grid
	if p.grid {
		// the grid leaf from the same embedding: cut at the cells beside
		// the grouped list, at half cells for the grid lists alone
		b.cellCuts = o.Lists != ListsGrid
		c := 2*p.n + 16
		if !b.cellCuts {
			c = 4*p.n + 16
		}
		b.groups = make([]leafGroup, 0, c)
	}
	b.inexact = true
	if err := m.embed(b); err != nil {
		return nil, fmt.Errorf("engine: embedding %s: %w", m, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	leaf := b.rel(m)
	p.leaves[m] = leaf
	var gleaf *list
	if p.grid {
		gleaf = b.finishGrid(leaf.relErrIn, m.String())
		p.gridLeaves[m] = gleaf
		p.keepSwapSource(m, b, leaf.relErrIn)
	}
	leaf.variance = leaf.lossVariance()
	p.finalSD = math.Sqrt(leaf.variance)
	p.tau = chooseTilts(p.finalSD, o.Tilts, float64(p.n+1)*p.lambda)
	for _, l := range []*list{leaf, gleaf} {
		if l != nil {
			l.tau = p.tau
			l.envA = make([]float64, len(p.tau))
			l.envC = make([]float64, len(p.tau))
			l.variance = leaf.variance
		}
	}
	var res *Result
	switch {
	case gleaf == nil:
		res = newResult(leaf, !o.DisableErrorCorrection, len(leaf.tau), p.lambda)
	case o.Lists == ListsGrid:
		res = newGridResult(gleaf, len(gleaf.tau), p.gridLambda)
	default:
		res = newResult(leaf, true, len(leaf.tau), p.lambda).withGrid(gleaf)
	}
	res.addNotes(p.notes)
	if needSwap(gleaf) { // one leaf: composePowers composes nothing
		p.cp = newComposer(p.n)
		p.gcp = newComposer(p.n)
		p.gcp.plans = p.cp.plans
		if err := p.addSwapped(ctx, m, []int{1}, []*Result{res}); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// labelGaussClosed makes r, the one leaf of the pair upper standing for
// the composition of parts, say so: its lists' names and Info.Mechanisms
// are those of the parts with their counts, Info.Compositions their total,
// and a note names the leaf (mu rounded up, and down for the lower
// bounds).
func (r *Result) labelGaussClosed(parts []Part, upper *gaussMech, down float64) {
	var names []nameCount
	total := 0
	for _, p := range parts {
		names = mergeNames(names, []nameCount{{p.Mechanism.String(), p.Count}})
		total += p.Count
	}
	for _, l := range []*list{r.l, r.g, r.s} {
		if l != nil {
			l.names = append([]nameCount(nil), names...)
		}
	}
	r.info.Mechanisms = compactNames(names)
	r.info.Compositions = total
	obs := "observations"
	if total == 1 {
		obs = "observation"
	}
	note := fmt.Sprintf("composed in closed form: %d Gauss %s as one Gauss pair, mu = sqrt(sum of count (sensitivity/sigma)^2) = %s", total, obs, fmtFloat(upper.sens))
	if down != upper.sens {
		note += fmt.Sprintf(" rounded up (upper bounds), %s rounded down (lower bounds)", fmtFloat(down))
	}
	r.addNotes([]string{note})
}
