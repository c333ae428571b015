package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// TestGuidedSearchVerifiedEnds runs guidedSearch on random non-increasing
// functions with guides good (the function times a slowly varying factor),
// shifted, noisy, non-monotone, NaN or zero: every bracket it reports
// found has verified ends and relative width at most 1e-12, whatever the
// guide; with a good guide it is found within guidedMaxEvals evaluations.
func TestGuidedSearchVerifiedEnds(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	found, good := 0, 0
	for trial := 0; trial < 4000; trial++ {
		a := math.Exp(4 * rng.Float64())
		b := rng.Float64() * 3
		kind := rng.IntN(3)
		f := func(e float64) float64 {
			switch kind {
			case 0: // Gaussian-like tail
				return 0.5 * math.Erfc((e/a+b)/math.Sqrt2)
			case 1: // exponential
				return math.Min(1, math.Exp(-a*e+b))
			default: // steps
				return math.Pow(0.5, math.Floor(e*a))
			}
		}
		gkind := rng.IntN(6)
		s := 1 + 0.5*rng.Float64()
		guide := func(e float64) float64 {
			switch gkind {
			case 0: // a slowly varying factor
				return f(e) * s * (1 + 0.01*math.Sin(e))
			case 1: // shifted
				return f(e * s)
			case 2: // noisy
				return f(e) * (1 + 0.01*rng.Float64())
			case 3: // not monotone
				return rng.Float64()
			case 4:
				return math.NaN()
			default:
				return 0
			}
		}
		delta := math.Pow(10, -1-12*rng.Float64())
		ok := func(v float64) bool { return v <= delta }
		eMax := 10.0
		if ok(f(0)) || !ok(f(eMax)) {
			continue
		}
		n := 0
		fc := func(e float64) float64 { n++; return f(e) }
		lo, hi, fnd := guidedSearch(fc, guide, ok, delta, eMax, nil)
		if n > guidedMaxEvals {
			t.Fatalf("trial %d: %d evaluations", trial, n)
		}
		if gkind == 0 && kind < 2 {
			good++
			if !fnd {
				t.Errorf("trial %d (kind %d, delta %g, a %g b %g s %g): no bracket with a good guide [%v %v]", trial, kind, delta, a, b, s, lo, hi)
			}
		}
		if !fnd {
			continue
		}
		found++
		if ok(f(lo)) || !ok(f(hi)) || !(hi > lo) || hi-lo > 1e-12*hi {
			t.Fatalf("trial %d (kind %d, guide %d): bracket [%v, %v] not verified or too wide (f %v, %v, delta %v)", trial, kind, gkind, lo, hi, f(lo), f(hi), delta)
		}
	}
	if good == 0 || found < good {
		t.Fatalf("%d brackets found, %d trials with a good guide", found, good)
	}
}

// epsEndsError returns why the bracket e of r at delta is not the verified
// one of an eps query ("" when it is): delta_up(Upper) <= delta and
// delta_low(Lower) > delta, each end within 2e-12 relative of an eps where
// its bound is on the other side (so the bracket is as narrow as the
// search's precision), evaluated by Result.Delta.
func epsEndsError(r *Result, delta float64, e EpsBound) string {
	if u := e.Upper; u > 0 && !math.IsInf(u, 1) {
		if d := r.Delta(u).Upper; !(d <= delta) {
			return fmt.Sprintf("delta_up(%v) = %v > delta", u, d)
		}
		if d := r.Delta(u * (1 - 2e-12)).Upper; !(d > delta) {
			return fmt.Sprintf("eps_up %v is not tight: delta_up(%v) = %v <= delta", u, u*(1-2e-12), d)
		}
	}
	if l := e.Lower; l > 0 && !math.IsInf(l, 1) {
		if d := r.Delta(l).Lower; !(d > delta) {
			return fmt.Sprintf("delta_low(%v) = %v <= delta", l, d)
		}
		if d := r.Delta(l * (1 + 2e-12)).Lower; d > delta {
			return fmt.Sprintf("eps_low %v is not tight: delta_low(%v) = %v > delta", l, l*(1+2e-12), d)
		}
	}
	return ""
}

