package engine

import (
	"context"
	"math"
	"sync"
)

// Lower pairs.
//
// The bounds of a composed pair bound the mechanism only in the direction
// in which the pair relates to it. A pair that dominates the mechanism
// (every hockey-stick divergence H_alpha of every pair of neighbours is at
// most the pair's, Zhu, Dong, Wang 2022) gives upper bounds; a pair that
// the mechanism dominates, such as the pair of output distributions of one
// worst-case instance (two neighbouring data sets), gives lower bounds:
// composing the same instance r times is a real r-fold run, so each
// direction's delta of the composed instance is a delta the mechanism must
// pay. An attained pair, one that is both (the exact pair of a mechanism,
// or a dominating pair reached by an instance), gives both.
//
// Most pairs of this package are attained; a mechanism whose pair only
// dominates it implements lowerPaired and names a pair it dominates (and
// one attained only at a parameter within rounding of its own implements
// rateSlacked, below, which derives the instance's lower bounds from the
// same composition). The
// engine then composes that pair as well, with the same options, and takes
// every lower bound of a Result (DeltaBound.Lower and its directions,
// EpsBound.Lower, the lower end of Renyi) from it and every upper bound
// from the dominating pair; where no lower pair is known the lower bounds
// are 0 (absent) with a note, never borrowed from the dominating pair. A
// sequence's lower pair is the sequence of its parts' lower pairs (each
// part's own pair where attained): the product of instances is an instance
// of the sequence.
//
// Status of every pair built by this package (TestPairStatus lists them):
//
//	Gauss, Laplace (truncated or not)       exact pair of the mechanism on neighbours at distance sensitivity
//	randomized response, histogram          exact (the pair is the mechanism)
//	eps_delta                               exact: M_{eps,delta} is itself an (eps, delta)-DP mechanism, the worst one (Kairouz, Oh, Viswanath 2015)
//	vuvuzela dialing, conversation          exact pair of the observed counts of the model (Section 7.1)
//	SGD, subsampled Poisson add/remove      attained: R(q, m) (others 0, z contributes m)
//	subsampled Poisson replace-one Gauss    attained: P(q, m) (replaced record -m, replacement +m)
//	subsampled Poisson replace-one Laplace  dominating only: S(q, 2m); lower pair P(q, m)
//	subsampled fixed size add/remove        attained at rate b/n: R(b/n, 2m); lower bounds of R(q', 2m), q' the float below q, from R(q, 2m) by rateSlacked (none for q = 1)
//	subsampled fixed size replace-one       dominating only: S(q, 2m); lower pair R(q', 2m)
//	random allocation, k = 1                attained: (1/t) sum_i N(m e_i, I) vs N(0, I) (z on one fixed axis in every step)
//	random allocation, k > 1                dominating only: blocks of 1-out-of-floor(t/k), ceil(t/k); lower pair the sum statistic's Gaussian, mu = k m / sqrt(t)
//
// (subsampled.go gives the derivations.)

// lowerPaired is implemented by mechanisms whose pair is not known to be
// attained by an instance of the mechanism.
type lowerPaired interface {
	// lowerPair returns a pair the mechanism dominates (distinct = true),
	// or distinct = false when the mechanism's own pair is attained. With
	// distinct = true and low = nil no lower pair is known, and reason
	// says why.
	lowerPair() (low Mechanism, distinct bool, reason string)
}

// lowerOf returns m's lower pair (see lowerPaired).
func lowerOf(m Mechanism) (low Mechanism, distinct bool, reason string) {
	if lp, ok := m.(lowerPaired); ok {
		return lp.lowerPair()
	}
	return nil, false, ""
}

// lowerSequence returns the lower pairs of a sequence's parts: distinct
// when at least one part has a distinct lower pair; nil parts (with the
// first reason) when one part has none.
func lowerSequence(parts []Part) (low []Part, distinct bool, reason string) {
	low = make([]Part, len(parts))
	for i, p := range parts {
		l, d, why := lowerOf(p.Mechanism)
		switch {
		case !d:
			low[i] = p
		case l == nil:
			return nil, true, why
		default:
			low[i] = Part{Mechanism: l, Count: p.Count}
			distinct = true
		}
	}
	return low, distinct, ""
}

// lowerSource says where a Result's lower bounds come from: its own lists
// (lowerFrom nil, lowerAbsent empty), the composition of a lower pair
// (lowerFrom), or nowhere (lowerAbsent: the reason; the lower bounds are
// then 0).
type lowerSource struct {
	lowerFrom   *Result
	lowerAbsent string
	// slackA and slackC are the rate slack of the lower bounds (rateSlacked),
	// summed over the steps: ln(1/a^r) and ln(c^r), upper bounds; 0: none.
	slackA, slackC float64
}

