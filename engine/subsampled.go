package engine

import (
	"fmt"
	"math"
)

// Subsampled mechanisms (DP-SGD): one step releases the sum of the
// contributions of a random batch plus noise; each record contributes at
// most m in units of the noise scale (m = sensitivity/sigma for the
// Gaussian, where sigma is the noise multiplier of DP-SGD with sensitivity
// 1, the clip norm; m = sensitivity/scale for the Laplace). F is the
// standard noise (N(0,1) or Lap(0,1)) and F_a the noise shifted by a. Every
// pair below dominates one step for every alpha >= 0 (Zhu, Dong, Wang,
// AISTATS 2022, Definition of a dominating pair: H_alpha(M(x)||M(x')) <=
// H_alpha(A||B) for all neighbours in the pair's orientation, alpha =
// e^eps), so its r-fold composition bounds r adaptively composed steps
// (their composition theorem for dominating pairs).
//
// Three shapes, with q the sampling rate (gamma = b/n for fixed-size):
//
//	remove    R(q, a) = ((1-q) F + q F_a,  F)
//	antipodal P(q, a) = ((1-q) F + q F_-a, (1-q) F + q F_a)
//	symmetric S(q, a) = the positive-loss part of R(q, a), mirrored, plus
//	                    an atom at loss 0 (see symmetrised pairs below)
//
// Which pair bounds which training run, and where the lower bounds come
// from (lowerpair.go: a pair that only dominates gives upper bounds only;
// the lower bounds come from a pair the mechanism dominates, here always a
// worst-case instance, whose r-fold composition is a real r-step run):
//
//   - Poisson, add/remove: R(q, m), tight. With x' = x plus a record z,
//     M(x') = (1-q) M(x) + q M(x with z), a post-processing of R(q, m)
//     for every alpha (Zhu, Dong, Wang 2022, their Poisson-subsampling
//     theorem; Balle, Barthe, Gaboardi, NeurIPS 2018, for (eps, delta)).
//     R gives H(M(x')||M(x)) (removal) and its swap (B, A) gives
//     H(M(x)||M(x')) (addition); which one applies is fixed by the data
//     sets, the same in every step, so the engine's max over the two
//     directions of the composed pair bounds both orders. Reached when the
//     other records contribute 0 and z contributes m: attained, its lower
//     bounds are the mechanism's.
//   - Poisson, replace-one, Gaussian: P(q, m), as dp_accounting defines
//     REPLACE_ONE (mu_upper = (1-q) N(0) + q N(-s), mu_lower = (1-q) N(0)
//     + q N(s)); reached when the replaced record contributes -m and its
//     replacement +m. That no other pair of contributions (|a|, |b| <= m)
//     is worse is dp_accounting's modelling claim; TestReplaceOneAntipodal
//     checks it in one dimension for every alpha, and the exact enumeration
//     tests check the discrete analogue. The pair is its own mirror image,
//     so one orientation serves both orders of the data sets. Attained (by
//     that instance): its lower bounds are the mechanism's.
//   - Poisson, replace-one, Laplace: S(q, 2m), dominating only (no tighter
//     dominating pair is known to us; dp_accounting refuses this case).
//     Its largest loss, ln(1-q+q e^2m), exceeds every loss of the
//     mechanism, at most ln((1-q+q e^m)/(1-q+q e^-m)): with g(x) =
//     ln(1-q+q e^x), for each sum of the other records' contributions the
//     loss at t is g(x) - g(y), x and y the log-ratios (at t) of the batch
//     with the record, resp. its replacement, to the batch without it,
//     |x|, |y| <= m for Laplace noise; mixing over the others' sums keeps
//     the ratio below the largest (mediant inequality). So S's lower
//     bounds are not the mechanism's (the sweep of the soundness property
//     test checks them against this largest loss). Lower
//     pair: the antipodal instance P(q, m) with Laplace noise (others 0,
//     the replaced record -m, its replacement +m; embedAntipodal).
//   - Fixed size (b of n without replacement), add/remove: R(gamma, 2m),
//     tight. With |x'| = |x| + 1, M(x) = mu0 (batches of x) and M(x') =
//     (1-gamma) mu0 + gamma mu1 with gamma = b/|x'|, mu1 the batches holding
//     z. Coupling each batch B0+z of mu1 with the batches B0+y of mu0 makes
//     them replace-one neighbours at the batch level: the batch size is
//     fixed, so adding z displaces a y and the outputs differ by up to 2m
//     (the couplings of Balle, Barthe, Gaboardi 2018; the doubled
//     sensitivity is discussed by Lebeda, Regehr, Kamath, Steinke 2024,
//     "Avoiding pitfalls for privacy accounting of subsampled mechanisms
//     under composition"). Joint convexity of H_alpha reduces every step to
//     ((1-gamma) F_u + gamma F_a, F_u) with |a-u| <= 2m, a post-processing
//     of R(gamma, 2m); reached when all other records contribute -m and z
//     +m. The pairs are monotone in gamma, so gamma = b/n with n the size
//     of either data set is safe (FixedSizeRate rounds up). Attained at
//     gamma = b/n (neighbours of sizes n and n-1, b < n), but q may exceed
//     b/n by an ulp (FixedSizeRate, or a decimal q): the lower bounds are
//     those of R(q', 2m) with q' the float below q, at most b/n, and
//     dominated by R(b/n, 2m) (R(g', a) is R(g, a) post-processed by
//     keeping the output with probability g'/g and else drawing from F).
//     They are derived from R(q, 2m)'s own composition (lowerSlack,
//     rateSlacked in lowerpair.go), not composed again. With q = 1 (b = n)
//     the smaller neighbour cannot draw a batch and the larger has rate
//     n/(n+1), n unknown: no lower pair, the lower bounds are absent.
//   - Fixed size, replace-one: S(gamma, 2m), dominating only; tight for
//     one step (below), not from two steps on.
//     After coupling, a step is ((1-gamma) F_u + gamma F_a, (1-gamma) F_u +
//     gamma F_b) with u, a, b pairwise at most 2m apart. Both u = b
//     (R(gamma, 2m)) and u = a (its swap) occur, and the other records'
//     contributions, hence the case, may change from step to step: composing
//     R and taking the max of its two directions, as for add/remove, is
//     then not a bound (Lebeda et al. 2024 give such counterexamples). S
//     bounds every case for every alpha. For alpha >= 1, the advanced joint
//     convexity of Balle, Barthe, Gaboardi 2018 gives H_alpha((1-g) P0 +
//     g P1 || (1-g) P0 + g P1') = g H_alpha'(P1 || (1-beta) P0 + beta P1')
//     with alpha' = 1 + (alpha-1)/g and beta = alpha/alpha'; convexity in
//     the second argument bounds it by g H_alpha'(F_2m || F) =
//     H_alpha(R(g, 2m)) whenever (P1, P0) and (P1, P1') are within 2m. The
//     same identity with P1 = P0 and the base pair's symmetry shows
//     H_alpha(swap R) <= H_alpha(R) for alpha >= 1. S has H_alpha(S) =
//     H_alpha(R) for alpha >= 1 and is its own mirror image, so
//     H_alpha(S) = 1 - alpha + alpha H_{1/alpha}(S) covers alpha < 1. Its
//     tradeoff function is C_gamma(f) = min(f_gamma, f_gamma^-1)** of
//     Dong, Roth, Su ("Gaussian differential privacy", JRSS B 2022, the
//     subsampling theorem for sampling without replacement), f = T(F, F_2m).
//     The same argument covers Poisson replace-one with P0 = M(batch
//     without the record), hence the Laplace case above. For one step,
//     H_alpha(S) = H_alpha(R) (alpha >= 1) is reached by R's instance, so
//     S's one-step delta (eps >= 0) is the mechanism's; S^r for r >= 2 is
//     not a run of the mechanism (each step would need both cases at once).
//     Lower pair: R(q', 2m), q' the float below q, the instance "other
//     records contribute -m, y = -m is replaced by z = +m" (u = b): the
//     batches without y and z give F_u, those with y also F_u (y = -m like
//     the others), those with z F_(u+2m); the same replacement in every
//     step is a real run, and its reverse (z replaced by y) the swap, so
//     the maximum over both directions of composed R bounds the
//     mechanism's delta from below.
//
// Symmetrised pairs: with L the (increasing) loss of R(q, a) and t0 = a/2
// its zero, S_A = R_A on {t >= t0} + the mirror image of R_B on {t >= t0} +
// z at loss 0, S_B likewise with A and B exchanged, z = 1 - R_A(t >= t0) -
// R_B(t >= t0) = (1-q)(1 - 2 F(t > t0)) >= 0. Events of the mirrored part
// have loss -L. H_alpha(S) = H_alpha(R) for alpha >= 1 because the mirrored
// events and the atom have loss <= 0.
//
// Each pair is embedded exactly through privacy-loss intervals (Section
// 5.1), like Gauss and SGD: monotone pieces between bucket borders with
// masses from accurate distribution functions, atoms where the loss is
// constant (Laplace outside [0, a]).

