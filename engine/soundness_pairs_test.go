package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// The cases of the soundness property test (soundness_prop_test.go) for
// the mechanisms whose references are not closed forms at every r, and for
// ComposeMany: every fourth case of
// TestSoundnessProperty comes from genPairCase, with its own random stream
// (so the other cases are those of the seed before this file existed).
//
//   - sub1: SubsampledGauss (SGD), SubsampledLaplace, every Sampling x
//     Relation, q down to 1e-12 and q = 1 (FixedSizeRate sometimes), one
//     step: exact (rpRef1, refpairs_test.go).
//   - subSmall: the same with r = 2..8 (2..16 in long mode), and truncated
//     Gauss and Laplace: the rigorous grid bracket (refgrid_test.go).
//   - subLarge: SubsampledGauss with realistic parameters (sigma/sensitivity
//     0.4..20, q 1e-4..0.3) and r = 17..2^30: the linear-statistic lower
//     bound and the Renyi upper bound (reflarge_test.go); SubsampledLaplace
//     likewise with the Renyi upper bound alone.
//   - many: ComposeMany of Gauss (r up to 2^40, e.g. [1, 7, 512, 65536,
//     2^30]), randomized response (r <= 2e4) and M_{eps,delta} (r <= 2000),
//     each result against its closed form.
//   - trunc: truncated Gauss (any r, truncate down to just above half the
//     sensitivity, and the paper's 2500) and Laplace (any r, truncate down
//     to the sensitivity): one step exact, r = 2..8 by the grid bracket,
//     more by truncBracket from the untruncated pair's closed form (Laplace
//     r <= 6; beyond, the distinguishing mass as the lower bound).
//
// A bracket check requires delta_up >= the reference's lower end and
// delta_low <= its upper end (the eps bounds likewise through the
// reference at the returned eps), plus everything a result must satisfy
// (no NaN, lower <= upper, notes on trivial bounds).

// bracketFn returns ln of a lower and an upper bound of the exact delta at
// eps (the larger of the two directions, as Result.Delta reports).
type bracketFn func(eps float64) (lo, hi float64)

// checkBracketResult checks one result against a bracket of the exact
// value.
func checkBracketResult(res *Result, br bracketFn, dirs dirsFn, epsList, deltas []float64, ec bool, desc string, st *propStats) []string {
	fails := checkResultBasics(res, st)
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	tol := func(v float64) float64 { return 1e-12 * (1 + math.Abs(v)) }
	checkDelta := func(eps float64) {
		d := res.Delta(eps)
		fails = append(fails, checkDirBounds(d, eps, dirs, ec, st)...)
		lo, hi := br(eps)
		st.bracketChecks++
		if hi-lo < 1e-3 {
			st.bracketTight++
		}
		shape, ok := deltaShapeFails(d, eps, ec)
		fails = append(fails, shape...)
		if !ok {
			return
		}
		if m := ln(d.Upper) - lo; m < -tol(lo) {
			fail("eps=%v: upper %.17g < the exact delta's lower bound %.17g (bracket [%.6g, %.6g])", eps, d.Upper, math.Exp(lo), math.Exp(lo), math.Exp(hi))
		} else if !math.IsInf(lo, -1) && m < st.bracketUp && d.Upper < 1 {
			st.bracketUp, st.bracketUpDesc = m, fmt.Sprintf("eps=%v upper %.6g, exact in [%.6g, %.6g]: %s", eps, d.Upper, math.Exp(lo), math.Exp(hi), desc)
		}
		if d.Upper == 1 && hi < ln(0.5) {
			st.trivialUp++
			if d.Note == "" {
				fail("eps=%v: trivial upper bound 1 (exact at most %.3g) without a note", eps, math.Exp(hi))
			}
		}
		if ec && d.Lower > 0 {
			if m := hi - ln(d.Lower); m < -tol(hi) {
				fail("eps=%v: lower %.17g > the exact delta's upper bound %.17g (bracket [%.6g, %.6g])", eps, d.Lower, math.Exp(hi), math.Exp(lo), math.Exp(hi))
			} else if m < st.bracketLo && !math.IsInf(hi, 1) {
				st.bracketLo, st.bracketLoDesc = m, fmt.Sprintf("eps=%v lower %.6g, exact in [%.6g, %.6g]: %s", eps, d.Lower, math.Exp(lo), math.Exp(hi), desc)
			}
		}
	}
	for _, eps := range epsList {
		checkDelta(eps)
	}
	for _, delta := range deltas {
		eb := res.Eps(delta)
		ld := ln(delta)
		st.checks++
		if !epsUpperShape(eb, delta, "", st, fail) {
			continue
		}
		if !math.IsInf(eb.Upper, 1) {
			// the mechanism must be (Upper, delta)-DP
			if lo, _ := br(eb.Upper); lo > ld+tol(lo) {
				fail("delta=%v: eps upper %.17g but the exact delta there is at least %.17g", delta, eb.Upper, math.Exp(lo))
			}
			checkDelta(eb.Upper)
		}
		if !epsLowerShape(eb, ec, delta, fail) {
			continue
		}
		if eb.Lower > 0 {
			// not (eps, delta)-DP below Lower: the exact delta there is
			// above delta
			if _, hi := br(eb.Lower); hi < ld-tol(hi) {
				fail("delta=%v: eps lower %.17g but the exact delta there is at most %.17g", delta, eb.Lower, math.Exp(hi))
			}
			if !math.IsInf(eb.Lower, 1) {
				checkDelta(eb.Lower)
			}
		}
	}
	return fails
}