// rateSlacked is implemented by mechanisms whose pair is attained by an
// instance at a parameter that may differ from the pair's own by rounding:
// fixed-size add/remove, whose pair R(q, 2m) is attained at the rate b/n,
// which q may exceed by an ulp (FixedSizeRate rounds up). The float q'
// below q is at most b/n, so R(q', 2m) = (A', B) is dominated by the
// instance R(b/n, 2m) (R is monotone in the rate), and its A-side is
// within a A <= A' <= c A pointwise of R(q, 2m)'s = (A, B) (B unchanged):
// with A_g = (1-g) F + g F_2m, A_q' >= (q'/q) A_q because 1-q' >= (1-q)
// q'/q, and A_q' <= ((1-q')/(1-q)) A_q because q' (1-q) <= q (1-q').
// After r steps (and over a sequence) the factors multiply, pointwise on
// the product, so with s_A = ln(1/a^r) and s_C = ln(c^r):
//
//	delta_{A'||B}(eps) = sup_S A'(S) - e^eps B(S) >= e^-s_A delta_{A||B}(eps + s_A)
//	delta_{B||A'}(eps) = sup_S B(S) - e^eps A'(S) >= delta_{B||A}(eps + s_C)
//	D_alpha(A'||B) >= D_alpha(A||B) - alpha/(alpha-1) s_A,  D_alpha(B||A') >= D_alpha(B||A) - s_C
//
// so the composed pair's own lower bounds, taken at the shifted eps (and
// scaled), are lower bounds of R(q', 2m)^r, hence of the instance's r-step
// run: no second composition. The shifts are about r 2^-52 (2.4e-4 at r =
// 2^40).
type rateSlacked interface {
	// lowerSlack returns upper bounds on ln(1/a) and ln(c) of one step.
	lowerSlack() (lnA, lnC float64)
}

// slackOf returns m's per-step rate slack (rateSlacked), 0 if none.
func slackOf(m Mechanism) (lnA, lnC float64) {
	if rs, ok := m.(rateSlacked); ok {
		return rs.lowerSlack()
	}
	return 0, 0
}

// addSlack adds count steps of a per-step slack to r's lower bounds
// (rounded up).
func (r *Result) addSlack(count int, lnA, lnC float64) {
	if lnA == 0 && lnC == 0 {
		return
	}
	g := 1 + 8*unitRoundoff
	r.slackA = (r.slackA + float64(count)*lnA*g) * g
	r.slackC = (r.slackC + float64(count)*lnC*g) * g
}

// hasSlack reports whether r's lower bounds carry a rate slack.
func (r *Result) hasSlack() bool { return r.slackA > 0 || r.slackC > 0 }

// lowerAt returns the lower bounds of r's lower source at eps (the upper
// fields are those of whichever list gave them: not to be used).
func (r *Result) lowerAt(eps float64) DeltaBound {
	if r.lowerFrom != nil {
		return r.lowerFrom.Delta(eps)
	}
	return r.deltaOwn(eps)
}

// slackDelta replaces the lower bounds of d by those of the instance
// (rateSlacked): A||B at eps + slackA scaled by e^-slackA, B||A at eps +
// slackC.
func (r *Result) slackDelta(d DeltaBound, eps float64) DeltaBound {
	if !r.ec || r.lowerAbsent != "" || !r.hasSlack() {
		return d
	}
	ab := r.lowerAt(eps + r.slackA).LowerAB
	ab *= math.Exp(-r.slackA) * (1 - 8*unitRoundoff)
	ba := 0.0
	if !math.IsInf(r.slackC, 1) {
		ba = r.lowerAt(eps + r.slackC).LowerBA
	}
	d.LowerAB, d.LowerBA = math.Max(ab, 0), math.Max(ba, 0)
	d.Lower = math.Max(d.LowerAB, d.LowerBA)
	return d
}

// setLowerFrom makes low, the composition of the lower pair of r's
// mechanism with the same count, the source of r's lower bounds.
func (r *Result) setLowerFrom(low *Result) {
	r.lowerFrom = low
	r.info.LowerMechanisms = low.Info().Mechanisms
	for _, n := range low.notes {
		r.addNotes([]string{"lower pair: " + n})
	}
}

// setLowerAbsent records that no lower pair is known (reason).
func (r *Result) setLowerAbsent(reason string) {
	r.lowerAbsent = reason
	r.addNotes([]string{reason})
}

// lowerDelta replaces the lower bounds of d (computed from r's lists) by
// those of r's lower source.
func (r *Result) lowerDelta(d DeltaBound, eps float64) DeltaBound {
	switch {
	case r.lowerFrom != nil:
		dl := r.lowerFrom.Delta(eps)
		d.Lower, d.LowerAB, d.LowerBA = dl.Lower, dl.LowerAB, dl.LowerBA
	case r.lowerAbsent != "" && r.ec:
		d.Lower, d.LowerAB, d.LowerBA = 0, 0, 0
	}
	return d
}

