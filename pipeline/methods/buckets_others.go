package methods

import (
	"fmt"
	"math"
	"sync"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// otherBounds holds the bounds of other methods that the buckets method's
// brackets are intersected with (Buckets.round): a sound bound of another
// method is a sound bound of the mechanism, so the tighter of the two is
// reported and the note says which method set it. They live here, not in
// the engine: the engine is pure and knows no other method, and package
// compare, which holds them, does not know the engine's states.
//
//   - upper: Renyi DP (compare.RDP, classic conversion, Mironov 2017
//     Prop. 3, with RDPOptions.Outward: r*D_alpha, delta and eps rounded
//     up) over a certified single-round Renyi curve (soundRenyiCurve):
//     an upper bound on max(D_alpha(A||B), D_alpha(B||A)) whose
//     floating-point error is bounded and added, not an approximation.
//     For DP-SGD with Poisson sampling under add/remove it is
//     compare.SampledGaussianRenyiUpper (Mironov, Talwar and Zhang's
//     binomial sum at integer orders for one direction, Taylor-Lagrange
//     and convexity bounds for the other, chords of (alpha-1) D_alpha in
//     between); for DP-SGD with fixed-size sampling the same curve at
//     noise multiplier sigma/(2 sensitivity) under add/remove (the
//     engine's pair R(gamma, 2m)) and compare.SymmetrisedGaussianRenyiUpper
//     under replace-one (its pair S(gamma, 2m)), fixedSizeRenyiUpper;
//     for Gauss, Laplace and randomized response the closed forms
//     with their rounding bounded (compare.GaussRenyiUpper, ...); for
//     sequences their sum rounded up. So the eps and delta it yields are
//     upper bounds on the mechanism's, with no pad (the one of 1e-6 that
//     stood in for the unbounded error of a numerical integration is gone:
//     no integration is used).
//   - lower: the sum-of-outputs test (compare.SumTest) for DP-SGD with
//     Poisson sampling under add/remove, whose pair the engine models
//     exactly: the sum of the r outputs is a post-processing of the r-step
//     output, so its pair of laws is dominated by the mechanism's and its
//     hockey-stick divergence, evaluated with safe rounding, is a lower
//     bound on the mechanism's delta (compare/sumtest.go); and for every
//     DP-SGD setting, the loss-tail test (compare.LossTailLower: the
//     likelihood-ratio event with Chernoff bounds, plain and exponentially
//     tilted) on a remove pair R(q, shift) that a worst-case instance
//     attains or dominates (sgdLowerRemovePair), whose r-fold composition
//     is a real r-step run.
//
// Buckets at large r can be looser than these (engine/README.md, "Large
// r"): DP-SGD brackets [0, +Inf] where RDP was finite; fixed-size DP-SGD
// at sigma 0.5775, q 1e-5, r 2^30, whose lower end collapses to 16.7
// (delta 1e-5; the loss-tail test gives 1059.4, the tight value is
// about 1215).
//
// They are consulted only for brackets wider than otherWidth (relative,
// RelativeWidth): none comes near a tight bracket of the buckets
// method, and RDP over the sampled Gaussian's certified curve costs about
// 20-30 ms of CPU per mechanism (its single-round values are kept across
// the r of a round; the former numerically integrated curve took 60-130
// ms); the loss-tail test costs about 1.5 s per mechanism and round (its
// per-step moments) and 70-300 ms per query. Which brackets are consulted is
// a choice; every bound it yields is sound.
type otherBounds struct {
	renyi compare.RenyiFunc
	// sum test parameters (sumSigma > 0: applies)
	sumSigma, sumQ float64
	// loss-tail test of the remove pair R(lossQ, lossShift) that an
	// instance of the mechanism attains (lossShift > 0: applies), built on
	// first use (its per-step moments serve every r)
	lossShift, lossQ float64
	lossOnce         sync.Once
	loss             *compare.LossTailLower
}

// otherWidth is the relative width above which a bracket is intersected
// with the other methods' bounds.
const otherWidth = 1e-3

// newOtherBounds returns the other methods' bounds that apply to spec, nil
// if none does.
func newOtherBounds(spec manifest.MechanismSpec) *otherBounds {
	if !spec.Engine.ErrorCorrection {
		return nil // Definition 5 alone: the paper's method, not mixed
	}
	o := &otherBounds{}
	if rf, err := soundRenyiCurve(spec); err == nil {
		o.renyi = memoRenyi(rf)
	}
	// the sum test's pair is Poisson sampling's under add/remove, which a
	// worst-case instance attains; not fixed size, not replace-one
	if spec.Kind == manifest.KindSGD && spec.EffectiveSampling() == manifest.SamplingPoisson &&
		spec.EffectiveRelation() == manifest.RelationAddRemove && spec.Params["q"] > 0 {
		sens, ok := spec.Params["sensitivity"]
		if !ok {
			sens = 1
		}
		if s := spec.Params["sigma"] / sens; s > 0 && !math.IsInf(s, 0) {
			o.sumSigma, o.sumQ = s, spec.Params["q"]
		}
	}
	if shift, q, ok := sgdLowerRemovePair(spec); ok {
		o.lossShift, o.lossQ = shift, q
	}
	if o.renyi == nil && o.sumSigma == 0 && o.lossShift == 0 {
		return nil
	}
	return o
}

// lossTail returns the loss-tail test of o (nil where it does not apply).
func (ob *otherBounds) lossTail() *compare.LossTailLower {
	ob.lossOnce.Do(func() {
		if ob.lossShift > 0 {
			if lt, err := compare.NewLossTailLower(ob.lossShift, ob.lossQ); err == nil {
				ob.loss = lt
			}
		}
	})
	return ob.loss
}

// apply intersects the brackets of o with the other methods' bounds after
// r compositions and returns the notes saying which bounds they set.
func (ob *otherBounds) apply(o *Outcome, r int, eps, deltas []float64) []string {
	var notes []string
	var rdp compare.Curve
	rdpDone := false
	getRDP := func() compare.Curve {
		if !rdpDone && ob.renyi != nil {
			if c, err := compare.RDP(ob.renyi, r, compare.Classic, compare.RDPOptions{Outward: true}); err == nil {
				rdp = c
			}
		}
		rdpDone = true
		return rdp
	}
	var st *compare.SumTest
	stDone := false
	getSum := func() *compare.SumTest {
		if !stDone && ob.sumSigma > 0 {
			if s, err := compare.NewSumTest(ob.sumSigma, ob.sumQ, r); err == nil {
				st = s
			}
		}
		stDone = true
		return st
	}
	for j, e := range eps {
		b := &o.Delta[j]
		if !(RelativeWidth(b.Upper, b.Lower, true) > otherWidth) {
			continue
		}
		if c := getRDP(); c != nil {
			if u := c.Delta(e); u < b.Upper {
				notes = append(notes, fmt.Sprintf("delta_upper at eps %.6g from Renyi DP (classic conversion, certified; buckets gave %.6g)", e, b.Upper))
				b.Upper = u
			}
		}
		if s := getSum(); s != nil && !math.IsNaN(b.Lower) {
			if l := s.DeltaLower(e); l > b.Lower {
				notes = append(notes, fmt.Sprintf("delta_lower at eps %.6g from the sum-of-outputs test (buckets gave %.6g)", e, b.Lower))
				b.Lower = l
			}
		}
		if lt := ob.lossTail(); lt != nil && !math.IsNaN(b.Lower) {
			if l := lt.DeltaLower(r, e); l > b.Lower {
				notes = append(notes, fmt.Sprintf("delta_lower at eps %.6g from the loss-tail test (Chernoff bounds, tilted; buckets or the sum test gave %.6g)", e, b.Lower))
				b.Lower = l
			}
		}
	}
	for j, d := range deltas {
		b := &o.Eps[j]
		if !(RelativeWidth(b.Upper, b.Lower, false) > otherWidth) {
			continue
		}
		if c := getRDP(); c != nil {
			if u := c.Eps(d); u >= 0 && u < b.Upper {
				notes = append(notes, fmt.Sprintf("eps_upper at delta %.6g from Renyi DP (classic conversion, certified; buckets gave %.6g)", d, b.Upper))
				b.Upper = u
			}
		}
		if s := getSum(); s != nil && !math.IsNaN(b.Lower) {
			if l := s.EpsLower(d); l > b.Lower {
				notes = append(notes, fmt.Sprintf("eps_lower at delta %.6g from the sum-of-outputs test (buckets gave %.6g)", d, b.Lower))
				b.Lower = l
			}
		}
		if lt := ob.lossTail(); lt != nil && !math.IsNaN(b.Lower) {
			if l := lt.EpsLower(r, d); l > b.Lower {
				notes = append(notes, fmt.Sprintf("eps_lower at delta %.6g from the loss-tail test (Chernoff bounds, tilted; buckets or the sum test gave %.6g)", d, b.Lower))
				b.Lower = l
			}
		}
	}
	return notes
}

// soundRenyiCurve returns the certified single-round Renyi curve of spec
// (an upper bound with its rounding bounded) for the kinds and settings
// where renyiCurve has a closed form; an error wrapping ErrNotApplicable
// otherwise.
func soundRenyiCurve(spec manifest.MechanismSpec) (compare.RenyiFunc, error) {
	if spec.Kind == manifest.KindSGD && spec.EffectiveSampling() == manifest.SamplingFixedSize {
		return fixedSizeRenyiUpper(spec)
	}
	if _, err := renyiCurve(spec); err != nil {
		return nil, err // same applicability (truncation, sampling, relation)
	}
	p := spec.Params
	switch spec.Kind {
	case manifest.KindGauss:
		return compare.GaussRenyiUpper(p["sigma"], p["sensitivity"])
	case manifest.KindLaplace:
		return compare.LaplaceRenyiUpper(p["scale"], p["sensitivity"])
	case manifest.KindRandomizedResponse:
		return compare.RRRenyiUpper(p["p"])
	case manifest.KindSGD:
		sens, ok := p["sensitivity"]
		if !ok {
			sens = 1
		}
		s := p["sigma"] / sens
		if sens != 1 {
			// the ratio's rounding: use a lower bound on sigma/sens (the
			// divergence decreases in it).
			s *= 1 - 0x1p-50
		}
		return compare.SampledGaussianRenyiUpper(s, p["q"])
	case manifest.KindSequence:
		parts := spec.ResolvedParts()
		curves := make([]compare.RenyiFunc, len(parts))
		counts := make([]int, len(parts))
		for i, pt := range parts {
			f, err := soundRenyiCurve(pt.Mechanism)
			if err != nil {
				return nil, fmt.Errorf("part %q: %w", pt.Mechanism.ID, err)
			}
			curves[i], counts[i] = f, pt.Count
		}
		return compare.ComposeRenyiUpper(curves, counts)
	}
	return nil, fmt.Errorf("%w: no certified Renyi curve for kind %s", ErrNotApplicable, spec.Kind)
}

// memoRenyi returns f with its values kept (safe for concurrent use): RDP
// evaluates the same orders for every r.
func memoRenyi(f compare.RenyiFunc) compare.RenyiFunc {
	var mu sync.Mutex
	seen := map[float64]float64{}
	return func(a float64) float64 {
		mu.Lock()
		v, ok := seen[a]
		mu.Unlock()
		if ok {
			return v
		}
		v = f(a)
		mu.Lock()
		seen[a] = v
		mu.Unlock()
		return v
	}
}

// sgdLowerRemovePair returns the remove pair R(q, shift) = ((1-q) N(0,1) +
// q N(shift,1), N(0,1)) of a worst-case instance of the DP-SGD mechanism of
// spec (kind sgd, Gaussian noise), whose r-fold composition is a real
// r-step run, so that its lower bounds are the mechanism's
// (compare.LossTailLower); ok is false where none is known. With m =
// sensitivity/sigma (rounded down: R is dominated by R at a larger shift,
// Gaussian post-processing):
//
//   - Poisson, add/remove: R(q, m), the engine's own pair (others
//     contribute 0, the added record m).
//   - Poisson, replace-one: R(q, m), the instance "others contribute 0,
//     the replaced record m, its replacement 0" (a zero contribution has
//     norm within the sensitivity): the batch with the replacement is
//     distributed as the batch without either record.
//   - Fixed size, add/remove and replace-one: R(q', 2m) with q' <= b/n,
//     the engine's lower pair (engine/subsampled.go: others contribute -m,
//     the added or replacing record +m; R(q', 2m) is dominated by the
//     attained R(b/n, 2m), R being monotone in the rate): q' is the float
//     below q when q is given (the engine's reading of a decimal q), b/n
//     rounded down from batch and dataset_size; none for add/remove with
//     b = n (q = 1), where no instance has a known rate.
//
// q' = 1 (a Gaussian pair, which the buckets bound tightly) is left out.
func sgdLowerRemovePair(spec manifest.MechanismSpec) (shift, q float64, ok bool) {
	if spec.Kind != manifest.KindSGD {
		return 0, 0, false
	}
	p := spec.Params
	sens, has := p["sensitivity"]
	if !has {
		sens = 1
	}
	m := sens / p["sigma"] * (1 - 0x1p-50) // below the exact ratio
	if !(m > 0) || math.IsInf(m, 0) {
		return 0, 0, false
	}
	fixed := spec.EffectiveSampling() == manifest.SamplingFixedSize
	addRemove := spec.EffectiveRelation() == manifest.RelationAddRemove
	if !fixed {
		q, has = p["q"]
		if !has || !(q > 0 && q < 1) {
			return 0, 0, false
		}
		return m, q, true
	}
	lo, hi, ok := fixedSizeRates(spec)
	if !ok || (addRemove && hi == 1) || !(lo > 0 && lo < 1) {
		return 0, 0, false
	}
	return 2 * m, lo, true
}

// fixedSizeRates returns a rate q' <= b/n and one q >= b/n of fixed-size
// sampling (manifest.MechanismSpec.SamplingRates, the rule's one owner);
// ok is false when no valid rate in (0, 1] is given.
func fixedSizeRates(spec manifest.MechanismSpec) (lo, hi float64, ok bool) {
	lo, hi, err := spec.SamplingRates()
	return lo, hi, err == nil && hi > 0 && hi <= 1
}

// fixedSizeRenyiUpper returns a certified Renyi curve of DP-SGD with
// fixed-size sampling (spec kind sgd): an upper bound on max(D_alpha(P||Q),
// D_alpha(Q||P)) over every pair of neighbouring data sets and every step.
// The engine's pair of one step dominates it in every hockey-stick
// divergence (engine/subsampled.go; Zhu, Dong, Wang 2022), hence in every
// f-divergence, Renyi's included: the family of hockey-stick divergences
// fixes the tradeoff function, and a pair that is more distinguishable in
// it is one of which the step's pair is a post-processing (Dong, Roth, Su
// 2022, Blackwell's theorem), so data processing applies. RDP composes
// adaptively over such per-step bounds (Mironov 2017, Prop. 1).
//
//   - add/remove: the pair R(gamma, 2m) (both orders), exactly the
//     sampled Gaussian of compare.SampledGaussianRenyiUpper with noise
//     multiplier sigma/(2 sensitivity) at rate gamma >= b/n (R is
//     monotone in the rate).
//   - replace-one: the symmetrised pair S(gamma, 2m)
//     (compare.SymmetrisedGaussianRenyiUpper).
func fixedSizeRenyiUpper(spec manifest.MechanismSpec) (compare.RenyiFunc, error) {
	p := spec.Params
	sens, ok := p["sensitivity"]
	if !ok {
		sens = 1
	}
	s := p["sigma"] / sens
	if sens != 1 {
		s *= 1 - 0x1p-50 // a lower bound on sigma/sens (the divergence decreases in it)
	}
	_, q, ok := fixedSizeRates(spec)
	if !ok {
		return nil, fmt.Errorf("%w: no sampling rate (q, or batch and dataset_size)", ErrNotApplicable)
	}
	if spec.EffectiveRelation() == manifest.RelationAddRemove {
		return compare.SampledGaussianRenyiUpper(s/2, q) // s/2 exact
	}
	return compare.SymmetrisedGaussianRenyiUpper(s/2, q)
}