// dirsFn returns ln of a lower and an upper bound of the exact delta of
// each direction at eps: A||B, then B||A.
type dirsFn func(eps float64) (abLo, abHi, baLo, baHi float64)

// checkDirBounds checks the per-direction bounds of d against dirs: each
// direction's upper bound at least its exact value's lower bound, each
// lower bound at most its upper bound (Result.Delta takes the per-list
// minimum of each direction before the maximum over the directions, so
// every direction's bound must be sound on its own).
func checkDirBounds(d DeltaBound, eps float64, dirs dirsFn, ec bool, st *propStats) []string {
	if dirs == nil {
		return nil
	}
	var fails []string
	abLo, abHi, baLo, baHi := dirs(eps)
	st.dirChecks++
	chk := func(name string, up, low, lo, hi float64) {
		tolLo, tolHi := 1e-12*(1+finiteAbs(lo)), 1e-12*(1+finiteAbs(hi))
		if math.IsNaN(up) || ln(up) < lo-tolLo {
			fails = append(fails, fmt.Sprintf("eps=%v: upper %s %.17g < the exact %s delta's lower bound %.17g", eps, name, up, name, math.Exp(lo)))
		}
		if ec && low > 0 && ln(low) > hi+tolHi {
			fails = append(fails, fmt.Sprintf("eps=%v: lower %s %.17g > the exact %s delta's upper bound %.17g", eps, name, low, name, math.Exp(hi)))
		}
	}
	chk("A||B", d.UpperAB, d.LowerAB, abLo, abHi)
	chk("B||A", d.UpperBA, d.LowerBA, baLo, baHi)
	return fails
}

// symDirs returns the per-direction brackets of a mirror-symmetric pair
// (both directions equal) from its exact reference: value +- uncertainty.
func symDirs(ref refFn) dirsFn {
	return func(eps float64) (float64, float64, float64, float64) {
		v, u := ref(eps)
		return v - u, v + u, v - u, v + u
	}
}

// enumDirs returns the per-direction brackets of a product of histogram
// pairs by enumeration.
func enumDirs(as, bs [][]float64) dirsFn {
	return func(eps float64) (float64, float64, float64, float64) {
		ab, dab, ba, dba := refEnumerateDirs(as, bs, eps)
		return ab - dab, ab + dab, ba - dba, ba + dba
	}
}

// pairDirs returns the per-direction exact values of one step of rp.
func pairDirs(rp rpPair) dirsFn {
	sw := rp.swap()
	return func(eps float64) (float64, float64, float64, float64) {
		ab, dab := rp.delta1(eps)
		ba, dba := sw.delta1(eps)
		return ab - dab, ab + dab, ba - dba, ba + dba
	}
}

