package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// This file chooses, per ComposeMany call at the default settings, between
// the squaring chain (plan.go) and the power path (power.go), and the power
// path's transform length, from a prediction of both brackets' widths made
// before anything is composed.
//
// # The width predictor
//
// Both paths compose grid pairs (grid.go) whose slack is the grid's: the
// upper pair spreads each atom onto the two points around it (a
// mean-preserving spread that adds at most lambda^2/4 to the privacy loss's
// variance under A), the lower pair merges atoms onto a point between them
// (a garbling that removes about as much), at the leaf and, in the chain,
// at every squaring (odd atoms onto their even neighbours). Variances add
// under composition, so the gap between the two pairs' composed loss
// variances is a sum over the grid operations of each one's own gap times
// the number of times its list enters the final composition, and to first
// order both paths' brackets (in eps or in delta, upper minus lower) are
// proportional to that gap with the same factor: the query's sensitivity
// to the loss's spread. The predictor compares the gaps, not the
// brackets, so it needs no query.
//
//   - The power path builds one leaf on the spacing lambda_p = R/(N/2) (R
//     its composed range, powerRange; N the transform length) and raises it
//     to the r-th power without coarsening: gap_p = r lambda_p^2 c_leaf.
//     Where it composes in two stages (powerstage.go: m observations at
//     lambda_p/k, coarsened by log2 k squarings, raised to r/m), the gap
//     is gap_p times powerStages.gapFactor: 1/k^2 for the fine leaf, plus
//     c_sq/c_leaf (1/m) sum_j (2^j/k)^2 for the squarings at the spacings
//     2^j lambda_p/k (j < log2 k); its cost adds the first stage's
//     transform length.
//   - The chain builds its leaf on lambda_0 = t/n (t the leaf range for a
//     tail of TailBudget/(2r), n = Buckets/2) and squares (doubling the
//     spacing) whenever the 2^k-fold state's range would otherwise not cover
//     its loss out to the tail budget (Section 3.4's rule, approximated by
//     the Chernoff estimate of the range of 2^k observations, chainRange);
//     a squaring at count c and spacing lambda adds c_sq lambda^2 to that
//     state, which enters the r-fold composition r/c times: gap_c = r
//     (c_leaf lambda_0^2 + sum over squarings c_sq lambda_j^2 / c_j).
//
// The ratio c_sq/c_leaf (powerSquareWeight, 3: a squaring spreads or
// merges the odd half of the atoms by a whole old spacing, the leaf by
// part of one) and the margin powerMargin are calibrated on measured
// widths (the power path's width falls as N^-2 within 1% on every row
// measured). The predicted gap ratio (power at 2^18 over the chain at
// 100,000 buckets) against the measured width ratio: DP-SGD 1.1/0.01/10^4
// 0.59 against 2.0, 4/0.01/65,536 244 against 276, 1/0.001/250,000 0.52
// against 0.74, Gauss sigma 200 sqrt2 r 512 8.9 against 8.0. The chain
// beats the prediction by up to 3.5 (powerChainEdge) where the grouped
// list sets its lower bounds (DP-SGD 1.1/0.01/10^4: the grid lists alone
// give 2.3e-5, both lists 1.1e-5), so the power path is chosen only where
// its predicted gap is at most powerMargin = 1/4 of the chain's (one
// doubling of N below the measured break-even), and its predicted cost
// (powerCost, chainCost: fits to CPU seconds of one eps query measured on
// the rows above) below the chain's.
//
// # The tail probe
//
// The gaps predict the bulk. In the far tails the power path's rounding
// bound (r times a transform's error, relative to the tilted bulk) can set
// the bracket instead (DP-SGD sigma 0.8, q 0.01, r 1,000 at 2^18 points:
// eps(1e-5) 7 and eps(1e-8) 30 times the chain's width, the bulk 0.6
// times). So the power path's results for the shaping counts are probed
// after composing (probeTails, a few delta evaluations) and the chain
// composes instead when their tails widen beyond what the chain's would
// be. The shaping counts are probed largest first (their tails fail most
// often: of the sweep's single queries, 1 of 9 at r 10^5 kept the power
// path, 4 of 15 at 10^4), so a rejected call mostly wastes one
// composition. The
// choice, the lengths and the probe depend on the mechanism, the options
// and ChainCounts(rs) only, which the pipeline's cache keys hold.
//
// Known limits: the probe reaches delta 1e-13, not the deepest tails
// (down to the tail budget), where the power path may be looser than the
// chain; a call with many r composes each r on the power path (no sharing
// as the chain's levels), so a long sweep over r costs about that many
// compositions; and a power path the probe rejects has cost its
// composition for nothing: the width predictor sees the grid's slack in
// the bulk, not the tails' widths (predicting those from the tilts' predicted total errors,
// powerTilts, fell short of the probe's tail widths by factors up to 10^5
// on the sweep; what else sets them is not pinned down).