// shape is one of the pair shapes R, P, S above.
type shape int

const (
	shapeRemove shape = iota
	shapeAntipodal
	shapeSymmetric
)

func (s shape) String() string {
	return [...]string{"remove", "antipodal", "symmetric"}[s]
}

// recipe is the dominating pair of one step: shape(rate, shift).
type recipe struct {
	shape shape
	rate  float64 // q or gamma
	shift float64 // a, in units of the noise scale
}

// pairRecipe returns the pair of one step with sampling rate q and largest
// contribution m per record (units of the noise scale), per the table above.
func pairRecipe(noise Noise, s Sampling, r Relation, q, m float64) recipe {
	switch {
	case s == Poisson && r == AddRemove:
		return recipe{shapeRemove, q, m}
	case s == Poisson && r == ReplaceOne && noise == NoiseGauss:
		return recipe{shapeAntipodal, q, m}
	case s == FixedSize && r == AddRemove:
		return recipe{shapeRemove, q, 2 * m}
	default: // replace-one: fixed size, or Poisson with Laplace noise
		return recipe{shapeSymmetric, q, 2 * m}
	}
}

// subsampledMech is a subsampled Gaussian or Laplace step.
type subsampledMech struct {
	noise          Noise
	scale, sens, q float64
	sampling       Sampling
	relation       Relation
	rc             recipe
	name           string
	// isLower marks the lower pair of another subsampled mechanism
	// (lowerPair): an attained instance, whose own lower pair is itself.
	isLower bool
}