// randSubsampled draws a subsampled mechanism and its reference pair;
// realistic restricts it to DP-SGD's usual range (sigma/sensitivity
// 0.4..20, q 1e-4..0.3). A quarter of the mechanisms are Laplace.
// It also returns the mechanism's inputs (for the references of the real
// mechanism, soundness_lower_test.go).
func randSubsampled(rng *rand.Rand, realistic bool) (Mechanism, rpPair, largeShape, string, subInfo) {
	gauss := rng.IntN(4) > 0
	s := Sampling(rng.IntN(2))
	rel := Relation(rng.IntN(2))
	sens := 1.0
	if rng.IntN(3) == 0 {
		sens = logUniform(rng, 0.2, 5)
	}
	var q float64
	switch k := rng.IntN(10); {
	case realistic:
		q = logUniform(rng, 1e-4, 0.3)
	case k < 2:
		q = 1
	case k < 5:
		q = logUniform(rng, 1e-12, 1)
	case k < 6 && s == FixedSize:
		n := int(logUniform(rng, 2, 1e9))
		b := 1 + rng.IntN(max(1, n/10))
		q, _ = FixedSizeRate(b, n)
	default:
		q = logUniform(rng, 1e-4, 0.5)
	}
	var scale float64
	switch {
	case realistic:
		scale = sens * logUniform(rng, 0.4, 20)
	case gauss:
		scale = logUniform(rng, 0.01, 1000)
	default:
		scale = logUniform(rng, 0.02, 100)
	}
	m := sens / scale
	var mech Mechanism
	var err error
	var rp rpPair
	desc := ""
	if gauss {
		if s == Poisson && rel == AddRemove && sens == 1 && rng.IntN(2) == 0 {
			mech, err = SGD(scale, q)
		} else {
			mech, err = SubsampledGauss(scale, sens, q, s, rel)
		}
		rp = rpGaussPair(s, rel, q, m)
	} else {
		mech, err = SubsampledLaplace(scale, sens, q, s, rel)
		rp = rpLaplacePair(s, rel, q, m)
	}
	if err != nil {
		panic(err)
	}
	var ls largeShape
	switch {
	case !gauss:
		ls = largeShape{shapeLaplace, q, m}
	case s == Poisson && rel == AddRemove:
		ls = largeShape{shapeRemove, q, m}
	case s == Poisson:
		ls = largeShape{shapeAntipodal, q, m}
	case rel == AddRemove:
		ls = largeShape{shapeRemove, q, 2 * m}
	default:
		ls = largeShape{shapeSymmetric, q, 2 * m}
	}
	desc = fmt.Sprintf("%v (m=%.4g)", mech, m)
	return mech, rp, ls, desc, subInfo{lap: !gauss, s: s, rel: rel, q: q, m: m, exists: true}
}

// randTrunc draws a truncated Gauss or Laplace mechanism: its pair, the
// untruncated pair's exact delta for r steps where available, and the
// mechanism's description.
func randTrunc(rng *rand.Rand) (Mechanism, rpPair, bool, float64, float64, string) {
	sens := 1.0
	if rng.IntN(3) == 0 {
		sens = logUniform(rng, 0.2, 5)
	}
	if rng.IntN(3) > 0 { // Gauss
		sigma := logUniform(rng, 0.05, 100)
		trunc := sens / 2 * (1 + logUniform(rng, 1e-3, 100))
		if rng.IntN(4) == 0 {
			trunc = 2500 // the paper's
		}
		m, err := Gauss(sigma, sens, trunc)
		if err != nil {
			panic(err)
		}
		mu, tau := sens/sigma, trunc/sigma
		return m, rpGaussTrunc(mu, tau), true, mu, tau, fmt.Sprintf("%v (mu=%.4g tau=%.4g)", m, mu, tau)
	}
	scale := logUniform(rng, 0.05, 50)
	trunc := sens * (1 + logUniform(rng, 1e-3, 100))
	if rng.IntN(8) == 0 {
		trunc = sens
	}
	m, err := Laplace(scale, sens, trunc)
	if err != nil {
		panic(err)
	}
	mu, tau := sens/scale, trunc/scale
	return m, rpLaplaceTrunc(mu, tau), false, mu, tau, fmt.Sprintf("%v (mu=%.4g tau=%.4g)", m, mu, tau)
}

