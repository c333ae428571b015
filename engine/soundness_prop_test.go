package engine

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The seeded property test of the engine's soundness over the whole legal
// input space (issue 11): random mechanisms with exact references (Gauss
// closed form, randomized-response binomial sum, the r-fold M_{eps,delta},
// Laplace for r <= 6, histograms and heterogeneous sequences by
// enumeration; all in log space, reference_test.go), random options (any
// bucket count from 8, explicit factors 1.000001 to 3, tilts 1-5, squaring
// thresholds, free_infty_budget, tail budgets, error correction off), r up
// to 2^40, and queries at eps from 0 to 1e4 and +Inf and at delta down to
// 1e-100. Every bound must be on the right side of the reference (up to
// the reference's own accuracy, 1e-10 relative) or be the trivial bound
// with a note; no NaN anywhere. Every fourth case (all of them with
// -sound.pairs) comes from genPairCase (soundness_pairs_test.go): the
// subsampled Gaussian and Laplace pairs (SGD, every Sampling x Relation)
// one step against their exact delta, r = 2..8 (16 in long mode) against
// a rigorous bracket (refgrid_test.go), DP-SGD at r up to 2^30 against a
// lower and an upper bound (reflarge_test.go), ComposeMany lists against
// closed forms at every r, and truncated Gauss and Laplace pairs. Every
// case also checks the per-direction bounds (UpperAB, ..., LowerBA) where
// the reference gives each direction.
//
// The test can fail: deliberate mutations of the engine (scratch edits,
// reverted), each run as `go test ./engine -run TestSoundnessProperty
// -sound.pairs -sound.maxfail 0` (300 genPairCase cases, seed 1), failed
// this many cases, by kind:
//
//	Delta's upper and lower bounds (all directions) times 0.999:
//	    many 62, sub1 54, subSmall 24, trunc 63
//	the remove pair's shifted component times 0.999 (gaussRemove massA):
//	    sub1 28, subSmall 20, subLarge 11
//	the symmetrised pair's atom z times 0.99 (gaussSymmetric):
//	    subSmall 5, subLarge 6 (it only matters from r = 2 on)
//	the antipodal pair's shifted component of A times 0.999: sub1 13,
//	    subSmall 6, subLarge 4
//	the Laplace remove pair's right atom (q part) times 0.999: sub1 16,
//	    subSmall 4, subLarge 2; its middle's shifted component: sub1 15,
//	    subSmall 5, subLarge 1
//	the truncated Gauss pair's A-only mass times 0.99: trunc 33 (only
//	    through the per-direction checks: B||A hides it in the maximum)
//	fixed_size add_remove with shift 1.9 m instead of 2 m: sub1 13,
//	    subSmall 5, subLarge 1
//	poisson replace_one (Gauss) with the remove pair instead of the
//	    antipodal one: sub1 15, subSmall 10
//	ComposeMany pairing result i's grouped list with another r's grid
//	    list: many 20
//	the subsampled pairs' relative mass error bound set to 0: none (it is
//	    of the order of 1e-14 and the bounds keep more slack)
//	the grid leaf's low-atom fix (grid.go, lowAtomUnderflows) reverted:
//	    none in these 300; `-sound.cases 2000 -sound.seed 102` fails on
//	    its case 935 (it was found so, and on seed 103 with an earlier
//	    version of genPairCase), and TestGridLeafLowAtomUnderflow fails
//
//	go test ./engine -run TestSoundnessProperty -sound.cases 5000 -v   # long mode
//	go test ./engine -run TestSoundnessProperty -sound.pairs -sound.cases 1000 -v   # the new kinds only
var (
	soundCases   = flag.Int("sound.cases", 0, "cases of TestSoundnessProperty (0: 300, or 60 with -short)")
	soundSeed    = flag.Uint64("sound.seed", 1, "seed of TestSoundnessProperty")
	soundOnly    = flag.Int("sound.only", -1, "run only this case of TestSoundnessProperty")
	soundMaxFail = flag.Int("sound.maxfail", 20, "failing cases of TestSoundnessProperty shown (all are run and counted)")
	soundPairs   = flag.Bool("sound.pairs", false, "draw every case of TestSoundnessProperty from genPairCase (subsampled, truncated, ComposeMany)")
)