// powerAuto lets ComposeMany choose between the squaring chain and the
// power path (choosePath); powerOff forces the chain, powerOn the power
// path wherever the mechanism qualifies.
const powerAuto = powerOn + 1

// Calibration of the width predictor (see the file comment).
const (
	// powerSquareWeight is c_sq/c_leaf: the gap a squaring adds at the
	// spacing before it, against a leaf's gap at the same spacing.
	powerSquareWeight = 3.0
	// powerMargin is the largest ratio of the predicted gaps (power path
	// over chain) at which the power path is chosen.
	powerMargin = 0.25
	// powerMaxN is the largest transform length the choice considers: the
	// power path's peak RSS for DP-SGD at GOGC=25 was 78 MB at 2^19 and 301
	// MB at 2^21 points, the chain's at 100,000 buckets 143 MB, which
	// EstimateMemory of the default options covers.
	powerMaxN = 1 << 20
	// defaultBuckets is the bucket count of the chain at the default
	// settings (Options.Buckets = 0).
	defaultBuckets = 100000
)

// pathChoice is the outcome of choosePath: the chain, or the power path at
// transform length n, with the predicted gaps and costs that decided it.
type pathChoice struct {
	power     bool
	n         int     // transform length of the power path
	gapPower  float64 // predicted gap of the power path at n (loss variance)
	gapChain  float64 // predicted gap of the chain at the default buckets
	costPower float64 // predicted CPU seconds (powerCost, chainCost)
	costChain float64
	why       string     // why the chain, when it is chosen
	p         *plan      // the power path's plan, when it is chosen
	cr        chainRange // the range estimates the choice made (for the probe)
}

// autoPath reports whether opt leaves the choice of the path to the
// engine: PathDefault with the default bucket count, factor, lists and
// error correction (an explicit bucket count keeps the squaring chain at
// that count; PathChain and PathPower choose the path themselves).
func autoPath(opt Options) bool {
	switch opt.power {
	case powerAuto:
		return true
	case powerOff:
		return opt.Path == PathDefault && opt.Buckets == 0 && opt.Factor == 0 && opt.Lists == ListsBoth && !opt.DisableErrorCorrection
	}
	return false
}

// choosePath decides how ComposeMany composes m for rs with the options o
// (defaults applied). It depends on m, o and ChainCounts(rs) only (the
// pipeline's cache keys hold them), so that every r of a call gets the
// bits that the call's shaping counts fix.
func choosePath(m Mechanism, rs []int, o Options) (pathChoice, error) {
	counts := ChainCounts(rs)
	maxR := counts[len(counts)-1]
	if _, ok := m.(*countMech); ok {
		// the grid leaves of count pairs carry distinguishing events,
		// which the power path leaves to the chain (known without
		// building them)
		return pathChoice{why: "a count pair"}, nil
	}
	p, err := newPowerPlan(m, maxR, o)
	if err != nil {
		return pathChoice{}, err
	}
	if p == nil {
		return pathChoice{why: "the mechanism does not qualify for the power path"}, nil
	}
	cr := newChainRange(p.leaves[m], o.TailBudget, maxR)
	var best pathChoice
	for i, r := range counts {
		c := predictPath(p, m, cr, r, maxR, o)
		if !c.power {
			return c, nil
		}
		if i == 0 || c.n > best.n {
			best.n = c.n
		}
		best.gapPower = math.Max(best.gapPower, c.gapPower)
		best.gapChain = math.Max(best.gapChain, c.gapChain)
		best.costPower += c.costPower
		best.costChain = c.costChain
	}
	if !(best.costPower < best.costChain) {
		return pathChoice{why: fmt.Sprintf("predicted cost %.3g against the chain's %.3g", best.costPower, best.costChain)}, nil
	}
	best.power = true
	p.powerN = best.n
	best.p, best.cr = p, cr
	return best, nil
}

