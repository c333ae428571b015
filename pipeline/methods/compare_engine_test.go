package methods

import (
	"context"
	"math"
	"testing"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

// engineKOV returns KOV and Advanced fed with the single-round curve that
// backend.Engine computes for spec (even where a closed form exists).
func engineKOV(t *testing.T, spec manifest.MechanismSpec, r int) (*compare.KOVCurve, *compare.AdvancedCurve) {
	t.Helper()
	c := &singleRoundCache{states: &states.Service{Backend: backend.Engine{}}}
	d0, grid, _, err := c.fromBackend(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	kov, err := compare.KOV(d0, r, compare.KOVOptions{Eps0: grid})
	if err != nil {
		t.Fatal(err)
	}
	adv, err := compare.Advanced(d0, r, compare.AdvancedOptions{Eps0: grid})
	if err != nil {
		t.Fatal(err)
	}
	return kov, adv
}

// TestEngineFedKOVRandomizedResponse: for randomized response, KOV fed with
// the engine's single-round delta_up agrees with KOV fed with the closed
// form, which is exact at eps = (r - 2i) eps0. The engine-fed bound must
// never be below the exact delta and may exceed it only by the engine's
// r = 1 accuracy: its eps0 is at most one bucket width above the true one.
func TestEngineFedKOVRandomizedResponse(t *testing.T) {
	const p = 0.55
	eps0 := math.Log(p / (1 - p))
	spec := manifest.MechanismSpec{Kind: manifest.KindRandomizedResponse, Params: map[string]float64{"p": p}, Engine: manifest.EngineOptions{Buckets: 2000, ErrorCorrection: true}}
	d0, err := compare.RRDelta0(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []int{1, 7, 64, 512} {
		closed, err := compare.KOV(d0, r, compare.KOVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		exact, err := compare.ExactRR(p, r)
		if err != nil {
			t.Fatal(err)
		}
		kov, adv := engineKOV(t, spec, r)
		worst := 0.0
		for i := 0; i <= r/2 && i <= 40; i++ {
			eps := float64(r-2*i) * eps0
			want, got := closed.Delta(eps), kov.Delta(eps)
			if ex := exact.Delta(eps); math.Abs(want-ex) > 1e-9*ex+1e-15 {
				t.Fatalf("r=%d eps=%v: closed-form KOV %v, exact %v", r, eps, want, ex)
			}
			if got < want*(1-1e-12)-1e-15 {
				t.Errorf("r=%d eps=%v: engine-fed KOV %v below the exact delta %v (unsound)", r, eps, got, want)
			}
			if a := adv.Delta(eps); a < want*(1-1e-12)-1e-15 {
				t.Errorf("r=%d eps=%v: engine-fed advanced %v below the exact delta %v (unsound)", r, eps, a, want)
			}
			// Shifting eps by r bucket widths (2000 buckets: ln f < 3e-4)
			// absorbs the engine's eps0 offset; what remains is the
			// engine's delta error, r times 1e-13 at most.
			shifted := kov.Delta(eps * (1 + 3e-4/eps0))
			if shifted > want+float64(r)*1e-12 {
				t.Errorf("r=%d eps=%v: engine-fed KOV %v (at eps + r ln f), closed form %v", r, eps, shifted, want)
			}
			worst = math.Max(worst, math.Abs(shifted-want))
		}
		worstEps := 0.0
		for _, delta := range []float64{1e-2, 1e-4, 1e-8} {
			want, got := closed.Eps(delta), kov.Eps(delta)
			worstEps = math.Max(worstEps, got/want-1)
			if got < want*(1-1e-12) || got > want*(1+1.5e-3) {
				t.Errorf("r=%d delta=%v: engine-fed KOV eps %v, closed form %v", r, delta, got, want)
			}
		}
		t.Logf("r=%d: |engine-fed KOV at eps (1 + 3e-4/eps0) - exact at eps| <= %.3g for eps = (r-2i) eps0, i <= 40; eps(delta) at most %.3g relative above", r, worst, worstEps)
	}
}

// bruteForceDelta returns the tight delta(eps) (max over both directions)
// of the r-fold product of the histogram pair (a, b), by enumerating every
// outcome sequence.
func bruteForceDelta(a, b []float64, r int, eps float64) float64 {
	var ab, ba float64
	idx := make([]int, r)
	for {
		pa, pb := 1.0, 1.0
		for _, k := range idx {
			pa *= a[k]
			pb *= b[k]
		}
		ab += math.Max(0, pa-math.Exp(eps)*pb)
		ba += math.Max(0, pb-math.Exp(eps)*pa)
		k := 0
		for k < r {
			idx[k]++
			if idx[k] < len(a) {
				break
			}
			idx[k] = 0
			k++
		}
		if k == r {
			return math.Max(ab, ba)
		}
	}
}

// TestEngineFedKOVHistogramBruteForce: for a histogram pair with a
// distinguishing event, engine-fed KOV and advanced composition are sound
// (>= the exact r-fold delta by enumeration), and at r = 1 KOV reproduces
// the exact single-round curve up to the eps0 grid.
func TestEngineFedKOVHistogramBruteForce(t *testing.T) {
	a := []float64{0.45, 0.3, 0.2, 0.05, 0}
	b := []float64{0.3, 0.3, 0.25, 0.1, 0.05}
	spec := manifest.MechanismSpec{Kind: manifest.KindHistogram, A: a, B: b, Engine: manifest.EngineOptions{Buckets: 2000, ErrorCorrection: true}}
	eps := []float64{0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.41, 0.5, 0.7, 1, 1.5, 2, 3, 5}
	for _, r := range []int{1, 2, 3, 4, 6} {
		kov, adv := engineKOV(t, spec, r)
		for _, e := range eps {
			ex := bruteForceDelta(a, b, r, e)
			k, ad := kov.Delta(e), adv.Delta(e)
			if k < ex*(1-1e-12) {
				t.Errorf("r=%d eps=%v: engine-fed KOV %v below the exact delta %v", r, e, k, ex)
			}
			if ad < ex*(1-1e-12) {
				t.Errorf("r=%d eps=%v: engine-fed advanced %v below the exact delta %v", r, e, ad, ex)
			}
			if r == 1 && k > bruteForceDelta(a, b, 1, e/1.02)+1e-12 {
				t.Errorf("r=1 eps=%v: engine-fed KOV %v, exact single round %v at eps/1.02", e, k, bruteForceDelta(a, b, 1, e/1.02))
			}
			if e == 1 {
				t.Logf("r=%d eps=1: exact %.6g, engine-fed KOV %.6g, advanced %.6g", r, ex, k, ad)
			}
		}
	}
}