// propCase is one random case: a composed result's inputs and its
// reference: an exact value (ref, one result), a bracket of the exact value
// (br, one result, soundness_pairs_test.go), or exact values for each
// result of a ComposeMany (many, refs, epsPer).
type propCase struct {
	desc    string
	compose func(ctx context.Context) (*Result, error)
	ref     refFn     // ln delta(eps) and its uncertainty
	eps     []float64 // eps of delta(eps) queries
	deltas  []float64 // delta of eps(delta) queries
	ec      bool
	cost    float64 // a rough measure of the composition's work

	br bracketFn // ln of a lower and an upper bound of the exact delta

	// dirs brackets the exact delta of each direction (A||B, B||A), for
	// the checks of DeltaBound.UpperAB, UpperBA, LowerAB, LowerBA; nil:
	// not checked. dirsPer is the same for each result of many.
	dirs    dirsFn
	dirsPer []dirsFn

	// real bounds the real mechanism from above, for its lower bounds
	// (soundness_lower_test.go); nil: not checked.
	real *realRef

	many   func(ctx context.Context) ([]*Result, error)
	refs   []refFn     // the exact delta of each result of many
	manyR  []int       // their numbers of compositions
	epsPer [][]float64 // eps queries of each result besides eps
}

// logUniform returns e^U(ln a, ln b).
func logUniform(rng *rand.Rand, a, b float64) float64 {
	return math.Exp(ln(a) + rng.Float64()*(ln(b)-ln(a)))
}

// randOptions returns random engine options over the legal space; big
// allows bucket counts up to 100,000.
func randOptions(rng *rand.Rand, big bool) (Options, string) {
	var o Options
	maxB := 5000.0
	if big && rng.IntN(10) == 0 {
		maxB = 25000
	}
	o.Buckets = 4 * int(logUniform(rng, 2, maxB))
	if rng.IntN(2) == 0 {
		o.Factor = 1 + logUniform(rng, 1e-6, 2)
	}
	if rng.IntN(2) == 0 {
		o.Tilts = 1 + rng.IntN(5)
	}
	if rng.IntN(2) == 0 {
		o.SquaringThreshold = 1.01 + 3*rng.Float64()
	}
	switch rng.IntN(4) {
	case 0:
		o.FreeInftyBudget = -1
	case 1:
		o.FreeInftyBudget = math.Pow(10, -5-25*rng.Float64())
	}
	if rng.IntN(2) == 0 {
		o.TailBudget = math.Pow(10, -3-27*rng.Float64())
	}
	o.DisableErrorCorrection = rng.IntN(7) == 0
	// the lists composed: both (the default) half of the time, else the
	// grouped list or the grid lists alone
	switch rng.IntN(4) {
	case 0:
		o.Lists = ListsGrouped
	case 1:
		o.Lists = ListsGrid
	}
	// the engine's choice of path (powerchoice.go) at the drawn bucket
	// count in an eighth of the cases, chosen by the count so that the
	// stream of draws stays as it was
	if o.Buckets/4%8 == 3 {
		o.power = powerAuto
	}
	return o, fmt.Sprintf("buckets=%d factor=%v tilts=%d sq=%v free=%v tail=%v noEC=%v lists=%d path=%d",
		o.Buckets, o.Factor, o.Tilts, o.SquaringThreshold, o.FreeInftyBudget, o.TailBudget, o.DisableErrorCorrection, o.Lists, o.power)
}

// randR returns a number of compositions, log-uniform in [1, max].
func randR(rng *rand.Rand, max float64) int {
	return int(logUniform(rng, 1, max+1))
}

// randPMFProp returns a random PMF of k outcomes with zeros and masses down
// to 1e-300 (some subnormal products when composed).
func randPMFProp(rng *rand.Rand, k int) []float64 { return randomPMFWith(rng, k, true) }