// lowerPair returns the pair whose lower bounds the engine reports for m
// (lowerpair.go), per the table at the top of this file: nil and
// distinct = false where m's pair is attained by an instance of the
// mechanism (Poisson add/remove; Poisson replace-one Gaussian), else a
// worst-case instance that the mechanism dominates:
//
//   - Poisson, replace-one, Laplace: P(q, m), the antipodal instance;
//   - fixed size, replace-one: R(q', 2m) with q' the float below q, the
//     instance "every other record contributes -m, y = -m is replaced by
//     z = +m" at a rate q' <= b/n whenever q is b/n rounded to a
//     neighbouring float (FixedSizeRate rounds up); R is monotone in the
//     rate, so R(q', 2m) is dominated by the attained R(b/n, 2m);
//   - fixed size, add/remove: its own pair R(q, 2m), attained at b/n; the
//     ulp by which q may exceed b/n is taken care of by lowerSlack;
//   - fixed size, add/remove, q = 1 (b = n): none (reason given): the
//     neighbour with n - 1 records cannot draw a batch of b, and the
//     other neighbour's rate b/(n+1) depends on n, which q does not fix.
func (m *subsampledMech) lowerPair() (low Mechanism, distinct bool, reason string) {
	if m.isLower {
		return nil, false, ""
	}
	mu := m.sens / m.scale
	switch {
	case m.sampling == Poisson && m.relation == AddRemove:
		return nil, false, ""
	case m.sampling == Poisson && m.noise == NoiseGauss:
		return nil, false, ""
	case m.sampling == Poisson: // replace-one, Laplace
		return m.lowerWith(recipe{shapeAntipodal, m.q, mu}, "antipodal"), true, ""
	case m.relation == AddRemove && m.q == 1:
		return nil, true, "no lower bound: fixed-size add/remove sampling with q = 1 has no worst-case instance at a known rate (b = n: the smaller neighbour cannot draw the batch, the larger has rate n/(n+1) for an n that q does not give)"
	case m.relation == AddRemove: // the own pair, with a rate slack (lowerSlack)
		return nil, false, ""
	default: // fixed size, replace-one
		q := math.Nextafter(m.q, 0)
		return m.lowerWith(recipe{shapeRemove, q, 2 * mu}, "remove, q="+fmtFloat(q)), true, ""
	}
}