// guidedRandomResult composes a random mechanism (subsampled Gauss, Gauss,
// Laplace, randomized response) at a random count, bucket count and path.
func guidedRandomResult(t *testing.T, rng *rand.Rand) (*Result, string) {
	var m Mechanism
	var err error
	switch rng.IntN(4) {
	case 0:
		m, err = SGD(0.6+3*rng.Float64(), math.Pow(10, -3+2*rng.Float64()))
	case 1:
		m, err = Gauss(1+30*rng.Float64(), 1, 0)
	case 2:
		m, err = Laplace(1+20*rng.Float64(), 1, 0)
	default:
		m, err = RandomizedResponse(0.55 + 0.3*rng.Float64())
	}
	if err != nil {
		t.Fatal(err)
	}
	r := 2 + rng.IntN(3000)
	opt := Options{Buckets: []int{4000, 8000, 16384}[rng.IntN(3)]}
	if rng.IntN(2) == 0 {
		opt.power = powerOn
	}
	res, err := Compose(context.Background(), m, r, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res, fmt.Sprintf("%s r=%d buckets=%d power=%v", m, r, opt.Buckets, opt.power)
}

// TestEpsGuidedVerifiedNotWider checks Eps on random results at random
// deltas: its ends are verified and tight (epsEndsError), and its bracket
// is no wider than the unguided search's (Upper at most, Lower at least
// theirs, to 1e-12 relative). A mutant end, Upper lowered or Lower raised
// by 4e-12 relative, must fail epsEndsError (so the check can fail).
func TestEpsGuidedVerifiedNotWider(t *testing.T) {
	if testing.Short() {
		t.Skip("composes 24 results")
	}
	rng := rand.New(rand.NewPCG(24, 11))
	guided, mutants := 0, 0
	for c := 0; c < 24; c++ {
		res, name := guidedRandomResult(t, rng)
		if res.epsGuide() != nil {
			guided++
		}
		for k := 0; k < 3; k++ {
			delta := math.Pow(10, -2-9*rng.Float64())
			e := res.Eps(delta)
			if msg := epsEndsError(res, delta, e); msg != "" {
				t.Errorf("%s delta %g: %s", name, delta, msg)
			}
			up, _ := res.epsUpperGuided(delta, nil, nil)
			lo, _ := res.epsLowerGuided(delta, nil, false)
			if e.Upper > up*(1+1e-12) {
				t.Errorf("%s delta %g: eps_up %v above the unguided %v", name, delta, e.Upper, up)
			}
			if e.Lower < lo*(1-1e-12) {
				t.Errorf("%s delta %g: eps_low %v below the unguided %v", name, delta, e.Lower, lo)
			}
			if u := e.Upper; u > 0 && !math.IsInf(u, 1) {
				mutants++
				if epsEndsError(res, delta, EpsBound{Upper: u * (1 - 4e-12), Lower: e.Lower}) == "" {
					t.Errorf("%s delta %g: the unverified eps_up %v passes", name, delta, u*(1-4e-12))
				}
			}
			if l := e.Lower; l > 0 && !math.IsInf(l, 1) {
				mutants++
				if epsEndsError(res, delta, EpsBound{Upper: e.Upper, Lower: l * (1 + 4e-12)}) == "" {
					t.Errorf("%s delta %g: the unverified eps_low %v passes", name, delta, l*(1+4e-12))
				}
			}
		}
	}
	if guided == 0 || mutants == 0 {
		t.Fatalf("%d results with a guide, %d mutants", guided, mutants)
	}
}

// TestEpsGuidedBracketsRows compares Eps with the unguided search on the
// peers' eps rows (BenchmarkPeers, 100,000 buckets, and the power path at
// 131,072) and the 30 cells of scripts/bench/sweep30.toml (default
// options): the guided bracket must be the same or narrower (1e-12
// relative). It composes about 40 results: set PB_ROWS=1 to run it.
func TestEpsGuidedBracketsRows(t *testing.T) {
	if os.Getenv("PB_ROWS") == "" {
		t.Skip("set PB_ROWS=1 (composes about 40 results)")
	}
	type cell struct {
		name  string
		mech  func() (Mechanism, error)
		r     int
		delta float64
		opt   Options
	}
	var cells []cell
	for _, row := range peersRows {
		if row.delta > 0 {
			cells = append(cells, cell{row.name + "/100000", row.mech, row.r, row.delta, Options{Buckets: 100000}})
			if row.name != "vuvuzela" {
				cells = append(cells, cell{row.name + "/power131072", row.mech, row.r, row.delta, Options{Buckets: 131072, power: powerOn}})
			}
		}
	}
	for _, sigma := range []float64{0.6, 0.8, 1.0, 1.2, 1.5} {
		for _, q := range []float64{0.001, 0.004, 0.016} {
			for _, r := range []int{10000, 100000} {
				cells = append(cells, cell{fmt.Sprintf("sweep/%g/%g/%d", sigma, q, r), func() (Mechanism, error) { return SGD(sigma, q) }, r, 1e-5, Options{}})
			}
		}
	}
	for _, c := range cells {
		m, err := c.mech()
		if err != nil {
			t.Fatal(err)
		}
		res, err := Compose(context.Background(), m, c.r, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		var mg, mu deltaMemo
		upG, _ := res.epsUpperGuided(c.delta, &mg, res.epsGuide())
		loG, _ := res.epsLowerGuided(c.delta, &mg, true)
		upU, _ := res.epsUpperGuided(c.delta, &mu, nil)
		loU, _ := res.epsLowerGuided(c.delta, &mu, false)
		t.Logf("%s: guided [%.15g, %.15g] %d evaluations, unguided [%.15g, %.15g] %d", c.name, loG, upG, len(mg.eps), loU, upU, len(mu.eps))
		if upG > upU*(1+1e-12) || loG < loU*(1-1e-12) {
			t.Errorf("%s: guided bracket [%v, %v] wider than the unguided [%v, %v]", c.name, loG, upG, loU, upU)
		}
		if msg := epsEndsError(res, c.delta, EpsBound{Upper: upG, Lower: loG}); msg != "" {
			t.Errorf("%s: %s", c.name, msg)
		}
	}
}
