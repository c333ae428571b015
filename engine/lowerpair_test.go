package engine

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// pairStatus is how a mechanism's pair relates to the mechanism
// (lowerpair.go).
type pairStatus int

const (
	statusExact      pairStatus = iota // the pair is the mechanism's
	statusAttained                     // dominating, and reached by an instance
	statusLowerRate                    // attained at a rate the engine does not know exactly: lower bounds of the own pair at the float below q (rateSlacked)
	statusDominating                   // dominating only: lower pair a worst-case instance
	statusNoLower                      // dominating only, no lower pair known
)

func (s pairStatus) String() string {
	return [...]string{"exact", "attained", "attained at b/n (own pair at q', rate slack)", "dominating only", "no lower pair"}[s]
}

// pairStatusCases lists every pair the engine builds with its status and
// the argument behind it (lowerpair.go, subsampled.go).
func pairStatusCases(t *testing.T) []struct {
	name   string
	m      Mechanism
	status pairStatus
	why    string
} {
	must := func(m Mechanism, err error) Mechanism {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	q, m := 0.05, 0.5
	return []struct {
		name   string
		m      Mechanism
		status pairStatus
		why    string
	}{
		{"gauss", must(Gauss(2, 1, 0)), statusExact, "output plus noise on neighbours at distance sensitivity; r-fold: one pair at mu sqrt(r), leaves at mu rounded up and down"},
		{"gauss truncated", must(Gauss(2, 1, 5)), statusExact, "the truncated noise's pair"},
		{"laplace", must(Laplace(2, 1, 0)), statusExact, "output plus noise"},
		{"laplace truncated", must(Laplace(2, 1, 3)), statusExact, "the truncated noise's pair"},
		{"randomized response", must(RandomizedResponse(0.75)), statusExact, "the pair is the mechanism"},
		{"histogram", must(Histogram([]float64{0.5, 0.3, 0.2}, []float64{0.2, 0.3, 0.5})), statusExact, "the pair is the mechanism"},
		{"eps_delta", must(EpsDelta(1, 1e-3)), statusExact, "M_{eps,delta} is itself an (eps, delta)-DP mechanism (Kairouz et al. 2015)"},
		{"vuvuzela dialing", must(VuvuzelaDialing(NoiseLaplace, 20, 4)), statusExact, "the counts' pair of the model"},
		{"vuvuzela conversation", must(VuvuzelaConversation(NoiseLaplace, 20, 4)), statusExact, "the counts' pair of the model"},
		{"sgd", must(SGD(1/m, q)), statusAttained, "R(q, m): others 0, z contributes m"},
		{"gauss poisson add_remove", must(SubsampledGauss(2, 1, q, Poisson, AddRemove)), statusAttained, "R(q, m): others 0, z contributes m"},
		{"gauss poisson replace_one", must(SubsampledGauss(2, 1, q, Poisson, ReplaceOne)), statusAttained, "P(q, m): replaced record -m, replacement +m"},
		{"gauss fixed_size add_remove", must(SubsampledGauss(2, 1, q, FixedSize, AddRemove)), statusLowerRate, "R(b/n, 2m): others -m, z +m; q may exceed b/n by an ulp"},
		{"gauss fixed_size replace_one", must(SubsampledGauss(2, 1, q, FixedSize, ReplaceOne)), statusDominating, "S(q, 2m) dominates; lower pair R(q', 2m): others -m, y = -m replaced by z = +m"},
		{"gauss fixed_size add_remove q=1", must(SubsampledGauss(2, 1, 1, FixedSize, AddRemove)), statusNoLower, "b = n: no instance at a known rate"},
		{"laplace poisson add_remove", must(SubsampledLaplace(2, 1, q, Poisson, AddRemove)), statusAttained, "R(q, m): others 0, z contributes m"},
		{"laplace poisson replace_one", must(SubsampledLaplace(2, 1, q, Poisson, ReplaceOne)), statusDominating, "S(q, 2m) dominates; lower pair P(q, m), the antipodal instance"},
		{"laplace fixed_size add_remove", must(SubsampledLaplace(2, 1, q, FixedSize, AddRemove)), statusLowerRate, "R(b/n, 2m): others -m, z +m; q may exceed b/n by an ulp"},
		{"laplace fixed_size replace_one", must(SubsampledLaplace(2, 1, q, FixedSize, ReplaceOne)), statusDominating, "S(q, 2m) dominates; lower pair R(q', 2m)"},
		{"laplace fixed_size add_remove q=1", must(SubsampledLaplace(2, 1, 1, FixedSize, AddRemove)), statusNoLower, "b = n: no instance at a known rate"},
	}
}

// TestPairStatus lists every pair kind with its status and checks that the
// lower bounds a Result reports are those of the right pair: the
// mechanism's own for exact and attained pairs, the lower pair's (never
// the dominating pair's) where the pair only dominates, absent (0, with a
// note) where no lower pair is known. Each query that reports a lower
// bound is compared: Delta (and its directions), Eps, Renyi.
func TestPairStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opt := Options{Buckets: 4000}
	epsList := []float64{0, 0.01, 0.05, 0.1, 0.3, 1}
	for _, c := range pairStatusCases(t) {
		t.Run(c.name, func(t *testing.T) {
			low, distinct, reason := lowerOf(c.m)
			switch c.status {
			case statusExact, statusAttained:
				if distinct {
					t.Fatalf("%s (%s): has a distinct lower pair %v", c.status, c.why, low)
				}
			case statusLowerRate:
				if a, cc := slackOf(c.m); distinct || !(a > 0 && cc > 0) {
					t.Fatalf("%s (%s): distinct %v, slack %v, %v", c.status, c.why, distinct, a, cc)
				}
			case statusDominating:
				if !distinct || low == nil {
					t.Fatalf("%s (%s): lower pair %v, distinct %v", c.status, c.why, low, distinct)
				}
			case statusNoLower:
				if !distinct || low != nil || reason == "" {
					t.Fatalf("%s: lower pair %v, distinct %v, reason %q", c.status, low, distinct, reason)
				}
			}
			for _, r := range []int{1, 3} {
				res, err := Compose(ctx, c.m, r, opt)
				if err != nil {
					t.Fatal(err)
				}
				own, err := composeManyPlain(ctx, c.m, []int{r}, opt)
				if err != nil {
					t.Fatal(err)
				}
				want := own[0] // the source of the lower bounds
				if low != nil {
					lr, err := composeManyPlain(ctx, low, []int{r}, lowerOptions(opt, low))
					if err != nil {
						t.Fatal(err)
					}
					want = lr[0]
				}
				// an untruncated Gauss pair is composed in closed form: its
				// upper bounds are those of one leaf at mu rounded up, its
				// lower bounds those of the leaf at mu rounded down
				lowerSearch := low != nil
				if up, down, ok := gaussClosedSources(t, c.m, r, opt); ok {
					own[0], want = up, down
					lowerSearch = up != down
				}
				borrowedAbove, slackSeen := false, false
				for _, eps := range epsList {
					d, w, o := res.Delta(eps), want.Delta(eps), own[0].Delta(eps)
					if c.status == statusNoLower {
						if d.Lower != 0 || d.LowerAB != 0 || d.LowerBA != 0 {
							t.Errorf("r=%d eps=%v: lower %v (%v, %v) without a lower pair", r, eps, d.Lower, d.LowerAB, d.LowerBA)
						}
					} else if c.status == statusLowerRate {
						// the own pair's bounds at the float below q: the
						// own pair's at a slightly larger eps (not above them
						// beyond rounding), within 1e-9 of them here
						tol := 1 + 1e-12
						if d.LowerAB > w.LowerAB*tol || d.LowerBA > w.LowerBA*tol || d.Lower < w.Lower*(1-1e-9) {
							t.Errorf("r=%d eps=%v: lower %v (%v, %v), want just below the own pair's %v (%v, %v)", r, eps, d.Lower, d.LowerAB, d.LowerBA, w.Lower, w.LowerAB, w.LowerBA)
						}
						if d.LowerAB < w.LowerAB {
							slackSeen = true
						}
					} else if d.Lower != w.Lower || d.LowerAB != w.LowerAB || d.LowerBA != w.LowerBA {
						t.Errorf("r=%d eps=%v: lower %v (%v, %v), want the lower pair's %v (%v, %v)", r, eps, d.Lower, d.LowerAB, d.LowerBA, w.Lower, w.LowerAB, w.LowerBA)
					}
					if d.Upper != o.Upper || d.UpperAB != o.UpperAB || d.UpperBA != o.UpperBA {
						t.Errorf("r=%d eps=%v: upper %v, want the pair's own %v", r, eps, d.Upper, o.Upper)
					}
					if o.Lower > d.Lower*(1+1e-6)+1e-300 {
						borrowedAbove = true
					}
				}
				if c.status == statusLowerRate && !slackSeen {
					t.Errorf("r=%d: the rate slack never lowered delta_low(A||B)", r)
				}
				// (one step of S(q, 2m) has the delta of R(q, 2m) for eps >= 0:
				// fixed-size replace-one differs from r = 2 on)
				if c.status == statusDominating && r > 1 && !borrowedAbove {
					t.Errorf("r=%d: the dominating pair's own lower bounds never exceed the reported ones: the case does not show that they are not borrowed", r)
				}
				for _, delta := range []float64{1e-2, 1e-5} {
					e, w := res.Eps(delta), want.Eps(delta)
					if lowerSearch {
						// the lower pair's own search (Eps shares the
						// upper search's evaluations, which a lower pair
						// does not have)
						w.Lower = want.EpsLower(delta)
					}
					if c.status == statusNoLower {
						if e.Lower != 0 || !strings.Contains(e.Note, "no lower bound") {
							t.Errorf("r=%d delta=%v: eps lower %v (note %q) without a lower pair", r, delta, e.Lower, e.Note)
						}
					} else if c.status == statusLowerRate {
						if e.Lower > w.Lower*(1+2e-12) || e.Lower < w.Lower*(1-1e-9) {
							t.Errorf("r=%d delta=%v: eps lower %v, want just below the own pair's %v", r, delta, e.Lower, w.Lower)
						}
					} else if e.Lower != w.Lower {
						t.Errorf("r=%d delta=%v: eps lower %v, want the lower pair's %v", r, delta, e.Lower, w.Lower)
					}
					if ou := own[0].EpsUpper(delta); e.Upper != ou {
						t.Errorf("r=%d delta=%v: eps upper %v, want the pair's own %v", r, delta, e.Upper, ou)
					}
				}
				for _, a := range []float64{2, 8} {
					lo, up := res.Renyi(a)
					wl, _ := want.Renyi(a)
					_, ou := own[0].Renyi(a)
					if c.status == statusNoLower {
						wl = 0
					}
					if c.status == statusLowerRate && lo <= wl && lo >= wl-1e-12 {
						wl = lo
					}
					if lo != wl || up != ou {
						t.Errorf("r=%d alpha=%v: Renyi [%v, %v], want lower %v, upper %v", r, a, lo, up, wl, ou)
					}
				}
				if c.status == statusNoLower && !strings.Contains(strings.Join(res.Notes(), "\n"), "no lower bound") {
					t.Errorf("r=%d: no note on the absent lower bound: %q", r, res.Notes())
				}
				// the cached form carries the lower pair
				data, err := res.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				var back Result
				if err := back.UnmarshalBinary(data); err != nil {
					t.Fatal(err)
				}
				for _, eps := range epsList {
					if d, b := res.Delta(eps), back.Delta(eps); d != b {
						t.Errorf("r=%d eps=%v: decoded %+v, want %+v", r, eps, b, d)
					}
				}
				if e, b := res.Eps(1e-5), back.Eps(1e-5); e != b {
					t.Errorf("r=%d: decoded eps %+v, want %+v", r, b, e)
				}
			}
		})
	}
}