// genPropCase draws case i.
func genPropCase(rng *rand.Rand, big bool) propCase {
	opt, optDesc := randOptions(rng, big)
	var c propCase
	c.ec = !opt.DisableErrorCorrection
	single := func(m Mechanism, r int) func(context.Context) (*Result, error) {
		return func(ctx context.Context) (*Result, error) { return Compose(ctx, m, r, opt) }
	}
	switch k := rng.IntN(20); {
	case k < 6: // Gauss
		sigma := logUniform(rng, 0.01, 1000)
		sens := 1.0
		if rng.IntN(3) == 0 {
			sens = logUniform(rng, 0.2, 5)
		}
		r := randR(rng, 1<<40)
		m, _ := Gauss(sigma, sens, 0)
		mu := sens * math.Sqrt(float64(r)) / sigma
		c.desc = fmt.Sprintf("gauss sigma=%v sens=%v r=%d (mu=%.4g)", sigma, sens, r, mu)
		c.compose = single(m, r)
		c.ref = func(eps float64) (float64, float64) { return refGauss(mu, eps) }
		c.cost = math.Log2(float64(r) + 1)
	case k < 10: // randomized response, p up to 1 - 1e-15
		p := 0.5 + 0.5*rng.Float64()
		if rng.IntN(2) == 0 {
			p = 1 - math.Pow(10, -0.3-14.7*rng.Float64())
		}
		r := randR(rng, 2e4)
		m, _ := RandomizedResponse(p)
		c.desc = fmt.Sprintf("rr p=%v r=%d", p, r)
		c.compose = single(m, r)
		c.ref = func(eps float64) (float64, float64) { return refRR(p, r, eps) }
		c.cost = math.Log2(float64(r) + 1)
	case k < 13: // M_{eps0, d}
		eps0 := 3 * rng.Float64()
		if rng.IntN(2) == 0 {
			eps0 = math.Pow(10, 3.2*rng.Float64())
		}
		if rng.IntN(10) == 0 {
			eps0 = 0
		}
		d := 0.0
		if rng.IntN(3) > 0 {
			d = math.Pow(10, -1-14*rng.Float64())
		}
		r := randR(rng, 2000)
		m, _ := EpsDelta(eps0, d)
		c.desc = fmt.Sprintf("eps_delta eps0=%v d=%v r=%d", eps0, d, r)
		c.compose = single(m, r)
		c.ref = func(eps float64) (float64, float64) { return refEpsDelta(eps0, d, r, eps) }
		c.cost = math.Log2(float64(r) + 1)
	case k < 16: // Laplace, r <= 6
		scale := logUniform(rng, 1.0/50, 100)
		r := 1 + rng.IntN(6)
		m, _ := Laplace(scale, 1, 0)
		mu := 1 / scale
		c.desc = fmt.Sprintf("laplace scale=%v r=%d (mu=%.4g)", scale, r, mu)
		c.compose = single(m, r)
		c.ref = func(eps float64) (float64, float64) { return refLaplace(mu, r, eps) }
		c.cost = 3
	case k < 18: // histogram, r <= 4
		kk := 2 + rng.IntN(4)
		a, b := randPMFProp(rng, kk), randPMFProp(rng, kk)
		m, err := Histogram(a, b)
		if err != nil {
			panic(err)
		}
		h := m.(*histMech)
		r := 1 + rng.IntN(4)
		var as, bs [][]float64
		for i := 0; i < r; i++ {
			as, bs = append(as, h.a), append(bs, h.b)
		}
		c.desc = fmt.Sprintf("histogram a=%v b=%v r=%d", h.a, h.b, r)
		c.compose = single(m, r)
		c.ref = func(eps float64) (float64, float64) { return refEnumerate(as, bs, eps) }
		c.dirs = enumDirs(as, bs)
		c.cost = 2
	default: // heterogeneous sequence of histograms
		var parts []Part
		var as, bs [][]float64
		var descs []string
		for i := 0; i < 2+rng.IntN(3); i++ {
			kk := 2 + rng.IntN(3)
			m, err := Histogram(randPMFProp(rng, kk), randPMFProp(rng, kk))
			if err != nil {
				panic(err)
			}
			h := m.(*histMech)
			cnt := 1 + rng.IntN(2)
			parts = append(parts, Part{m, cnt})
			for j := 0; j < cnt; j++ {
				as, bs = append(as, h.a), append(bs, h.b)
			}
			descs = append(descs, fmt.Sprintf("(%v|%v)^%d", h.a, h.b, cnt))
		}
		if len(as) > 6 { // keep the enumeration small
			as, bs, parts = as[:0], bs[:0], parts[:2]
			for _, p := range parts {
				h := p.Mechanism.(*histMech)
				for j := 0; j < p.Count; j++ {
					as, bs = append(as, h.a), append(bs, h.b)
				}
			}
			descs = descs[:2]
		}
		c.desc = "sequence " + strings.Join(descs, " ")
		c.compose = func(ctx context.Context) (*Result, error) { return ComposeSequence(ctx, parts, opt) }
		c.ref = func(eps float64) (float64, float64) { return refEnumerate(as, bs, eps) }
		c.dirs = enumDirs(as, bs)
		c.cost = 2
	}
	if c.dirs == nil { // Gauss, randomized response, M_{eps,delta}, Laplace: symmetric pairs
		c.dirs = symDirs(c.ref)
	}
	c.desc += " | " + optDesc
	c.cost *= float64(opt.Buckets)
	// eps: fixed points around the float64 limits and in the thousands,
	// random ones, and where the exact delta is 0.5, 1e-3 and 1e-10
	c.eps = []float64{0, 1e-3, 0.1, 1, 3, 10, 100, 700, 709.78, 710, 745, 1000, 1e4, math.Inf(1)}
	for i := 0; i < 3; i++ {
		c.eps = append(c.eps, logUniform(rng, 1e-3, 1e4))
	}
	for _, d := range []float64{0.5, 1e-3, 1e-10} {
		if e := refEps(c.ref, d); e > 0 && !math.IsInf(e, 1) {
			c.eps = append(c.eps, e, e*(1+1e-3))
		}
	}
	all := []float64{0.5, 1e-2, 1e-6, 1e-12, 1e-30, 1e-100}
	for len(c.deltas) < 3 {
		c.deltas = append(c.deltas, all[rng.IntN(len(all))])
	}
	return c
}

