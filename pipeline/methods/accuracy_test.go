package methods

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

// widthBackend is a fake backend whose brackets have a relative width
// given by a function of r and the bucket count (+Inf: a trivial upper
// bound), and whose memory grows with the bucket count. It records the
// bucket count and the numbers of compositions of every ComposeMany.
type widthBackend struct {
	pipelinetest.Fake
	width          func(r, buckets int) float64
	bytesPerBucket int64

	mu    sync.Mutex
	calls []composeCall
}

type composeCall struct {
	buckets int
	rs      []int
}

// widthState is a state of widthBackend: eps in [2(1-w), 2], delta in
// [d(1-w), d] with d = 1e-6 (eps_up = +Inf and delta_up = 1 when trivial;
// both brackets exact at [0, 0] when Zero).
type widthState struct {
	R, Buckets int
	W          float64
	Trivial    bool
	Zero       bool
}

func (b *widthBackend) ComposeMany(_ context.Context, _ backend.Mechanism, rs []int, opt manifest.EngineOptions, _ func(int, int)) ([]backend.State, error) {
	b.mu.Lock()
	b.calls = append(b.calls, composeCall{opt.Buckets, slices.Clone(rs)})
	b.mu.Unlock()
	out := make([]backend.State, len(rs))
	for i, r := range rs {
		w := b.width(r, opt.Buckets)
		out[i] = &widthState{R: r, Buckets: opt.Buckets, W: w, Trivial: math.IsInf(w, 1), Zero: w == 0}
	}
	return out, nil
}

func (b *widthBackend) EstimateMemory(spec manifest.MechanismSpec) int64 {
	return b.bytesPerBucket * int64(spec.Engine.Buckets)
}

func (b *widthBackend) DecodeState(data []byte) (backend.State, error) {
	s := new(widthState)
	return s, json.Unmarshal(data, s)
}

func (s *widthState) EpsBounds(float64) (float64, float64) {
	switch {
	case s.Trivial:
		return math.Inf(1), 1
	case s.Zero:
		return 0, 0
	}
	return 2, 2 * (1 - s.W)
}

func (s *widthState) DeltaBounds(float64) (float64, float64) {
	switch {
	case s.Trivial:
		return 1, 0.5
	case s.Zero:
		return 0, 0
	}
	return 1e-6, 1e-6 * (1 - s.W)
}

func (s *widthState) Summary() backend.StateSummary {
	return backend.StateSummary{Buckets: s.Buckets, Factor: 1.01}
}

func (s *widthState) MarshalBinary() ([]byte, error) {
	c := *s
	if c.Trivial {
		c.W = 0
	}
	return json.Marshal(c)
}

