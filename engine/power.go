package engine

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

// This file composes a grid list (grid.go) r times by one power in the
// Fourier domain instead of the chain of squarings: per tilt one forward
// transform, a pointwise r-th power and one inverse transform, for any r,
// with a rigorous bound on every step's error.
//
// # The power path
//
// A grid leaf of one mechanism (its upper pair's A-masses a and its lower
// pair's c, both on the points g lambda, g = -n+1..n) is built on a grid
// wide enough for the r-fold composition: the range R = n lambda covers
// the composed loss up to a tail mass of b/4 in both directions (A-mass
// above R, B-mass below -R; Chernoff estimates from a grouped leaf's
// moments, minimised over the Chernoff parameter by Newton's method;
// powerRange) and the leaf's own range, and N = 2n is the power of two at
// or above Options.Buckets. The budget b is the question's
// (Options.powerTailBudget): TailBudget, or where the engine chooses the
// budget and the caller names the smallest delta it will ask
// (Options.DeltaFloor), 1e-8 of that floor within [1e-22, 1e-10]
// (floorBudget; 1e-7 on transforms of at most 2^17 points,
// powerShortMargin), so that a shallow question gets a narrower range and a
// finer spacing at the same N. R is only an estimate: the composed list's
// corners (below) are bounds, and delta_up counts them in full, so every
// range gives sound bounds; the range decides only the spacing and how
// deep the brackets stay narrow (below about the budget, delta_up is the
// corners' mass). The leaf itself is embedded over the squaring chain's
// leaf range for b only (the loss out to a tail of b/(2r); the mass
// beyond stays in its corners). Grid indices add under
// composition (grid.go), so the r-fold composition of the upper pair is the
// r-fold convolution power t = a^(*r) on the indices (its windows add: r
// wUp), and likewise for the lower pair; no squaring coarsens the grid.
//
// Tilting commutes with convolution: (a e^(tau L))^(*r) = t e^(tau L), for
// the losses add. For each tilt tau_m (tiltsFor, as the squaring chain
// chooses them for the final count, with powerTilts' changes: a tilt whose
// predicted aliasing exceeds its rounding error replaced by a smaller one,
// and the tilt 0 left out where the other tilts bound the bulk well
// enough; choices made from the leaf, r and N before composing) the
// tilted sequences are normalised,
// b = fl(a e^(tau L)) sigma with sigma = 1/sum, and their r-fold power p =
// b^(*r) is computed modulo N (the spectral power below). The composed
// masses are t_g = p_g sigma^-r e^(-tau g lambda).
//
// # The spectral power (powerspec.go)
//
// The two real sequences are packed into one complex sequence x = b_a +
// i b_c and transformed once (ForwardBitReversed). With Higham, "Accuracy and
// Stability of Numerical Algorithms" (2nd ed.), Theorem 24.2, the computed
// spectrum Z^ satisfies ||Z^ - Z||_2 <= kappa ||Z||_2 = kappa sqrt(N)
// ||x||_2 (fft.Plan.Kappa). The spectra of the two parts are A_k = (Z_k +
// conj Z_(N-k))/2 and C_k = (Z_k - conj Z_(N-k))/(2i), a linear map of
// norm at most 1, computed with one rounded addition per component:
// ||A^ - A||_2 <= eps_A = ||Z^ - Z||_2 + u/(1-u) ||A^||_2 (and the same for
// C). Every |A_k| <= ||b_a||_1 =: m_a, so |A^_k| <= M = m_a + eps_A, and
// for |z|, |w| <= M, |z^r - w^r| <= r M^(r-1) |z - w|. The power is formed
// by repeated squaring, r - 1 complex multiplications along every path,
// each with a normwise relative error of at most d = sqrt2 gamma_2
// (Higham, Lemma 3.5), so |fl(z^r) - z^r| <= rho |z|^r <= rho/(1-rho)
// |fl(z^r)| with rho = (1 + d)^(r-1) - 1. Coefficients with |z|^r <= e^-699
// are set to 0 (that is their error; above it every intermediate power is
// a normal number, and subnormal components cost 2^-1073 per operation,
// grown by at most M^r). Hence, in the 2-norm over the N coefficients,
//
//	||P^ - P||_2 <= rho/(1-rho) ||P^||_2 + r M^(r-1) eps_A + (skips, underflow),
//
// for both parts; recombined, Q = P_A + i P_C has ||Q^ - Q||_2 <= ||P_A^ -
// P_A||_2 + ||P_C^ - P_C||_2 + u/(1-u) ||Q^||_2. One inverse transform
// (InverseBitReversed, Theorem 24.2 again, ||IDFT||_2 = sqrt(N)) and the exact
// scaling by 1/N give the circular powers with
//
//	||p^ - p_circ||_2 <= err2 = (kappa ||Q^||_2 + ||Q^ - Q||_2) / sqrt(N),
//
// which bounds every entry's error of both parts and, by Cauchy-Schwarz,
// sqrt(N) err2 bounds the 1-norm of either part's error. Since ||P||_2 ~
// sqrt(N) ||p||_2 and eps_A ~ kappa sqrt(N) ||b||_2, err2 is about
// (kappa ||p||_2 + r kappa ||b||_2): r times one transform's error, relative
// to the tilted sequence, where the tilt makes the tail it points at the
// bulk.
//
// # Aliasing
//
// The computed power is circular: entry j holds the sum of the linear
// power over all g = j mod N. The linear power of the computed b has its
// mass outside the output range bounded by Chernoff (powertail.go: at most
// e^(-s (n+1) lambda) M_b(s)^r above, e^(s n lambda) M_b(s)^r below, over
// s), which bounds the aliasing of every entry and its 1-norm in the
// tilted, normalised measure. It is added to err2.
//
// # Input errors
//
// The leaf's masses carry a relative error relA (and an absolute
// allowance abs): b = b_true sigma (1 + theta) with |theta| <= rho_in. All
// entries are non-negative, so the r-fold power is monotone in every
// entry: p_true lies between p_lin (1 + rho_in)^-r and p_lin (1 -
// rho_in)^-r, a relative error rho_r = (1 - rho_in)^-r - 1 of the exact
// power of the computed b (the abs allowance adds (m + alpha)^r - m^r, m
// the 1-norm and alpha abs's tilted 1-norm, to the absolute error).
//
// # The composed list
//
// Every output offset takes the value of the tilt whose envelope
// env_m e^(-tau_m L) is smallest there (negative values clamped to 0, which
// never increases the error of a non-negative quantity), with
//
//	env_m = (err2 + aliasing + abs part) (1 + rho_r) sigma^-r,
//	rel   = (rho_F + rho_r) / (1 - rho_F),
//
// rho_F the rounding of the untilting factors (list.go's error model:
// |true - value| <= rel value + min_m env_m e^(-tau_m L)). The tilted total
// errors (list.tl1A, tl1.go) of tilt m are its own (sqrt(N) err2 +
// aliasing, tilted and scaled, plus the relative part) plus the computed
// tilted sum of |value - tilt m's value| over the offsets where another
// tilt's value was taken; l1A is the untilted tilt's, or without one
// Hoelder's interpolation between a positive tilt t1 and a negative t2,
// l1 <= tl1_1^alpha tl1_2^(1-alpha) with alpha t1 + (1-alpha) t2 = 0
// (untiltedL1; the rounding of alpha costs e^(|d| R)).
//
// Outcomes outside the regular grid: an outcome with a leaf corner among
// its r components has A-mass at most (R_A + C_A)^r - R_A^r (R_A the
// leaf's regular A-mass, C_A its corner A-mass) and B-mass likewise; the
// upper pair's composed regular mass beyond the range has A- and B-mass
// bounded by Chernoff on the leaf (B-mass = A-mass e^-l, l within the
// window r wUp of the grid). These go to the corners, which delta_up
// counts in full in both directions, as the squaring chain's corners.
// The lower pair drops mass beyond its range (a lower pair may). Leaves
// with distinguishing events, atoms of loss, or a range beyond 300 nats
// (where the B||A tail needs the swapped list) are left to the squaring
// chain.
//
// # Two stages
//
// The grid's slack (the upper pair's spread, the lower pair's merge) is
// paid r times at the spacing lambda = R/n. Where powerStagesFor finds a
// plan (powerstage.go: m a divisor of r, m >= 16, q = r/m >= 4, the first
// stage's transform at most N/4 points), r = m q observations compose in
// two stages instead:
//
//  1. A grid leaf at the spacing lambda/k (k = 4) over the chain's leaf
//     range, raised to the power m as above on n1 points per side, n1 the
//     power of two at or above R_m k/lambda, R_m powerRange's estimate for
//     m observations and the tail budget b m/r (the stage's corners enter
//     the result about q times). Its tilts are the second stage's, so its
//     tilted total errors at those tilts are known; its grid of s adds
//     steps for its own standard deviation (its Chernoff bounds reach out
//     to R_m).
//  2. log2 k grid squarings (gridSquare) double the spacing to lambda: the
//     upper pair's odd atoms spread onto their even neighbours (a
//     mean-preserving spread of the loss keeping A- and B-mass: the spread
//     pair dominates, an upper pair stays one), the lower pair's merged (a
//     post-processing of part of the pair: a lower pair stays one). Their
//     rounding is in the squared list's relative errors, envelopes and
//     tilted totals (gridSquareTL1). The lower pair's tilted totals are
//     also bounded by splitting the merges' amplification (stageCoarsen):
//     with T_o the tilted coefficients through which input o's error
//     reaches the outputs, sum_o T_o e_o w_o <= A tl1 + sum_o (T_o - A)^+
//     b_o w_o for any A (b_o the input's pointwise bound), which leaves
//     the few atoms deep in the tails that far merges amplify 8-16 times
//     to their tiny pointwise bounds (on DP-SGD sigma 4, q 0.01, m 64 at 2^18:
//     tl1 5.3e-9 by the largest T_o alone).
//  3. The coarsened list L (n1 <= n points at the spacing lambda) raised to
//     the power q on the N-point grid, as a leaf is, with these changes.
//
// Input errors. L's stored entries v and its true ones v* = v + e (the
// pairs the first stage and the squarings define on the mechanism's
// exact leaf) satisfy sum_o |e_o| e^(tau L_o) <= tl1(tau) at every tilt
// (tl1Sum: the relative part, the envelopes and the allowance together),
// so the leaf's relative error relA is not used (set to 0). Tilted and
// normalised, b = fl(v e^(tau L)) sigma = v e^(tau L) sigma (1 + theta),
// |theta| <= rho (the weights and products only), and b* = b/(1 + theta)
// + d with d = e e^(tau L) sigma, ||d||_1 <= alpha = tl1(tau) sigma (with
// the weights' rounding). All of b/(1 + theta) is non-negative and
// ||x * y||_1 <= ||x||_1 ||y||_1 for every x, y, so
//
//	||(b/(1+theta) + d)^(*q) - (b/(1+theta))^(*q)||_1 <= (m' + alpha)^q - m'^q,
//
// m' = ||b||_1/(1 - rho) (expand the power: every term with j >= 1 factors
// d has 1-norm at most m'^(q-j) alpha^j). That bounds the 1-norm of the
// error: it joins the 1-norm bound of the tilt as the leaf's absolute
// allowance does (powDiffUp), about q alpha for small alpha (the first
// stage's relative tilted error grows q times). Every entry gets less: the
// terms with one factor d are q b'^(*(q-1)) * d, at most q
// ||b'^(*(q-1))||_inf alpha per entry (Young), and ||b^(*(q-1))||_inf <=
// (1/N) sum_k |B_k|^(q-1) <= (1/N) ((sum_k |B^_k|^(q-1))^(1/(q-1)) +
// ||B^ - B||_2)^(q-1) (the inverse transform; Minkowski in l^(q-1)), each
// |B^_k|^(q-1) from the computed power as |fl(B^_k^q)| / ((1 - rho_q)
// |B^_k|) (specPowerSup); the terms with j >= 2 factors d add at most
// q(q-1)/2 alpha^2 (m' + alpha)^(q-2) (stageAbsPoint). The envelope takes
// the smaller of both (on Gauss sigma 200 sqrt2, r 2^20 at 2^14 points,
// 1500 times smaller: the 1-norm alone left delta_up(0) of B||A at 1).
// (b/(1+theta))^(*q) against b^(*q): (1 - rho)^-q - 1 as above. A tilt
// without a finite tl1 makes the whole composition one stage.
//
// Corners. An outcome of the q-fold composition of L either has all its
// components among L's regular entries (beyond the range: Chernoff on L's
// true masses) or one among L's corners (the first stage's: outcomes with
// a leaf corner among the m components, the m-fold mass beyond R_m): at
// most (R + C)^q - R^q, R L's true regular mass, C its corner mass, as for
// a leaf. The Chernoff bounds need M(s) of L's true upper pair at the
// second stage's points s: its true regular entries are part of the
// m-fold composition of the fine leaf's true regular masses, so M(s) <=
// M_1(s)^m (M_1 from the fine leaf's stored masses with its relative error
// and allowance), spread by moves of at most (k-1) lambda/k < lambda, a
// factor e^(|s| lambda) (stageTrueMGF). L's windows are m times the fine
// leaf's (the spreads and merges keep windows), the result's r times.
//
// Slack. r (lambda/k)^2 c_leaf for the fine leaf plus, per squaring at the
// spacing 2^j lambda/k, c_sq (2^j lambda/k)^2 paid q times: one stage's
// r lambda^2 c_leaf times (1/k^2 + 3 sum_j (2^j/k)^2/m)
// (powerStages.gapFactor; 0.070 at k = 4, m = 128), which the path choice
// uses (powerchoice.go). Two stages are not used where r has no divisor
// in [16, r/4] whose first stage fits into N/4 points (r prime; heavy
// right tails whose leaf alone spans a third of the range: DP-SGD sigma
// 1.1, q 0.01 and sigma 1, q 0.001 keep one stage), and the result is
// bitwise that of one stage there.
//
// # Tests
//
// TestPowerGaussClosedForm (the Gauss pair's exact delta),
// TestPowerComposeBruteForce (the whole error model of the composed list
// against the exact r-fold power to 200 bits, for small random grid leaves
// whose range cuts the composed mass, with and without the tilt 0: every
// entry within its bound, the tilted and untilted total errors, the
// corners) and TestPowerSoundnessProperty (random
// Gauss and subsampled Gaussian pairs against the closed form and the
// brackets of soundness_pairs_test.go). Deliberate mutations (scratch
// edits, reverted) fail them: err2 dropped (the closed form), the
// aliasing bound dropped or halved, the corners' tails dropped, l1
// without a tilt 0 taken as half the smaller tilted total instead of
// Hoelder's (the brute force). Not detected: err2 halved or divided by 100, the power's own
// term r M^(r-1) eps_A or the other tilts' distances in tl1 dropped, the
// input's relative error dropped: the observed errors are at least 100
// times below Higham's bound, which these terms are parts of (the largest
// observed error over bound, 0.999, is set by the aliasing: tilts of
// +-98 on 8 points make the tilted leaf nearly a point mass, for which
// Chernoff's bound is tight).
//
// Two stages: TestPowerTwoStageBruteForce (random small proper pairs on
// the grid, both stages' ranges cutting the mass, k 2 or 4, against
// 200-bit exact compositions: the upper pair against the exact q-fold
// power of the spread exact m-fold power, the lower pair against the
// q-fold power of the pair the merges define from the exact m-fold power,
// every entry within its bound, tl1 and l1, the mass outside the regular
// entries within the corners, delta_up and delta_low around the exact
// delta of the leaf's r-fold composition), TestPowerTwoStageGaussClosedForm
// (random forced plans on Gauss pairs), TestPowerTwoStageSGDChain (forced
// plans on DP-SGD pairs overlap the chain's brackets). Mutations failing
// the brute force: the first stage's tilted errors dropped (either pair)
// or halved, its corners dropped, the spread's factor e^(|s| lambda)
// dropped, the split's (T_o - A)^+ part dropped, the split with A below 1,
// the pointwise first-order term divided by 10 or its sup by another N.
// Not detected: Chernoff on L's stored masses with relA instead of
// M_1(s)^m (the stored masses are within 1e-15 of the true ones there);
// the sup's Minkowski term ||B^ - B||_2 and the second-order rest dropped
// (both below 1e-12 of the first-order term there); the split's move
// factor e^(tau lambda d) dropped or reversed (merges pair atoms across a
// grid point, so the heavier-tilted partner moves against the tilt and the
// factor mostly loosens the bound; TestStageCoarsenTilted, lists at their
// declared error, neither).
//
// # Cost
//
// Per tilt two transforms of length N and the powers of the coefficients
// above e^(-699/r) in modulus (few for large r: the characteristic
// function of a wide loss decays), against 5-9 tilted transforms per
// level of the chain's log2(r) levels. The leaf's grid is not refined at
// the start and coarsened by squarings as in the chain: its spacing is
// R/n throughout, and the grid pairs' slack (the spread of the upper pair,
// the merging of the lower pair, about twice as wide) is paid r times at
// that spacing, so the bracket narrows like (R/n)^2 and a bracket as
// narrow as the chain's needs more points (the grid lower pair sets about
// 2/3 of the bracket); two stages (above) pay most of it at lambda/4. Beside the transforms, per tilt: the tilted leaf
// (its support only, with the tilt weights powerTilts predicted with:
// leafWeights), one pass separating the two spectra, forming their powers
// and recombining them, one summing the squares for the bound and one
// scaling after the inverse (specPower), and per side the tilt choice and
// the tilted totals of powerSide; once: the plan's grouped
// leaf, the range (powerRange: a few passes over it) and the grid leaf,
// which is the larger part of the CPU on the DP-SGD rows with small q
// (about 2 groups per point, each spread and merged with several
// exponentials and logarithms). The twiddles come from fft.Shared (once
// per length and process), the untilting weights are made where used
// (weightRun) instead of stored, and the composed list hands its dead work
// arrays (the tilts' powers and powerSide's work array) to its error
// bounds and grid table (list.spare) instead of allocating theirs; the
// first of two stages hands its own to the coarsenings and the second
// stage's tilt weights (squareWork), and all of them are carved from three
// chunks of N entries that the second stage's list and work array take
// over (stageSlab). The queries sum
// the atoms two spacings beyond eps in closed form from the grid table's
// prefix sums (griddeltasums.go): an eps query costs the table (a few
// passes) and a few blocks of atoms per evaluation. Measured in
// engine/README.md (section 6.1).