// propStats collects the margins of the checks.
type propStats struct {
	checks                 int
	illConditioned         int // checks skipped: the reference is too uncertain
	trivialUp, trivialEps  int
	worstUp, worstLo       float64 // min over checks of ln(upper/exact), ln(exact/lower)
	worstUpDesc            string
	worstLoDesc            string
	worstEpsUp, worstEpsLo float64 // min of (epsUp - exact)/exact, (exact - epsLo)/exact
	swapped                int     // results with a swapped grid list (gridswap.go)

	// checks against a bracket of the exact value (soundness_pairs_test.go)
	bracketChecks, bracketTight int     // all, and those with a bracket narrower than 1e-3 (ln)
	bracketUp, bracketLo        float64 // min of ln(upper) - ln(bracket's lower end), ln(bracket's upper end) - ln(lower)
	bracketUpDesc               string
	bracketLoDesc               string
	kinds                       map[string]int // cases per kind
	dirChecks                   int            // per-direction checks
	realChecks                  int            // lower bounds against the real mechanism (soundness_lower_test.go)
}

// newPropStats returns empty statistics.
func newPropStats() propStats {
	inf := math.Inf(1)
	return propStats{worstUp: inf, worstLo: inf, worstEpsUp: inf, worstEpsLo: inf, bracketUp: inf, bracketLo: inf, kinds: map[string]int{}}
}

// checkPropCase runs one case and returns its failures.
func checkPropCase(t *testing.T, c propCase, st *propStats) []string {
	if c.many != nil {
		res, err := c.many(context.Background())
		if err != nil {
			return []string{fmt.Sprintf("compose: %v", err)}
		}
		if len(res) != len(c.refs) {
			return []string{fmt.Sprintf("ComposeMany returned %d results for %d r", len(res), len(c.refs))}
		}
		var fails []string
		for i, r := range res {
			if got := r.Info().Compositions; got != c.manyR[i] {
				fails = append(fails, fmt.Sprintf("result %d: %d compositions, want %d", i, got, c.manyR[i]))
			}
			eps := append(append([]float64(nil), c.eps...), c.epsPer[i]...)
			for _, f := range checkRefResult(r, c.refs[i], c.dirsPer[i], eps, c.deltas, c.ec, c.desc, st) {
				fails = append(fails, fmt.Sprintf("r=%d: %s", c.manyR[i], f))
			}
		}
		return fails
	}
	res, err := c.compose(context.Background())
	if err != nil {
		return []string{fmt.Sprintf("compose: %v", err)}
	}
	var fails []string
	if c.br != nil {
		fails = checkBracketResult(res, c.br, c.dirs, c.eps, c.deltas, c.ec, c.desc, st)
	} else {
		fails = checkRefResult(res, c.ref, c.dirs, c.eps, c.deltas, c.ec, c.desc, st)
	}
	if c.real != nil {
		fails = append(fails, checkRealLower(res, c.real, c.eps, c.deltas, c.ec, st)...)
	}
	return fails
}

