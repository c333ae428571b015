package states

import (
	"context"
	"errors"
	"math"
	"os"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
)

// countingEngine is the engine backend counting its compositions and
// decodings.
type countingEngine struct {
	backend.Engine
	composed, decoded *atomic.Int64
}

func (b countingEngine) ComposeMany(ctx context.Context, m backend.Mechanism, rs []int, opt manifest.EngineOptions, progress func(int, int)) ([]backend.State, error) {
	b.composed.Add(1)
	return b.Engine.ComposeMany(ctx, m, rs, opt, progress)
}

func (b countingEngine) DecodeState(data []byte) (backend.State, error) {
	b.decoded.Add(1)
	return b.Engine.DecodeState(data)
}

// query is one call on a state (Op: opDelta, opEps, ...).
type query struct {
	op  byte
	arg float64
}

// ask makes the calls qs on st and returns every result (Notes as
// strings), bits compared by the caller.
func ask(st backend.State, qs []query) []any {
	var out []any
	for _, q := range qs {
		switch q.op {
		case opDelta:
			up, lo := st.DeltaBounds(q.arg)
			out = append(out, [2]float64{up, lo})
		case opEps:
			up, lo := st.EpsBounds(q.arg)
			out = append(out, [2]float64{up, lo})
		case opRenyi:
			lo, up, est := st.(fullState).RenyiBounds(q.arg)
			out = append(out, [3]float64{lo, up, est})
		case opTPR:
			lo, up, mu := st.(fullState).TPRBounds(q.arg)
			out = append(out, [3]float64{lo, up, mu})
		case opSummary:
			out = append(out, st.Summary())
		case opNotes:
			out = append(out, st.(fullState).Notes())
		}
	}
	return out
}

// sameAnswers reports whether two answer lists are equal bit for bit
// (NaN equals NaN).
func sameAnswers(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		switch x := a[i].(type) {
		case [2]float64:
			y, ok := b[i].([2]float64)
			if !ok || !sameBits(x[:], y[:]) {
				return false
			}
		case [3]float64:
			y, ok := b[i].([3]float64)
			if !ok || !sameBits(x[:], y[:]) {
				return false
			}
		case backend.StateSummary:
			y, ok := b[i].(backend.StateSummary)
			if !ok || x.Buckets != y.Buckets || !sameBits([]float64{x.Factor, x.InfinityMass}, []float64{y.Factor, y.InfinityMass}) {
				return false
			}
		default:
			if !reflect.DeepEqual(a[i], b[i]) {
				return false
			}
		}
	}
	return true
}