// TestRefineAccuracy runs the refinement of an accuracy target on the fake
// backend: the rounds it composes, the bucket count it reports, what it
// says it reached, and why it stopped.
func TestRefineAccuracy(t *testing.T) {
	inverse := func(c float64) func(int, int) float64 { // width c/buckets
		return func(_, n int) float64 { return c / float64(n) }
	}
	tests := []struct {
		name    string
		width   func(r, buckets int) float64
		budget  int64 // bytes, 1000 per bucket
		rs      []int
		target  float64
		buckets []int // bucket counts composed, in order
		report  int   // bucket count reported (every r)
		met     bool
		reached float64
		note    string
	}{
		{"met at first round", inverse(5), 1 << 40, []int{4}, 0.01, []int{1000}, 1000, true, 0.005,
			"accuracy 0.01 met at 1000 buckets (1 round)"},
		{"met after four doublings", inverse(100), 1 << 40, []int{4}, 0.01, []int{1000, 2000, 4000, 8000, 16000}, 16000, true, 100.0 / 16000,
			"accuracy 0.01 met at 16000 buckets (5 rounds)"},
		{"memory budget", inverse(100), 5e6, []int{4}, 0.01, []int{1000, 2000, 4000}, 4000, false, 0.025,
			"accuracy 0.01 not met: reached 0.025 at 4000 buckets (3 rounds; the next round, 8000 buckets, needs about"},
		{"no narrowing", func(int, int) float64 { return 0.05 }, 1 << 40, []int{4}, 0.01, []int{1000, 2000}, 2000, false, 0.05,
			"accuracy 0.01 not met: reached 0.05 at 2000 buckets (2 rounds; no bracket narrowed from 1000 to 2000 buckets)"},
		{"too little narrowing", func(_, n int) float64 { return 0.05 * math.Pow(0.95, math.Log2(float64(n)/1000)) }, 1 << 40, []int{4}, 0.01, []int{1000, 2000}, 2000, false, 0.0475,
			"accuracy 0.01 not met: reached 0.048 at 2000 buckets (2 rounds; no bracket narrowed from 1000 to 2000 buckets)"},
		{"wider with more buckets", func(_, n int) float64 { return 0.02 * float64(n) / 1000 }, 1 << 40, []int{4}, 0.01, []int{1000, 2000}, 1000, false, 0.02,
			"accuracy 0.01 not met: reached 0.02 at 1000 buckets (2 rounds; no bracket narrowed from 1000 to 2000 buckets)"},
		{"trivial bounds", func(int, int) float64 { return math.Inf(1) }, 1 << 40, []int{4}, 0.01, []int{1000, 2000}, 2000, false, math.Inf(1),
			"accuracy 0.01 not met: reached +Inf (a trivial or missing bound) at 2000 buckets (2 rounds; no bracket narrowed"},
		{"trivial then finite", func(_, n int) float64 {
			if n < 2000 {
				return math.Inf(1)
			}
			return 0.001
		}, 1 << 40, []int{4}, 0.01, []int{1000, 2000}, 2000, true, 0.001, "accuracy 0.01 met at 2000 buckets (2 rounds)"},
		{"exact zero brackets", func(int, int) float64 { return 0 }, 1 << 40, []int{4}, 1e-9, []int{1000}, 1000, true, 0,
			"accuracy 1e-09 met at 1000 buckets (1 round)"},
		// issue 20: a target the observed narrowing (0.71x per doubling)
		// cannot reach by 2^26 buckets stops after the second round
		{"unreachable at the rate seen", func(_, n int) float64 { return 0.05 * math.Sqrt(1000/float64(n)) }, 1 << 40, []int{4}, 1e-6, []int{1000, 2000}, 2000, false, 0.05 * math.Sqrt(0.5),
			"accuracy 1e-06 not met: reached 0.036 at 2000 buckets (2 rounds; at the rate the brackets narrowed from 1000 to 2000 buckets, none would meet the target by 65536000 buckets"},
		{"bucket cap", func(int, int) float64 { return 1 }, 1 << 62, []int{4}, 0.5, nil, 0, false, 1, "is the largest count"},
		// buckets 0 (the engine's choice of path): the refinement doubles
		// the chain's count from the default
		{"engine's choice", inverse(5000), 1 << 40, []int{4}, 0.03, []int{100000, 200000}, 200000, true, 5000.0 / 200000,
			"accuracy 0.03 met at 200000 buckets (2 rounds)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := 1000
			if tc.name == "engine's choice" {
				start = 0
			}
			if tc.name == "bucket cap" {
				// width 1 never meets 0.5 and never narrows: it stops at
				// round 2 unless the cap comes first.
				start = maxAccuracyBuckets
				tc.buckets, tc.report = []int{start}, start
			}
			be := &widthBackend{width: tc.width, bytesPerBucket: 1000}
			spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 1},
				Engine: manifest.EngineOptions{Buckets: start, ErrorCorrection: true, Accuracy: tc.target}}
			job := Job{Instance: &manifest.Instance{Label: "g", Spec: spec}, Compositions: tc.rs, Eps: []float64{1}, Delta: []float64{1e-5}}
			var rounds []int
			job.Round = func(round, buckets int) {
				if round != len(rounds)+1 {
					t.Errorf("round %d announced after %d rounds", round, len(rounds))
				}
				rounds = append(rounds, buckets)
			}
			bm := &Buckets{States: &states.Service{Backend: be, Memory: states.NewBudget(tc.budget)}}
			outs, err := bm.Run(context.Background(), job)
			if err != nil {
				t.Fatal(err)
			}
			var composed []int
			for _, c := range be.calls {
				composed = append(composed, c.buckets)
			}
			if !slices.Equal(composed, tc.buckets) || !slices.Equal(rounds, tc.buckets) {
				t.Errorf("composed at %v (rounds announced %v), want %v", composed, rounds, tc.buckets)
			}
			if len(outs) != len(tc.rs) {
				t.Fatalf("%d outcomes for %d r", len(outs), len(tc.rs))
			}
			for _, o := range outs {
				a := o.Accuracy
				if a == nil {
					t.Fatalf("r=%d: no Accuracy", o.R)
				}
				if o.Buckets != tc.report || a.Met != tc.met || a.Target != tc.target || math.Abs(a.Reached-tc.reached) > 1e-12*tc.reached && a.Reached != tc.reached {
					t.Errorf("r=%d: buckets %d, %+v; want buckets %d, met %v, reached %v", o.R, o.Buckets, *a, tc.report, tc.met, tc.reached)
				}
				if math.IsNaN(a.Reached) {
					t.Errorf("r=%d: reached NaN", o.R)
				}
				if !strings.Contains(o.Note, tc.note) {
					t.Errorf("r=%d: note %q, want it to contain %q", o.R, o.Note, tc.note)
				}
			}
		})
	}
}

