package engine

import (
	"context"
	"math"
)

// This file predicts, before anything is composed, the transform length
// at which the power path's brackets meet a relative width
// (PowerLengthFor): the first round of an accuracy target, which would
// otherwise be a short probe whose width the later rounds extrapolate.
//
// # The width model
//
// The gap of powerchoice.go, r lambda^2 g (lambda = R/(N/2) the spacing on
// the composed range R, g = powerStages.gapFactor in two stages and 1 in
// one), is the difference of the upper and the lower pair's composed loss
// variances in units of c_leaf lambda^2. A bracket is that variance
// difference times the query's sensitivity to the loss variance. The
// sensitivity is the mu-GDP curve's (Dong, Roth, Su 2019), to which
// compositions of many observations converge (their Theorem 3.4, the
// central limit theorem), with mu^2 = r Var_A(L) of the grouped leaf:
//
//	delta_mu(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)
//	d delta/d mu^2 = phi(mu/2 - eps/mu) / (2 mu)
//	d eps/d mu^2 = phi(mu/2 - eps/mu) / (2 mu e^eps Phi(-mu/2 - eps/mu))
//
// (d delta/d mu = phi(mu/2 - eps/mu), as in gaussclosed.go), relative to
// eps (an eps(delta) query) or to delta_mu (a delta(eps) query). The
// predicted relative width is powerWidthScale times the gap times that
// relative sensitivity.
//
// powerWidthScale is fitted to measured widths (BenchmarkPowerPeers'
// rows and the 30-query DP-SGD sweep's mechanisms, sigma 0.6 to 4 and q
// 0.001 to 0.016 at r 10^4 and 10^5, 2^14 and 2^16 points, with the
// question's floor): the measured width over the model with scale 1 was
// 0.25 to 0.30 on every eps(1e-5) and delta(eps) bracket (delta 1e-3 to
// 1e-8) with sigma >= 1.2 and below 1e-2 wide, in one stage and in two
// (it is c_leaf: a quarter of lambda^2 between the pairs at the leaf).
// Heavier tails stray from the Gaussian: sigma 0.6-1 gave 0.1 to 0.6, and
// widths near 1 at 2^14 points (the grid too coarse for the range) up to
// 9. So the model predicts only where the composition is near the curve:
// where the composed loss's skewness moves the queries' quantiles by at
// most powerPredictMaxShift standard deviations. On DP-SGD sigma 0.6-4, q 0.001-0.016, r 10^3-10^5
// at targets 1e-3 and 1e-4 up to 2^16 points it predicted 67 lengths: 56
// the shortest that meets the target, the others one step longer or short
// by at most 29% of the target (TestPowerLengthForAgainstComposed). The
// prediction only chooses a length; the bracket composed at it is what is
// reported, sound whatever the prediction was.

// powerWidthScale is the width model's scale: the measured relative widths
// over gap times sensitivity, at the upper end of the near-Gaussian
// mechanisms' 0.25-0.30 (a prediction a little wide more often meets the
// target in one round).
const powerWidthScale = 0.3

// powerPredictMaxShift is the largest Cornish-Fisher shift of the queries'
// quantiles (cornishFisher, in standard deviations) at which
// PowerLengthFor predicts: the skewness of the composed loss moves its
// tail quantile z by about skewness (z^2 - 1)/6 from the Gaussian's, and
// where that is large the Gaussian curve's sensitivity is not the
// composition's. DP-SGD 0.61/0.00071, r 30,000 at delta 1e-6 (skewness
// 0.25, shift 0.9; eps 3.04 against the curve's 2.08) was predicted to meet
// 1e-5 at 2^20 points and reached 1.05e-4 there; DP-SGD 0.6/0.001 at r
// 1,000 (skewness 1.4) took four times the length needed. The near-Gaussian
// rows shift by at most about 0.15.
const powerPredictMaxShift = 0.3

// powerPredictBuckets is the bucket count of the grouped leaf the
// prediction estimates the composed range, the variance, the skewness and
// the stage plan on (the power path's own plan takes powerPlanBuckets):
// half of it, the prediction took 10-20% less of the CPU of DP-SGD
// 4/0.01/65,536 at 1.45e-4 and predicted the same lengths on
// TestPowerLengthForAgainstComposed; at 2,048 one prediction there missed
// by 2.4 times (DP-SGD 0.8/0.001, r 10^5: the range of a heavy tail).
const powerPredictBuckets = 4096

