package search

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/results"
	"github.com/pbuckets/pbuckets/pipeline/runner"
)

// searchFake is a backend whose delta bounds are known functions of the
// parameter sigma of a gauss mechanism: delta_up = up(sigma), delta_low =
// lo(sigma), independent of eps and r.
type searchFake struct {
	up, lo func(sigma float64) float64
	// failAbove makes compositions with sigma above it fail; rejectAbove
	// makes Mechanism refuse sigma above it.
	failAbove, rejectAbove float64

	mu      sync.Mutex
	calls   int
	decoded int
}

type searchFakeMech struct{ sigma float64 }

func (m searchFakeMech) String() string { return "fake-gauss(" + formatFloat(m.sigma) + ")" }

type searchFakeState struct{ Up, Lo float64 }

func (s searchFakeState) DeltaBounds(float64) (float64, float64) { return s.Up, s.Lo }
func (s searchFakeState) EpsBounds(float64) (float64, float64)   { return math.NaN(), math.NaN() }
func (s searchFakeState) Summary() backend.StateSummary          { return backend.StateSummary{} }
func (s searchFakeState) MarshalBinary() ([]byte, error) {
	// JSON has no NaN; encode it as -1.
	lo := s.Lo
	if math.IsNaN(lo) {
		lo = -1
	}
	return json.Marshal(searchFakeState{s.Up, lo})
}

func (f *searchFake) Mechanism(spec manifest.MechanismSpec) (backend.Mechanism, error) {
	if f.rejectAbove > 0 && spec.Params["sigma"] > f.rejectAbove {
		return nil, errors.New("fake: too large to enumerate")
	}
	return searchFakeMech{spec.Params["sigma"]}, nil
}

func (f *searchFake) ComposeMany(ctx context.Context, m backend.Mechanism, rs []int, _ manifest.EngineOptions, _ func(int, int)) ([]backend.State, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := m.(searchFakeMech).sigma
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if f.failAbove > 0 && s > f.failAbove {
		return nil, errors.New("fake: composition failed")
	}
	out := make([]backend.State, len(rs))
	for i := range rs {
		out[i] = searchFakeState{f.up(s), f.lo(s)}
	}
	return out, nil
}

func (f *searchFake) EstimateMemory(manifest.MechanismSpec) int64 { return 1 }

func (f *searchFake) DecodeState(data []byte) (backend.State, error) {
	var s searchFakeState
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	if s.Lo < 0 {
		s.Lo = math.NaN()
	}
	f.mu.Lock()
	f.decoded++
	f.mu.Unlock()
	return s, nil
}

func formatFloat(v float64) string {
	return strings.TrimRight(strings.TrimRight(jsonFloat(v), "0"), ".")
}

func jsonFloat(v float64) string { b, _ := json.Marshal(v); return string(b) }

func gaussSpec(sigma float64) manifest.MechanismSpec {
	return manifest.MechanismSpec{ID: "g", Kind: manifest.KindGauss, Params: map[string]float64{"sigma": sigma, "sensitivity": 1, "truncate": 0}, Engine: manifest.DefaultEngineOptions()}
}