// powerMode selects the power path (Options.power): off (the squaring
// chain), or on wherever the mechanism qualifies.
type powerMode int

const (
	powerOff powerMode = iota
	powerOn
)

// powerMaxRange is the largest range R (nats) the power path composes on:
// beyond about 600 nats the B||A tail needs the swapped grid list.
const powerMaxRange = 300

// powerMaxL1 and powerMaxLoss bound the total rounding-error bound of a
// power path's list and the share of the upper pair's mass its lower pair
// may lose; beyond them the squaring chain composes (powerList).
const (
	powerMaxL1   = 1e-3
	powerMaxLoss = 1e-2
)

// powerMinN is the smallest transform length of the power path.
const powerMinN = 1 << 10

// powerPlanBuckets is the bucket count of the plan that chooses the power
// path's range and tilts (its leaves are not composed).
const powerPlanBuckets = 8192

// composePower returns the results of the power path for m and rs, nil
// when m does not qualify (the squaring chain then composes it).
func composePower(ctx context.Context, m Mechanism, rs []int, o Options) ([]*Result, error) {
	maxR := 0
	for _, r := range rs {
		maxR = max(maxR, r)
	}
	p, err := newPowerPlan(m, maxR, o)
	if err != nil || p == nil {
		return nil, err
	}
	out, _, err := p.composePowerMany(ctx, m, rs)
	return out, err
}