// checkResultBasics checks what every result must satisfy: a positive
// finite log factor and no NaN corner mass.
func checkResultBasics(res *Result, st *propStats) []string {
	var fails []string
	if res.s != nil {
		st.swapped++
	}
	if info := res.Info(); math.IsNaN(info.LogFactor) || math.IsInf(info.LogFactor, 0) || info.LogFactor <= 0 {
		fails = append(fails, fmt.Sprintf("log factor %v", info.LogFactor))
	}
	cs := res.Corners()
	for _, v := range []float64{cs.InfinityA, cs.InfinityB, cs.LowA, cs.LowB, cs.DistinguishingA, cs.DistinguishingB} {
		if math.IsNaN(v) {
			fails = append(fails, fmt.Sprintf("corner mass NaN: %+v", cs))
			break
		}
	}
	return fails
}

// deltaShapeFails checks what every delta bound must satisfy whatever the
// mechanism: an upper bound in [0, 1], with error correction a lower bound
// in [0, upper], without it NaN. ok is false when the bounds cannot be
// compared with a reference.
func deltaShapeFails(d DeltaBound, eps float64, ec bool) (fails []string, ok bool) {
	if math.IsNaN(d.Upper) || d.Upper < 0 || d.Upper > 1 {
		return []string{fmt.Sprintf("eps=%v: upper %v", eps, d.Upper)}, false
	}
	if ec && (math.IsNaN(d.Lower) || d.Lower < 0 || d.Lower > d.Upper) {
		return []string{fmt.Sprintf("eps=%v: lower %v (upper %v)", eps, d.Lower, d.Upper)}, false
	}
	if !ec && !math.IsNaN(d.Lower) {
		fails = append(fails, fmt.Sprintf("eps=%v: lower %v without error correction", eps, d.Lower))
	}
	return fails, true
}