// TestLowerPairSequence checks a sequence's lower pair: the parts' lower
// pairs (their own where attained) composed in order, and absent lower
// bounds when one part has none.
func TestLowerPairSequence(t *testing.T) {
	ctx := context.Background()
	opt := Options{Buckets: 4000}
	lap, _ := SubsampledLaplace(2, 1, 0.05, Poisson, ReplaceOne)
	gs, _ := Gauss(3, 1, 0)
	fs, _ := SubsampledGauss(2, 1, 0.05, FixedSize, ReplaceOne)
	parts := []Part{{lap, 2}, {gs, 1}, {fs, 3}}
	res, err := ComposeSequence(ctx, parts, opt)
	if err != nil {
		t.Fatal(err)
	}
	ll, _, _ := lowerOf(lap)
	lf, _, _ := lowerOf(fs)
	want, err := composeSequencePlain(ctx, []Part{{ll, 2}, {gs, 1}, {lf, 3}}, lowerOptions(opt, ll, nil, lf))
	if err != nil {
		t.Fatal(err)
	}
	own, err := composeSequencePlain(ctx, parts, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{0, 0.1, 0.5, 1, 2} {
		d, w, o := res.Delta(eps), want.Delta(eps), own.Delta(eps)
		if d.Lower != w.Lower || d.Upper != o.Upper {
			t.Errorf("eps=%v: [%v, %v], want lower %v (lower pairs), upper %v (own)", eps, d.Lower, d.Upper, w.Lower, o.Upper)
		}
	}
	if got := res.Info().LowerMechanisms; len(got) != 3 || !strings.Contains(got[0], "lower pair") {
		t.Errorf("LowerMechanisms %q", got)
	}
	none, _ := SubsampledGauss(2, 1, 1, FixedSize, AddRemove)
	res, err = ComposeSequence(ctx, []Part{{gs, 2}, {none, 1}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Delta(0.1); d.Lower != 0 || !(d.Upper > 0) {
		t.Errorf("sequence with a part without a lower pair: [%v, %v], want lower 0", d.Lower, d.Upper)
	}
	if e := res.Eps(1e-5); e.Lower != 0 || !strings.Contains(e.Note, "no lower bound") {
		t.Errorf("eps %+v: want lower 0 with a note", e)
	}
}

// TestLowerPairProgress checks that Options.Progress counts the lower
// pair's composition too, monotonically, ending at its total.
func TestLowerPairProgress(t *testing.T) {
	m, _ := SubsampledLaplace(2, 1, 0.05, Poisson, ReplaceOne)
	var last, lastTotal, calls int
	opt := Options{Buckets: 4000, Progress: func(done, total int) {
		if done < last || done > total {
			t.Errorf("progress %d/%d after %d", done, total, last)
		}
		last, lastTotal = done, total
		calls++
	}}
	if _, err := ComposeMany(context.Background(), m, []int{5, 12}, opt); err != nil {
		t.Fatal(err)
	}
	// the pair's two list chains and the Laplace lower pair's one (the
	// grouped list, lowerOptions), each: squarings to 8 (3) and one
	// composition per further bit (5 = 4+1: 1, 12 = 8+4: 1)
	if want := (2 + 1) * (3 + 2); calls != want || last != lastTotal {
		t.Errorf("%d progress calls ending at %d/%d, want %d ending at the total", calls, last, lastTotal, want)
	}
}

// TestLowerBoundsNotBorrowed checks that lower bounds are never borrowed
// from a pair that only dominates the mechanism: Poisson-subsampled
// Laplace under replace-one (scale 2, sensitivity 1, q 0.05) and the
// calibrations built on them. The engine's pair S(q, 2m) only dominates
// the mechanism, whose every privacy loss is at most eps0 =
// ln((1-q+q e^m)/(1-q+q e^-m)) = 0.05179 (m = 1/2); r-fold randomized
// response with that eps0 bounds r steps from above (soundness_lower_test.go).
// Before lower pairs, the engine reported delta(0.06) in [0.0046445,
// 0.0046445] at r = 1 (exact: 0), eps_low(1e-5) = 0.08237 at r = 1 and
// 8.3486 at r = 1000 (the reference: 7.82), and delta_low(3) = 1.02e-5 at
// scale 4.542 and r = 1000 (the reference: 5.77e-6, so calibrate's
// "insufficient" was false).
func TestLowerBoundsNotBorrowed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const q = 0.05
	ref := func(scale float64, r int) *realRef {
		return newRealRef(subInfo{lap: true, s: Poisson, rel: ReplaceOne, q: q, m: 1 / scale}, r)
	}
	mech := func(scale float64) Mechanism {
		m, err := SubsampledLaplace(scale, 1, q, Poisson, ReplaceOne)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	eps0 := ref(2, 1).eps0
	if math.Abs(eps0-0.0517907) > 1e-6 {
		t.Fatalf("largest loss %v, want 0.0517907", eps0)
	}
	res, err := ComposeMany(ctx, mech(2), []int{1, 1000}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := res[0].Delta(0.06); d.Lower != 0 || !(d.Upper >= 0.0046445) {
		t.Errorf("r=1: delta(0.06) in [%v, %v], want lower 0 (every loss is below %v)", d.Lower, d.Upper, eps0)
	}
	if e := res[0].Eps(1e-5); !(e.Lower <= eps0 && e.Lower > 0.05) || !(e.Upper >= 0.0823) {
		t.Errorf("r=1: eps(1e-5) in [%v, %v], want lower in (0.05, %v]", e.Lower, e.Upper, eps0)
	}
	// the certified TPR of a test at FPR a of an eps0-DP mechanism is at
	// most min(e^eps0 a, 1 - e^-eps0 (1-a)) (its trade-off function)
	for _, a := range []float64{0.01, 0.1, 0.5} {
		if tb, lim := res[0].TPR(a), math.Min(math.Exp(eps0)*a, 1-math.Exp(-eps0)*(1-a)); !(tb.Lower <= lim) {
			t.Errorf("r=1: TPR(%v) lower %v above %v, the largest TPR of an eps0-DP mechanism", a, tb.Lower, lim)
		}
	}
	up := ref(2, 1000).epsUpper(1e-5)
	if e := res[1].Eps(1e-5); !(e.Lower <= up && e.Lower > 6) || !(e.Upper >= 8.3486) {
		t.Errorf("r=1000: eps(1e-5) in [%v, %v], want lower in (6, %v]", e.Lower, e.Upper, up)
	}
	// calibrate, r = 1, eps 0.06, delta 1e-5: every scale above 1.7452 is
	// sufficient (its largest loss is below 0.06), so none may be proved
	// insufficient
	for _, scale := range []float64{1.75, 2, 2.48} {
		if l := ref(scale, 1).eps0; !(l < 0.06) {
			t.Fatalf("scale %v: largest loss %v", scale, l)
		}
		r1, err := Compose(ctx, mech(scale), 1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := r1.Delta(0.06); d.Lower != 0 {
			t.Errorf("scale %v r=1: delta_low(0.06) = %v, want 0", scale, d.Lower)
		}
	}
	// calibrate, r = 1000, eps 3: scale 4.542 is not insufficient
	rref := ref(4.542, 1000)
	bound := math.Exp(rref.lnDeltaUpper(3))
	if !(bound < 1e-5) {
		t.Fatalf("reference delta(3) = %v", bound)
	}
	r1000, err := Compose(ctx, mech(4.542), 1000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := r1000.Delta(3); !(d.Lower <= bound) || !(d.Upper >= d.Lower) {
		t.Errorf("scale 4.542 r=1000: delta(3) in [%v, %v], want lower <= %v", d.Lower, d.Upper, bound)
	}
}

// TestLaplaceAntipodalOneStep checks the embedding of the antipodal
// Laplace pair (the lower pair of Poisson replace-one Laplace) against its
// reference (rpLapAntipodal): the lower pair's composition brackets the
// exact one-step delta, tightly.
func TestLaplaceAntipodalOneStep(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ scale, q float64 }{{2, 0.05}, {0.3, 0.2}, {5, 1}, {0.05, 1e-3}} {
		m, _ := SubsampledLaplace(c.scale, 1, c.q, Poisson, ReplaceOne)
		low, _, _ := lowerOf(m)
		res, err := composeManyPlain(ctx, low, []int{1}, Options{Buckets: 20000})
		if err != nil {
			t.Fatal(err)
		}
		ref := rpRef1(rpLapAntipodal(c.q, 1/c.scale))
		for _, eps := range []float64{0, 0.01, 0.1, 1, 3} {
			v, unc := ref(eps)
			d := res[0].Delta(eps)
			ex := math.Exp(v)
			if math.IsInf(v, -1) {
				if d.Lower != 0 {
					t.Errorf("%+v eps=%v: lower %v, exact 0", c, eps, d.Lower)
				}
				continue
			}
			if d.Lower > ex*(1+unc+1e-12) || d.Upper < ex*(1-unc-1e-12) {
				t.Errorf("%+v eps=%v: [%v, %v] misses the exact %v", c, eps, d.Lower, d.Upper, ex)
			}
			if d.Lower < ex*(1-1e-2) {
				t.Errorf("%+v eps=%v: lower %v far below the exact %v", c, eps, d.Lower, ex)
			}
		}
	}
}

// TestRateSlackBounds checks lowerSlack's per-step bounds (fixed-size
// add/remove, lowerpair.go's rateSlacked): with q' the float below q, the
// A-side of R(q', 2m) lies within [e^-lnA, e^lnC] times R(q, 2m)'s at
// every point, and lnA, lnC bound ln(q/q') and ln((1-q')/(1-q)) from
// above (in big.Float arithmetic).
func TestRateSlackBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 2))
	for i := 0; i < 2000; i++ {
		q := math.Pow(10, -12*rng.Float64())
		if i%5 == 0 {
			q = 1 - math.Pow(2, -1-52*rng.Float64())
		}
		if i%7 == 0 {
			q, _ = FixedSizeRate(1+rng.IntN(1000), 1001+rng.IntN(1e6))
		}
		if q >= 1 {
			continue
		}
		mm, err := SubsampledGauss(1+rng.Float64(), 1, q, FixedSize, AddRemove)
		if err != nil {
			t.Fatal(err)
		}
		lnA, lnC := slackOf(mm)
		ql := math.Nextafter(q, 0)
		// ln(q/q') = log1p((q-q')/q') <= (q-q')/q' and ln((1-q')/(1-q)) =
		// log1p((q-q')/(1-q)) <= (q-q')/(1-q), exactly (big.Float), then
		// rounded up to float64
		bq, bql := new(big.Float).SetPrec(200).SetFloat64(q), new(big.Float).SetPrec(200).SetFloat64(ql)
		dq := new(big.Float).Sub(bq, bql)
		one := new(big.Float).SetPrec(200).SetFloat64(1)
		up := func(x *big.Float) float64 {
			v, acc := x.Float64()
			if acc == big.Below {
				v = math.Nextafter(v, math.Inf(1))
			}
			return v
		}
		ratioA1 := up(new(big.Float).Quo(dq, bql))
		ratioC1 := up(new(big.Float).Quo(dq, new(big.Float).Sub(one, bq)))
		if !(lnA >= ratioA1) || !(lnC >= ratioC1) {
			t.Fatalf("q=%v: slack %v, %v below the bounds on the ratios' logs %v, %v", q, lnA, lnC, ratioA1, ratioC1)
		}
		if lnA > 1.01*ratioA1 || lnC > 1.01*ratioC1 {
			t.Fatalf("q=%v: slack %v, %v far above the ratios' logs %v, %v", q, lnA, lnC, ratioA1, ratioC1)
		}
		// pointwise: (1-q') f + q' f_2m within [e^-lnA, e^lnC] of (1-q) f + q f_2m
		for k := 0; k < 5; k++ {
			x := rng.NormFloat64() * 3 // ln(f_2m/f) at some t
			aq := (1 - q) + q*math.Exp(x)
			aql := (1 - ql) + ql*math.Exp(x)
			if r := aql / aq; r < math.Exp(-lnA)*(1-4e-16) || r > math.Exp(lnC)*(1+4e-16) {
				t.Fatalf("q=%v x=%v: ratio %v outside [%v, %v]", q, x, r, math.Exp(-lnA), math.Exp(lnC))
			}
		}
	}
	for _, m := range []func() (Mechanism, error){
		func() (Mechanism, error) { return SubsampledGauss(1, 1, 0.1, FixedSize, ReplaceOne) },
		func() (Mechanism, error) { return SubsampledGauss(1, 1, 0.1, Poisson, AddRemove) },
		func() (Mechanism, error) { return SubsampledLaplace(1, 1, 1, FixedSize, AddRemove) },
	} {
		mm, _ := m()
		if a, c := slackOf(mm); a != 0 || c != 0 {
			t.Errorf("%v: slack %v, %v, want none", mm, a, c)
		}
	}
}