// lowerSlack returns the rate slack of fixed-size add/remove (rateSlacked,
// lowerpair.go), 0 otherwise: its pair R(q, 2m) is attained at b/n >= q',
// the float below q, and R(q', 2m)'s A-side is within [a, c] times R(q,
// 2m)'s, a = q'/q, c = (1-q')/(1-q). Returned: upper bounds on ln(1/a) =
// -log1p(-d) <= d/(1-d), d = (q-q')/q, and on ln c = log1p((q-q')/(1-q))
// <= (q-q')/(1-q); q - q' is exact, the divisions and 1 - q round by at
// most u each.
func (m *subsampledMech) lowerSlack() (lnA, lnC float64) {
	if m.isLower || m.sampling != FixedSize || m.relation != AddRemove || m.q == 1 {
		return 0, 0
	}
	q := m.q
	dq := q - math.Nextafter(q, 0)
	g := 1 + 8*unitRoundoff
	d := dq / q * g
	return d / (1 - d) * g, dq / (1 - q) * g * g
}

// lowerLists returns the list that gives a lower pair's lower bounds
// (listsPreferrer, lowerpair.go): grouped for Laplace (atoms), grid for
// the Gaussian.
func (m *subsampledMech) lowerLists() Lists {
	if m.noise == NoiseLaplace {
		return ListsGrouped
	}
	return ListsGrid
}

// lowerWith returns a copy of m with the pair rc, marked as a lower pair.
func (m *subsampledMech) lowerWith(rc recipe, what string) *subsampledMech {
	c := *m
	c.rc, c.isLower = rc, true
	c.name = m.name + " [lower pair " + what + "]"
	return &c
}

func checkSubsampled(kind string, scaleName string, scale, sens, q float64, s Sampling, r Relation) error {
	if err := checkPositive(kind+": "+scaleName, scale); err != nil {
		return err
	}
	if err := checkPositive(kind+": sensitivity", sens); err != nil {
		return err
	}
	if !(q > 0 && q <= 1) {
		return paramError(kind+": q", "must be in (0, 1], got %v", q)
	}
	if !s.valid() {
		return invalidf("%s: unknown sampling %d", kind, int(s))
	}
	if !r.valid() {
		return invalidf("%s: unknown relation %d", kind, int(r))
	}
	return checkRatio(kind+": sensitivity/"+scaleName, sens/scale)
}

