package pipeline

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/compare"
)

// engineKOV returns KOV and Advanced fed with the single-round curve that
// EngineBackend computes for spec (even where a closed form exists).
func engineKOV(t *testing.T, spec MechanismSpec, r int) (*compare.KOVCurve, *compare.AdvancedCurve) {
	t.Helper()
	c := &singleRoundCache{backend: EngineBackend{}}
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
	spec := MechanismSpec{Kind: KindRandomizedResponse, Params: map[string]float64{"p": p}, Engine: EngineOptions{Buckets: 2000, ErrorCorrection: true}}
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
	spec := MechanismSpec{Kind: KindHistogram, A: a, B: b, Engine: EngineOptions{Buckets: 2000, ErrorCorrection: true}}
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

// TestPipelineKOVOnEngineOnlyKinds runs kov and advanced next to the
// buckets on kinds without a closed-form single-round curve, through the
// Runner with the real engine, and checks that they run and stay above the
// buckets lower bound (every sound upper bound must).
func TestPipelineKOVOnEngineOnlyKinds(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "h.csv"), []byte("bin,a,b\n0,0.5,0.3\n1,0.3,0.3\n2,0.2,0.3\n3,0,0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := loadTestManifest(t, dir, "m.toml", `
name = "kov-engine"
[engine]
buckets = 2000
[[mechanism]]
id = "sgd"
kind = "sgd"
sigma = 2.0
q = 0.05
[[mechanism]]
id = "hist"
kind = "histogram"
file = "h.csv"
[[mechanism]]
id = "dialing"
kind = "vuvuzela_dialing"
noise = "laplace"
mu = 200.0
scale = 20.0
[query]
compositions = [1, 8, 64]
e_eps = [1.0, 1.5, 3.0]
delta = [1e-3]
methods = ["buckets", "kov", "advanced"]
`)
	rn := &Runner{Backend: EngineBackend{}, Methods: CompareMethods(), Out: filepath.Join(dir, "out"), Jobs: 2, Version: "test"}
	rep, err := rn.Run(context.Background(), []*Manifest{m})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tasks != 27 || rep.OK != 27 {
		t.Fatalf("report %+v, want 27 tasks, all ok", rep)
	}
	runs := readFrame(t, filepath.Join(dir, "out", "kov-engine", "runs.parquet"))
	for i := 0; i < runs.Rows(); i++ {
		if meth := runs.Column("method").Strings[i]; meth == MethodKOV || meth == MethodAdvanced {
			if note := runs.Column("note").Strings[i]; !strings.Contains(note, "single-round delta_up of the buckets (r = 1") {
				t.Errorf("row %d: note %q does not name the engine's single-round curve", i, note)
			}
		}
	}
	delta := readFrame(t, filepath.Join(dir, "out", "kov-engine", "delta.parquet"))
	type key struct {
		mech string
		r    int64
		eps  float64
	}
	lower := map[key]float64{}
	upper := map[key]map[string]float64{}
	for i := 0; i < delta.Rows(); i++ {
		k := key{delta.Column("mechanism").Strings[i], delta.Column("compositions").Ints[i], delta.Column("eps").Floats[i]}
		meth := delta.Column("method").Strings[i]
		if meth == MethodBuckets {
			lower[k] = delta.Column("delta_lower").Floats[i]
		}
		if upper[k] == nil {
			upper[k] = map[string]float64{}
		}
		upper[k][meth] = delta.Column("delta_upper").Floats[i]
	}
	if len(lower) != 27 {
		t.Fatalf("%d buckets rows, want 27", len(lower))
	}
	for k, lo := range lower {
		for _, meth := range []string{MethodKOV, MethodAdvanced} {
			up, ok := upper[k][meth]
			if !ok || !(up >= lo*(1-1e-9)) || up > 1 {
				t.Errorf("%v: %s upper %v (present %v), buckets lower %v", k, meth, up, ok, lo)
			}
		}
		if k.r == 64 {
			t.Logf("%s r=64 eps=%.3g: buckets [%.4g, %.4g], kov %.4g, advanced %.4g", k.mech, k.eps, lo, upper[k][MethodBuckets], upper[k][MethodKOV], upper[k][MethodAdvanced])
		}
	}
}