func TestSearchFake(t *testing.T) {
	expo := func(s float64) float64 { return math.Exp(-s) }
	const delta = 1e-4
	thr := math.Log(1 / delta) // expo(thr) = delta
	cases := []struct {
		name       string
		base       float64 // sigma at factor 1
		up, lo     func(float64) float64
		max        float64
		wantStatus string
		// wantMeets / wantIns: the true thresholds in sigma (NaN: no answer).
		wantMeets, wantIns float64
		note               string
	}{
		{name: "start meets, go down", base: 40, up: expo, lo: func(s float64) float64 { return expo(s * 1.1) },
			wantStatus: StatusOK, wantMeets: thr, wantIns: thr / 1.1},
		{name: "start fails, go up", base: 0.3, up: expo, lo: func(s float64) float64 { return 0.5 * expo(s) },
			wantStatus: StatusOK, wantMeets: thr, wantIns: thr - math.Log(2)},
		{name: "tight bounds", base: 9, up: expo, lo: expo,
			wantStatus: StatusOK, wantMeets: thr, wantIns: thr},
		{name: "never meets in range", base: 1, up: func(float64) float64 { return 1 }, lo: func(float64) float64 { return 0.5 },
			max: 64, wantStatus: StatusPartial, wantMeets: math.NaN(), wantIns: math.Inf(1), note: "no probed factor (up to 64) meets"},
		{name: "no lower bounds", base: 5, up: expo, lo: func(float64) float64 { return math.NaN() },
			wantStatus: StatusPartial, wantMeets: thr, wantIns: math.NaN(), note: "error correction disabled"},
		{name: "lower bound never proves", base: 5, up: expo, lo: func(float64) float64 { return 0 },
			wantStatus: StatusPartial, wantMeets: thr, wantIns: math.NaN(), note: "proves no probed factor (down to"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fb := &searchFake{up: c.up, lo: c.lo}
			s := &Searcher{Backend: fb}
			spec := Spec{Label: "g", Mechanism: gaussSpec(c.base), R: 8, Eps: 0.5, Delta: delta, RelTol: 0.01, MaxFactor: c.max}
			res, err := s.Search(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != c.wantStatus {
				t.Errorf("status %s, want %s (notes %v)", res.Status, c.wantStatus, res.Notes)
			}
			if c.note != "" && !strings.Contains(strings.Join(res.Notes, ";"), c.note) {
				t.Errorf("notes %v do not mention %q", res.Notes, c.note)
			}
			// Soundness of the answers: each is a probe with the right verdict.
			if m := res.Meets; m != nil {
				if !(m.Upper <= delta) || m.Params["sigma"] != c.base*m.Factor {
					t.Errorf("meets probe %+v does not meet the target", m)
				}
			}
			if in := res.Insufficient; in != nil {
				if !(in.Lower > delta) {
					t.Errorf("insufficient probe %+v is not proved insufficient", in)
				}
			}
			// Minimality within the tolerance.
			tol := 1 + spec.RelTol
			if math.IsNaN(c.wantMeets) {
				if res.Meets != nil {
					t.Errorf("meets %+v, want none", res.Meets)
				}
			} else {
				got := res.Meets.Params["sigma"]
				if got < c.wantMeets || got > c.wantMeets*tol {
					t.Errorf("least sigma meeting: %g, want in [%g, %g]", got, c.wantMeets, c.wantMeets*tol)
				}
				if res.MeetsBelow == nil || res.Meets.Factor/res.MeetsBelow.Factor > tol {
					t.Errorf("upper bracket not narrowed: below %+v", res.MeetsBelow)
				}
			}
			switch {
			case math.IsNaN(c.wantIns):
				if res.Insufficient != nil {
					t.Errorf("insufficient %+v, want none", res.Insufficient)
				}
			case math.IsInf(c.wantIns, 1):
				// Every factor is insufficient: the answer is the largest probed.
				if res.Insufficient == nil || res.Insufficient.Factor != c.max {
					t.Errorf("insufficient %+v, want factor %g", res.Insufficient, c.max)
				}
			default:
				got := res.Insufficient.Params["sigma"]
				if got >= c.wantIns || got < c.wantIns/tol {
					t.Errorf("largest sigma proved insufficient: %g, want in [%g, %g)", got, c.wantIns/tol, c.wantIns)
				}
				if b := res.Bracket(); !(b >= 1) {
					t.Errorf("bracket %g", b)
				}
			}
			if len(res.Probes) > 40 {
				t.Errorf("%d probes", len(res.Probes))
			}
			if fb.calls != len(res.Probes) {
				t.Errorf("%d compositions for %d distinct probes", fb.calls, len(res.Probes))
			}
		})
	}
}

