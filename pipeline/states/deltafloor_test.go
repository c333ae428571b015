package states

import (
	"context"
	"math"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
)

// floorFake is a fake backend that chooses a delta floor (the smallest
// delta asked, or 1e-30 for any eps) and records the engine options of
// its compositions and the r it was asked the floor at.
type floorFake struct {
	*pipelinetest.Fake
	opts   []manifest.EngineOptions
	askedR []int
}

func (b *floorFake) DeltaFloor(_ context.Context, _ backend.Mechanism, r int, eps, deltas []float64, _ manifest.EngineOptions) (float64, error) {
	b.askedR = append(b.askedR, r)
	f := math.Inf(1)
	for _, d := range deltas {
		f = math.Min(f, d)
	}
	if len(eps) > 0 {
		f = math.Min(f, 1e-30)
	}
	return f, nil
}

func (b *floorFake) ComposeMany(ctx context.Context, m backend.Mechanism, rs []int, opt manifest.EngineOptions, progress func(int, int)) ([]backend.State, error) {
	b.opts = append(b.opts, opt)
	return b.Fake.ComposeMany(ctx, m, rs, opt, progress)
}

// TestGetSetsDeltaFloor checks that Get composes with the delta floor the
// backend chooses for the request's questions at the largest r of its
// chain, that the floor enters the cache key (a state composed for a
// deeper question is not taken for a shallower one, nor the other way),
// and that a spec with its own tail budget or factor, or a request
// without questions, composes with no floor.
func TestGetSetsDeltaFloor(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		edit func(*Request)
		want float64
	}{
		{"delta question", func(q *Request) { q.Delta = []float64{1e-5, 1e-12} }, 1e-12},
		{"eps question", func(q *Request) { q.Eps = []float64{3} }, 1e-30},
		{"no question", func(*Request) {}, 0},
		{"own tail budget", func(q *Request) { q.Delta = []float64{1e-12}; q.Spec.Engine.TailBudget = 1e-30 }, 0},
		{"own factor", func(q *Request) { q.Delta = []float64{1e-12}; q.Spec.Engine.Factor = 1.001 }, 0},
	} {
		f := &floorFake{Fake: &pipelinetest.Fake{}}
		s := &Service{Backend: f, Dir: t.TempDir()}
		q := fakeRequest(t, f.Fake, 2, 64)
		q.Basis = []int{1, 6400}
		c.edit(&q)
		got, err := s.Get(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Stored(); err != nil {
			t.Fatal(err)
		}
		if len(f.opts) != 1 || f.opts[0].DeltaFloor != c.want {
			t.Errorf("%s: composed with %+v, want delta floor %v", c.name, f.opts, c.want)
		}
		if c.want != 0 && (len(f.askedR) != 1 || f.askedR[0] != 6400) {
			t.Errorf("%s: floor asked at r %v, want the chain's largest, 6400", c.name, f.askedR)
		}
		// the same request finds its state; one without the question does not
		if _, err := s.Get(ctx, q); err != nil {
			t.Fatal(err)
		}
		bare := q
		bare.Eps, bare.Delta = nil, nil
		if _, err := s.Get(ctx, bare); err != nil {
			t.Fatal(err)
		}
		wantCalls := 1
		if c.want != 0 {
			wantCalls = 2
		}
		if len(f.opts) != wantCalls {
			t.Errorf("%s: %d compositions for the same request twice and without its question, want %d", c.name, len(f.opts), wantCalls)
		}
	}
}