// truncBracket bounds delta_r(eps) of a pair truncated to a box around
// each mean from the exact delta H of the untruncated pair. With w the
// mass each truncated distribution puts on the middle [mu - tau, tau] (the
// same for A and B by symmetry), c1 = z w the untruncated mass of the
// middle (z the normalisation) and L <= Lmax there: the events with a
// coordinate outside the middle are distinguishing (loss +Inf under A), so
// delta = 1 - w^r + w^r H'(eps), where H' is the delta of the pair
// conditioned on the box = middle^r. Both conditioned laws have the
// untruncated laws' ratio, and the box has untruncated mass c = c1^r under
// both, so c H' = sup over E in the box of (A(E) - e^eps B(E)), which lies
// between H - (1 - c) (take E* = {L > eps} and cut it to the box) and H.
// Hence delta in [1 - w^r + max(0, H - (1 - c))/z^r, 1 - w^r + H/z^r], and
// delta = 1 - w^r when eps >= r Lmax. Without H (Laplace beyond r = 8):
// [1 - w^r, 1].
func truncBracket(gauss bool, mu, tau float64, r int, eps float64) (float64, float64) {
	// d = 1 - w, the per-step distinguishing mass A([-tau, mu-tau))/z, in
	// logarithms (accurate where it is tiny)
	var ld, dld, lz, lmax float64
	var H, dH float64
	unknown := false // H not available: only 0 <= H <= 1 (Laplace, r > 8)
	dx := 2 * u64 * (mu + tau)
	if gauss {
		ld, dld = lnNormMass(-tau, mu-tau, dx)
		lz = math.Log1p(-math.Erfc(tau / math.Sqrt2))
		lmax = mu*tau - mu*mu/2
		H, dH = refGauss(mu*math.Sqrt(float64(r)), eps)
	} else {
		ld, dld = lnLapMass(-tau, mu-tau, dx)
		lz = log1mExp(-tau)
		lmax = mu
		if r <= 8 {
			H, dH = refLaplace(mu, r, eps)
		} else {
			unknown = true
		}
	}
	rf := float64(r)
	dz := 8 * u64 * (1 + math.Abs(lz))
	ld -= lz
	dld += dz
	// ln(1 - w^r) = ln(-expm1(r log1p(-d))), bracketed through d
	pinf := func(l float64, upper bool) float64 {
		if x := math.Log(rf) + l; x < -30 {
			// 1 - (1-d)^r = -expm1(-y), y = -r log1p(-d) in [r d, r d
			// (1 + d)]: ln in [x - e^x, x + d] (d may underflow)
			if upper {
				return x + math.Exp(l) + 4*u64*(1+math.Abs(x))
			}
			return x - math.Exp(x) - 4*u64*(1+math.Abs(x))
		}
		d := math.Min(1, math.Exp(l))
		if upper {
			return log1mExp(math.Min(0, rf*math.Log1p(-d)*(1+4*u64))) + 8*u64*(1+rf)
		}
		return log1mExp(math.Min(0, rf*math.Log1p(-d)*(1-4*u64))) - 8*u64*(1+rf)
	}
	pLo := pinf(ld-dld, false)
	pHi := pinf(ld+dld, true)
	if math.IsInf(eps, 1) || eps >= rf*lmax*(1+1e-12) {
		return pLo, math.Min(0, pHi)
	}
	if unknown {
		return pLo, 0
	}
	// c1 = z (1 - d), the untruncated middle mass; ln(1 - c), c = c1^r,
	// at most
	lc1 := lz + math.Log1p(-math.Min(1, math.Exp(ld+dld)))
	l1c := log1mExp(math.Min(0, rf*lc1*(1+4*u64)))
	hiH := H + dH - rf*(lz-dz)
	hi := logAddExp(pHi, hiH)
	lo := pLo
	if Hl := H - dH; Hl > l1c {
		lo = logAddExp(pLo, Hl+log1mExp(l1c-Hl)-rf*(lz+dz))
	}
	return lo, math.Min(0, hi)
}