// lowerOptions returns the options of the composition of the lower pairs
// low: those of the dominating pair's, with Progress left to the caller,
// and, under the default Lists (both), only the list that serves the
// lower pairs' lower bounds where they all say which (listsPreferrer):
// only their lower bounds are used, and one list halves the work.
func lowerOptions(o Options, low ...Mechanism) Options {
	o.Progress = nil
	if o.Lists != ListsBoth || o.DisableErrorCorrection || len(low) == 0 {
		return o
	}
	var pref Lists
	for i, m := range low {
		lp, ok := m.(listsPreferrer)
		if !ok {
			return o
		}
		l := lp.lowerLists()
		if i > 0 && l != pref {
			return o
		}
		pref = l
	}
	o.Lists = pref
	return o
}

// listsPreferrer is implemented by lower pairs whose lower bounds one
// list gives as tightly as both: the grid list for continuous pairs
// (Gauss), the grouped list for pairs with atoms (Laplace), whose grid
// lower pair loses the atoms' mass at squarings (measured on the lower
// pairs of Laplace q 0.05, scale 2, r 1000: grid-only eps_low(1e-5) 0
// against 6.3120 for both and grouped alone; on DP-SGD fixed-size sigma
// 1.1, q 0.01, r 10^4: grid-only 30.882402, grouped alone 27.907094, both
// 30.882402).
type listsPreferrer interface {
	lowerLists() Lists
}

// splitProgress reports the progress of two compositions run one after
// the other as one: the first's totals are raised by extra, the steps the
// second plans, and the second's steps follow the first's.
type splitProgress struct {
	fn          func(done, total int)
	extra       int
	mu          sync.Mutex
	first, base int
}

// firstPhase returns the Progress of the first composition.
func (s *splitProgress) firstPhase() func(done, total int) {
	if s.fn == nil {
		return nil
	}
	return func(done, total int) {
		s.mu.Lock()
		s.first = max(s.first, done)
		s.mu.Unlock()
		s.fn(done, total+s.extra)
	}
}

// secondPhase returns the Progress of the second composition.
func (s *splitProgress) secondPhase() func(done, total int) {
	if s.fn == nil {
		return nil
	}
	s.mu.Lock()
	s.base = s.first
	s.mu.Unlock()
	return func(done, total int) { s.fn(s.base+done, s.base+total) }
}

// chainsOf returns the number of bucket-list chains a composition with o
// runs (the grouped and the grid list, or one of them).
func chainsOf(o Options) int {
	if !o.DisableErrorCorrection && o.Lists == ListsBoth {
		return 2
	}
	return 1
}

// composeLowerMany composes the lower pair of m for every r in rs, when m
// has a distinct one, and makes it the source of the lower bounds of out.
func composeLowerMany(ctx context.Context, m Mechanism, rs []int, o Options, sp *splitProgress, out []*Result) error {
	low, distinct, reason := lowerOf(m)
	if o.DisableErrorCorrection {
		return nil
	}
	if !distinct {
		lnA, lnC := slackOf(m)
		for i, r := range out {
			r.addSlack(rs[i], lnA, lnC)
		}
		return nil
	}
	if low == nil {
		for _, r := range out {
			r.setLowerAbsent(reason)
		}
		return nil
	}
	lo := lowerOptions(o, low)
	lo.Progress = sp.secondPhase()
	lows, err := composeManyPlain(ctx, low, rs, lo)
	if err != nil {
		return err
	}
	for i, r := range out {
		r.setLowerFrom(lows[i])
	}
	return nil
}

// lowerSteps returns the composition steps the composition of the lower
// pair low plans for counts rs (0 when there is none), for splitProgress.
func lowerSteps(o Options, low Mechanism, rs ...int) int {
	if low == nil || o.DisableErrorCorrection {
		return 0
	}
	return chainsOf(lowerOptions(o, low)) * powerSteps(rs)
}

// lowerRenyi returns the lower bound on D_alpha of r's lower source.
//
// own is the lower bound of r's own lists; the rate slack is applied to
// either source.
func (r *Result) lowerRenyi(alpha, own float64) float64 {
	lo := own
	switch {
	case r.lowerAbsent != "":
		return 0
	case r.lowerFrom != nil:
		lo, _ = r.lowerFrom.Renyi(alpha)
	}
	if r.hasSlack() {
		s := math.Max(alpha/(alpha-1)*r.slackA, r.slackC) * (1 + 8*unitRoundoff)
		lo = math.Max(0, lo-s)
	}
	return lo
}