// checkRefResult checks one result against an exact reference: every
// delta(eps) and eps(delta) query on the right side of it.
func checkRefResult(res *Result, ref refFn, dirs dirsFn, epsList, deltas []float64, ec bool, desc string, st *propStats) []string {
	fails := checkResultBasics(res, st)
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	for _, eps := range epsList {
		d := res.Delta(eps)
		fails = append(fails, checkDirBounds(d, eps, dirs, ec, st)...)
		ex, unc := ref(eps)
		tol := unc + 1e-12*(1+math.Abs(ex))
		if unc > 1e-3 {
			st.illConditioned++
			continue // the reference cannot decide (eps within ~1e-13 of an atom)
		}
		st.checks++
		shape, ok := deltaShapeFails(d, eps, ec)
		fails = append(fails, shape...)
		if !ok {
			continue
		}
		if !math.IsInf(ex, -1) {
			m := ln(d.Upper) - ex
			if m < -tol {
				fail("eps=%v: upper %.17g < exact %.17g (ln %v +- %.2g)", eps, d.Upper, math.Exp(ex), ex, unc)
			}
			if m < st.worstUp && d.Upper < 1 && unc < 1e-9 {
				st.worstUp, st.worstUpDesc = m, fmt.Sprintf("eps=%v upper %.6g exact %.6g: %s", eps, d.Upper, math.Exp(ex), desc)
			}
			if d.Upper == 1 && ex < ln(0.5) {
				st.trivialUp++
				if d.Note == "" {
					fail("eps=%v: trivial upper bound 1 (exact %.3g) without a note", eps, math.Exp(ex))
				}
			}
		}
		if ec && d.Lower > 0 {
			m := ex - ln(d.Lower)
			if math.IsInf(ex, -1) || m < -tol {
				fail("eps=%v: lower %.17g > exact %.17g (ln %v +- %.2g)", eps, d.Lower, math.Exp(ex), ex, unc)
			}
			if m < st.worstLo && unc < 1e-9 {
				st.worstLo, st.worstLoDesc = m, fmt.Sprintf("eps=%v lower %.6g exact %.6g: %s", eps, d.Lower, math.Exp(ex), desc)
			}
		}
	}
	for _, delta := range deltas {
		eb := res.Eps(delta)
		ex := refEps(ref, delta)
		ld := ln(delta)
		st.checks++
		if !epsUpperShape(eb, delta, fmt.Sprintf(" (exact %v)", ex), st, fail) {
			continue
		}
		if !math.IsInf(eb.Upper, 1) {
			// the mechanism must be (Upper, delta)-DP
			if lv, unc := ref(eb.Upper); lv > ld+unc+1e-12*(1+math.Abs(lv)) {
				fail("delta=%v: eps upper %.17g but exact delta there is %.17g", delta, eb.Upper, math.Exp(lv))
			}
			if eb.Upper < ex*(1-1e-9)-1e-9 {
				fail("delta=%v: eps upper %.17g < exact eps %.17g", delta, eb.Upper, ex)
			}
			if ex > 0 && !math.IsInf(ex, 1) {
				st.worstEpsUp = math.Min(st.worstEpsUp, (eb.Upper-ex)/ex)
			}
		}
		if !epsLowerShape(eb, ec, delta, fail) {
			continue
		}
		if eb.Lower > 0 {
			if math.IsInf(eb.Lower, 1) {
				if !math.IsInf(ex, 1) {
					fail("delta=%v: eps lower +Inf, exact eps %v", delta, ex)
				}
				continue
			}
			// not (eps, delta)-DP below Lower: the exact delta at Lower is
			// at least delta
			if lv, unc := ref(eb.Lower); lv < ld-unc-1e-12*(1+math.Abs(lv)) {
				fail("delta=%v: eps lower %.17g but exact delta there is only %.17g", delta, eb.Lower, math.Exp(lv))
			}
			if eb.Lower > ex*(1+1e-9)+1e-9 {
				fail("delta=%v: eps lower %.17g > exact eps %.17g", delta, eb.Lower, ex)
			}
			if ex > 0 && !math.IsInf(ex, 1) {
				st.worstEpsLo = math.Min(st.worstEpsLo, (ex-eb.Lower)/ex)
			}
		}
	}
	return fails
}