// genPairCase draws a case of one of the kinds above.
func genPairCase(rng *rand.Rand, big bool) propCase {
	opt, optDesc := randOptions(rng, big)
	var c propCase
	c.ec = !opt.DisableErrorCorrection
	single := func(m Mechanism, r int) func(context.Context) (*Result, error) {
		return func(ctx context.Context) (*Result, error) { return Compose(ctx, m, r, opt) }
	}
	smallR, gridN := 8, 400
	if big {
		smallR, gridN = 16, 600
	}
	var refs []refFn // exact references of the results (nil for a bracket)
	switch k := rng.IntN(20); {
	case k < 5: // one step of a subsampled pair
		m, rp, _, desc, si := randSubsampled(rng, false)
		c.desc = "sub1 " + desc + " r=1"
		c.compose = single(m, 1)
		refs = []refFn{rpRef1(rp)}
		c.dirs = pairDirs(rp)
		c.real = newRealRef(si, 1)
	case k < 9: // a few steps: the grid bracket
		m, rp, _, desc, si := randSubsampled(rng, false)
		r := 2 + rng.IntN(smallR-1)
		c.desc = fmt.Sprintf("subSmall %s r=%d", desc, r)
		c.compose = single(m, r)
		c.real = newRealRef(si, r)
		mb := newMultiBracket(rp, r, gridN, false)
		c.br = mb.bracket
		c.dirs = mb.dirs
		c.cost = float64(mb.max)
	case k < 12: // DP-SGD at large r
		m, rp, ls, desc, si := randSubsampled(rng, true)
		r := int(logUniform(rng, 17, 1<<30))
		c.desc = fmt.Sprintf("subLarge %s r=%d", desc, r)
		c.compose = single(m, r)
		c.real = newRealRef(si, r)
		lb := newLargeBracket(ls, rp)
		c.br = func(eps float64) (float64, float64) { return lb.bracket(r, eps) }
		c.dirs = func(eps float64) (float64, float64, float64, float64) { return lb.dirs(r, eps) }
	case k < 16: // ComposeMany against closed forms at every r
		c.desc, c.many, refs, c.manyR = genManyCase(rng, opt)
	default: // truncated Gauss and Laplace
		m, rp, gauss, mu, tau, desc := randTrunc(rng)
		switch j := rng.IntN(10); {
		case j < 3:
			c.desc = "trunc " + desc + " r=1"
			c.compose = single(m, 1)
			refs = []refFn{rpRef1(rp)}
			c.dirs = pairDirs(rp)
		case j < 5:
			r := 2 + rng.IntN(smallR-1)
			c.desc = fmt.Sprintf("trunc %s r=%d (grid)", desc, r)
			c.compose = single(m, r)
			mb := newMultiBracket(rp, r, gridN, true)
			c.br, c.dirs = mb.bracket, mb.dirs
		default:
			// Gauss at any r; Laplace r <= 6 (refLaplace) or any r with
			// only the distinguishing mass as the lower bound
			r := 2 + rng.IntN(5)
			if gauss || rng.IntN(2) == 0 {
				r = int(logUniform(rng, 2, 1<<40))
			}
			c.desc = fmt.Sprintf("trunc %s r=%d (box)", desc, r)
			c.compose = single(m, r)
			c.br = func(eps float64) (float64, float64) { return truncBracket(gauss, mu, tau, r, eps) }
			c.dirs = func(eps float64) (float64, float64, float64, float64) {
				lo, hi := c.br(eps) // the truncated pairs are mirror-symmetric
				return lo, hi, lo, hi
			}
		}
	}
	c.desc += " | " + optDesc
	c.eps = []float64{0, 1e-3, 0.1, 1, 3, 10, 100, 700, 709.78, 710, 745, 1000, 1e4, math.Inf(1)}
	for i := 0; i < 3; i++ {
		c.eps = append(c.eps, logUniform(rng, 1e-3, 1e4))
	}
	all := []float64{0.5, 1e-2, 1e-6, 1e-12, 1e-30, 1e-100}
	for len(c.deltas) < 3 {
		c.deltas = append(c.deltas, all[rng.IntN(len(all))])
	}
	// eps where the exact delta is 0.5, 1e-3 and 1e-10, for every exact
	// reference
	extra := func(ref refFn) []float64 {
		var out []float64
		for _, d := range []float64{0.5, 1e-3, 1e-10} {
			if e := refEps(ref, d); e > 0 && !math.IsInf(e, 1) {
				out = append(out, e, e*(1+1e-3))
			}
		}
		return out
	}
	switch {
	case c.many != nil:
		c.refs = refs
		for _, ref := range refs {
			c.epsPer = append(c.epsPer, extra(ref))
			c.dirsPer = append(c.dirsPer, symDirs(ref)) // Gauss, randomized response, M_{eps,delta}
		}
	case c.br == nil:
		c.ref = refs[0]
		c.eps = append(c.eps, extra(c.ref)...)
	}
	return c
}

