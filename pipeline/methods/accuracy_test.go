package methods

import (
	"context"
	"encoding/json"
	"fmt"
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
	// power, if not nil, gives the widths of the power path at a
	// transform length (and the backend says every mechanism qualifies
	// for it); nil: the power path falls back to the chain, as the
	// engine's does for mechanisms that do not qualify.
	power func(r, points int) float64
	// qualifies, if not nil, says which r qualify for the power path
	// (every r when nil)
	qualifies func(r int) bool
	// fallback: PowerPath says yes, but the chain composes the rounds
	// asked of the power path (at the same count), as the engine's
	// power path does where its composed list does not qualify
	fallback bool

	mu    sync.Mutex
	calls []composeCall
	paths []string // the path of every call: "power" or "chain"
}

func (b *widthBackend) PowerPath(_ context.Context, _ backend.Mechanism, r int, _ manifest.EngineOptions) (bool, error) {
	return b.power != nil && (b.qualifies == nil || b.qualifies(r)), nil
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
	Path       string // what composed it (StateSummary.Path)
	W          float64
	Trivial    bool
	Zero       bool
}

func (b *widthBackend) ComposeMany(_ context.Context, _ backend.Mechanism, rs []int, opt manifest.EngineOptions, _ func(int, int)) ([]backend.State, error) {
	b.mu.Lock()
	b.calls = append(b.calls, composeCall{opt.Buckets, slices.Clone(rs)})
	width, path := b.width, manifest.PathChain
	if opt.Path == manifest.PathPower && b.power != nil && !b.fallback {
		width, path = b.power, manifest.PathPower
	}
	b.paths = append(b.paths, path)
	b.mu.Unlock()
	out := make([]backend.State, len(rs))
	for i, r := range rs {
		w := width(r, opt.Buckets)
		out[i] = &widthState{R: r, Buckets: opt.Buckets, Path: path, W: w, Trivial: math.IsInf(w, 1), Zero: w == 0}
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
	return backend.StateSummary{Buckets: s.Buckets, Factor: 1.01, Path: s.Path}
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
		// one doubling measures the rate (width ~ 1/buckets), then a jump
		// to 2000 (0.05/0.01)^1 1.2 = 12000 buckets
		{"met after a doubling and a jump", inverse(100), 1 << 40, []int{4}, 0.01, []int{1000, 2000, 12000}, 12000, true, 100.0 / 12000,
			"accuracy 0.01 met at 12000 buckets (3 rounds)"},
		{"jump at the measured rate", func(_, n int) float64 { return 1e5 / float64(n) / float64(n) }, 1 << 40, []int{4}, 0.001, []int{1000, 2000, 12000}, 12000, true, 1e5 / 12000.0 / 12000,
			"accuracy 0.001 met at 12000 buckets (3 rounds)"},
		{"memory budget", inverse(100), 5e6, []int{4}, 0.01, []int{1000, 2000}, 2000, false, 0.05,
			"accuracy 0.01 not met: reached 0.05 at 2000 buckets (2 rounds; the next round, 12000 buckets, needs about"},
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
			"accuracy 1e-06 not met: reached 0.036 at 2000 buckets (2 rounds; at the rate the brackets narrowed from 1000 to 2000 buckets, none would meet the target by 67108864 buckets"},
		{"bucket cap", func(int, int) float64 { return 1 }, 1 << 62, []int{4}, 0.5, nil, 0, false, 1, "67108864 buckets is the largest size"},
		// buckets 0 on a backend without the power path: the chain from
		// the default count
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
			job.Round = func(round, buckets int, unit string) {
				if unit != "buckets" {
					t.Errorf("round %d on the chain announced in %q", round, unit)
				}
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

// TestRefinePaths runs the refinement from Buckets = 0 on a fake backend
// with a power path: the rounds' paths and sizes (the power path from
// powerStartPoints, jumping to the transform length at which its N^-2 rate, or
// the rate measured, meets the target; the chain from DefaultBuckets where
// the mechanism does not qualify or the power path's brackets stop
// narrowing at its rate), the round reported and its sentence.
func TestRefinePaths(t *testing.T) {
	const target = 1e-4
	invSq := func(c float64) func(int, int) float64 { // width c/n^2
		return func(_, n int) float64 { return c / float64(n) / float64(n) }
	}
	inverse := func(c float64) func(int, int) float64 {
		return func(_, n int) float64 { return c / float64(n) }
	}
	pow := func(w0, p float64) func(int, int) float64 { // w0 at 2^14, like N^-p
		return func(_, n int) float64 { return w0 * math.Pow(float64(n)/(1<<14), -p) }
	}
	table := func(w map[int]float64) func(int, int) float64 {
		return func(_, n int) float64 { return w[n] }
	}
	type call struct {
		path string
		size int
	}
	p, c := manifest.PathPower, manifest.PathChain
	tests := []struct {
		name    string
		buckets int // the spec's count (0: start cheap)
		power   func(r, n int) float64
		chain   func(r, n int) float64
		calls   []call
		met     bool
		note    string
	}{
		// 3.4e-3 at 2^14: the next length is 2^14 sqrt(34) = 95,534,
		// rounded up to the transform length 3 2^15
		{"power path jumps", 0, invSq(3.4e-3 * (1 << 28)), inverse(5), []call{{p, 1 << 14}, {p, 3 << 15}}, true,
			"accuracy 0.0001 met at 98304 points of the power path (2 rounds)"},
		{"met at the first length", 0, invSq(5e-5 * (1 << 28)), inverse(5), []call{{p, 1 << 14}}, true,
			"accuracy 0.0001 met at 16384 points of the power path (1 round)"},
		// N^-2 from 2^14 asks for 163,840 points (3 2^16); measured
		// N^-1.5 from there: 2.4e-4 needs 1.79 times more, times
		// powerRateMargin: 2^19
		{"power path at the measured rate", 0, pow(1e-2, 1.5), inverse(5), []call{{p, 1 << 14}, {p, 3 << 16}, {p, 1 << 19}}, true,
			"accuracy 0.0001 met at 524288 points of the power path (3 rounds)"},
		{"mechanism without the power path", 0, nil, inverse(5), []call{{c, 100000}}, true,
			"accuracy 0.0001 met at 100000 buckets (1 round)"},
		{"power path stops narrowing", 0, func(int, int) float64 { return 0.027 }, inverse(5), []call{{p, 1 << 14}, {p, 3 << 17}, {c, 100000}}, true,
			"accuracy 0.0001 met at 100000 buckets (3 rounds)"},
		{"power path narrows too slowly", 0, pow(1e-2, 0.5), inverse(5), []call{{p, 1 << 14}, {p, 3 << 16}, {c, 100000}}, true,
			"accuracy 0.0001 met at 100000 buckets (3 rounds)"},
		// the refinement keeps the power path's round when it is
		// narrower, and stops when the chain's first round does not
		// narrow it
		// N^-0.5: the power path goes on at its assumed rate while a
		// round costs less than half the chain's first (to 2^20), then
		// the chain's first round must narrow its best bracket
		{"chain no better than the power path", 0, pow(1e-3, 0.5), inverse(1e4), []call{{p, 1 << 14}, {p, 1 << 16}, {p, 3 << 16}, {p, 3 << 17}, {p, 3 << 18}, {c, 100000}}, false,
			"accuracy 0.0001 not met: reached 0.00015 at 786432 points of the power path (6 rounds; the chain at 100000 buckets narrowed no bracket of the power path's)"},
		// the chain goes on when its first round narrows the power
		// path's best bracket: 0.005 at 100000, 0.0025 at 200000, then
		// the jump at rate 1 to 200000 25 1.2 = 6,000,000 buckets, whose
		// predicted cost (52 s) is beyond the budget
		{"chain narrower than the power path", 0, func(int, int) float64 { return 0.01 }, inverse(500), []call{{p, 1 << 14}, {p, 3 << 16}, {c, 100000}, {c, 200000}}, false,
			"accuracy 0.0001 not met: reached 0.0025 at 200000 buckets (4 rounds; the next round, 6000000 buckets, is predicted to take about 52 s of CPU, more than 4 s and 8 times the 3 s spent; the rate measured so far extrapolates to the target there (not a promise: rates fall at large sizes) (--buckets 6000000))"},
		// DP-SGD 0.6/0.004, r 10^5 (issue 24): uneven below 2^18 points;
		// the power path at its assumed rate from 2^17 meets the target
		// at 2^19 instead of leaving for the chain
		{"power path through uneven small lengths", 0, table(map[int]float64{1 << 14: 3.8e-3, 1 << 15: 6.8e-3, 1 << 16: 2.9e-3, 1 << 17: 1.3e-3, 1 << 18: 2.5e-4, 1 << 19: 3.8e-5}),
			inverse(500), []call{{p, 1 << 14}, {p, 1 << 17}, {p, 1 << 19}}, true,
			"accuracy 0.0001 met at 524288 points of the power path (3 rounds)"},
		// the first jump of the power path is at most powerFirstJump
		{"first jump capped", 0, pow(0.4, 2.6), inverse(5), []call{{p, 1 << 14}, {p, 1 << 19}}, true,
			"accuracy 0.0001 met at 524288 points of the power path (2 rounds)"},
		{"explicit bucket count keeps the chain", 8000, invSq(1), inverse(0.5), []call{{c, 8000}}, true,
			"accuracy 0.0001 met at 8000 buckets (1 round)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			be := &widthBackend{width: tc.chain, power: tc.power, bytesPerBucket: 1}
			spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 1},
				Engine: manifest.EngineOptions{Buckets: tc.buckets, ErrorCorrection: true, Accuracy: target}}
			job := Job{Instance: &manifest.Instance{Label: "g", Spec: spec}, Compositions: []int{4}, Eps: []float64{1}}
			var announced []call // the rounds announced, by unit
			job.Round = func(_, size int, unit string) { announced = append(announced, call{unit, size}) }
			bm := &Buckets{States: &states.Service{Backend: be, Memory: states.NewBudget(1 << 40)}}
			outs, err := bm.Run(context.Background(), job)
			if err != nil {
				t.Fatal(err)
			}
			var got, units []call
			for i, cc := range be.calls {
				got = append(got, call{be.paths[i], cc.buckets})
				unit := "buckets"
				if be.paths[i] == p {
					unit = "points"
				}
				units = append(units, call{unit, cc.buckets})
			}
			if !slices.Equal(got, tc.calls) {
				t.Errorf("rounds %v, want %v", got, tc.calls)
			}
			if !slices.Equal(announced, units) {
				t.Errorf("rounds announced as %v, want %v", announced, units)
			}
			a := outs[0].Accuracy
			if a == nil || a.Met != tc.met || !strings.Contains(outs[0].Note, tc.note) {
				t.Errorf("accuracy %+v, note %q; want met %v and a note with %q", a, outs[0].Note, tc.met, tc.note)
			}
		})
	}
}