// predictPath returns the choice for the r-fold composition of m alone in
// a chain to maxR (the chain's leaf is that of maxR).
func predictPath(p *plan, m Mechanism, cr chainRange, r, maxR int, o Options) pathChoice {
	// powerRange's estimate on chainRange's grid of s (the same leaf)
	R := 1.05 * math.Max(cr.at(r), float64(p.n)*p.gridLambda)
	if !(R > 0) || R > powerMaxRange {
		return pathChoice{why: fmt.Sprintf("range %.3g nats", R)}
	}
	n := o.Buckets / 2
	t := m.lossRange(o.TailBudget / (2 * float64(maxR)))
	if !(t > 0) {
		return pathChoice{why: "no leaf range"}
	}
	gc := chainGap(cr, t/float64(n), n, r)
	c := pathChoice{gapChain: gc, costChain: chainCost(n, maxR)}
	// the spacing the power path will take (powerPrepare), for its choice
	// of two stages (powerStagesFor; its ranges computed once)
	lm := p.leaves[m].leafMeans()
	Rp := p.powerRangeWith(m, lm, r)
	memo := map[int]float64{}
	for N := powerMinN; N <= powerMaxN; N = powerLength(N + 1) {
		lp := R / float64(N/2)
		gp := float64(r) * lp * lp
		cost := powerCost(N)
		if st, ok := p.powerStagesMemo(m, r, N, Rp/float64(N/2), memo, &lm); ok {
			gp *= st.gapFactor()
			cost += float64(2*st.n1) * 1.0e-6
		}
		if gp <= powerMargin*gc {
			c.power, c.n, c.gapPower, c.costPower = true, N, gp, cost
			if !(c.costPower < c.costChain) {
				c.power = false
				c.why = fmt.Sprintf("power path at %d points predicted to cost %.3g, the chain %.3g", N, c.costPower, c.costChain)
			}
			return c
		}
	}
	c.why = fmt.Sprintf("power path looser than the chain up to %d points", powerMaxN)
	return c
}

// chainGap returns the predicted gap (in units of c_leaf) of the chain's
// r-fold composition: its leaf at spacing lambda0 on n points, squared
// whenever the 2^k-fold state's range would not cover chainRange.
func chainGap(cr chainRange, lambda0 float64, n, r int) float64 {
	fr := float64(r)
	gap := fr * lambda0 * lambda0
	lam := lambda0
	square := func(c int) {
		for float64(n+1)*lam < cr.at(c) && float64(n+1)*lam*2 <= maxRange {
			gap += fr / float64(c) * powerSquareWeight * lam * lam
			lam *= 2
		}
	}
	c := 1
	for ; 2*c <= r; c *= 2 {
		square(2 * c)
	}
	if c < r {
		square(r)
	}
	return gap
}

// chainRange estimates the range of the k-fold composition of a leaf: the
// loss where its A-mass above and B-mass below fall to the tail budget
// (Chernoff estimates from the grouped leaf's buckets at their mean loss,
// as powerRange, on a fixed grid of s so that many k cost little).
type chainRange struct {
	s          []float64
	lnHi, lnLo []float64 // ln M_A(s), ln M_A(-(1+s))
	lnTB       float64
	floor      float64 // the leaf's range
}

func newChainRange(l *list, tailBudget float64, maxK int) chainRange {
	lm := l.leafMeans()
	loss, mass := lm.loss, lm.mass
	lnM := func(s float64) float64 {
		mx := maxProduct(s, lm.lo, lm.hi, len(loss))
		var sum float64
		for i, L := range loss {
			sum += mass[i] * math.Exp(s*L-mx)
		}
		return mx + math.Log(sum)
	}
	sd := math.Sqrt(l.lossVariance())
	if !(sd > 0) {
		sd = 1
	}
	cr := chainRange{lnTB: math.Log(tailBudget), floor: float64(l.n) * l.lambda}
	// s from 0.05/sd(maxK) to 100/sd (powerRange's range for every count
	// up to maxK), a factor of 1.5 apart (at 2 the estimates grow enough
	// to move the choice of DP-SGD 1/0.001/250,000 by one length)
	for s := 0.05 / (sd * math.Sqrt(float64(maxK))); s <= 100/sd; s *= 1.5 {
		cr.s = append(cr.s, s)
		cr.lnHi = append(cr.lnHi, lnM(s))
		cr.lnLo = append(cr.lnLo, lnM(-(1 + s)))
	}
	return cr
}

// quantile returns the estimated loss above which k observations put an
// A-mass of e^lnP.
func (cr chainRange) quantile(k int, lnP float64) float64 {
	fk := float64(k)
	q := math.Inf(1)
	for i, s := range cr.s {
		q = math.Min(q, (fk*cr.lnHi[i]-lnP)/s)
	}
	return q
}