// genManyCase draws a ComposeMany case: a mechanism with a closed form at
// every r and a list of r (unsorted, sometimes with repeats, sometimes the
// wide list [1, 7, 512, 65536, 2^30]).
func genManyCase(rng *rand.Rand, opt Options) (string, func(context.Context) ([]*Result, error), []refFn, []int) {
	var m Mechanism
	var rs []int
	var refs []refFn
	var desc string
	randList := func(maxR float64) []int {
		n := 2 + rng.IntN(4)
		var out []int
		for i := 0; i < n; i++ {
			out = append(out, randR(rng, maxR))
		}
		if rng.IntN(4) == 0 {
			out = append(out, out[rng.IntN(len(out))])
		}
		if rng.IntN(2) == 0 {
			slices.Sort(out)
		}
		return out
	}
	switch rng.IntN(3) {
	case 0:
		sigma := logUniform(rng, 0.01, 1000)
		sens := 1.0
		if rng.IntN(3) == 0 {
			sens = logUniform(rng, 0.2, 5)
		}
		m, _ = Gauss(sigma, sens, 0)
		if rng.IntN(3) == 0 {
			rs = []int{1, 7, 512, 65536, 1 << 30}
		} else {
			rs = randList(1 << 40)
		}
		for _, r := range rs {
			mu := sens * math.Sqrt(float64(r)) / sigma
			refs = append(refs, func(eps float64) (float64, float64) { return refGauss(mu, eps) })
		}
		desc = fmt.Sprintf("many gauss sigma=%v sens=%v", sigma, sens)
	case 1:
		p := 0.5 + 0.5*rng.Float64()
		if rng.IntN(2) == 0 {
			p = 1 - math.Pow(10, -0.3-14.7*rng.Float64())
		}
		m, _ = RandomizedResponse(p)
		rs = randList(2e4)
		for _, r := range rs {
			refs = append(refs, func(eps float64) (float64, float64) { return refRR(p, r, eps) })
		}
		desc = fmt.Sprintf("many rr p=%v", p)
	default:
		eps0 := 3 * rng.Float64()
		if rng.IntN(2) == 0 {
			eps0 = math.Pow(10, 3.2*rng.Float64())
		}
		d := 0.0
		if rng.IntN(3) > 0 {
			d = math.Pow(10, -1-14*rng.Float64())
		}
		m, _ = EpsDelta(eps0, d)
		rs = randList(2000)
		for _, r := range rs {
			refs = append(refs, func(eps float64) (float64, float64) { return refEpsDelta(eps0, d, r, eps) })
		}
		desc = fmt.Sprintf("many eps_delta eps0=%v d=%v", eps0, d)
	}
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprint(r))
	}
	desc += " rs=[" + strings.Join(parts, " ") + "]"
	return desc, func(ctx context.Context) ([]*Result, error) { return ComposeMany(ctx, m, rs, opt) }, refs, rs
}