func sameBits(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestGetReplaysCachedAnswers checks the cached answers of states with
// the engine: a state whose queries follow a cached transcript answers
// them without being decoded, bit for bit as the state composed afresh
// answers the same calls; calls that leave every transcript decode the
// state once (it answers them, its notes included, as a fresh state);
// both transcripts are then kept; an undecodable state whose answers are
// cached is composed again when a query leaves them; undecodable answers
// are ignored; a state that can be neither decoded nor composed answers
// trivially (delta_up 1, eps_up +Inf) and Stored says why.
func TestGetReplaysCachedAnswers(t *testing.T) {
	ctx := context.Background()
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 2, "sensitivity": 1},
		Engine: manifest.EngineOptions{Buckets: 2000, ErrorCorrection: true}}
	mech, err := backend.Engine{}.Mechanism(spec)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Mechanism: mech, Spec: spec, R: []int{16}, Delta: []float64{1e-5}}
	// one question's calls, as the buckets method asks them, and another's
	first := []query{{opSummary, 0}, {opEps, 1e-5}, {opNotes, 0}}
	second := []query{{opSummary, 0}, {opEps, 1e-5}, {opDelta, 0.5}, {opEps, 1e-300}, {opRenyi, 2}, {opTPR, 1e-3}, {opNotes, 0}}
	fresh := func(qs []query) []any {
		got, err := (&Service{Backend: backend.Engine{}}).Get(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return ask(got.States[0], qs)
	}
	third := []query{{opSummary, 0}, {opDelta, 1}, {opNotes, 0}}
	want := map[string][]any{"first": fresh(first), "second": fresh(second), "third": fresh(third)}
	calls := map[string][]query{"first": first, "second": second, "third": third}

	var composed, decoded atomic.Int64
	dir := t.TempDir()
	s := &Service{Backend: countingEngine{composed: &composed, decoded: &decoded}, Dir: dir}
	// the key Get files the state under: with the question's floor
	kreq, err := s.withDeltaFloor(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	key := s.Key(kreq, 16)
	for _, c := range []struct {
		name, question string
		corrupt        string // "state" or "answers": overwritten before the Get
		wantCached     bool
		wantComposed   int64 // compositions and decodings in this Get
		wantDecoded    int64
	}{
		{"composed, answers recorded", "first", "", false, 1, 0},
		{"same calls replayed", "first", "", true, 0, 0},
		{"other calls: decoded once", "second", "", true, 0, 1},
		{"other calls replayed", "second", "", true, 0, 0},
		{"first calls still replayed", "first", "", true, 0, 0},
		{"undecodable state, answers followed", "first", "state", true, 0, 0},
		{"undecodable state, answers left: composed again", "third", "state", true, 1, 1},
		{"state composed again was cached", "second", "answers", true, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			c0, d0 := composed.Load(), decoded.Load()
			switch c.corrupt {
			case "state":
				if err := os.WriteFile(disk(dir).path(key), []byte("not a state"), 0o644); err != nil {
					t.Fatal(err)
				}
			case "answers":
				if err := os.WriteFile(disk(dir).file(key+".answers"), []byte("not answers"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.Get(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			answers := ask(got.States[0], calls[c.question])
			if err := got.Stored(); err != nil {
				t.Fatal(err)
			}
			if got.Cached[0] != c.wantCached {
				t.Errorf("cached %v, want %v", got.Cached[0], c.wantCached)
			}
			if dc, dd := composed.Load()-c0, decoded.Load()-d0; dc != c.wantComposed || dd != c.wantDecoded {
				t.Errorf("%d compositions and %d decodings, want %d and %d", dc, dd, c.wantComposed, c.wantDecoded)
			}
			if !sameAnswers(answers, want[c.question]) {
				t.Errorf("answers %v, a fresh state's %v", answers, want[c.question])
			}
		})
	}

	t.Run("duplicate r: one state", func(t *testing.T) {
		dup := req
		dup.R = []int{8, 8}
		for i := range 2 { // composed, then cached
			got, err := s.Get(ctx, dup)
			if err != nil {
				t.Fatal(err)
			}
			ask(got.States[0], first)
			if err := got.Stored(); err != nil {
				t.Fatal(err)
			}
			if got.States[0] != got.States[1] || got.Cached[0] != (i == 1) {
				t.Errorf("get %d: states %p and %p, cached %v", i, got.States[0], got.States[1], got.Cached)
			}
		}
	})

	t.Run("neither decoded nor composed: trivial", func(t *testing.T) {
		if err := os.WriteFile(disk(dir).path(key), []byte("not a state"), 0o644); err != nil {
			t.Fatal(err)
		}
		tight := &Service{Backend: backend.Engine{}, Dir: dir, Memory: NewBudget(1)}
		got, err := tight.Get(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		answers := ask(got.States[0], []query{{opSummary, 0}, {opEps, 1e-5}, {opDelta, 0.25}})
		if up := answers[2].([2]float64); up[0] != 1 || !math.IsNaN(up[1]) {
			t.Errorf("delta bounds %v, want [1, NaN]", up)
		}
		var over *OverBudgetError
		if err := got.Stored(); !errors.As(err, &over) {
			t.Errorf("Stored: %v, want the refused composition", err)
		}
	})
}

// TestGetCallsBeforeComposeToCompose checks that Service.BeforeCompose is
// called before each composition and not for states read from the cache.
func TestGetCallsBeforeComposeToCompose(t *testing.T) {
	f := &pipelinetest.Fake{}
	calls := 0
	s := &Service{Backend: f, Dir: t.TempDir(), BeforeCompose: func() {
		if f.Calls != 0 {
			t.Errorf("called after %d compositions began", f.Calls)
		}
		calls++
	}}
	req := fakeRequest(t, f, 2, 4, 8)
	for i, want := range []int{1, 1} { // composed, then cached
		got, err := s.Get(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Stored(); err != nil {
			t.Fatal(err)
		}
		if calls != want {
			t.Errorf("get %d: BeforeCompose called %d times, want %d", i, calls, want)
		}
	}
}