// TestRefineSplitsByPath: the numbers of compositions that qualify for
// the power path refine on it, the others on the chain from the default
// count, each reporting its own path.
func TestRefineSplitsByPath(t *testing.T) {
	be := &widthBackend{width: func(_, n int) float64 { return 5 / float64(n) }, bytesPerBucket: 1,
		power:     func(_, n int) float64 { return 3.4e-3 * (1 << 28) / float64(n) / float64(n) },
		qualifies: func(r int) bool { return r == 4 }}
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 1},
		Engine: manifest.EngineOptions{ErrorCorrection: true, Accuracy: 1e-4}}
	job := Job{Instance: &manifest.Instance{Label: "g", Spec: spec}, Compositions: []int{8, 4}, Eps: []float64{1}}
	bm := &Buckets{States: &states.Service{Backend: be, Memory: states.NewBudget(1 << 40)}}
	outs, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	// the chain composes its shaping counts (4 among them), the power
	// path each r alone
	want := []composeCall{{1 << 14, []int{4}}, {3 << 15, []int{4}}, {100000, []int{8, 4}}}
	wantPaths := []string{manifest.PathPower, manifest.PathPower, manifest.PathChain}
	if len(be.calls) != len(want) || !slices.Equal(be.paths, wantPaths) {
		t.Fatalf("calls %v on %v, want %v on %v", be.calls, be.paths, want, wantPaths)
	}
	for i, c := range be.calls {
		if c.buckets != want[i].buckets || !slices.Equal(c.rs, want[i].rs) {
			t.Errorf("call %d: %v, want %v", i, c, want[i])
		}
	}
	for _, c := range []struct {
		o       Outcome
		path    string
		buckets int
	}{{outs[0], manifest.PathChain, 100000}, {outs[1], manifest.PathPower, 3 << 15}} {
		if a := c.o.Accuracy; a == nil || !a.Met || a.Path != c.path || c.o.Buckets != c.buckets {
			t.Errorf("r=%d: %d, accuracy %+v; want met on %s at %d", c.o.R, c.o.Buckets, a, c.path, c.buckets)
		}
	}
}