// newPowerPlan returns the plan of the power path for up to maxR
// observations of m: the leaf range of the chain (the loss out to a tail
// of TailBudget/(2 maxR)) and a grouped leaf of powerPlanBuckets buckets
// for the variance, the saddle-point tilts and the composed range; nil when
// m does not qualify (atoms of loss, no range).
func newPowerPlan(m Mechanism, maxR int, o Options) (*plan, error) {
	return newPowerPlanOf(m, maxR, o, powerPlanBuckets)
}

// newPowerPlanOf is newPowerPlan with a grouped leaf of buckets buckets.
func newPowerPlanOf(m Mechanism, maxR int, o Options, buckets int) (*plan, error) {
	if o.DisableErrorCorrection || o.Lists == ListsGrouped || o.Factor != 0 {
		return nil, nil
	}
	if am, ok := m.(atomic); ok && am.atomLoss() > 0 {
		return nil, nil
	}
	// the range of the question's floor (its corners count in full in
	// delta_up: any budget is sound)
	o.TailBudget = o.powerTailBudget()
	n := buckets / 2
	t := m.lossRange(o.TailBudget / (2 * float64(maxR)))
	if !(t > 0) || t > powerMaxRange {
		return nil, nil
	}
	p := &plan{opt: o, n: n, lambda: t / float64(n), leaves: map[Mechanism]*list{}, grid: true,
		total: maxR, powerN: powerLength(o.Buckets)}
	p.gridLambda = p.lambda
	b := newLeafBuilder(n, p.lambda, nil)
	b.inexact = true
	if em, ok := m.(exactMasses); ok && em.exactMasses() {
		b.inexact = false
	}
	if err := m.embed(b); err != nil {
		return nil, fmt.Errorf("engine: embedding %s: %w", m, err)
	}
	l := b.rel(m)
	l.variance = l.lossVariance()
	if !(l.variance > 0) {
		return nil, nil
	}
	p.leaves[m] = l
	p.cgfs = map[string]cgf{m.String(): newCGF(l)}
	p.finalSD = math.Sqrt(float64(maxR) * l.variance)
	return p, nil
}

// composePowerMany returns the results of the power path for every r in
// rs, or ok = false (and a reason) when m does not qualify.
func (p *plan) composePowerMany(ctx context.Context, m Mechanism, rs []int) (out []*Result, reason string, err error) {
	if !p.stepsPlanned {
		p.addSteps(len(rs))
	}
	out = make([]*Result, len(rs))
	// one transform plan (its twiddles) for every r, shared with every
	// composition of the same length (fft.Shared)
	fp := fft.Shared(p.powerN)
	for i, r := range rs {
		g, why, err := p.powerList(ctx, m, r, fp)
		if err != nil {
			return nil, "", err
		}
		if g == nil {
			return nil, why, nil
		}
		res := newGridResult(g, len(g.tau), g.lambda)
		res.addNotes(p.notes)
		res.momFn = momentsFn([]Part{{m, r}})
		out[i] = res
		if err := p.step(ctx); err != nil {
			return nil, "", err
		}
	}
	return out, "", nil
}

// powerRange returns the range R (nats) of the power path for r
// observations of m: Chernoff estimates from the plan's grouped leaf (not
// bounds: R only has to make the corners small, which the composed list's
// own bounds then certify) of the loss where the composed A-mass above R
// and B-mass below -R fall to a quarter of the tail budget (the leaf's
// corners, TailBudget/(2r) each, give about half after r observations; the
// estimate on the grouped leaf may fall short of the grid's tail by a
// factor: a half budget put 2.4e-22 into the corners of DP-SGD sigma 1, q
// 0.001, r 250,000 at the default 1e-22), and at least the chain's leaf
// range. The bracket's width grows like R^2 at a
// given length (the grid's slack is paid r times at spacing 2R/N), so R
// has no safety factor: a 5% larger R widened the brackets by 10%.
func (p *plan) powerRange(m Mechanism, r int) float64 {
	return p.powerRangeFor(m, r, p.opt.TailBudget)
}

// powerRangeWith is powerRange on the grouped leaf's means lm (leafMeans).
func (p *plan) powerRangeWith(m Mechanism, lm leafMeans, r int) float64 {
	return p.powerRangeOf(m, lm, r, p.opt.TailBudget)
}

// powerRangeFor is powerRange for the tail budget b (the first stage's
// range, powerstage.go).
func (p *plan) powerRangeFor(m Mechanism, r int, b float64) float64 {
	// the grouped leaf's buckets at their mean loss ln(A/B) (within the
	// bucket): the bucket's grid loss would shift the estimate by up to
	// r lambda
	return p.powerRangeOf(m, p.leaves[m].leafMeans(), r, b)
}

// powerRangeOf is powerRangeFor on the grouped leaf's means lm.
func (p *plan) powerRangeOf(m Mechanism, lm leafMeans, r int, b float64) float64 {
	R, _ := p.powerRangeStop(m, lm, r, b, nil)
	return R
}