// TestGetCachedAnswersAsFresh checks with the engine that a count pair's
// state read back from the cache answers a far-tail question as the state
// that was composed (the decoded state gets its mechanism back: the wire
// does not carry the event bounds of its far tail), Vuvuzela conversation
// GS(15k, 2.5k) after 1,024 rounds at e^eps 2.
func TestGetCachedAnswersAsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a paper-scale conversation pair")
	}
	ctx := context.Background()
	spec := manifest.MechanismSpec{Kind: manifest.KindVuvuzelaConversation,
		Params: map[string]float64{"mu": 15000, "scale": 2500},
		Noise:  "gauss",
		Engine: manifest.EngineOptions{Buckets: 100000, ErrorCorrection: true}}
	be := backend.Engine{}
	mech, err := be.Mechanism(spec)
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{Backend: be, Dir: t.TempDir()}
	eps := math.Log(2)
	req := Request{Mechanism: mech, Spec: spec, R: []int{1024}, Eps: []float64{eps}}
	var up, lo [2]float64
	for i, wantCached := range []bool{false, true} {
		got, err := s.Get(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Stored(); err != nil {
			t.Fatal(err)
		}
		if got.Cached[0] != wantCached {
			t.Fatalf("get %d: cached %v, want %v", i, got.Cached[0], wantCached)
		}
		up[i], lo[i] = got.States[0].DeltaBounds(eps)
	}
	t.Logf("delta(ln 2): composed [%.5g, %.5g], cached [%.5g, %.5g]", lo[0], up[0], lo[1], up[1])
	if up[1] != up[0] || lo[1] != lo[0] {
		t.Errorf("cached state answers [%g, %g], the composed one [%g, %g]", lo[1], up[1], lo[0], up[0])
	}
}

// engineRecorder is the engine's backend, recording the engine options of
// its compositions.
type engineRecorder struct {
	backend.Engine
	opts []manifest.EngineOptions
}

func (b *engineRecorder) ComposeMany(ctx context.Context, m backend.Mechanism, rs []int, opt manifest.EngineOptions, progress func(int, int)) ([]backend.State, error) {
	b.opts = append(b.opts, opt)
	return b.Engine.ComposeMany(ctx, m, rs, opt, progress)
}

// TestGetSetsShallowFloorWithEngine checks with the engine's backend that a
// DP-SGD question at delta 1e-5 composes with that floor where the power
// path may compose it (it takes its range from it), and with none on the
// chain at an explicit count or in closed form (the floor would not change
// the bits, and questions then share their states), and that delta(eps)
// asked of DP-SGD (no bound on delta before composing) and a delta the
// default budget resolves compose with none.
func TestGetSetsShallowFloorWithEngine(t *testing.T) {
	ctx := context.Background()
	sgd := func(buckets int, path string) manifest.MechanismSpec {
		return manifest.MechanismSpec{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": 1.1, "q": 0.01},
			Engine: manifest.EngineOptions{Buckets: buckets, ErrorCorrection: true, Path: path}}
	}
	gauss := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 2, "sensitivity": 1},
		Engine: manifest.EngineOptions{Buckets: 16384, ErrorCorrection: true, Path: manifest.PathPower}}
	for _, c := range []struct {
		name       string
		spec       manifest.MechanismSpec
		eps, delta []float64
		want       float64
	}{
		{"shallow delta, power path", sgd(4096, manifest.PathPower), nil, []float64{3e-5, 1e-3}, 1e-5},
		{"shallow delta, default path at 0", sgd(0, ""), nil, []float64{3e-5, 1e-3}, 1e-5},
		{"shallow delta, chain at a count: the floor changes nothing", sgd(4000, ""), nil, []float64{3e-5, 1e-3}, 0},
		{"shallow delta, closed form: the floor changes nothing", gauss, nil, []float64{3e-5}, 0},
		{"eps asked", sgd(4096, manifest.PathPower), []float64{1}, []float64{1e-5}, 0},
		{"deep delta", sgd(4096, manifest.PathPower), nil, []float64{1e-20}, 0},
	} {
		be := &engineRecorder{}
		mech, err := be.Mechanism(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		s := &Service{Backend: be, Dir: t.TempDir()}
		got, err := s.Get(ctx, Request{Mechanism: mech, Spec: c.spec, R: []int{100}, Eps: c.eps, Delta: c.delta})
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Stored(); err != nil {
			t.Fatal(err)
		}
		if len(be.opts) != 1 || be.opts[0].DeltaFloor != c.want {
			t.Errorf("%s: composed with %+v, want delta floor %v", c.name, be.opts, c.want)
		}
	}
}