// at returns the estimated range of k observations.
func (cr chainRange) at(k int) float64 {
	fk := float64(k)
	hi, lo := math.Inf(1), math.Inf(1)
	for i, s := range cr.s {
		hi = math.Min(hi, (fk*cr.lnHi[i]-cr.lnTB)/s)
		lo = math.Min(lo, (fk*cr.lnLo[i]-cr.lnTB)/s)
	}
	return math.Max(math.Max(hi, lo), cr.floor)
}

// chainCost and powerCost are the predicted CPU costs (seconds on the
// machine of the calibration) of the chain with n points per side up to
// maxR observations and of the power path at transform length N.
func chainCost(n, maxR int) float64 {
	levels := math.Log2(float64(max(maxR, 2)))
	return float64(n) / 50000 * (0.35 + 0.06*levels)
}

func powerCost(N int) float64 {
	return 0.03 + float64(N)*1.0e-6
}

// powerTailSpread bounds the power path's relative eps widths in the tails
// (probeTails): at most powerTailSpread times the chain's predicted width
// in the bulk, the power path's own bulk width times the predicted gap
// ratio divided by powerChainEdge. Beyond it the power's rounding-error
// bound, not the grid's slack, sets the bracket there, and the chain keeps
// its tails tighter.
const (
	// powerProbeDelta is the smallest delta the probe covers: it stops at
	// the first probe whose delta falls below it.
	powerProbeDelta = 1e-13
	powerTailSpread = 2.0
	// powerChainEdge is the largest factor by which the chain's measured
	// bracket was narrower than the gap ratio predicts (the grouped list's
	// lower bounds, DP-SGD sigma 1.1, q 0.01, r 10^4: 3.5).
	powerChainEdge = 3.5
)

// composeAuto composes m for rs on the path choosePath chooses; nil when
// it chooses the chain, or when the power path gives up on m or its
// results for the shaping counts fail probeTails (the chain then composes
// it).
func composeAuto(ctx context.Context, m Mechanism, rs []int, o Options) ([]*Result, error) {
	c, err := choosePath(m, rs, o)
	if err != nil || !c.power {
		return nil, err
	}
	p := c.p
	p.addSteps(len(rs))
	p.stepsPlanned = true
	cr := c.cr
	edge := math.Max(1, c.gapChain/c.gapPower/powerChainEdge)
	counts := ChainCounts(rs)
	byR := map[int]*Result{}
	// the shaping counts first, the largest first (its tails fail the
	// probe most often): the choice stands or falls with them
	for _, r := range slices.Backward(counts) {
		out, _, err := p.composePowerMany(ctx, m, []int{r})
		if err != nil || out == nil {
			return nil, err
		}
		if ok, _ := probeTails(out[0], cr, r, edge, probeFloor(o)); !ok {
			return nil, nil
		}
		byR[r] = out[0]
	}
	res := make([]*Result, len(rs))
	for i, r := range rs {
		if byR[r] == nil {
			out, _, err := p.composePowerMany(ctx, m, []int{r})
			if err != nil || out == nil {
				return nil, err
			}
			byR[r] = out[0]
		}
		res[i] = byR[r]
	}
	return res, nil
}

// probeFloor returns the smallest delta probeTails checks for the options
// o: powerProbeDelta, or the question's floor (Options.DeltaFloor) where
// the power path's range was cut at the floor's budget (powerTailBudget):
// below the floor its delta_up is the corners' mass, which no question
// asks about.
func probeFloor(o Options) float64 {
	if o.powerTailBudget() > o.TailBudget {
		return math.Max(powerProbeDelta, o.DeltaFloor)
	}
	return powerProbeDelta
}