func TestSearchCaches(t *testing.T) {
	fb := &searchFake{up: func(s float64) float64 { return math.Exp(-s) }, lo: func(s float64) float64 { return math.Exp(-1.2 * s) }}
	dir := t.TempDir()
	spec := Spec{Label: "g", Mechanism: gaussSpec(3), R: 8, Eps: 0.5, Delta: 1e-3}
	s := &Searcher{Backend: fb, CacheDir: dir}
	first, err := s.Search(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	n := fb.calls
	if n == 0 || n != len(first.Probes) {
		t.Fatalf("first search: %d compositions, %d probes", n, len(first.Probes))
	}
	// The same searcher: in-memory cache.
	again, err := s.Search(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if fb.calls != n {
		t.Errorf("repeat composed %d more times", fb.calls-n)
	}
	for _, p := range again.Probes {
		if !p.Cached || p.Seconds != 0 {
			t.Errorf("probe %+v not marked cached", p)
		}
	}
	// A new searcher: the disk cache.
	s2 := &Searcher{Backend: fb, CacheDir: dir}
	third, err := s2.Search(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if fb.calls != n || fb.decoded != len(third.Probes) {
		t.Errorf("disk cache: %d more compositions, %d decoded of %d", fb.calls-n, fb.decoded, len(third.Probes))
	}
	if third.Meets.Factor != first.Meets.Factor || third.Insufficient.Factor != first.Insufficient.Factor {
		t.Errorf("cached search differs: %+v vs %+v", third.Meets, first.Meets)
	}
	// Another eps reuses the states too (the cache holds states, not answers).
	spec.Eps = 0.7
	if _, err := s2.Search(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	if fb.calls != n {
		t.Errorf("another eps recomposed %d states", fb.calls-n)
	}
}

func TestSearchErrors(t *testing.T) {
	expo := func(s float64) float64 { return math.Exp(-s) }
	bad := []struct {
		name string
		spec Spec
		want string
	}{
		{"delta", Spec{Mechanism: gaussSpec(1), R: 1, Eps: 1, Delta: 0}, "target delta"},
		{"eps", Spec{Mechanism: gaussSpec(1), R: 1, Eps: math.NaN(), Delta: 0.1}, "target eps"},
		{"r", Spec{Mechanism: gaussSpec(1), R: 0, Eps: 1, Delta: 0.1}, "observations"},
		{"tie", Spec{Mechanism: gaussSpec(1), Tie: []string{"sensitivity"}, R: 1, Eps: 1, Delta: 0.1}, "cannot be tied"},
		{"kind", Spec{Mechanism: manifest.MechanismSpec{Kind: manifest.KindRandomizedResponse, Params: map[string]float64{"p": 0.6}}, R: 1, Eps: 1, Delta: 0.1}, "no noise parameter"},
		{"range", Spec{Mechanism: gaussSpec(1), R: 1, Eps: 1, Delta: 0.1, MinFactor: 2}, "factor range"},
		{"tol", Spec{Mechanism: gaussSpec(1), R: 1, Eps: 1, Delta: 0.1, RelTol: -1}, "tolerance"},
	}
	for _, c := range bad {
		s := &Searcher{Backend: &searchFake{up: expo, lo: expo}}
		if _, err := s.Search(context.Background(), c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// A failing composition is reported with the factor and parameters.
	s := &Searcher{Backend: &searchFake{up: expo, lo: expo, failAbove: 4}}
	res, err := s.Search(context.Background(), Spec{Label: "g", Mechanism: gaussSpec(1), R: 2, Eps: 1, Delta: 1e-4})
	if err == nil || !strings.Contains(err.Error(), "sigma=") || !strings.Contains(err.Error(), "composition failed") {
		t.Errorf("failure: %v", err)
	}
	if res == nil || res.Status != StatusPartial {
		t.Errorf("failure result %+v", res)
	}
	// A mechanism the backend refuses ends the range: no error, a note.
	s = &Searcher{Backend: &searchFake{up: func(float64) float64 { return 1 }, lo: func(float64) float64 { return 0.5 }, rejectAbove: 10}}
	res, err = s.Search(context.Background(), Spec{Label: "g", Mechanism: gaussSpec(1), R: 2, Eps: 1, Delta: 1e-4})
	if err != nil || res.Status != StatusPartial || res.Meets != nil || res.Insufficient == nil || res.Insufficient.Factor != 8 ||
		!strings.Contains(strings.Join(res.Notes, ";"), "the factor range ends at 8") {
		t.Errorf("unbuildable: %v, %+v", err, res)
	}
	// Cancellation.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s = &Searcher{Backend: &searchFake{up: expo, lo: expo}}
	res, err = s.Search(ctx, Spec{Label: "g", Mechanism: gaussSpec(1), R: 2, Eps: 1, Delta: 1e-4})
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != StatusCancelled {
		t.Errorf("cancelled: %v, %+v", err, res)
	}
	// The probe budget.
	res, err = s.Search(context.Background(), Spec{Label: "g", Mechanism: gaussSpec(1), R: 2, Eps: 1, Delta: 1e-4, MaxProbes: 3})
	if err != nil || res.Status != StatusPartial || len(res.Probes) != 3 || !strings.Contains(strings.Join(res.Notes, ";"), "max_probes") {
		t.Errorf("max probes: %v, %+v", err, res)
	}
}

func TestSearchNonMonotone(t *testing.T) {
	// delta_up has a bump at sigma in (5, 6), where the walk up from 2.75
	// probes: the answers stay sound and a note says so.
	up := func(s float64) float64 {
		if s > 5 && s < 6 {
			return 0.5
		}
		return math.Exp(-s)
	}
	s := &Searcher{Backend: &searchFake{up: up, lo: func(s float64) float64 { return 0.9 * up(s) }}}
	res, err := s.Search(context.Background(), Spec{Label: "g", Mechanism: gaussSpec(2.75), R: 2, Eps: 1, Delta: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Meets == nil || !(res.Meets.Upper <= 1e-4) || res.Insufficient == nil || !(res.Insufficient.Lower > 1e-4) {
		t.Fatalf("answers %+v %+v", res.Meets, res.Insufficient)
	}
	if !strings.Contains(strings.Join(res.Notes, ";"), "non-monotone") {
		t.Errorf("notes %v", res.Notes)
	}
}

func TestSearchAllOrderAndMemory(t *testing.T) {
	expo := func(s float64) float64 { return math.Exp(-s) }
	s := &Searcher{Backend: &searchFake{up: expo, lo: expo}}
	var specs []Spec
	for _, d := range []float64{1e-2, 1e-4, 1e-6} {
		specs = append(specs, Spec{Label: "g", Mechanism: gaussSpec(1), R: 2, Eps: 1, Delta: d})
	}
	res, errs := s.SearchAll(context.Background(), specs, 3, 0)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for i, r := range res {
		want := math.Log(1 / specs[i].Delta)
		if got := r.Meets.Params["sigma"]; got < want || got > want*1.01 {
			t.Errorf("search %d: sigma %g, want about %g", i, got, want)
		}
	}
	// A budget equal to the estimate runs them one by one.
	if _, errs = s.SearchAll(context.Background(), specs, 2, 1); len(errs) != 0 {
		t.Errorf("budget of 1 byte with 1-byte searches: %v", errs)
	}
	fb := &searchFake{up: expo, lo: expo}
	s = &Searcher{Backend: memFake{fb}}
	res, errs = s.SearchAll(context.Background(), specs, 2, 10)
	if len(errs) != 3 || res[0] != nil || !strings.Contains(errs[0].Error(), "refused") {
		t.Errorf("memory refusal: %v", errs)
	}
}

type memFake struct{ *searchFake }

func (memFake) EstimateMemory(manifest.MechanismSpec) int64 { return 1 << 30 }

// growFake needs 100 bytes per unit of sigma (as a Vuvuzela pair's build
// grows with its tied parameters) and records the most memory its
// compositions held at once.
type growFake struct {
	*searchFake
	mu             sync.Mutex
	inFlight, peak int64
}

func (g *growFake) EstimateMemory(spec manifest.MechanismSpec) int64 {
	return int64(100 * spec.Params["sigma"])
}

func (g *growFake) ComposeMany(ctx context.Context, m backend.Mechanism, rs []int, opt manifest.EngineOptions, progress func(int, int)) ([]backend.State, error) {
	need := int64(100 * m.(searchFakeMech).sigma)
	g.mu.Lock()
	g.inFlight += need
	g.peak = max(g.peak, g.inFlight)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inFlight -= need
		g.mu.Unlock()
	}()
	time.Sleep(time.Millisecond)
	return g.searchFake.ComposeMany(ctx, m, rs, opt, progress)
}

// TestSearchAllMemoryPerProbe checks that every composition of a search
// reserves the estimate for its own factor: concurrent probes never hold
// more than the budget, and a factor that cannot fit ends the range.
func TestSearchAllMemoryPerProbe(t *testing.T) {
	expo := func(s float64) float64 { return math.Exp(-s) }
	g := &growFake{searchFake: &searchFake{up: expo, lo: expo}}
	s := &Searcher{Backend: g}
	var specs []Spec
	for _, d := range []float64{1e-2, 1e-3, 1e-4, 1e-5} {
		specs = append(specs, Spec{Label: "g", Mechanism: gaussSpec(1), R: 2, Eps: 1, Delta: d})
	}
	const budget = 2000 // sigma 20 at most; the searches need up to about 11.5 each
	res, errs := s.SearchAll(context.Background(), specs, 4, budget)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if g.peak > budget || g.peak == 0 {
		t.Errorf("compositions held %d bytes at once, budget %d", g.peak, budget)
	}
	for i, r := range res {
		if r.Meets == nil {
			t.Errorf("search %d: no answer: %+v", i, r)
		}
	}
	// delta_up never meets the target: the walk upwards stops at the
	// largest factor that fits (sigma 16 would need 1600 bytes).
	never := &growFake{searchFake: &searchFake{up: func(float64) float64 { return 1 }, lo: func(float64) float64 { return 0.5 }}}
	s = &Searcher{Backend: never}
	res, errs = s.SearchAll(context.Background(), specs[:1], 1, 1000)
	if len(errs) > 0 || res[0].Status != StatusPartial || !strings.Contains(strings.Join(res[0].Notes, ";"), "the factor range ends at 8") ||
		!strings.Contains(strings.Join(res[0].Notes, ";"), "within the memory budget: factor 16 (sigma=16): needs about 1600 bytes") {
		t.Errorf("memory-bound range: %v, %+v", errs, res[0])
	}
}

func TestSearchManifest(t *testing.T) {
	src := `
name = "s"
[[mechanism]]
id = "dial"
kind = "vuvuzela_dialing"
noise = "gauss"
mu = 4100
scale = 833
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 2.0
[sweep]
"g.sigma" = [1.0, 2.0]
[search]
compositions = [1024, 8192]
e_eps = 2.0
delta = [1e-4, 1e-5]
rel_tol = 0.05
`
	m, err := manifest.Parse("s.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	specs := Specs(m)
	if len(specs) != 3*2*2 {
		t.Fatalf("%d searches", len(specs))
	}
	if s := specs[0]; s.Label != "dial" || strings.Join(s.Tie, ",") != "mu,scale" || s.R != 1024 || s.Delta != 1e-4 || math.Abs(s.Eps-math.Log(2)) > 1e-15 || s.RelTol != 0.05 {
		t.Errorf("first search %+v", s)
	}
	if s := specs[4]; s.Label != "g[sigma=1]" || strings.Join(s.Tie, ",") != "sigma" {
		t.Errorf("fifth search %+v", s)
	}
	if len(m.Query.Compositions) != 0 || len(runner.Expand([]*manifest.Manifest{m})) != 0 {
		t.Errorf("a search-only manifest has tasks")
	}

	bad := []struct{ src, want string }{
		{`[search]
compositions = [1]
e_eps = 2.0
delta = 1e-4
rel_tols = 0.1`, `s.toml:15: search.rel_tols: unknown key (did you mean "rel_tol"?)`},
		{`[search]
compositions = [1]
e_eps = 2.0`, "search.delta: missing required key"},
		{`[search]
compositions = [1]
e_eps = 0.5
delta = 1e-4`, "values must be >= 1"},
		{`[search]
compositions = [1]
e_eps = 2.0
delta = 1e-4
tie = ["mu", "sigma"]`, `mechanism "g": kind gauss: parameter "mu" cannot be tied`},
		{`[search]
compositions = [1]
e_eps = 2.0
delta = 1e-4
mechanisms = ["gg"]`, `no mechanism with id "gg" (did you mean "g"?)`},
		{`[search]
compositions = [1]
eps = 1.0
delta = 1e-4
max_probes = 1`, "max_probes: must be in [2, 10000]"},
		{`search = 3`, "search: must be a table"},
	}
	head := `
name = "s"
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 2.0
[[mechanism]]
id = "r"
kind = "laplace"
scale = 1.0
`
	for _, c := range bad {
		src := head + c.src
		if strings.HasPrefix(c.src, "search =") {
			src = "search = 3\n" + head
		}
		_, err := manifest.Parse("s.toml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
	// Without [search], [query] stays required.
	if _, err := manifest.Parse("s.toml", []byte(head)); err == nil || !strings.Contains(err.Error(), "query") {
		t.Errorf("no query, no search: %v", err)
	}
}

// TestSearchEngineGauss searches the real engine for the Gauss mechanism
// and checks both answers against the exact curve: the sigma that meets the
// target must meet it exactly too, the one proved insufficient must miss it.
func TestSearchEngineGauss(t *testing.T) {
	spec := gaussSpec(2)
	spec.Engine.Buckets = 4000
	const r, eps, delta = 16, 1.0, 1e-3
	s := &Searcher{Backend: backend.Engine{}}
	res, err := s.Search(context.Background(), Spec{Label: "g", Mechanism: spec, R: r, Eps: eps, Delta: delta, RelTol: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusOK || res.Meets == nil || res.Insufficient == nil {
		t.Fatalf("status %s, notes %v", res.Status, res.Notes)
	}
	exact := func(sigma float64) float64 {
		c, err := compare.ExactGauss(sigma, 1, r)
		if err != nil {
			t.Fatal(err)
		}
		return c.Delta(eps)
	}
	sm, si := res.Meets.Params["sigma"], res.Insufficient.Params["sigma"]
	if d := exact(sm); d > delta {
		t.Errorf("sigma %g meets by the buckets upper bound (%g) but its exact delta is %g", sm, res.Meets.Upper, d)
	}
	if d := exact(si); d <= delta {
		t.Errorf("sigma %g is proved insufficient (lower %g) but its exact delta is %g", si, res.Insufficient.Lower, d)
	}
	if b := res.Bracket(); b > 1.1 {
		t.Errorf("bracket %g: bounds too loose with %d buckets", b, spec.Engine.Buckets)
	}
	t.Logf("sigma meets %g, insufficient %g, %d probes", sm, si, len(res.Probes))
}

func TestSearchFrames(t *testing.T) {
	expo := func(s float64) float64 { return math.Exp(-s) }
	s := &Searcher{Backend: &searchFake{up: expo, lo: func(s float64) float64 { return math.NaN() }}}
	res, err := s.Search(context.Background(), Spec{Label: "g", Mechanism: gaussSpec(1), R: 2, Eps: 1, Delta: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	f := ResultsFrame([]*Result{res})
	if f.Rows() != 1 || f.Column("factor_meets").Floats[0] != res.Meets.Factor || !f.Column("factor_insufficient").IsNull(0) || !f.Column("bracket").IsNull(0) {
		t.Errorf("search frame: %+v", f.Columns)
	}
	if got := f.Column("computed").Ints[0]; got != int64(len(res.Probes)) {
		t.Errorf("computed %d", got)
	}
	p := ProbesFrame([]*Result{res})
	if p.Rows() != len(res.Probes) || p.Column("verdict").Strings[0] != VerdictUndecided {
		t.Errorf("probes frame: %d rows, verdicts %v", p.Rows(), p.Column("verdict").Strings)
	}
	path := t.TempDir() + "/s.parquet"
	if err := results.WriteParquet(path, f, nil); err != nil {
		t.Fatal(err)
	}
	back, err := results.ReadParquet(path)
	if err != nil || back.Rows() != 1 || len(back.Columns) != len(f.Columns) {
		t.Errorf("parquet round trip: %v", err)
	}
}

// FuzzSpecs checks that the parser accepts only [search] tables whose
// searches are all valid for Searcher.Search.
func FuzzSpecs(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "experiments", "search-*.toml"))
	if len(seeds) == 0 {
		f.Fatal("no experiments/search-*.toml to seed from")
	}
	for _, name := range seeds {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("name = \"s\"\n[[mechanism]]\nid = \"g\"\nkind = \"gauss\"\nsigma = 1.0\n[search]\ncompositions = [4]\ne_eps = [2.0]\ndelta = [1e-4]\n"))
	f.Add([]byte(sequenceSearch))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := manifest.Parse(filepath.Join("..", "..", "experiments", "fuzz.toml"), data)
		if err != nil || m.Search == nil {
			return
		}
		checkSearches(t, m)
	})
}

// checkSearches checks the invariants of an accepted [search] table:
// every search is valid for Searcher.Search.
func checkSearches(t *testing.T, m *manifest.Manifest) {
	t.Helper()
	c := m.Search
	if len(c.Compositions) == 0 || len(c.Eps) == 0 || len(c.Delta) == 0 {
		t.Fatalf("accepted an incomplete [search] %+v", c)
	}
	specs := Specs(m)
	if len(specs) > manifest.MaxSearches {
		t.Fatalf("%d searches", len(specs))
	}
	for _, s := range specs {
		if _, err := s.withDefaults(); err != nil {
			t.Fatalf("accepted an invalid search: %v", err)
		}
	}
}

// TestSearchRefusesAccuracy: a library caller's accuracy target is refused
// with ErrAccuracy (by Search, Probe and SearchAll), before any composition,
// rather than silently ignored.
func TestSearchRefusesAccuracy(t *testing.T) {
	expo := func(s float64) float64 { return math.Exp(-s) }
	mech := gaussSpec(1)
	mech.Engine.Accuracy = 1e-3
	spec := Spec{Label: "g", Mechanism: mech, R: 2, Eps: 1, Delta: 1e-4}
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrAccuracy) || !strings.Contains(err.Error(), `search "g": mechanism "g": engine accuracy 0.001: not supported by noise searches`) ||
			!strings.Contains(err.Error(), "[engine] buckets") {
			t.Errorf("%s: error %v, want ErrAccuracy with the search, mechanism, target and what to do", what, err)
		}
	}
	fake := &searchFake{up: expo, lo: expo}
	s := &Searcher{Backend: fake}
	res, err := s.Search(context.Background(), spec)
	check("Search", err)
	if res != nil {
		t.Errorf("Search returned a result %+v", res)
	}
	_, err = s.Probe(context.Background(), spec, 1)
	check("Probe", err)
	results, errs := s.SearchAll(context.Background(), []Spec{spec}, 1, 1<<30)
	if len(errs) != 1 || results[0] != nil {
		t.Fatalf("SearchAll: results %v, errors %v", results, errs)
	}
	check("SearchAll", errs[0])
	if fake.calls != 0 {
		t.Errorf("%d compositions with a refused spec", fake.calls)
	}
	// A manifest's [engine] accuracy reaches the specs, and is refused too.
	m, err := manifest.Parse("s.toml", []byte(`name = "s"
[engine]
accuracy = 1e-3
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 1.0
[search]
compositions = [2]
eps = 1.0
delta = 1e-4
`))
	if err != nil {
		t.Fatal(err)
	}
	specs := Specs(m)
	if len(specs) != 1 {
		t.Fatalf("specs %+v", specs)
	}
	_, err = s.Search(context.Background(), specs[0])
	check("manifest", err)
}