// TestRefineComposesUnmetOnly: a round recomposes only the numbers of
// compositions whose brackets are still too wide (with the chain's shaping
// counts, engine.ChainCounts: here the largest r of the job, on which the
// automatic factor depends), and every r reports the round that met the
// target.
func TestRefineComposesUnmetOnly(t *testing.T) {
	// widths at 1000 buckets: r=10 0.002 (met), r=12 0.008, r=16 0.016
	// (every r above 16/2: none is a shaping count but 16)
	units := map[int]float64{10: 2, 12: 8, 16: 16}
	be := &widthBackend{width: func(r, n int) float64 { return units[r] / float64(n) }, bytesPerBucket: 1}
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 1},
		Engine: manifest.EngineOptions{Buckets: 1000, ErrorCorrection: true, Accuracy: 0.0041}}
	job := Job{Instance: &manifest.Instance{Label: "g", Spec: spec}, Compositions: []int{10, 12, 16}, Eps: []float64{1}}
	bm := &Buckets{States: &states.Service{Backend: be, Memory: states.NewBudget(1 << 40)}}
	outs, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	want := []composeCall{{1000, []int{10, 12, 16}}, {2000, []int{12, 16}}, {4000, []int{16}}}
	if len(be.calls) != len(want) {
		t.Fatalf("calls %v, want %v", be.calls, want)
	}
	for i, c := range be.calls {
		if c.buckets != want[i].buckets || !slices.Equal(c.rs, want[i].rs) {
			t.Errorf("call %d: %v, want %v", i, c, want[i])
		}
	}
	for i, n := range []int{1000, 2000, 4000} {
		if o := outs[i]; o.Buckets != n || !o.Accuracy.Met || o.Accuracy.Rounds != i+1 {
			t.Errorf("r=%d: buckets %d, accuracy %+v; want %d buckets, met in %d rounds", o.R, o.Buckets, *o.Accuracy, n, i+1)
		}
	}
}

// TestRefineCachedRerun: a second run of the same job finds every round's
// states in the cache and composes nothing, with the same outcomes.
func TestRefineCachedRerun(t *testing.T) {
	be := &widthBackend{width: func(_, n int) float64 { return 39 / float64(n) }, bytesPerBucket: 1}
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 1},
		Engine: manifest.EngineOptions{Buckets: 1000, ErrorCorrection: true, Accuracy: 0.01}}
	job := Job{Instance: &manifest.Instance{Label: "g", Spec: spec}, Compositions: []int{4}, Eps: []float64{1}, Delta: []float64{1e-5}}
	bm := &Buckets{States: &states.Service{Backend: be, Dir: t.TempDir(), Memory: states.NewBudget(1 << 40)}}
	first, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if len(be.calls) != 3 || first[0].Buckets != 4000 || first[0].Cached {
		t.Fatalf("first run: calls %v, outcome %+v", be.calls, first[0])
	}
	be.calls = nil
	second, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if len(be.calls) != 0 {
		t.Errorf("rerun composed %v, want nothing (cached)", be.calls)
	}
	a, b := first[0], second[0]
	if !b.Cached || b.Buckets != a.Buckets || b.Note != a.Note || *b.Accuracy != *a.Accuracy || b.Eps[0] != a.Eps[0] || b.Delta[0] != a.Delta[0] {
		t.Errorf("rerun %+v, want %+v (cached)", b, a)
	}
	// The first round's state is the one a run without a target caches.
	spec.Engine.Accuracy = 0
	job.Instance = &manifest.Instance{Label: "g", Spec: spec}
	plain, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if len(be.calls) != 0 || !plain[0].Cached || plain[0].Accuracy != nil || strings.Contains(plain[0].Note, "accuracy") {
		t.Errorf("without a target: calls %v, outcome %+v; want the cached 1000-bucket state, no accuracy note", be.calls, plain[0])
	}
}