// SubsampledGauss returns a pair of distributions whose r-fold composition
// bounds r steps of a subsampled Gaussian mechanism (DP-SGD): each step adds
// N(0, sigma^2) noise to the sum of the contributions of a batch drawn by
// sampling at rate q (q = b/n for FixedSize, see FixedSizeRate), each
// contribution of norm at most sensitivity, with neighbouring data sets
// under relation. With sensitivity 1, sigma is DP-SGD's noise multiplier.
// Every pair dominates one step (Zhu, Dong, Wang, AISTATS 2022); the pairs,
// with m = sensitivity/sigma:
//
//	poisson,    add_remove:  (1-q) N(0) + q N(m) vs N(0), m = sensitivity/sigma (the pair of SGD)
//	poisson,    replace_one: (1-q) N(0) + q N(-m) vs (1-q) N(0) + q N(m) (dp_accounting's REPLACE_ONE)
//	fixed_size, add_remove:  (1-q) N(0) + q N(2m) vs N(0)
//	fixed_size, replace_one: the symmetrised fixed_size add_remove pair (dominating only)
//
// Fixed size, replace_one: the lower bounds come from the fixed_size
// add_remove pair at the rate just below q, a worst-case instance; fixed
// size, add_remove: from its own pair at the rate just below q (none with
// q = 1); see Lower pairs in the package documentation.
//
// sigma and sensitivity must be positive and finite, q in (0, 1].
func SubsampledGauss(sigma, sensitivity, q float64, s Sampling, r Relation) (Mechanism, error) {
	if err := checkSubsampled("sgd", "sigma", sigma, sensitivity, q, s, r); err != nil {
		return nil, err
	}
	m := &subsampledMech{noise: NoiseGauss, scale: sigma, sens: sensitivity, q: q, sampling: s, relation: r}
	m.rc = pairRecipe(NoiseGauss, s, r, q, sensitivity/sigma)
	name := fmt.Sprintf("sgd(sigma=%s, q=%s", fmtFloat(sigma), fmtFloat(q))
	m.name = name + m.suffix(sensitivity != 1) + ")"
	return m, nil
}

// SubsampledLaplace returns a pair of distributions whose r-fold
// composition bounds r steps of a subsampled Laplace mechanism: each step
// adds Lap(0, scale) noise to the sum of the (one-dimensional)
// contributions of a batch drawn by sampling at rate q, each contribution
// at most sensitivity in absolute value. With q = 1 and Poisson add_remove
// it is the Laplace pair. The pairs, with m = sensitivity/scale:
//
//	poisson,    add_remove:  (1-q) Lap(0) + q Lap(m) vs Lap(0), m = sensitivity/scale (tight)
//	poisson,    replace_one: the symmetrised pair of (1-q) Lap(0) + q Lap(2m) vs Lap(0) (dominating only)
//	fixed_size, add_remove:  (1-q) Lap(0) + q Lap(2m) vs Lap(0) (tight)
//	fixed_size, replace_one: the symmetrised fixed_size add_remove pair (dominating only)
//
// Where the pair only dominates, the lower bounds come from a worst-case
// instance (see Lower pairs in the package documentation): poisson
// replace_one, (1-q) Lap(0) + q Lap(-m) vs (1-q) Lap(0) + q Lap(m); fixed
// size replace_one, the fixed_size add_remove pair at the rate just below
// q (fixed_size add_remove: its own pair at that rate; none with q = 1).
//
// The privacy loss is bounded (|L| <= ln(1 - q + q e^m), or with 2m) and
// constant outside [0, m]: those events are atoms.
func SubsampledLaplace(scale, sensitivity, q float64, s Sampling, r Relation) (Mechanism, error) {
	if err := checkSubsampled("laplace", "scale", scale, sensitivity, q, s, r); err != nil {
		return nil, err
	}
	m := &subsampledMech{noise: NoiseLaplace, scale: scale, sens: sensitivity, q: q, sampling: s, relation: r}
	m.rc = pairRecipe(NoiseLaplace, s, r, q, sensitivity/scale)
	m.name = fmt.Sprintf("laplace(scale=%s, sensitivity=%s, q=%s", fmtFloat(scale), fmtFloat(sensitivity), fmtFloat(q)) + m.suffix(false) + ")"
	return m, nil
}

// suffix lists the non-default settings for the String form.
func (m *subsampledMech) suffix(sens bool) string {
	s := ""
	if sens {
		s += ", sensitivity=" + fmtFloat(m.sens)
	}
	if m.sampling != Poisson {
		s += ", sampling=" + m.sampling.String()
	}
	if m.relation != AddRemove {
		s += ", relation=" + m.relation.String()
	}
	return s
}

func (m *subsampledMech) String() string { return m.name }