// TestNextSize checks the jump rule: the size at which a width falling
// like size^-p meets the target, times the margin, within a doubling and
// maxJump times the size, and a doubling without a rate.
func TestNextSize(t *testing.T) {
	for _, c := range []struct {
		name      string
		w, p, tgt float64
		n         int
		want      float64
	}{
		{"square-root jump at rate 2", 3.6e-3, 2, 1e-4, 1000, 1000 * 6 * accuracyMargin},
		{"linear jump at rate 1", 5e-4, 1, 1e-4, 1000, 1000 * 5 * accuracyMargin},
		{"at least a doubling", 1.1e-4, 2, 1e-4, 1000, 2000},
		{"at most maxJump", 1, 1, 1e-4, 1000, 1000 * maxJump},
		{"no rate: a doubling", 1, 0, 1e-4, 1000, 2000},
		{"infinite width: a doubling", math.Inf(1), 2, 1e-4, 1000, 2000},
	} {
		if got := nextSize(c.w, c.p, c.tgt, accuracyMargin, accuracyGrowth, c.n); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("%s: nextSize = %v, want %v", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		path string
		x    float64
		want int
	}{
		{manifest.PathPower, 114600, 1 << 17},
		{manifest.PathPower, 34300, 3 << 14},
		{manifest.PathPower, 98305, 1 << 17},
		{manifest.PathPower, 1e300, 2 * maxPowerPoints},
		{manifest.PathPower, 1 << 17, 1 << 17},
		{manifest.PathPower, 100, powerStartPoints},
		{manifest.PathChain, 4683, 4700},
		{manifest.PathChain, 12000, 12000},
		{manifest.PathChain, 123456, 130000},
		{manifest.PathChain, 10, 12},
	} {
		if got := roundSize(c.path, c.x); got != c.want {
			t.Errorf("roundSize(%s, %v) = %d, want %d", c.path, c.x, got, c.want)
		}
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
	// the third round jumps to 2000 (0.008/0.0041) 1.2, 4700 buckets
	want := []composeCall{{1000, []int{10, 12, 16}}, {2000, []int{12, 16}}, {4700, []int{16}}}
	if len(be.calls) != len(want) {
		t.Fatalf("calls %v, want %v", be.calls, want)
	}
	for i, c := range be.calls {
		if c.buckets != want[i].buckets || !slices.Equal(c.rs, want[i].rs) {
			t.Errorf("call %d: %v, want %v", i, c, want[i])
		}
	}
	for i, n := range []int{1000, 2000, 4700} {
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
	if len(be.calls) != 3 || first[0].Buckets != 4700 || first[0].Cached {
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

// TestRefinePowerFallback: a round asked of the power path that the chain
// composed (DP-SGD sigma 1, q 1e-4, r 2^30: the power path's rounding-error
// bound) is the chain's: reported and announced as buckets; the power path
// is asked once more at powerRetryPoints, and when the chain composes that
// round too, the refinement goes on with the chain and stops when the
// round the rate predicts is beyond the CPU budget, with the best bracket.
func TestRefinePowerFallback(t *testing.T) {
	chain := map[int]float64{1 << 14: 0.37, 1 << 17: 0.025}
	be := &widthBackend{width: func(_, n int) float64 { return chain[n] }, power: func(int, int) float64 { return 1e-6 },
		fallback: true, bytesPerBucket: 1}
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 1},
		Engine: manifest.EngineOptions{ErrorCorrection: true, Accuracy: 1e-4}}
	job := Job{Instance: &manifest.Instance{Label: "g", Spec: spec}, Compositions: []int{1 << 30}, Eps: []float64{1}}
	var announced []string
	job.Round = func(round, size int, unit string) {
		announced = append(announced, fmt.Sprintf("%d: %d %s", round, size, unit))
	}
	bm := &Buckets{States: &states.Service{Backend: be, Memory: states.NewBudget(1 << 40)}}
	outs, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if len(be.calls) != 2 || be.calls[0].buckets != 1<<14 || be.calls[1].buckets != 1<<17 {
		t.Errorf("calls %v, want at 16384 and 131072", be.calls)
	}
	const fell = " buckets (the chain: the power path does not qualify at this length)"
	wantAnn := []string{"1: 16384 points", "1: 16384" + fell, "2: 131072 points", "2: 131072" + fell}
	if !slices.Equal(announced, wantAnn) {
		t.Errorf("announced %q, want %q", announced, wantAnn)
	}
	o := outs[0]
	a := o.Accuracy
	if a == nil || a.Met || a.Path != manifest.PathChain || o.Buckets != 1<<17 || math.Abs(a.Reached-0.025) > 1e-12 {
		t.Fatalf("outcome %d buckets, accuracy %+v; want not met, 0.025 on the chain at 131072", o.Buckets, a)
	}
	for _, w := range []string{"at 131072 buckets (2 rounds; the next round, 8400000 buckets, is predicted to take about", "(--buckets "} {
		if !strings.Contains(o.Note, w) {
			t.Errorf("note %q, want it to contain %q", o.Note, w)
		}
	}
}

// TestNextRound checks the choice of the next round on rounds given
// (costs in CPU seconds): the path, size or the reason to stop.
func TestNextRound(t *testing.T) {
	p, c := manifest.PathPower, manifest.PathChain
	for _, tc := range []struct {
		name     string
		plan     refinePlan
		want     step
		stopWith string
	}{
		{"power path's first jump at N^-2", refinePlan{target: 1e-4, maxR: 1e5, powerOK: true,
			rounds: []roundStat{{p, 1 << 14, 0.03, 3.4e-3}}}, step{p, 3 << 15}, ""},
		// N^-1.5 measured, extrapolated at 3/4 of it (powerRateDamping):
		// 2^16 (12.5)^(1/1.125) 1.15 = 711,000 points
		{"power path at its measured rate", refinePlan{target: 1e-4, maxR: 1e5, powerOK: true,
			rounds: []roundStat{{p, 1 << 14, 0.03, 1e-2}, {p, 1 << 16, 0.05, 1e-2 / 8}}}, step{p, 3 << 18}, ""},
		// slower than N^-1 at small lengths: the assumed rate while cheap
		{"power path at its assumed rate", refinePlan{target: 1e-4, maxR: 1e5, powerOK: true,
			rounds: []roundStat{{p, 1 << 14, 0.03, 3.8e-3}, {p, 1 << 17, 0.06, 1.3e-3}}}, step{p, 1 << 19}, ""},
		// at 2^21 points a round of the power path costs more than half
		// the chain's first: the chain
		{"assumed rate too dear", refinePlan{target: 1e-4, maxR: 1e5, powerOK: true,
			rounds: []roundStat{{p, 1 << 19, 0.2, 1.3e-3}, {p, 1 << 20, 0.4, 1e-3}}}, step{c, 100000}, ""},
		{"no assumed rate after the chain", refinePlan{target: 1e-4, maxR: 1e5, powerOK: true,
			rounds: []roundStat{{p, 1 << 14, 0.03, 3.8e-3}, {p, 1 << 17, 0.06, 1.3e-3}, {c, 100000, 1.3, 2e-3}}}, step{}, "the chain at 100000 buckets narrowed no bracket of the power path's"},
		// a round asked of the power path after its first fell back to
		// the chain: asked again one length finer (not at that length),
		// and that round is not the chain's own (the power path goes on
		// at its assumed rate)
		{"fallback after a power round: a finer grid", refinePlan{target: 1e-4, maxR: 1e5, powerOK: true, fellBack: true,
			fallbacks: 1, fellBackAt: 3 << 13,
			rounds: []roundStat{{p, 1 << 14, 0.03, math.Inf(1)}, {c, 3 << 13, 0.17, 6e-4}}}, step{p, 1 << 15}, ""},
		{"fallback after a power round, then the assumed rate", refinePlan{target: 1e-4, maxR: 1e5, powerOK: true, fellBack: true,
			fallbacks: 1, fellBackAt: 3 << 13,
			rounds: []roundStat{{p, 1 << 14, 0.03, math.Inf(1)}, {c, 3 << 13, 0.17, 6e-4}, {p, 1 << 15, 0.04, 5e-3}}}, step{p, 1 << 18}, ""},
		{"fallback: the chain from its default count", refinePlan{target: 1e-4, maxR: 1 << 30, fellBack: true,
			rounds: []roundStat{{c, 1 << 14, 0.5, 0.37}}}, step{c, 100000}, ""},
		{"chain doubles, then jumps", refinePlan{target: 1e-4, maxR: 1 << 10,
			rounds: []roundStat{{c, 100000, 0.1, 2e-3}}}, step{c, 200000}, ""},
		{"chain jump at the rate", refinePlan{target: 1e-4, maxR: 1 << 10,
			rounds: []roundStat{{c, 100000, 0.1, 2e-3}, {c, 200000, 0.2, 1e-3}}}, step{c, 2400000}, ""},
		// the jump, 64 times the count, would cost about 60 x 0.2 s:
		// over 8 x 0.3 s spent and 4 s: the largest round within what
		// remains of the 4 s floor
		{"over budget: a smaller round", refinePlan{target: 1e-5, maxR: 1 << 10,
			rounds: []roundStat{{c, 100000, 0.1, 2e-3}, {c, 200000, 0.2, 1e-3}}}, step{c, 3700000}, ""},
		{"over budget: stop", refinePlan{target: 1e-5, maxR: 1 << 10,
			rounds: []roundStat{{c, 100000, 1, 2e-3}, {c, 200000, 2, 1e-3}}}, step{}, "the next round, 13000000 buckets, is predicted to take about 122 s of CPU, more than 4 s and 8 times the 3 s spent; the rate measured so far extrapolates to the target at about 24000000 buckets, about 225 s (--buckets 24000000)"},
		{"within 8x the spent", refinePlan{target: 1e-4, maxR: 1 << 10,
			rounds: []roundStat{{c, 100000, 2, 2e-3}, {c, 200000, 4, 4e-4}}}, step{c, 440000}, ""},
		{"no narrowing", refinePlan{target: 1e-4, maxR: 1 << 10,
			rounds: []roundStat{{c, 100000, 0.1, 2e-3}, {c, 200000, 0.2, 1.9e-3}}}, step{}, "no bracket narrowed from 100000 to 200000 buckets"},
	} {
		got, why := nextRound(tc.plan)
		if got != tc.want || !strings.Contains(why, tc.stopWith) || (tc.stopWith == "") != (why == "") {
			t.Errorf("%s: next %v, stop %q; want %v, stop with %q", tc.name, got, why, tc.want, tc.stopWith)
		}
	}
}

// noPrediction is the engine's backend without its prediction of the
// power path's first length (the probe at powerStartPoints always).
type noPrediction struct{ backend.Engine }

func (noPrediction) PowerStart(context.Context, backend.Mechanism, int, []float64, []float64, float64, int, int, manifest.EngineOptions) (int, error) {
	return 0, nil
}

// TestRefineEngineRoutes: with the real engine, DP-SGD sigma 0.55, q
// 0.004, r 10^5 (eps(1e-5) about 43.82): without the first length's
// prediction, the power path's first round at 2^14 points is composed by
// the chain (its lower pair does not qualify on that grid) and announced
// so; the power path asked again at 2^17 points composes, and meets 1e-4
// at 2^19 points, the path reported. With it, the first round is the
// predicted 3·2^17 points and the second 2^19. The Gauss pair reports its
// closed form.
func TestRefineEngineRoutes(t *testing.T) {
	if testing.Short() {
		t.Skip("composes DP-SGD at r 10^5 (about 1 s)")
	}
	spec := manifest.MechanismSpec{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": 0.55, "q": 0.004},
		Engine: manifest.EngineOptions{ErrorCorrection: true, Accuracy: 1e-4}}
	job := Job{Instance: &manifest.Instance{Label: "sgd", Spec: spec}, Compositions: []int{100000}, Delta: []float64{1e-5}}
	var announced []string
	job.Round = func(round, size int, unit string) {
		announced = append(announced, fmt.Sprintf("%d: %d %s", round, size, unit))
	}
	predicted := &Buckets{States: &states.Service{Backend: backend.Engine{}, Memory: states.NewBudget(1 << 40)}}
	if _, err := predicted.Run(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if want := []string{"1: 393216 points", "2: 524288 points"}; !slices.Equal(announced, want) {
		t.Errorf("rounds with the prediction %q, want %q", announced, want)
	}
	announced = nil
	bm := &Buckets{States: &states.Service{Backend: noPrediction{}, Memory: states.NewBudget(1 << 40)}}
	outs, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1: 16384 points", "1: 16384 buckets (the chain: the power path does not qualify at this length)", "2: 131072 points", "3: 524288 points"}
	if !slices.Equal(announced, want) {
		t.Errorf("rounds %q, want %q", announced, want)
	}
	o := outs[0]
	if a := o.Accuracy; a == nil || !a.Met || a.Path != manifest.PathPower || o.Buckets != 1<<19 {
		t.Errorf("outcome at %d, accuracy %+v; want met on the power path at 524288 points", o.Buckets, a)
	}
	if b := o.Eps[0]; !(b.Lower <= 43.825 && b.Upper >= 43.823) {
		t.Errorf("eps bracket [%v, %v], want about 43.824", b.Lower, b.Upper)
	}

	gspec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 200, "sensitivity": 1},
		Engine: manifest.EngineOptions{ErrorCorrection: true, Accuracy: 1e-4}}
	gjob := Job{Instance: &manifest.Instance{Label: "g", Spec: gspec}, Compositions: []int{512}, Eps: []float64{0.01}}
	gouts, err := bm.Run(context.Background(), gjob)
	if err != nil {
		t.Fatal(err)
	}
	if a := gouts[0].Accuracy; a == nil || a.Path != backend.PathClosedForm {
		t.Errorf("Gauss: accuracy %+v, want the closed form's path", a)
	}
}

// TestFirstStepsAskWithTheFloor checks that the first round's path is
// chosen with the question's floor, as the rounds compose: DP-SGD sigma
// 0.6, q 0.016, r 10^5 (eps about 215 at delta 1e-5) has a composed range
// beyond the power path's at the default tail budget, within it at the
// floor's, and starts on the power path. The target 1e-6 is beyond the
// lengths the engine predicts (powerPredictedPoints), so that the start is
// PowerPath's.
func TestFirstStepsAskWithTheFloor(t *testing.T) {
	spec := manifest.MechanismSpec{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": 0.6, "q": 0.016},
		Engine: manifest.EngineOptions{ErrorCorrection: true, Accuracy: 1e-6}}
	bm := &Buckets{States: &states.Service{Backend: backend.Engine{}, Memory: states.NewBudget(1 << 40)}}
	mech, err := backend.Engine{}.Mechanism(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if q, err := (backend.Engine{}).PowerPath(ctx, mech, 100000, spec.Engine); err != nil || q {
		t.Fatalf("without the floor: PowerPath %v, %v; want false (the case no longer tests the floor)", q, err)
	}
	steps, err := bm.firstSteps(ctx, spec, mech, []int{100000}, nil, []float64{1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if want := (step{manifest.PathPower, powerStartPoints}); steps[0] != want {
		t.Errorf("first step %+v, want %+v", steps[0], want)
	}
}

// TestFirstStepsPredictTheLength checks that the first round on the power
// path is the length the engine predicts for the target where that is at
// most powerPredictedPoints (DP-SGD sigma 4, q 0.01, r 65,536 at delta
// 1e-5: 3·2^14 points for 1.45e-4 and 3·2^16 for 1e-5, each met there in
// one round), and the probe at powerStartPoints where it predicts nothing
// (DP-SGD sigma 0.6, q 0.001, r 10^4: a heavy right tail) or a length
// beyond powerPredictedPoints (sigma 4 at 1e-7).
func TestFirstStepsPredictTheLength(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		sigma, q float64
		r        int
		target   float64
		want     int
	}{
		{4, 0.01, 65536, 1.45e-4, 3 << 14},
		{4, 0.01, 65536, 1e-3, powerStartPoints},
		{4, 0.01, 65536, 1e-5, 3 << 16},
		{4, 0.01, 65536, 1e-7, powerStartPoints},
		{0.6, 0.001, 10000, 1e-4, powerStartPoints},
	} {
		spec := manifest.MechanismSpec{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": c.sigma, "q": c.q},
			Engine: manifest.EngineOptions{ErrorCorrection: true, Accuracy: c.target}}
		bm := &Buckets{States: &states.Service{Backend: backend.Engine{}, Memory: states.NewBudget(1 << 40)}}
		mech, err := backend.Engine{}.Mechanism(spec)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := bm.firstSteps(ctx, spec, mech, []int{c.r}, nil, []float64{1e-5})
		if err != nil {
			t.Fatal(err)
		}
		if want := (step{manifest.PathPower, c.want}); steps[0] != want {
			t.Errorf("sigma %g q %g r %d target %g: first step %+v, want %+v", c.sigma, c.q, c.r, c.target, steps[0], want)
		}
	}
}

// TestClosedFormStart checks the first bucket count of a composition in
// closed form per target, and that the Gauss pair's r 512 row (sigma 200
// sqrt 2, delta at e^eps 1.01 and 1.5) meets a target of 1.9e-3 in one
// round from it (1,024 buckets) and 1e-5 in one round at 4,096 (e^eps 1.5
// recomposed aligned).
func TestClosedFormStart(t *testing.T) {
	for _, c := range []struct {
		target float64
		want   int
	}{{1e-5, 4096}, {1e-4, 4096}, {9.9e-4, 4096}, {1e-3, 1024}, {1.9e-3, 1024}, {0.5, 1024}} {
		if got := closedFormStart(c.target); got != c.want {
			t.Errorf("closedFormStart(%g) = %d, want %d", c.target, got, c.want)
		}
	}
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 200 * math.Sqrt2, "sensitivity": 1},
		Engine: manifest.EngineOptions{ErrorCorrection: true, Accuracy: 1.9e-3}}
	job := Job{Instance: &manifest.Instance{Label: "g", Spec: spec}, Compositions: []int{512}, Eps: []float64{math.Log(1.01), math.Log(1.5)}}
	bm := &Buckets{States: &states.Service{Backend: backend.Engine{}, Memory: states.NewBudget(1 << 40)}}
	outs, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	o := outs[0]
	if a := o.Accuracy; a == nil || !a.Met || a.Rounds != 1 || o.Buckets != 1024 {
		t.Errorf("outcome at %d buckets, accuracy %+v; want met in one round at 1024", o.Buckets, a)
	}
	spec.Engine.Accuracy = 1e-5
	job.Instance.Spec = spec
	outs, err = bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if o, a := outs[0], outs[0].Accuracy; a == nil || !a.Met || a.Rounds != 1 || o.Buckets != 4096 {
		t.Errorf("target 1e-5: outcome at %d buckets, accuracy %+v; want met in one round at 4096", o.Buckets, a)
	}
}