// TestSoundnessProperty runs the random cases (see soundCases).
func TestSoundnessProperty(t *testing.T) {
	t.Parallel()
	n := *soundCases
	if n == 0 {
		n = 300
		if testing.Short() {
			n = 60
		}
	}
	rng := rand.New(rand.NewPCG(*soundSeed, 0x50d))
	rngPairs := rand.New(rand.NewPCG(*soundSeed, 0x50e))
	st := newPropStats()
	start := time.Now()
	failed := 0
	failedKinds := map[string]int{}
	// the cases in order from the generators, then run concurrently
	cases := make([]propCase, n)
	for i := range cases {
		if i%4 == 3 || *soundPairs {
			cases[i] = genPairCase(rngPairs, *soundCases > 0)
		} else {
			cases[i] = genPropCase(rng, *soundCases > 0)
		}
	}
	type outcome struct {
		run   bool
		fails []string
		st    propStats
		dt    time.Duration
	}
	out := make([]outcome, n)
	runConcurrently(n, func(i int) {
		if *soundOnly >= 0 && i != *soundOnly {
			return
		}
		o := outcome{run: true, st: newPropStats()}
		t0 := time.Now()
		o.fails = checkPropCase(t, cases[i], &o.st)
		o.dt = time.Since(t0)
		out[i] = o
	})
	for i, o := range out {
		if !o.run {
			continue
		}
		c := cases[i]
		st.kinds[strings.Fields(c.desc)[0]]++
		st.merge(o.st)
		if o.dt > 5*time.Second {
			t.Logf("case %d took %v: %s", i, o.dt, c.desc)
		}
		if len(o.fails) > 0 {
			failed++
			failedKinds[strings.Fields(c.desc)[0]]++
			if failed <= *soundMaxFail {
				t.Errorf("case %d (%s):\n  %s", i, c.desc, strings.Join(o.fails, "\n  "))
			} else if failed == *soundMaxFail+1 {
				t.Errorf("more failing cases not shown (-sound.maxfail %d)", *soundMaxFail)
			}
		}
	}
	if failed > 0 {
		t.Logf("failed cases per kind: %v", failedKinds)
	}
	t.Logf("%d cases, %d checks (%d more skipped as ill-conditioned for the reference) in %v; trivial delta_up (exact < 0.5): %d, infinite eps_up: %d",
		n, st.checks, st.illConditioned, time.Since(start).Round(time.Millisecond), st.trivialUp, st.trivialEps)
	t.Logf("worst upper margin ln(upper/exact) = %.3g (%s)", st.worstUp, st.worstUpDesc)
	t.Logf("worst lower margin ln(exact/lower) = %.3g (%s)", st.worstLo, st.worstLoDesc)
	t.Logf("worst eps margins: (up - exact)/exact = %.3g, (exact - low)/exact = %.3g", st.worstEpsUp, st.worstEpsLo)
	t.Logf("%d results with a swapped grid list", st.swapped)
	t.Logf("bracket checks (sub*, trunc): %d, %d of them with a bracket narrower than 1e-3 (ln)", st.bracketChecks, st.bracketTight)
	t.Logf("closest upper to a bracket's lower end: ln(upper/low) = %.3g (%s)", st.bracketUp, st.bracketUpDesc)
	t.Logf("closest lower to a bracket's upper end: ln(high/lower) = %.3g (%s)", st.bracketLo, st.bracketLoDesc)
	t.Logf("cases per kind: %v; per-direction checks: %d; lower bounds against the real mechanism: %d", st.kinds, st.dirChecks, st.realChecks)
	if n >= 100 && st.swapped < n/20 {
		t.Errorf("only %d of %d cases composed a swapped grid list: the property test does not exercise it", st.swapped, n)
	}
}

// FuzzSoundness runs one case of TestSoundnessProperty per input, drawn
// from a generator seeded by it: `go test ./engine -run XXX -fuzz
// FuzzSoundness` explores the same space without end.
func FuzzSoundness(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(455), uint64(1365))
	f.Add(uint64(3), uint64(7)) // genPairCase
	f.Add(uint64(12), uint64(11))
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		rng := rand.New(rand.NewPCG(s1, s2))
		var c propCase
		if s2%4 == 3 {
			c = genPairCase(rng, false)
		} else {
			c = genPropCase(rng, false)
		}
		st := newPropStats()
		if fails := checkPropCase(t, c, &st); len(fails) > 0 {
			t.Errorf("%s:\n  %s", c.desc, strings.Join(fails, "\n  "))
		}
	})
}

// epsLowerShape checks the shape of an eps query's lower bound: NaN
// without error correction, else in [0, Upper]. It reports whether the
// bound is to be checked further (a number with error correction).
func epsLowerShape(eb EpsBound, ec bool, delta float64, fail func(string, ...any)) bool {
	if !ec {
		if !math.IsNaN(eb.Lower) {
			fail("delta=%v: eps lower %v without error correction", delta, eb.Lower)
		}
		return false
	}
	if math.IsNaN(eb.Lower) || eb.Lower < 0 || eb.Lower > eb.Upper {
		fail("delta=%v: eps lower %v (upper %v)", delta, eb.Lower, eb.Upper)
		return false
	}
	return true
}

// epsUpperShape checks the shape of an eps query's upper bound: a number
// >= 0, and +Inf only with a note (counted in st.trivialEps; what is
// appended to that failure's message). It reports whether the bound is to
// be checked further (false for NaN or a negative bound).
func epsUpperShape(eb EpsBound, delta float64, what string, st *propStats, fail func(string, ...any)) bool {
	if math.IsNaN(eb.Upper) || eb.Upper < 0 {
		fail("delta=%v: eps upper %v", delta, eb.Upper)
		return false
	}
	if math.IsInf(eb.Upper, 1) {
		st.trivialEps++
		if eb.Note == "" {
			fail("delta=%v: eps upper +Inf%s without a note", delta, what)
		}
	}
	return true
}