// PowerLengthFor returns the shortest transform length of the power path
// from PowerLength(minN) to maxN (points; lengths 2^k and 3·2^k) at which
// the relative widths of r observations' brackets, eps(delta) at every
// delta of deltas and delta(eps) at every eps of eps (nats), are predicted
// to be at most target (the width model above), with the options opt (its
// Buckets ignored: each length composes with Buckets set to it). It
// returns 0 where no length up to maxN is predicted to meet the target,
// where the power path does not compose the mechanism with opt, and where
// the model predicts nothing: no query, a Cornish-Fisher shift above
// powerPredictMaxShift (far from the Gaussian curve at the queries), an
// eps(delta) query whose delta the Gaussian curve meets at eps 0, or a
// delta(eps) query it puts below 1e-300. It composes nothing: a
// prediction costs a grouped leaf of powerPredictBuckets buckets and a few
// range estimates (about 1 ms).
func PowerLengthFor(ctx context.Context, m Mechanism, r int, eps, deltas []float64, target float64, minN, maxN int, opt Options) (int, error) {
	if m == nil {
		return 0, invalidf("nil mechanism")
	}
	if r < 1 {
		return 0, invalidf("number of compositions must be >= 1, got %d", r)
	}
	if !(target > 0 && target < 1) {
		return 0, invalidf("target relative width must be in (0, 1), got %v", target)
	}
	if minN < 1 || maxN < minN {
		return 0, invalidf("lengths must satisfy 1 <= minN <= maxN, got %d and %d", minN, maxN)
	}
	for _, e := range eps {
		if !(e >= 0) || math.IsInf(e, 1) {
			return 0, invalidf("eps must be finite and >= 0, got %v", e)
		}
	}
	for _, d := range deltas {
		if !(d > 0 && d < 1) {
			return 0, invalidf("delta must be in (0, 1), got %v", d)
		}
	}
	if len(eps)+len(deltas) == 0 {
		return 0, nil
	}
	if _, ok := m.(*countMech); ok {
		return 0, nil
	}
	if err := prepare(ctx, m); err != nil {
		return 0, err
	}
	// one plan per tail budget (the power path's differs at and below
	// powerShortN, Options.powerTailBudget), with its composed range, its
	// leaf's means and its stages' gap factor shared by its lengths
	type planned struct {
		p  *plan
		R  float64
		lm leafMeans
		gf float64 // powerStages.gapFactor, 1 in one stage (0: not yet known)
	}
	var short, long *planned
	planFor := func(N int) (*planned, error) {
		at := &long
		if N <= powerShortN {
			at = &short
		}
		if *at != nil {
			return *at, nil
		}
		o := opt
		o.Path, o.Buckets = PathPower, N
		o, err := o.withDefaults()
		if err != nil {
			return nil, err
		}
		if ComposesInClosedForm(m, r, o) {
			return nil, nil
		}
		o = o.withTailBudget([]Part{{Mechanism: m, Count: r}})
		p, err := newPowerPlanOf(m, r, o, powerPredictBuckets)
		if err != nil || p == nil {
			return nil, err
		}
		lm := p.leaves[m].leafMeans()
		R := p.powerRangeWith(m, lm, r)
		if !(R > 0) || R > powerMaxRange {
			return nil, nil
		}
		*at = &planned{p: p, R: R, lm: lm}
		return *at, nil
	}
	var sens float64 // the largest relative sensitivity of the queries
	// meets reports whether the width at N is predicted to meet the target
	// (ok false: no prediction)
	meets := func(N int) (yes, ok bool, err error) {
		if err := ctx.Err(); err != nil {
			return false, false, err
		}
		pl, err := planFor(N)
		if err != nil || pl == nil {
			return false, false, err
		}
		if sens == 0 {
			mu := math.Sqrt(float64(r) * pl.p.leaves[m].variance)
			if !(cornishFisher(skewness(pl.lm, r), gdpQuantile(mu, eps, deltas)) <= powerPredictMaxShift) {
				return false, false, nil
			}
			if sens = gdpSensitivity(mu, eps, deltas); !(sens > 0) {
				return false, false, nil
			}
		}
		lambda := pl.R / float64(N/2)
		if pl.gf == 0 {
			// the plan at N, taken for every length of this tail budget:
			// whether a first stage fits does not depend on N but through
			// the rounding of its length (R_m/(lambda/k) against N/4); the
			// cumulants' guess alone (stageGuess) took two stages where
			// the Chernoff estimates take one (DP-SGD 4/0.001, r 10^4),
			// predicting widths 14 times too narrow
			pl.gf = 1
			if st, ok := pl.p.powerStagesMemo(m, r, N, lambda, map[int]float64{}, &pl.lm); ok {
				pl.gf = st.gapFactor()
			}
		}
		gap := float64(r) * lambda * lambda * pl.gf
		return powerWidthScale*gap*sens <= target, true, nil
	}
	// the longest length first: most questions that miss there are
	// answered by one estimate
	last := powerLength(minN)
	for N := last; N <= maxN; N = powerLength(N + 1) {
		last = N
	}
	if last > maxN {
		return 0, nil
	}
	if yes, ok, err := meets(last); err != nil || !ok || !yes {
		return 0, err
	}
	for N := powerLength(minN); N < last; N = powerLength(N + 1) {
		yes, ok, err := meets(N)
		if err != nil || !ok {
			return 0, err
		}
		if yes {
			return N, nil
		}
	}
	return last, nil
}