func (m *subsampledMech) embed(b *leafBuilder) error {
	rc := m.rc
	if m.noise == NoiseGauss {
		switch rc.shape {
		case shapeRemove:
			gaussRemove(rc.rate, rc.shift).embed(b)
		case shapeAntipodal:
			gaussAntipodal(rc.rate, rc.shift).embed(b)
		default:
			gaussSymmetric(rc.rate, rc.shift, b)
		}
		return nil
	}
	lap := newLapRemove(rc.rate, rc.shift)
	switch rc.shape {
	case shapeSymmetric:
		lap.embedSymmetric(b)
	case shapeAntipodal:
		lap.embedAntipodal(b)
	default:
		lap.embed(b)
	}
	return nil
}

// relErr bounds the relative error of the masses: the distribution
// functions (TestNormalAccuracy, TestLaplaceMassAccuracy), the mixtures,
// and the rounding of the shift (m = sensitivity/scale carries a relative
// error u, which moves the mass of an interval at |t| <= 40 + a by a
// relative u a (40 + a) for the Gaussian, u a for the Laplace).
func (m *subsampledMech) relErr() float64 {
	a := m.rc.shift
	if m.noise == NoiseGauss {
		return 64*unitRoundoff + 4*unitRoundoff*a*(40+a)
	}
	return 64*unitRoundoff + 4*unitRoundoff*a
}

// atomLoss is the upper end of the loss interval of the largest atom of a
// Laplace pair (the constant loss beyond the shift; the factor puts a
// bucket border at or above it), 0 for the Gaussian (no atoms).
func (m *subsampledMech) atomLoss() float64 {
	if m.noise != NoiseLaplace {
		return 0
	}
	r := newLapRemove(m.rc.rate, m.rc.shift)
	if m.rc.shape == shapeAntipodal {
		return r.antipodalAtom()
	}
	return r.lp + r.ep
}

func (m *subsampledMech) lossRange(p float64) float64 {
	rc := m.rc
	if m.noise == NoiseLaplace {
		return m.atomLoss() * (1 + 1e-12)
	}
	// tail(l) bounds P_A(L > l) + P_B(L < -l) (and the mirror-image events
	// of the other direction) for l >= 0.
	var tail func(l float64) float64
	switch rc.shape {
	case shapeRemove:
		mp := gaussRemove(rc.rate, rc.shift)
		tail = func(l float64) float64 { return mp.tailA(l) + mp.tailBLow(-l) }
	case shapeAntipodal:
		mp := gaussAntipodal(rc.rate, rc.shift)
		tail = func(l float64) float64 { return 2 * mp.tailA(l) }
	default:
		mp := gaussRemove(rc.rate, rc.shift)
		tail = func(l float64) float64 { return 4 * mp.tailA(l) }
	}
	return lossQuantile(tail, p)
}

// lossQuantile returns l >= 0 with tail(l) <= p for a non-increasing tail,
// by doubling and bisection (to a relative 1e-12).
func lossQuantile(tail func(float64) float64, p float64) float64 {
	lo, hi := 0.0, 1.0
	for tail(hi) > p && hi < 1e6 {
		hi *= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		mid := (lo + hi) / 2
		if tail(mid) > p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// tailA returns the A-mass of the events with loss above l (approximately:
// it chooses the factor, not a bound).
func (mp *monotonePair) tailA(l float64) float64 {
	if l >= mp.hiLoss() {
		return 0
	}
	if l <= mp.loLoss() {
		return 1
	}
	t := mp.inv(l)
	if mp.increasing {
		return mp.massA(t, mp.tMax)
	}
	return mp.massA(mp.tMin, t)
}

// tailBLow returns the B-mass of the events with loss below l.
func (mp *monotonePair) tailBLow(l float64) float64 {
	if l <= mp.loLoss() {
		return 0
	}
	if l >= mp.hiLoss() {
		return 1
	}
	t := mp.inv(l)
	if mp.increasing {
		return mp.massB(mp.tMin, t)
	}
	return mp.massB(t, mp.tMax)
}

func (mp *monotonePair) loLoss() float64 {
	if mp.increasing {
		return mp.lossAtMin
	}
	return mp.lossAtMax
}

func (mp *monotonePair) hiLoss() float64 {
	if mp.increasing {
		return mp.lossAtMax
	}
	return mp.lossAtMin
}