// powerRangeStop is powerRangeOf, except that where stop (if not nil)
// holds for the estimate above joined with the leaf's range (a lower bound
// on the range: the range is their maximum with the estimate below), it
// returns that lower bound and done = false without the estimate below.
func (p *plan) powerRangeStop(m Mechanism, lm leafMeans, r int, b float64, stop func(float64) bool) (R float64, done bool) {
	c := -math.Log(b / 4)
	fr := float64(r)
	sd := math.Sqrt(fr * p.leaves[m].variance)
	if !(sd > 0) {
		sd = 1
	}
	// A-mass above R: (r lnM(s) + c)/s; B-mass below -R: ln M_B(-s) =
	// lnM(-(1+s)), so (r lnM(-(1+s)) + c)/s
	rHi := chernoffRange(lm, 0, 1, fr, c, sd)
	if stop != nil {
		if v := math.Max(rHi, float64(p.n)*p.gridLambda); stop(v) {
			return v, false
		}
	}
	rLo := chernoffRange(lm, -1, -1, fr, c, sd)
	R = math.Max(rHi, rLo)
	R = math.Max(R, float64(p.n)*p.gridLambda)
	return R, true
}

// chernoffRange returns an estimate of the smallest over s > 0 of
// f(s) = (r h(s) + c)/s, h(s) = ln M(a + b s) and M(t) = sum_i mass_i
// e^(t loss_i) (b = +-1, c > 0): the Chernoff estimate of the loss where
// the r-fold composition's tail mass falls to e^-c. f is unimodal: f'(s)
// has the sign of g(s) = s dh/ds - h(s) - c/r, whose derivative s d2h/ds2
// is non-negative (h is convex), so Newton's method on g from the
// Gaussian's optimum sqrt(2c)/sd finds the minimum in a few passes over
// the masses; every f evaluated is a valid estimate and the smallest
// seen is returned (when none is finite, the smallest over a geometric
// grid of s; +Inf when none is).
func chernoffRange(lm leafMeans, a, b, r, c, sd float64) float64 {
	// h, h', h'' at s from one pass (log-sum-exp scaled by the largest
	// exponent)
	loss, mass := lm.loss, lm.mass
	eval := func(s float64) (h, h1, h2 float64) {
		t := a + b*s
		mx := maxProduct(t, lm.lo, lm.hi, len(loss))
		var s0, s1, s2 float64
		for i, L := range loss {
			w := mass[i] * math.Exp(t*L-mx)
			s0 += w
			s1 += w * L
			s2 += w * L * L
		}
		k1 := s1 / s0
		return mx + math.Log(s0), b * k1, math.Max(0, s2/s0-k1*k1)
	}
	best := math.Inf(1)
	s := math.Sqrt(2*c) / sd
	for range 12 {
		if !(s > 0) || math.IsInf(s, 0) {
			break
		}
		h, h1, h2 := eval(s)
		if f := (r*h + c) / s; f < best {
			best = f
		}
		g, g1 := s*h1-h-c/r, s*h2
		if !(g1 > 0) {
			break
		}
		next := s - g/g1
		if !(next > 0) {
			next = s / 4
		}
		if math.Abs(next-s) <= 1e-4*s {
			break
		}
		s = next
	}
	if math.IsInf(best, 1) {
		// no finite estimate from Newton's points: a geometric grid
		for j := range 32 {
			s := 0.1 / sd * math.Pow(1.25, float64(j))
			if h, _, _ := eval(s); !math.IsNaN(h) {
				best = math.Min(best, (r*h+c)/s)
			}
		}
	}
	return best
}

// lossExtremes returns the smallest and largest of loss, as math.Min and
// math.Max fold them (NaN where loss holds one, -0 below +0; +Inf and -Inf
// where loss is empty).
func lossExtremes(loss []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	nan, pos0, neg0 := false, false, false
	for _, L := range loss {
		if L < lo {
			lo = L
		}
		if L > hi {
			hi = L
		}
		switch {
		case L != L:
			nan = true
		case L == 0 && math.Signbit(L):
			neg0 = true
		case L == 0:
			pos0 = true
		}
	}
	if nan {
		return math.NaN(), math.NaN()
	}
	if lo == 0 && neg0 {
		lo = math.Copysign(0, -1)
	}
	if hi == 0 && pos0 {
		hi = 0
	}
	return lo, hi
}

// leafMeans is a grouped leaf's meanLosses with the losses' extremes
// (lossExtremes), computed once for the Chernoff range estimates of one
// composition (powerRangeOf, powerStagesMemo).
type leafMeans struct {
	loss, mass []float64
	lo, hi     float64
}

// leafMeans returns l's meanLosses and their extremes.
func (l *list) leafMeans() leafMeans {
	loss, mass := l.meanLosses()
	lo, hi := lossExtremes(loss)
	return leafMeans{loss: loss, mass: mass, lo: lo, hi: hi}
}

// maxProduct returns the largest of fl(t L) over n losses (none NaN: the
// leaves' mean losses are finite) whose extremes (lossExtremes) are lo and
// hi, -Inf for none: bitwise the math.Max of the products, since fl(t L) is monotone in L (non-decreasing for t >= 0,
// non-increasing for t < 0 and for t = -0, whose products are -0 where L
// >= 0 and +0 where L < 0, math.Max preferring +0), so one product replaces
// a pass over the losses (TestMaxProductBitwise).
func maxProduct(t, lo, hi float64, n int) float64 {
	if n == 0 {
		return math.Inf(-1)
	}
	if t < 0 || (t == 0 && math.Signbit(t)) {
		return t * lo
	}
	return t * hi
}

// powerSetup is what the power path fixes before composing r observations
// of a mechanism: the grid leaf on its range, the tilts and the leaf's
// moment-generating function.
type powerSetup struct {
	leaf *list
	gl   *list // the leaf's grouped list (its loss variance)
	sd   float64
	tau  []float64
	mg   mgfGrid
	lw   *leafWeights // the tilt weights of the leaf (powerTilts' and powerCompose's)
}

// leafWeights keeps the tilt weights e^(t L) over a grid leaf's offsets
// (weights) of every tilt t asked for: powerTilts predicts with the
// weights powerCompose then tilts with, each computed once.
type leafWeights struct {
	n   int
	lam float64
	w   map[float64]leafWeight
	// alloc returns an array of the given length for the weights (any
	// contents; nil: new arrays)
	alloc func(m int) []float64
}

// leafWeight is one tilt's weights and their relative error.
type leafWeight struct {
	w  []float64
	rw float64
}

// newLeafWeights returns the (empty) weights of l's offsets.
func newLeafWeights(l *list) *leafWeights {
	return &leafWeights{n: l.n, lam: l.lambda, w: map[float64]leafWeight{}}
}

// get returns weights(n, lam, t), computing it on first use.
func (lw *leafWeights) get(t float64) ([]float64, float64) {
	e, ok := lw.w[t]
	if !ok {
		if lw.alloc != nil {
			e.w = lw.alloc(2 * lw.n)
			e.rw = weightsInto(e.w, lw.n, lw.lam, t)
		} else {
			e.w, e.rw = weights(lw.n, lw.lam, t)
		}
		lw.w[t] = e
	}
	return e.w, e.rw
}