// probeTails reports whether res, the power path's r-fold composition,
// keeps its bracket narrow in the tails: at the estimated loss quantiles
// eps_k of the tail masses 10^-2, 10^-4, ... (chainRange; delta there is
// below the mass) down to delta_up = floor (probeFloor; the first quantile
// beyond it is replaced by the eps where ln delta_up, interpolated
// linearly from the probe before, reaches floor) it converts the
// relative width of the delta bracket into a relative eps width by the
// local slope of ln delta_up, and asks the widest to be at most
// powerTailSpread times the narrowest times edge (the predicted chain's
// bulk width over the power path's). It costs one delta evaluation per
// probe, one more for the last. (Stopping at the last quantile above
// 1e-13, as an earlier probe did, kept DP-SGD rows 0.6/0.004/10^4,
// 0.8/0.004/10^4 and five more sweep queries whose eps(1e-13) brackets
// were 1.1-4 times the chain's.)
func probeTails(res *Result, cr chainRange, r int, edge, floor float64) (bool, string) {
	type probe struct{ eps, lnUp, lnLow float64 }
	var ps []probe
	for k := 2; k <= 20; k += 2 {
		eps := cr.quantile(r, -float64(k)*math.Ln10)
		if !(eps > 0) || len(ps) > 0 && !(eps > ps[len(ps)-1].eps) {
			continue
		}
		d := res.Delta(eps)
		if !(d.Upper <= 0.5) {
			continue
		}
		if d.Upper < floor && len(ps) > 0 {
			// below the smallest delta checked: one probe where delta_up
			// is about powerProbeDelta instead (ln delta_up interpolated
			// linearly in eps)
			lp := ps[len(ps)-1]
			lnUp := math.Log(d.Upper)
			e := lp.eps + (math.Log(floor)-lp.lnUp)*(eps-lp.eps)/(lnUp-lp.lnUp)
			if !(e > lp.eps && e < eps) {
				break
			}
			eps, d = e, res.Delta(e)
		}
		if !(d.Lower > 0) || !(d.Upper > 0) {
			break
		}
		ps = append(ps, probe{eps, math.Log(d.Upper), math.Log(d.Lower)})
		if d.Upper < 2*floor {
			break
		}
	}
	if len(ps) < 2 {
		return false, "fewer than two tail probes"
	}
	lo, hi := math.Inf(1), 0.0
	for i, q := range ps {
		a, b := i, i+1
		if b == len(ps) {
			a, b = i-1, i
		}
		slope := (ps[a].lnUp - ps[b].lnUp) / (ps[b].eps - ps[a].eps)
		w := (q.lnUp - q.lnLow) / slope / q.eps
		if !(slope > 0) || math.IsNaN(w) {
			w = math.Inf(1)
		}
		lo, hi = math.Min(lo, w), math.Max(hi, w)
	}
	if !(hi <= powerTailSpread*edge*lo) {
		return false, fmt.Sprintf("tail width %.3g against %.3g", hi, lo)
	}
	return true, fmt.Sprintf("tail width %.3g against %.3g", hi, lo)
}

// PowerQualifies reports whether ComposeMany with Options.Path = PathPower
// would compose r observations of m by the power path, as far as it is
// known before composing: false for the mechanisms, options and ranges
// (the leaf's and the composed range's estimate) the power path leaves to
// the squaring chain (Options.Path), and for compositions in closed form
// (ComposesInClosedForm), which neither path composes. A
// qualifying mechanism may still fall back to the chain after composing
// (a rounding-error bound above 1e-3, a lower pair that lost 1% of the
// mass). It builds a small grouped leaf (8,192 buckets), not the
// composition.
func PowerQualifies(ctx context.Context, m Mechanism, r int, opt Options) (bool, error) {
	if m == nil {
		return false, invalidf("nil mechanism")
	}
	if r < 1 {
		return false, invalidf("number of compositions must be >= 1, got %d", r)
	}
	opt.Path = PathPower
	o, err := opt.withDefaults()
	if err != nil {
		return false, err
	}
	if _, ok := m.(*countMech); ok {
		return false, nil
	}
	if ComposesInClosedForm(m, r, o) {
		return false, nil
	}
	if err := prepare(ctx, m); err != nil {
		return false, err
	}
	o = o.withTailBudget([]Part{{Mechanism: m, Count: r}})
	p, err := newPowerPlan(m, r, o)
	if err != nil || p == nil {
		return false, err
	}
	// the composed range, as powerPrepare estimates it
	R := p.powerRange(m, r)
	return R > 0 && R <= powerMaxRange, nil
}

// estimatePowerMemory is EstimateMemory of the power path on a transform
// of o.Buckets points (o with defaults): per point the packed spectrum and
// its power (2 x 16 bytes), the grid lists' upper and lower masses, their
// error bounds and tilted copies (about 8 arrays of 8 bytes), and the
// transform's twiddles (about 28 bytes), 128 bytes in all, plus the plan's
// grouped leaf. Measured peak RSS of DP-SGD at GOGC=25, heap garbage
// included: 78 MB at 2^19 points, 301 MB at 2^21 (about 142 bytes a
// point). A composition in two stages (powerstage.go) also holds its
// first stage, at most N/4 points of the same arrays (peak RSS of DP-SGD
// 4/0.01/65,536 at 2^20 points: 144 MB in one stage, 177 MB in two), so
// each point counts 160 bytes. A composition that falls back to the chain
// after composing (Options.Path) needs the chain's EstimateMemory at that
// count instead.
func estimatePowerMemory(o Options) int64 {
	N := int64(powerLength(o.Buckets))
	return 160*N + int64(powerPlanBuckets)*64 + 4<<20
}
