package engine

import (
	"context"
	"math"
	"slices"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

// This file is the power path's two-stage composition (power.go, "Two
// stages"): m observations composed at the spacing lambda/k on a small
// range, coarsened to the spacing lambda as the squaring chain coarsens
// (gridSquare: the upper pair spread, the lower pair merged), and that
// m-fold list raised to the power q = r/m on the N-point grid.

// powerStageK is the first stage's refinement k: its spacing is lambda/k.
// Each coarsening (a grid squaring) may amplify the lower pair's tilted
// total error by its merges' coefficients (about 2 per squaring on the
// DP-SGD rows), and that error enters the second stage q times, so k stays
// small. k = 8 (with its largest m under the same cost bound) narrowed
// DP-SGD sigma 4, q 0.01, r 65,536 by 15-20% at 2^16-2^18 points for
// 1.15-1.45 times the CPU, and widened it at 2^20 (1.2e-6 against 8.2e-7).
const powerStageK = 4

// powerStageMinM and powerStageMinQ bound the first stage's count m and
// the second stage's power q = r/m from below: the slack falls from r
// lambda^2 c to about r lambda^2 c (1/k^2 + 1/m), so m below 16 gains
// little, and q below 4 leaves the first stage nearly the whole work.
const (
	powerStageMinM = 16
	powerStageMinQ = 4
)

// powerStageCostDiv bounds the first stage's transform length from above:
// at most N/powerStageCostDiv, so that it costs at most about a quarter of
// the second stage's transforms (a first stage on a heavy right tail, whose
// leaf alone spans a third of the composed range, would cost more than the
// second: DP-SGD sigma 1.1, q 0.01, r 10^4 at 2^17 points, first stage
// 2^18 points, 3.4 times the CPU).
const powerStageCostDiv = 4

// powerStages is the plan of a two-stage composition: m observations at
// the spacing lambda/k on n1 points per side (transform length 2 n1), then
// the power q = r/m.
type powerStages struct {
	m, q, k int
	n1      int
	rm      float64 // the first stage's range (nats)
}

// powerStagesFor returns the two-stage plan for r observations of mech on
// transforms of length N at the spacing lambda, or ok = false where one
// stage composes: m is the largest divisor of r with m >= powerStageMinM,
// r/m >= powerStageMinQ and a first-stage transform of at most
// N/powerStageCostDiv points, the first stage's range R_m (powerRangeFor
// for m observations with the tail budget b m/r: its corners enter the
// second stage q times) over the spacing lambda/k, rounded up to a power of
// two. R_m grows with m, so the search starts at the largest divisor the
// grouped leaf's cumulants predict to fit (stageGuess) and walks to the
// first fitting divisor whose successor does not fit (two Chernoff
// estimates where the guess is right; the bisection's choice where the fit
// is monotone in m, TestPowerStagesSearch). The choice depends on the
// mechanism, r, N and the options only.
func (p *plan) powerStagesFor(mech Mechanism, r, N int, lambda float64) (powerStages, bool) {
	return p.powerStagesMemo(mech, r, N, lambda, nil, nil)
}

// powerStagesMemo is powerStagesFor with the first stage's ranges kept in
// memo (by m; nil: none kept) for calls at other N (the path choice), on
// the grouped leaf's means lm (nil: computed here).
func (p *plan) powerStagesMemo(mech Mechanism, r, N int, lambda float64, memo map[int]float64, lm *leafMeans) (powerStages, bool) {
	if p.leaves[mech] == nil || !(lambda > 0) {
		return powerStages{}, false
	}
	// the leaf's range bounds every R_m from below (powerRange): a first
	// stage that cannot fit on it is rejected before any estimate
	if x := math.Ceil(float64(p.n) * p.gridLambda / (lambda / powerStageK)); !(2*x <= float64(N/powerStageCostDiv)) {
		return powerStages{}, false
	}
	var ds []int // divisors of r within the bounds, ascending
	for d := 1; d*d <= r; d++ {
		if r%d != 0 {
			continue
		}
		for _, m := range []int{d, r / d} {
			if m >= powerStageMinM && r/m >= powerStageMinQ {
				ds = append(ds, m)
			}
		}
	}
	slices.Sort(ds)
	ds = slices.Compact(ds)
	if len(ds) == 0 {
		return powerStages{}, false
	}
	if memo == nil {
		memo = map[int]float64{}
	}
	if lm == nil {
		v := p.leaves[mech].leafMeans()
		lm = &v
	}
	fit := func(m int) (powerStages, bool) {
		if _, ok := memo[m]; !ok {
			// a first stage whose range from the estimate above alone does
			// not fit does not fit (stageFitRange is monotone in the
			// range): the estimate below is left out, and the lower bound
			// is not kept
			tooWide := func(v float64) bool {
				_, ok := stageFitRange(r, N, lambda, m, powerStageK, powerStageCostDiv, v)
				return !ok
			}
			R, done := p.powerRangeStop(mech, *lm, m, p.opt.TailBudget*float64(m)/float64(r), tooWide)
			if !done {
				return powerStages{}, false
			}
			memo[m] = R
		}
		return p.stageFitMemo(mech, r, N, lambda, m, powerStageK, powerStageCostDiv, memo)
	}
	// the largest fitting divisor: fit is monotone in m (R_m grows with m)
	// up to the estimate's noise, and any choice is sound; the search starts
	// at the cumulants' guess and walks to the first divisor whose successor
	// does not fit (where the smallest does not fit, none does), which is
	// the bisection's choice where fit is monotone, with two exact
	// estimates where the guess is right instead of one per halving
	i := stageGuess(ds, lm.loss, lm.mass, p.leaves[mech].variance, r, p.opt.TailBudget, lambda/powerStageK*float64(N/(2*powerStageCostDiv)))
	st, ok := fit(ds[i])
	if !ok {
		for i > 0 {
			i--
			if st, ok = fit(ds[i]); ok {
				return st, true
			}
		}
		return powerStages{}, false
	}
	for i+1 < len(ds) {
		next, ok := fit(ds[i+1])
		if !ok {
			break
		}
		st, i = next, i+1
	}
	return st, true
}

// stageGuess returns the index in ds (divisors of r, ascending) of the
// largest m whose first-stage range R_m the Gaussian of the grouped leaf's
// cumulants (mean of loss over mass, variance v) puts at most at rMax: m
// mu + sqrt(2 c m v) with c = -ln(b m/(4 r)), powerRangeOf's tail for the
// budget b m/r (0 where none). A guess only: powerStagesMemo verifies it
// and its neighbours with the Chernoff estimates.
func stageGuess(ds []int, loss, mass []float64, v float64, r int, b, rMax float64) int {
	var sm, sl float64
	for i, L := range loss {
		sm += mass[i]
		sl += mass[i] * L
	}
	mu := 0.0
	if sm > 0 {
		mu = sl / sm
	}
	best := 0
	for i, m := range ds {
		fm := float64(m)
		c := -math.Log(b * fm / float64(r) / 4)
		if fm*math.Abs(mu)+math.Sqrt(2*c*fm*v) <= rMax {
			best = i
		}
	}
	return best
}

// stageFit returns the two-stage plan with m first-stage observations at
// the spacing lambda/k (r observations in all on transforms of length N at
// the spacing lambda), or ok = false where m does not divide r or the
// first stage's transform would be longer than N/costDiv.
func (p *plan) stageFit(mech Mechanism, r, N int, lambda float64, m, k, costDiv int) (powerStages, bool) {
	return p.stageFitMemo(mech, r, N, lambda, m, k, costDiv, nil)
}

// stageFitMemo is stageFit with the first stage's ranges kept in memo (nil:
// none kept).
func (p *plan) stageFitMemo(mech Mechanism, r, N int, lambda float64, m, k, costDiv int, memo map[int]float64) (powerStages, bool) {
	if m < 2 || r%m != 0 || r/m < 2 || k < 2 || k&(k-1) != 0 {
		return powerStages{}, false
	}
	rm, ok := memo[m]
	if !ok {
		rm = p.powerRangeFor(mech, m, p.opt.TailBudget*float64(m)/float64(r))
		if memo != nil {
			memo[m] = rm
		}
	}
	return stageFitRange(r, N, lambda, m, k, costDiv, rm)
}

// stageFitRange is stageFit for the first stage's range rm (nats): its
// transform length grows with rm, so where a range does not fit, no
// larger one does.
func stageFitRange(r, N int, lambda float64, m, k, costDiv int, rm float64) (powerStages, bool) {
	if m < 2 || r%m != 0 || r/m < 2 || k < 2 || k&(k-1) != 0 {
		return powerStages{}, false
	}
	lam1 := lambda / float64(k)
	if !(rm > 0) || rm > powerMaxRange {
		return powerStages{}, false
	}
	x := math.Ceil(rm / lam1)
	if !(x <= float64(N)) {
		return powerStages{}, false
	}
	// 2 n1 points: a transform length (2^j or 3·2^j)
	n1 := max(transformLength(2*int(x))/2, powerMinN/2)
	if 2*n1 > N/costDiv {
		return powerStages{}, false
	}
	return powerStages{m: m, q: r / m, k: k, n1: n1, rm: rm}, true
}

// gapFactor returns the predicted grid slack of the two stages over one
// stage's at the same N (powerchoice.go): the fine leaf's 1/k^2 plus the
// coarsening squarings' powerSquareWeight (2^j/k)^2 at the spacings 2^j
// lambda/k, each paid q = r/m times (1/m of r).
func (st powerStages) gapFactor() float64 {
	k := float64(st.k)
	g := 1 / (k * k)
	for s := 1.0; s < k; s *= 2 {
		g += powerSquareWeight * (s / k) * (s / k) / float64(st.m)
	}
	return g
}

// powerTwoStage returns the r-fold composition of mech by two stages (see
// power.go, "Two stages") with the plan st and the one-stage setup ps (its
// tilts, the second stage's; its grouped leaf), or nil where the first
// stage has no usable bound (the caller composes in one stage).
func (p *plan) powerTwoStage(ctx context.Context, mech Mechanism, r int, fp *fft.Plan, ps *powerSetup, st powerStages) (*list, error) {
	lam1 := ps.leaf.lambda / float64(st.k)
	n1 := st.n1
	// the fine leaf over the chain's leaf range (as powerPrepare)
	nl := n1
	if t := float64(p.n) * p.gridLambda; t < st.rm {
		nl = min(n1, 2*int(math.Ceil(t/lam1/2))+2)
	}
	_, leaf1, err := powerGridLeaf(mech, nl, lam1)
	if err != nil {
		return nil, err
	}
	if leaf1.distA.upper() > 0 || leaf1.distB.upper() > 0 || leaf1.lowDistA.upper() > 0 || leaf1.lowDistB.upper() > 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sd1 := math.Sqrt(float64(st.m) * ps.gl.lossVariance())
	z, _, err := p.composeStages(ctx, leaf1, st, ps.tau, sd1, ps.sd, fp, nil)
	return z, err
}

// composeStages returns the two-stage composition of the fine grid leaf
// leaf1 (spacing lambda/k) with the plan st and the tilts tau on
// transforms of fp's length (sd1 and sd: the loss's standard deviations
// after m and r observations, for the grids of s), and the coarsened first
// stage; nil where the first stage has no usable bound. trace, if not
// nil, records the coarsenings (tests).
func (p *plan) composeStages(ctx context.Context, leaf1 *list, st powerStages, tau []float64, sd1, sd float64, fp *fft.Plan, trace *stageTrace) (z, z1 *list, err error) {
	n := fp.Len() / 2
	lam1 := leaf1.lambda
	lambda := lam1 * float64(st.k)
	n1 := st.n1
	// the first stage composes with the second's tilts (their tilted
	// total errors are the second stage's input errors) and a grid of s
	// for its own range's Chernoff bounds
	R1 := float64(n1+1) * lam1
	sg := append(powerTiltGrid(tau, sd1, R1), powerSGrid(nil, sd1, R1)...)
	slices.Sort(sg)
	sg = slices.Compact(sg)
	mg1 := newMGFGrid(leaf1, sg)
	// the first stage's arrays and the coarsenings' come from three chunks
	// of 2n entries, which the second stage's list and work array take
	// over once the second stage has tilted (stageSlab); not with a trace,
	// which keeps the coarsenings' inputs
	var sl *stageSlab
	if trace == nil {
		sl = newStageSlab(2*n, 3)
	}
	z1, err = p.powerComposeOn(ctx, fft.Shared(2*n1), leaf1, st.m, tau, sd1, &mg1, nil, nil, sl, false)
	if err != nil {
		return nil, nil, err
	}
	z1.variance = sd1 * sd1
	// the first stage's work arrays (list.spare: 2 n1 entries each) are
	// free: the coarsenings work in them, each handing on its input's
	// arrays to the next, and the second stage tilts in them
	w := newSquareWork(z1.n, z1.spare)
	w.sl = sl
	z1.spare = nil
	for k := st.k; k > 1; k /= 2 {
		var rec *mergeLog
		if trace != nil {
			rec = new(mergeLog)
			trace.inputs = append(trace.inputs, z1)
			trace.logs = append(trace.logs, rec)
		}
		prev := z1
		z1 = z1.stageCoarsenWith(rec, w)
		if trace == nil {
			w.put(prev.a, prev.c)
		}
	}
	in := &stageInput{}
	in.tl1A, in.tl1C = z1.tl1Sum()
	if len(in.tl1A) != len(tau) || len(in.tl1C) != len(tau) {
		return nil, z1, nil
	}
	for i := range tau {
		if !(in.tl1A[i] < math.Inf(1)) || !(in.tl1C[i] < math.Inf(1)) {
			return nil, z1, nil
		}
	}
	if z1.distA.upper() > 0 || z1.distB.upper() > 0 || z1.n > n {
		return nil, z1, nil
	}
	mg := newMGFGrid(z1, powerTiltGrid(tau, sd, float64(n+1)*lambda))
	in.lnT = stageTrueMGF(leaf1, st.m, mg.s, lambda, &mg1)
	lw := newLeafWeights(z1)
	lw.alloc = w.get
	z, err = p.powerComposeOn(ctx, fp, z1, st.q, tau, sd, &mg, lw, in, sl, sl != nil)
	if err != nil {
		return nil, nil, err
	}
	z.compositions = st.m * st.q
	if sl != nil {
		// z holds z1's arrays now
		z1.a, z1.c = nil, nil
	}
	return z, z1, nil
}

// pick returns g's bounds at the points s (each one of g's points), or ok
// = false where g is nil or lacks one.
func (g *mgfGrid) pick(s []float64) (mgfGrid, bool) {
	if g == nil {
		return mgfGrid{}, false
	}
	out := mgfGrid{s: s, lnA: make([]float64, len(s)), lnC: make([]float64, len(s))}
	for i, v := range s {
		j, found := slices.BinarySearch(g.s, v)
		if !found {
			return mgfGrid{}, false
		}
		out.lnA[i], out.lnC[i] = g.lnA[j], g.lnC[j]
	}
	return out, true
}

// stageTrace records the coarsenings of a two-stage composition (tests):
// each one's input list and merges.
type stageTrace struct {
	inputs []*list
	logs   []*mergeLog
}

// stageInput is what the second stage takes from the first beside the
// coarsened list: its tilted total errors at the second stage's tilts
// (the whole error of the list: tl1 includes the relative part and the
// allowance) and upper bounds on ln M(s) of its true upper pair's A-masses
// at the second stage's grid of s (stageTrueMGF).
type stageInput struct {
	tl1A, tl1C []float64
	lnT        []float64
}

// stageTrueMGF returns upper bounds on ln M(s) = ln sum_g A_g e^(s g
// lambda) of the coarsened first stage's true upper pair at the points s:
// its true regular masses are the m-fold composition of the fine leaf's
// true regular masses (at most M_1(s)^m, M_1 the fine leaf's stored masses
// with its relative error and allowance) minus what went into the
// corners, spread onto the coarse grid by squarings that move each atom by
// at most (k-1) lambda/k < lambda (a factor e^(|s| lambda) at most).
// known, if not nil, holds M_1's bounds at some points (the first stage's
// grid, newMGFGrid of leaf1): where it has every point of s they are taken
// from it (the second stage's grid, on a wider range, is part of the
// first's: tiltedSums bounds each point on its own, so bitwise the same).
func stageTrueMGF(leaf1 *list, m int, s []float64, lambda float64, known *mgfGrid) []float64 {
	u := unitRoundoff
	mgF, ok := known.pick(s)
	if !ok {
		mgF = newMGFGrid(leaf1, s)
	}
	out := make([]float64, len(s))
	for i, si := range s {
		v := expUp(mgF.lnA[i])*(1+leaf1.relA)*(1+2*u) + absTilted(leaf1.abs, leaf1.n, leaf1.lambda, si)
		l := lnUp0(v*(1+2*u))*float64(m) + math.Abs(si)*lambda
		out[i] = l + 8*u*(math.Abs(l)+1)
		if math.IsNaN(out[i]) {
			out[i] = math.Inf(1)
		}
	}
	return out
}

// stageCoarsen returns l squared (gridSquare: the spacing doubles, the
// upper pair spread, the lower pair merged) with the lower pair's tilted
// total errors bounded also by a split of the merges' amplification: an
// input o whose errors reach the outputs with tilted coefficients summing
// to T_o (the merges' k f e^(tau lambda d), mergeSquare) contributes
// T_o e_o w_o (e_o its error, w_o = e^(tau L_o)); for any A,
//
//	sum_o T_o e_o w_o <= A sum_o e_o w_o + sum_o (T_o - A)^+ e_o w_o
//	                 <= A tl1C + sum_o (T_o - A)^+ b_o w_o,
//
// b_o the input's pointwise bound (relC c_o + envelope + allowance). The
// largest T_o (gridSquare's factor) often belongs to a few atoms deep in
// the tails (merged with far partners), whose pointwise bounds are tiny; A
// is the best of a few candidates from 2 up. The smaller of both bounds is kept.
// log, if not nil, receives the merges (tests).
func (l *list) stageCoarsen(log *mergeLog) *list {
	return l.stageCoarsenWith(log, newSquareWork(l.n, nil))
}

// stageCoarsenWith is stageCoarsen with its arrays from w (squareWork):
// the squared list's, the merges' and its own.
func (l *list) stageCoarsenWith(log *mergeLog, w *squareWork) *list {
	// per input: its shares of the merges (tilt-independent coefficient k
	// f and move d), recorded by the merges
	w.record, w.moves = true, w.moves[:0]
	z := l.gridSquareWith(log, w)
	w.record = false
	ea, ec := l.tl1Sum()
	if ea == nil || len(z.tl1C) != len(l.tau) || len(l.tl1ZC) == len(l.tau) {
		return z
	}
	u := unitRoundoff
	n, lam := l.n, l.lambda
	parts := w.moves
	lnEnv := make([]float64, len(l.envC))
	for m, v := range l.envC {
		lnEnv[m] = ln(v)
	}
	_, mc := tiltedSums(z.a, z.c, z.lo, z.hi, n, z.lambda, l.tau)
	T := w.get(w.ar.m) // cleared per tilt
	big := w.big[:0]   // inputs with T_o > 2 (every candidate A is at least 2)
	bw := w.bw[:0]     // their tilted pointwise bounds b_o w_o
	bo := w.get(w.ar.m)
	for o := range bo {
		bo[o] = -1 // not yet computed
	}
	defer func() {
		w.put(T, bo)
		w.big, w.bw = big, bw
	}()
	for m, tau := range l.tau {
		clear(T)
		var exps [129]float64 // e^(tau lambda d) for |d| <= 64 (0: not yet)
		for _, pt := range parts {
			var e float64
			if i := int(pt.d) + 64; i >= 0 && i <= 128 && exps[i] != 0 {
				e = exps[i]
			} else {
				x := tau * lam * float64(pt.d)
				e = math.Exp(x) * (1 + 8*u*(math.Abs(x)+1))
				if i >= 0 && i <= 128 {
					exps[i] = e
				}
			}
			T[pt.o] += pt.c * e * (1 + 2*u)
		}
		nBig := 0
		for o := l.lo; o <= l.hi; o++ {
			if T[o] > 2 {
				nBig++
			}
		}
		if cap(big) < nBig {
			big, bw = make([]int, 0, nBig), make([]float64, 0, nBig)
		}
		big, bw = big[:0], bw[:0]
		for o := l.lo; o <= l.hi; o++ {
			if !(T[o] > 2) {
				continue
			}
			if bo[o] < 0 {
				e := envAbsHi(lnEnv, l.tau, l.loss(o))
				bo[o] = (l.relC*l.c[o] + e + l.abs) * (1 + 4*u)
			}
			x := tau * l.loss(o)
			big = append(big, o)
			bw = append(bw, bo[o]*math.Exp(x)*(1+8*u*(math.Abs(x)+1)))
		}
		best := math.Inf(1)
		for _, A := range []float64{2, 3, 4, 6, 8, 16} {
			s := A * ec[m]
			for i, o := range big {
				if T[o] > A {
					s += (T[o] - A) * (1 + 2*u) * bw[i]
				}
			}
			best = math.Min(best, s*(1+float64(2*n+4)*2*u))
		}
		rc := (8*u + gamma(4)) * 2 * mc[m] * (1 + 16*u)
		absT := absTilted(0x1p-1070, n, z.lambda, tau)
		v := upInf((best+rc)*(1+4*u) + absT)
		if v < z.tl1C[m] {
			z.tl1C[m] = v
		}
	}
	return z
}

// envAbsHi is envAbs's upper envelope alone (bitwise its first result,
// without the lower one's exponential).
func envAbsHi(lnEnv, tau []float64, L float64) float64 {
	e, big := envMinLn(lnEnv, tau, L)
	if math.IsInf(e, 0) {
		return math.Exp(e)
	}
	return math.Exp(e + 8*unitRoundoff*(big+2))
}

// stageAbsPoint bounds every entry of (b' + d)^(*r) - b'^(*r) for b' =
// b/(1 + theta) >= 0 (|theta| <= rho, ||b||_1 <= m) and ||d||_1 <= alpha:
// the terms with one factor d are r b'^(*(r-1)) * d, each entry at most r
// ||b'^(*(r-1))||_inf alpha (Young's inequality), ||b'^(*(r-1))||_inf <=
// sup (1 - rho)^-(r-1) with sup bounding ||b^(*(r-1))||_inf (specPowerSup);
// the terms with j >= 2 factors d sum to at most r(r-1)/2 alpha^2 (m' +
// alpha)^(r-2) in 1-norm (Taylor's remainder of x^r at m' = m/(1 - rho)).
// +Inf where sup is not finite.
func stageAbsPoint(sup, m, rho, alpha float64, r int) float64 {
	if !(alpha > 0) {
		return 0
	}
	if !(sup < math.Inf(1)) || r < 3 {
		return math.Inf(1)
	}
	u := unitRoundoff
	fr := float64(r)
	g := expUp(-(fr - 1) * math.Log1p(-rho) * (1 + 1e-10))
	first := fr * sup * g * alpha * (1 + 4*u)
	mp := m / (1 - rho) * (1 + 2*u)
	rest := expUp((fr-2)*math.Log(mp+alpha)*(1+1e-10)+1e-12) * fr * (fr - 1) / 2 * alpha * alpha * (1 + 4*u)
	return (first + rest) * (1 + 2*u)
}