// powerPrepare returns the power path's setup for r observations of m on
// transforms of fp's length, or nil and the reason when m does not
// qualify.
func (p *plan) powerPrepare(ctx context.Context, m Mechanism, r int, fp *fft.Plan, lm leafMeans) (*powerSetup, string, error) {
	R := p.powerRangeWith(m, lm, r)
	if !(R > 0) || R > powerMaxRange {
		return nil, fmt.Sprintf("range %.3g nats", R), nil
	}
	N := fp.Len()
	n := N / 2
	lambda := R / float64(n)
	// the leaf on the power path's grid, over the chain's leaf range only
	// (the mass beyond it, at most TailBudget/(2r), stays in its corners)
	nl := n
	if t := float64(p.n) * p.gridLambda; t < R {
		nl = min(n, 2*int(math.Ceil(t/lambda/2))+2)
	}
	gl, leaf, err := powerGridLeaf(m, nl, lambda)
	if err != nil {
		return nil, "", err
	}
	if leaf.distA.upper() > 0 || leaf.distB.upper() > 0 || leaf.lowDistA.upper() > 0 || leaf.lowDistB.upper() > 0 {
		return nil, "distinguishing events", nil
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	sd := math.Sqrt(float64(r) * gl.lossVariance())
	st := saddleTarget{count: r, sd: sd}
	st.tilt = saddleOf(p.cgfs, []nameCount{{m.String(), r}}, 3.5/sd)
	tau := tiltsFor(sd, sd, st, p.opt.Tilts, float64(n+1)*lambda, true)
	mg := newMGFGrid(leaf, powerTiltGrid(tau, sd, float64(n+1)*lambda))
	lw := newLeafWeights(leaf)
	tau = powerTilts(leaf, tau, r, fp, mg, math.Max(powerDeepTail, p.opt.DeltaFloor), lw)
	return &powerSetup{leaf: leaf, gl: gl, sd: sd, tau: tau, mg: mg, lw: lw}, "", nil
}

// powerGridLeaf returns m's grouped list and grid leaf on nl points per
// side at the spacing lambda (nats).
func powerGridLeaf(m Mechanism, nl int, lambda float64) (gl, leaf *list, err error) {
	b := newLeafBuilder(nl, lambda, nil)
	// (a continuous mechanism reserves room for its groups, in one array,
	// before it adds them: reserveGroups)
	b.recordGroups = true
	b.inexact = true
	if em, ok := m.(exactMasses); ok && em.exactMasses() {
		b.inexact = false
	}
	if err := m.embed(b); err != nil {
		return nil, nil, fmt.Errorf("engine: embedding %s: %w", m, err)
	}
	gl = b.rel(m)
	return gl, b.finishGrid(gl.relErrIn, m.String()), nil
}

// powerList returns the r-fold composition of m's grid list by the power
// path, or nil and the reason when m does not qualify.
func (p *plan) powerList(ctx context.Context, m Mechanism, r int, fp *fft.Plan) (*list, string, error) {
	return p.powerListWith(ctx, m, r, fp, nil)
}

// powerListWith is powerList with the stages chosen by choose (nil:
// powerStagesFor; tests force plans of their own).
func (p *plan) powerListWith(ctx context.Context, m Mechanism, r int, fp *fft.Plan, choose func(lambda float64) (powerStages, bool)) (*list, string, error) {
	// the grouped leaf's means, for the range and the two stages' ranges
	lm := p.leaves[m].leafMeans()
	ps, why, err := p.powerPrepare(ctx, m, r, fp, lm)
	if ps == nil {
		return nil, why, err
	}
	leaf, gl, sd, tau := ps.leaf, ps.gl, ps.sd, ps.tau
	if choose == nil {
		choose = func(lambda float64) (powerStages, bool) {
			return p.powerStagesMemo(m, r, fp.Len(), lambda, nil, &lm)
		}
	}
	var z *list
	if st, ok := choose(leaf.lambda); ok {
		// two stages (powerstage.go); nil where the first stage's bounds
		// are unusable: one stage then
		if z, err = p.powerTwoStage(ctx, m, r, fp, ps, st); err != nil {
			return nil, "", err
		}
	}
	if z == nil {
		if z, err = p.powerCompose(ctx, fp, leaf, r, tau, sd, &ps.mg, ps.lw, nil); err != nil {
			return nil, "", err
		}
	}
	z.variance = float64(r) * gl.lossVariance()
	// where the power's bounds are poor, the chain composes instead: a
	// total rounding-error bound above powerMaxL1, or a lower pair that
	// lost more than powerMaxLoss of the upper pair's mass (it merges at
	// the leaf's spacing r times; the chain coarsens as the loss widens)
	if !(z.l1A <= powerMaxL1) || !(z.l1C <= powerMaxL1) {
		return nil, fmt.Sprintf("rounding-error bound %.3g", math.Max(z.l1A, z.l1C)), nil
	}
	if sa, sc := z.regularMass(); !(sc >= (1-powerMaxLoss)*sa) {
		return nil, fmt.Sprintf("lower pair mass %.6g of %.6g", sc, sa), nil
	}
	return z, "", nil
}

// powerBulkL1 is the largest predicted untilted total error (an absolute
// mass) for which the power path leaves out the tilt 0 (powerTilts). The
// prediction fell 2.8-4.2 times below the composed list's bound on the
// peers rows, so the bulk's total error stays below about 1e-6: on Gauss
// sigma 200 sqrt2, r 512 (predicted 8e-8, bound 3.5e-7) the brackets at
// eps <= 0.01 widened by 2% (relative widths 3.2e-6 to 3.3e-6), those
// beyond not at all; DP-SGD rows (predicted 3e-5 to 1e-3) keep the tilt 0,
// without which their brackets at eps < 1 widened up to 1.7 times.
const powerBulkL1 = 2.5e-7

// powerTilts returns the tilts the power path composes the grid leaf with
// for r observations on transforms of fp's length (n = N/2 points per
// side at the leaf's spacing), from tau (tiltsFor) and the leaf's
// moment-generating function on a grid of s (mg, which must hold every
// tilt of tau).
//
// A tilted leaf without a finite mass keeps tau as it is.
//
// First every tilt whose predicted aliasing exceeds its predicted rounding
// error (both below, relative to the tilted, normalised leaf's power) is
// replaced by a smaller tilt of the same sign on mg's grid (its points
// include k/powerTiltSteps of every tilt, powerTiltGrid): a negative tilt
// by the largest whose aliasing does not exceed that rounding error, a
// positive one by the one with the smallest predicted envelope, (rounding
// + aliasing) M(s)^r e^(-s L), at the loss L where the composition's
// A-mass falls to deepTail (powerDeepTail, or the question's floor above
// it); a replacement already among the tilts is dropped. A tilt beyond the
// saddle point of the range's edge puts the tilted composition's mass
// beyond the range, where the power wraps it around: on a heavy right
// tail (DP-SGD sigma 0.6, q 0.001, r 10^4 at 2^19 points) the chain's
// final tilts alias the whole tilted mass (bound 1), and the eps brackets
// were 5.7-280 times the chain's (100,000 buckets) at delta 1e-2 to
// 1e-13; with the replacements 0.14-0.42 times at delta 1e-2 to 1e-8, 0.83
// at 1e-10 and 7.4 at 1e-13 (which the path choice's tail probe turns
// down).
//
// Then the tilt 0 is left out when the other tilts predict a total error
// of the bulk of at most powerBulkL1. The predicted rounding error is that
// of specPower's dominant term (err2 about r kappa ||b||_2 for the
// normalised tilted leaf b, so a tilted total error of about sqrt(N) r
// kappa ||b||_2 M(tau)^r, M the tilted leaf's mass); the predicted
// aliasing is powerCompose's Chernoff bound itself (powertail.go) with
// sigma = 1/M(tau) from mg; the untilted total is interpolated between the
// extreme tilts by Hoelder as untiltedL1 bounds the composed list's. Any
// tilt set is sound (the composed list's bounds are computed, not
// predicted); the tilts only make its bounds tight, and a tilt costs two
// transforms of length N and O(N) work.
func powerTilts(leaf *list, tau []float64, r int, fp *fft.Plan, mg mgfGrid, deepTail float64, lw *leafWeights) []float64 {
	fr := float64(r)
	n := fp.Len() / 2
	lam := leaf.lambda
	lnBase := 0.5*math.Log(float64(fp.Len())) + math.Log(fr) + math.Log(fp.Kappa())
	// ln of the predicted rounding error (relative) and ln M(t)^r of tilt t,
	// the worse of both pairs; ok false when the tilted leaf has no mass
	// (the tilted leaf with the weights powerCompose tilts it with)
	round := func(t float64) (lnRound, lnMr float64, ok bool) {
		lnRound, lnMr = math.Inf(-1), math.Inf(-1)
		w, _ := lw.get(t)
		for _, v := range [][]float64{leaf.a, leaf.c} {
			var s1, s2 float64
			for o := leaf.lo; o <= leaf.hi; o++ {
				b := v[o] * w[o]
				s1 += b
				s2 += b * b
			}
			if !(s1 > 0) || math.IsInf(s1, 0) {
				return 0, 0, false
			}
			lnRound = math.Max(lnRound, lnBase+0.5*math.Log(s2)-math.Log(s1))
			lnMr = math.Max(lnMr, fr*math.Log(s1))
		}
		return lnRound, lnMr, true
	}
	// the predicted aliasing (relative) of tilt t: the Chernoff bounds on
	// the normalised power's mass beyond both ends of the range; +Inf when
	// t is not on mg's grid
	alias := func(t float64) float64 {
		i := slices.Index(mg.s, t)
		if i < 0 {
			return math.Inf(1)
		}
		worst := 0.0
		for _, lnM := range [][]float64{mg.lnA, mg.lnC} {
			shift := -lnM[i]
			hi := chernoffLn(mg.s, lnM, shift, r, t, float64(n+1)*lam, true)
			lo := chernoffLn(mg.s, lnM, shift, r, t, -float64(n)*lam, false)
			worst = math.Max(worst, expUp(hi)+expUp(lo))
		}
		return worst
	}
	// the deep tail's loss: where the r-fold composition's A-mass falls to
	// powerDeepTail (Chernoff on mg)
	deep := math.Inf(1)
	for i, s := range mg.s {
		if s > 0 {
			deep = math.Min(deep, (fr*mg.lnA[i]-math.Log(deepTail))/s)
		}
	}
	var out, pred []float64
	for _, t := range tau {
		lnRound, lnMr, ok := round(t)
		if !ok {
			return tau
		}
		if a := alias(t); t != 0 && a > math.Exp(lnRound) {
			// the tilt of the same sign on the grid, at most as large,
			// with the smallest predicted envelope at the deep tail's
			// loss (positive tilts), or the largest whose aliasing does
			// not exceed t's rounding error (negative tilts)
			var best float64
			bestScore := math.Inf(1)
			for i, s := range mg.s {
				if !(s*t > 0 && math.Abs(s) <= math.Abs(t)) {
					continue
				}
				as := alias(s)
				var score float64
				if t > 0 {
					score = math.Log(math.Exp(lnRound)+as) + fr*mg.lnA[i] - s*deep
				} else if as <= math.Exp(lnRound) {
					score = -math.Abs(s)
				} else {
					continue
				}
				if score < bestScore {
					best, bestScore = s, score
				}
			}
			if best == 0 || best != t && (slices.Contains(tau, best) || slices.Contains(out, best)) {
				continue
			}
			t = best
			if lnRound, lnMr, ok = round(t); !ok {
				return tau
			}
		}
		out = append(out, t)
		pred = append(pred, (math.Exp(lnRound)+alias(t))*math.Exp(lnMr))
	}
	zero := slices.Index(out, 0)
	if zero < 0 || len(out) < 3 {
		return out
	}
	rest := slices.Delete(slices.Clone(out), zero, zero+1)
	restPred := slices.Delete(slices.Clone(pred), zero, zero+1)
	if untiltedL1(rest, restPred, 0) <= powerBulkL1 {
		return rest
	}
	return out
}

// powerDeepTail is the A-mass of the deepest tail whose loss powerTilts
// aims the positive tilts that replace aliased ones at: below the smallest
// delta (1e-13) the tail probe of the engine's path choice checks. A
// question's floor above it (Options.DeltaFloor) takes its place: on the
// narrower range of a shallow question the tilts aimed at 1e-15 alias
// (DP-SGD sigma 1.1, q 0.01, r 10^4 at 2^17 points, range for 1e-13:
// aliasing bound 2.6e-4 of the tilted mass, the eps bracket at delta 1e-5
// 4.1 times as wide as on the default range; aimed at the floor, 0.67
// times).
const powerDeepTail = 1e-15

// powerTiltSteps is the number of steps from 0 to each tilt at which
// powerTilts may place a tilt that replaces it.
const powerTiltSteps = 16

// powerTiltGrid returns the points s of the power path's Chernoff bounds
// (powerSGrid) and the candidates of powerTilts: k/powerTiltSteps times
// every tilt of tau, k = 1..powerTiltSteps-1.
func powerTiltGrid(tau []float64, sd, R float64) []float64 {
	s := powerSGrid(tau, sd, R)
	lim := 700 / R
	for _, t := range tau {
		for k := 1; k < powerTiltSteps; k++ {
			if v := t * float64(k) / powerTiltSteps; math.Abs(v) <= lim {
				s = append(s, v)
			}
		}
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// tiltPower is one tilt's share of powerCompose.
type tiltPower struct {
	ta, tc   []float64 // normalised tilted powers (natural order)
	lnCa     float64   // ln sigma_a^-r
	lnCc     float64
	ea, ec   float64 // err2 + aliasing + abs part, (1 + rho_r) included
	la, lc   float64 // the same with sqrt(N) err2: a bound on the 1-norm
	ra, rc   float64 // rho_r
	sumA     float64 // upper bounds on the sums of ta's and tc's positive parts
	sumC     float64
	okA, okC bool // the envelope is finite
}

// powerCompose returns the r-fold composition of the grid leaf by the
// power path with the tilts tau (see the file comment).
//
// mg holds the leaf's moment-generating function at points s that include
// every tilt (nil: powerSGrid's for tau and sd), lw the leaf's tilt
// weights (nil: computed here).
func (p *plan) powerCompose(ctx context.Context, fp *fft.Plan, leaf *list, r int, tau []float64, sd float64, mg *mgfGrid, lw *leafWeights, in *stageInput) (*list, error) {
	return p.powerComposeOn(ctx, fp, leaf, r, tau, sd, mg, lw, in, nil, false)
}

// powerComposeOn is powerCompose with its arrays from sl (stageSlab; nil:
// new ones): the tilts' arrays and then the composed list's and the work
// array; with recycle, every array sl handed out before is dead once the
// leaf is tilted (the leaf and its weights are among them): the tilts'
// arrays are new then, and sl starts over for the list's and the work
// array (their every entry is written: powerSide).
func (p *plan) powerComposeOn(ctx context.Context, fp *fft.Plan, leaf *list, r int, tau []float64, sd float64, mg *mgfGrid, lw *leafWeights, in *stageInput, sl *stageSlab, recycle bool) (*list, error) {
	if leaf.n > fp.Len()/2 {
		// the leaf's offsets would wrap around the transform more than
		// once (wrapIndex): its entries would alias, which no bound here
		// accounts for
		return nil, fmt.Errorf("engine: power path: a leaf of %d buckets a side on a transform of %d points", leaf.n, fp.Len())
	}
	if lw == nil {
		lw = newLeafWeights(leaf)
		if sl != nil && !recycle {
			lw.alloc = sl.take
		}
	}
	tilts := sl
	if recycle {
		tilts = nil
	}
	N := fp.Len()
	n := N / 2
	nl := leaf.n
	lam := leaf.lambda
	u := unitRoundoff
	fr := float64(r)
	if mg == nil {
		g := newMGFGrid(leaf, powerSGrid(tau, sd, float64(n+1)*lam))
		mg = &g
	}
	K := len(tau)
	tps := make([]tiltPower, K)
	// relative error of the leaf's stored masses w.r.t. the true ones
	relInA := leaf.relA / (1 - leaf.relA)
	relInC := leaf.relC / (1 - leaf.relC)
	if in != nil {
		// a composed input: its whole error is in its tilted totals
		relInA, relInC = 0, 0
	}
	for m, t := range tau {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w, rw := lw.get(t)
		ba, bc := tilts.zeros(N), tilts.zeros(N)
		var sa, sc float64
		for o := leaf.lo; o <= leaf.hi; o++ {
			j := wrapIndex(o-nl+1, N) // grid index o-nl+1 modulo N
			ba[j] = leaf.a[o] * w[o]
			bc[j] = leaf.c[o] * w[o]
			sa += ba[j]
			sc += bc[j]
		}
		tp := &tps[m]
		if !(sa > 0) || !(sc > 0) || math.IsInf(sa, 0) || math.IsInf(sc, 0) {
			tps[m] = tiltPower{}
			continue
		}
		siga, sigc := 1/sa, 1/sc
		// normalised over the support only (the rest is 0), in ascending
		// position as a pass over all N would sum: grid indices 0..gHi,
		// then the wrapped gLo..-1; with the packed input's sum of squares
		var ma, mc, s2 float64
		gLo, gHi := leaf.lo-nl+1, leaf.hi-nl+1
		norm := func(j int) {
			ba[j] *= siga
			bc[j] *= sigc
			ma += ba[j]
			mc += bc[j]
			s2 += ba[j]*ba[j] + bc[j]*bc[j]
		}
		for g := max(0, gLo); g <= gHi; g++ {
			norm(g)
		}
		for g := gLo; g <= min(-1, gHi); g++ {
			norm(g + N)
		}
		ma *= 1 + gamma(N+2)
		mc *= 1 + gamma(N+2)
		// b = b_true sigma (1 + theta): the leaf's error, the weights',
		// two products
		rhoA := (1+relInA)*(1+rw)*(1+2*u)*(1+gamma(2)) - 1
		rhoC := (1+relInC)*(1+rw)*(1+2*u)*(1+gamma(2)) - 1
		rrA := math.Expm1(-fr*math.Log1p(-rhoA)) * (1 + 1e-10)
		rrC := math.Expm1(-fr*math.Log1p(-rhoC)) * (1 + 1e-10)
		// aliasing: the linear power's mass beyond the range (powertail.go):
		// b <= a e^(tau L) (1 + rhoW) sigma, so ln M_b(s - tau) <= ln
		// M_a(s) + ln sigma + ln(1 + rhoW)
		rhoW := (1+rw)*(1+u)*(1+u) - 1
		alias := func(lnM []float64, sig float64) float64 {
			ls := ln(sig)
			shift := ls + 2*u*math.Abs(ls) + math.Log1p(rhoW)*(1+2*u)
			hi := chernoffLn(mg.s, lnM, shift, r, t, float64(n+1)*lam, true)
			lo := chernoffLn(mg.s, lnM, shift, r, t, -float64(n)*lam, false)
			return expUp(hi) + expUp(lo)
		}
		alA, alC := alias(mg.lnA, siga), alias(mg.lnC, sigc)
		// the leaf's absolute allowance: (m' + alpha)^r - m'^r
		var abA, abC, alphaA, alphaC float64
		atA, atC := absTilted(leaf.abs, nl, lam, t), absTilted(leaf.abs, nl, lam, t)
		if in != nil {
			atA = (atA + in.tl1A[m]) * (1 + 2*u)
			atC = (atC + in.tl1C[m]) * (1 + 2*u)
		}
		if atA > 0 || atC > 0 {
			atA = atA * (1 + rw) * (1 + 2*u)
			atC = atC * (1 + rw) * (1 + 2*u)
			alphaA, alphaC = atA*siga*(1+2*u), atC*sigc*(1+2*u)
			abA = powDiffUp(ma/(1-rhoA), alphaA, r)
			abC = powDiffUp(mc/(1-rhoC), alphaC, r)
		}
		ps := specPowerSup(fp, ba, bc, r, ma, mc, s2, in != nil)
		tp.ta, tp.tc = ps.a, ps.c
		tp.sumA, tp.sumC = ps.posA, ps.posC
		// pointwise, a composed input's error is the first-order term r
		// sup(b'^(*(r-1))) alpha plus the rest (stageAbsPoint)
		ptA, ptC := abA, abC
		if in != nil {
			ptA = math.Min(abA, stageAbsPoint(ps.supA, ma, rhoA, alphaA, r))
			ptC = math.Min(abC, stageAbsPoint(ps.supC, mc, rhoC, alphaC, r))
		}
		tp.ea = (ps.err2 + alA + ptA) * (1 + rrA) * (1 + 4*u)
		tp.ec = (ps.err2 + alC + ptC) * (1 + rrC) * (1 + 4*u)
		sqN := math.Sqrt(float64(N)) * (1 + 2*u)
		tp.la = (ps.err2*sqN + alA + abA) * (1 + rrA) * (1 + 4*u)
		tp.lc = (ps.err2*sqN + alC + abC) * (1 + rrC) * (1 + 4*u)
		tp.ra, tp.rc = rrA, rrC
		tp.lnCa, tp.lnCc = -fr*math.Log(siga), -fr*math.Log(sigc)
		// sigma^-r e^(-tau L) must stay within float64 over the range
		lim := 650 - math.Abs(t)*float64(n)*lam
		tp.okA = math.Abs(tp.lnCa) < lim && !math.IsNaN(tp.ea) && !math.IsInf(tp.ea, 0)
		tp.okC = math.Abs(tp.lnCc) < lim && !math.IsNaN(tp.ec) && !math.IsInf(tp.ec, 0)
	}
	if recycle {
		sl.reset()
	}
	// (powerSide writes every entry of the list's arrays and d)
	z := newListOn(n, lam, tau, sl.take(N), sl.take(N))
	z.grid = true
	z.compositions = r
	for _, nc := range leaf.names {
		z.names = append(z.names, nameCount{nc.name, nc.count * r})
	}
	z.wUp = fr * leaf.wUp * (1 + 2*u)
	z.wLo = fr * leaf.wLo * (1 + 2*u)
	// the untilting weights of every tilt used by either side (made
	// where used: weightRun)
	ws := make([]untilt, K)
	for m, t := range tau {
		if tps[m].okA || tps[m].okC {
			ws[m].run, ws[m].rw = newWeightRun(n, lam, -t)
		}
	}
	d := sl.take(N)           // a work array
	chosen := make([]int8, N) // the tilt taken at each offset (either side)
	relA, err := p.powerSide(z, tps, ws, d, chosen, true)
	if err != nil {
		return nil, err
	}
	relC, err := p.powerSide(z, tps, ws, d, chosen, false)
	if err != nil {
		return nil, err
	}
	z.relA, z.relC = relA, relC
	z.lo, z.hi = 0, 2*n-1
	z.trim()
	p.powerCorners(z, leaf, r, *mg, in)
	// the work arrays are free now: the result's error bounds and grid
	// table take them (list.spare)
	z.spare = append(z.spare, d)
	for m := range tps {
		z.spare = appendNonNil(z.spare, tps[m].ta, tps[m].tc)
	}
	return z, nil
}

// appendNonNil appends the non-nil arrays of vs to s.
func appendNonNil(s [][]float64, vs ...[]float64) [][]float64 {
	for _, v := range vs {
		if v != nil {
			s = append(s, v)
		}
	}
	return s
}

// untilt is one tilt's untilting weights e^(-tau L(o)) over the composed
// list's offsets (weights' values, made block by block from run where they
// are used) and their relative error.
type untilt struct {
	run weightRun
	rw  float64
}

// powerSide fills one side of z (the upper pair a, or the lower pair c)
// from the tilts' powers: values, envelopes, tilted and untilted total
// errors (see the file comment); it returns the side's relative error. ws
// holds each tilt's untilting weights (unset where the tilt is not used),
// d and chosen are work arrays of length 2n (every entry is written).
func (p *plan) powerSide(z *list, tps []tiltPower, ws []untilt, d []float64, chosen []int8, upper bool) (float64, error) {
	n := z.n
	N := 2 * n
	u := unitRoundoff
	K := len(z.tau)
	vals, env, tl1 := z.a, z.envA, make([]float64, K)
	if !upper {
		vals, env = z.c, z.envC
	}
	// per tilt: the factor sigma^-r e^(-tau L(o)) (the weights times the
	// constant C, multiplied where used: fac(o) = w[o] * C), its relative
	// error, and the side's data
	type side struct {
		t          []float64
		lnC, e, l  float64
		rr         float64
		ok         bool
		w          weightRun
		C, rf, sum float64
	}
	ss := make([]side, K)
	rel := 0.0
	for m := range z.tau {
		tp := tps[m]
		s := side{t: tp.ta, lnC: tp.lnCa, e: tp.ea, l: tp.la, rr: tp.ra, ok: tp.okA, sum: tp.sumA}
		if !upper {
			s = side{t: tp.tc, lnC: tp.lnCc, e: tp.ec, l: tp.lc, rr: tp.rc, ok: tp.okC, sum: tp.sumC}
		}
		env[m] = math.Inf(1)
		if s.ok {
			s.C = math.Exp(s.lnC)
			relCexp := 4*u*(math.Abs(s.lnC)+2) + 2*u
			s.w = ws[m].run
			s.rf = (1+relCexp)*(1+ws[m].rw)*(1+u)*(1+u) - 1
			env[m] = s.e * s.C * (1 + relCexp) * (1 + 1e-9)
			rel = math.Max(rel, (s.rf+s.rr)/(1-s.rf))
		}
		ss[m] = s
	}
	// each offset takes the tilt with the smallest envelope there
	lnEnv := make([]float64, K)
	for m := range lnEnv {
		lnEnv[m] = math.Log(env[m])
	}
	small := false
	// each tilt's weights over the block of o, made where the tilt is
	// first taken in the block (wbAt: the block's first offset)
	wb := make([][weightBlock]float64, K)
	wbAt := make([]int, K)
	for m := range wbAt {
		wbAt[m] = -1
	}
	for o := 0; o < N; o++ {
		L := z.loss(o)
		best, bm := math.Inf(1), -1
		for m, t := range z.tau {
			if !ss[m].ok {
				continue
			}
			if v := lnEnv[m] - t*L; v < best {
				best, bm = v, m
			}
		}
		chosen[o] = int8(bm)
		if bm < 0 {
			vals[o] = 0
			continue
		}
		j := wrapIndex(o+n+1, N)
		s := &ss[bm]
		tv := s.t[j]
		if tv <= 0 {
			// negative values clamped to 0 (math.Max(0, tv): NaN stays)
			tv = 0
		}
		if o0 := o - o%weightBlock; wbAt[bm] != o0 {
			s.w.block(o0, &wb[bm])
			wbAt[bm] = o0
		}
		v := tv * (wb[bm][o%weightBlock] * s.C)
		if v < minNormal && tv > 0 {
			// subnormal or underflowed to 0: an absolute 2^-1074 lost
			small = true
		}
		vals[o] = v
	}
	if small {
		z.abs = 0x1p-1068
	}
	// tilted total errors: tilt m's own, plus the other tilts' values'
	// distances from tilt m's
	for m, t := range z.tau {
		s := ss[m]
		if !s.ok {
			tl1[m] = math.Inf(1)
			continue
		}
		C := s.C * (1 + 4*u*(math.Abs(s.lnC)+2) + 2*u)
		own := C * (1 + s.rf) * (s.l + (s.rf+s.rr)/(1-s.rf)*s.sum*(1+4*u))
		var w [weightBlock]float64
		wAt := -1
		for o := 0; o < N; o++ {
			if int(chosen[o]) == m {
				d[o] = 0
				continue
			}
			if o0 := o - o%weightBlock; wAt != o0 {
				s.w.block(o0, &w)
				wAt = o0
			}
			j := wrapIndex(o+n+1, N)
			tv := s.t[j]
			if tv <= 0 {
				tv = 0
			}
			vm := tv * (w[o%weightBlock] * s.C)
			d[o] = math.Abs(vals[o]-vm) * (1 + u)
		}
		other := tiltedSum(d, 0, N-1, n, z.lambda, t)
		tl1[m] = (own + other) * (1 + 2*u)
		if z.abs > 0 {
			tl1[m] += absTilted(z.abs, n, z.lambda, t)
		}
	}
	if upper {
		z.tl1A = tl1
	} else {
		z.tl1C = tl1
	}
	l1 := untiltedL1(z.tau, tl1, float64(n)*z.lambda)
	if upper {
		z.l1A = l1
	} else {
		z.l1C = l1
	}
	return rel, nil
}

// untiltedL1 returns an upper bound on the untilted total error sum_o
// |err_o| from the tilted ones tl1[m] >= sum_o |err_o| e^(tau_m L_o): that
// of the tilt 0 if there is one, else the smallest over pairs of tilts t1
// > 0 > t2 of Hoelder's interpolation tl1_1^alpha tl1_2^(1-alpha) with
// alpha t1 + (1-alpha) t2 = 0 (|err| = (|err| e^(t1 L))^alpha (|err|
// e^(t2 L))^(1-alpha) term by term, and Hoelder's inequality with the
// exponents 1/alpha, 1/(1-alpha)); +Inf if neither exists. The computed
// alpha leaves d = alpha t1 + (1-alpha) t2 off 0 by rounding, a factor
// e^(|d| R) over losses |L| <= R.
func untiltedL1(tau, tl1 []float64, R float64) float64 {
	for m, t := range tau {
		if t == 0 {
			return tl1[m]
		}
	}
	u := unitRoundoff
	best := math.Inf(1)
	for i, t1 := range tau {
		for j, t2 := range tau {
			if !(t1 > 0 && t2 < 0) || !(tl1[i] < math.Inf(1)) || !(tl1[j] < math.Inf(1)) {
				continue
			}
			if tl1[i] == 0 || tl1[j] == 0 {
				return 0
			}
			al := -t2 / (t1 - t2)
			d := math.Abs(al*t1+(1-al)*t2) + 4*u*(math.Abs(t1)+math.Abs(t2))
			// the exponent with its rounding (ln within 1 ulp), then e^x
			// rounded up
			x1, x2 := al*math.Log(tl1[i]), (1-al)*math.Log(tl1[j])
			x := x1 + x2 + d*R*(1+2*u) + 8*u*(math.Abs(x1)+math.Abs(x2)+1)
			best = math.Min(best, expUp(x))
		}
	}
	return best
}

// powerCorners sets z's corners: the outcomes with a leaf corner among
// their components, and the upper pair's regular mass beyond z's range
// (Chernoff on the leaf's true masses).
func (p *plan) powerCorners(z, leaf *list, r int, mg mgfGrid, in *stageInput) {
	n := z.n
	lam := z.lambda
	u := unitRoundoff
	// ln M of the leaf's true A-masses: stored (1 + relA) + abs
	lnT := make([]float64, len(mg.s))
	var lnR0, lnR1 float64 = math.Inf(1), math.Inf(1)
	for i, s := range mg.s {
		if in != nil {
			lnT[i] = in.lnT[i]
		} else {
			v := expUp(mg.lnA[i])*(1+leaf.relA)*(1+2*u) + absTilted(leaf.abs, leaf.n, lam, s)
			lnT[i] = lnUp0(v * (1 + 2*u))
		}
		switch s {
		case 0:
			lnR0 = lnT[i]
		case -1:
			lnR1 = lnT[i]
		}
	}
	hiA := expUp(chernoffLn(mg.s, lnT, 0, r, 0, float64(n+1)*lam, true))
	loA := expUp(chernoffLn(mg.s, lnT, 0, r, 0, -float64(n)*lam, false))
	// B-mass = A-mass e^-l, l >= g lambda - wUp
	hiB := mulExp(hiA, -float64(n+1)*lam+z.wUp, 4*u*(float64(n+1)*lam+z.wUp+1), true)
	loB := mulExp(expUp(chernoffLn(mg.s, lnT, 0, r, -1, -float64(n)*lam, false)), z.wUp, 4*u*(z.wUp+1), true)
	// leaf corners: (R + C)^r - R^r, R the regular mass
	RA := expUp(lnR0)
	RB := mulExp(expUp(lnR1), leaf.wUp, 4*u*(leaf.wUp+1), true)
	CA := leaf.hiA.upper() + leaf.loA.upper()
	CB := leaf.hiC.upper() + leaf.loC.upper()
	cA := powDiffUp(RA, CA*(1+2*u), r)
	cB := powDiffUp(RB, CB*(1+2*u), r)
	z.hiA = val{0, (cA + hiA) * (1 + 2*u)}
	z.loA = val{0, loA}
	z.hiC = val{0, (cB + hiB) * (1 + 2*u)}
	z.loC = val{0, loB}
}

// meanLosses returns the A-masses of a grouped leaf's non-empty buckets and
// each bucket's loss estimate: its mean loss ln(A/B), clamped to the bucket
// (within u+1 spacings below its grid loss), or the grid loss where B is 0.
// The Chernoff range estimates of the power path and of the path choice
// use them (the bucket's grid loss would shift an estimate by up to r
// lambda).
func (l *list) meanLosses() (loss, mass []float64) {
	k := 0
	for o := l.lo; o <= l.hi; o++ {
		if l.a[o] > 0 {
			k++
		}
	}
	if k > 0 {
		loss, mass = make([]float64, 0, k), make([]float64, 0, k)
	}
	for o := l.lo; o <= l.hi; o++ {
		a, c := l.a[o], l.c[o]
		if !(a > 0) {
			continue
		}
		L := l.loss(o)
		if c > 0 {
			L = math.Max(L-(l.u+1)*l.lambda, math.Min(L, ln(a)-ln(c)))
		}
		loss = append(loss, L)
		mass = append(mass, a)
	}
	return loss, mass
}