// TestRelativeWidth checks the width of brackets, trivial ones included:
// never NaN.
func TestRelativeWidth(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		up, lo float64
		delta  bool
		want   float64
	}{
		{2, 1.5, false, 0.25},
		{1e-6, 0.9e-6, true, 0.1},
		{inf, 3, false, inf},     // trivial eps_up
		{1, 0.2, true, inf},      // trivial delta_up
		{0.5, nan, true, inf},    // no lower bound
		{0, 0, true, 0},          // delta 0 exactly: 0/0 is met
		{0, 0, false, 0},         // eps 0
		{1e-300, 0, true, 1},     // [0, tiny]
		{2, 2.0000001, false, 0}, // crossed by rounding: 0, not negative
		{3, math.Inf(-1), false, inf},
		{nan, 0, false, inf},
	}
	for _, tc := range tests {
		got := RelativeWidth(tc.up, tc.lo, tc.delta)
		if got != tc.want && math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("RelativeWidth(%v, %v, %v) = %v, want %v", tc.up, tc.lo, tc.delta, got, tc.want)
		}
	}
}

// TestRefineEngine: with the real engine, the Gauss mechanism (sigma 2,
// r = 64, one closed-form leaf) at 8000 buckets has a bracket wider than
// 5e-7 relative; the target 5e-7 is met after refinement, and the refined
// brackets still enclose the exact values.
func TestRefineEngine(t *testing.T) {
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 2, "sensitivity": 1},
		Engine: manifest.EngineOptions{Buckets: 8000, ErrorCorrection: true}}
	job := Job{Instance: &manifest.Instance{Label: "g", Spec: spec}, Compositions: []int{64}, Eps: []float64{1}, Delta: []float64{1e-5}}
	bm := &Buckets{States: &states.Service{Backend: backend.Engine{}, Memory: states.NewBudget(1 << 40)}}
	plain, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	const target = 5e-7
	if w := worst(widths(plain[0])); !(w > target) {
		t.Fatalf("at 8000 buckets the worst width is already %g <= %g: the test needs a case that refines", w, target)
	}
	spec.Engine.Accuracy = target
	job.Instance = &manifest.Instance{Label: "g", Spec: spec}
	got, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	o := got[0]
	if o.Accuracy == nil || !o.Accuracy.Met || o.Accuracy.Rounds < 2 || o.Buckets <= 8000 || worst(widths(o)) > target {
		t.Fatalf("refined outcome: buckets %d, accuracy %+v, widths %v", o.Buckets, o.Accuracy, widths(o))
	}
	exact, err := Compare()[manifest.MethodExact](context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if b, e := o.Delta[0], exact[0].Delta[0].Upper; !(b.Lower <= e*(1+1e-12) && e <= b.Upper*(1+1e-12)) {
		t.Errorf("exact delta %v outside the refined bracket [%v, %v]", e, b.Lower, b.Upper)
	}
	if b, e := o.Eps[0], exact[0].Eps[0].Upper; !(b.Lower <= e+1e-9 && e <= b.Upper+1e-9) {
		t.Errorf("exact eps %v outside the refined bracket [%v, %v]", e, b.Lower, b.Upper)
	}
	t.Logf("%d buckets, %d rounds: eps in [%v, %v], delta in [%v, %v]; note %q", o.Buckets, o.Accuracy.Rounds, o.Eps[0].Lower, o.Eps[0].Upper, o.Delta[0].Lower, o.Delta[0].Upper, o.Note)
}