// gdpSensitivity returns the largest relative sensitivity to mu^2 of the
// mu-GDP curve's eps at deltas and delta at eps (nats): (d eps/d mu^2)/eps
// and (d delta/d mu^2)/delta (the width model of powerpredict.go); 0 where
// one of them is not predicted (mu not positive and finite, eps(delta) = 0,
// delta(eps) below 1e-300).
func gdpSensitivity(mu float64, eps, deltas []float64) float64 {
	if !(mu > 0) || math.IsInf(mu, 1) {
		return 0
	}
	lnPhi := func(t float64) float64 { return -t*t/2 - 0.5*math.Log(2*math.Pi) }
	worst := 0.0
	for _, d := range deltas {
		e := gdpEps(mu, math.Log(d))
		if !(e > 0) {
			return 0
		}
		// ln(d eps/d mu^2)
		ln := lnPhi(mu/2-e/mu) - math.Log(2*mu) - e - lnPhiBar(mu/2+e/mu)
		s := math.Exp(ln) / e
		if !(s > 0) || math.IsInf(s, 1) {
			return 0
		}
		worst = math.Max(worst, s)
	}
	for _, e := range eps {
		lnD := gdpLnDelta(mu, e)
		if !(lnD > math.Log(1e-300)) {
			return 0
		}
		s := math.Exp(lnPhi(mu/2-e/mu) - math.Log(2*mu) - lnD)
		if !(s > 0) || math.IsInf(s, 1) {
			return 0
		}
		worst = math.Max(worst, s)
	}
	return worst
}

// gdpLnDelta returns ln delta_mu(eps) of the mu-GDP curve,
// Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu), without underflow:
// Phibar(a1) (1 - e^(eps + ln Phibar(a2) - ln Phibar(a1))) with a1 = eps/mu
// - mu/2 and a2 = eps/mu + mu/2 (the bracket is in (0, 1]).
func gdpLnDelta(mu, eps float64) float64 {
	a1, a2 := eps/mu-mu/2, eps/mu+mu/2
	l1 := lnPhiBar(a1)
	x := eps + lnPhiBar(a2) - l1
	if !(x < 0) {
		return math.Inf(-1)
	}
	return l1 + math.Log(-math.Expm1(x))
}

// gdpEps returns the eps (nats) at which the mu-GDP curve's delta is
// e^lnDelta, by bisection (delta_mu falls in eps); 0 where delta_mu(0) is
// at most that delta.
func gdpEps(mu, lnDelta float64) float64 {
	if gdpLnDelta(mu, 0) <= lnDelta {
		return 0
	}
	// delta_mu(eps) <= Phibar(eps/mu - mu/2) <= e^lnDelta beyond hi
	lo, hi := 0.0, mu*mu/2+mu*(math.Sqrt(-2*lnDelta)+2)
	for range 80 {
		mid := (lo + hi) / 2
		if gdpLnDelta(mu, mid) > lnDelta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// lnPhiBar returns ln Phibar(x) = ln P(Z > x) of a standard normal Z: by
// normQ where it does not underflow, by the asymptotic series of Mills'
// ratio beyond.
func lnPhiBar(x float64) float64 {
	if x < 20 {
		return math.Log(normQ(x))
	}
	y := 1 / (x * x)
	return -x*x/2 - math.Log(x) - 0.5*math.Log(2*math.Pi) + math.Log1p(-y+3*y*y-15*y*y*y)
}

// skewness returns the skewness of the sum of r independent losses of the
// grouped leaf lm under A (its mean losses at their masses):
// kappa_3/kappa_2^(3/2) of one, over sqrt(r); NaN without variance.
func skewness(lm leafMeans, r int) float64 {
	var s0, s1 float64
	for i, L := range lm.loss {
		s0 += lm.mass[i]
		s1 += lm.mass[i] * L
	}
	mean := s1 / s0
	var s2, s3 float64
	for i, L := range lm.loss {
		d := L - mean
		s2 += lm.mass[i] * d * d
		s3 += lm.mass[i] * d * d * d
	}
	return s3 / s0 / math.Pow(s2/s0, 1.5) / math.Sqrt(float64(r))
}

// gdpQuantile returns the largest standardized loss of the queries on the
// mu-GDP curve (the loss is N(mu^2/2, mu^2) under A): (eps - mu^2/2)/mu at
// the eps of each delta of deltas and at each eps of eps (0 where all lie
// below the mean).
func gdpQuantile(mu float64, eps, deltas []float64) float64 {
	z := 0.0
	for _, d := range deltas {
		z = math.Max(z, (gdpEps(mu, math.Log(d))-mu*mu/2)/mu)
	}
	for _, e := range eps {
		z = math.Max(z, (e-mu*mu/2)/mu)
	}
	return z
}

// cornishFisher returns the first Cornish-Fisher correction to the
// standard normal quantile z of a distribution with skewness g, in
// standard deviations: |g| (z^2 - 1)/6 (0 for |z| <= 1).
func cornishFisher(g, z float64) float64 {
	return math.Abs(g) * math.Max(0, z*z-1) / 6
}
