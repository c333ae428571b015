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

func (b *floorFake) DeltaFloor(_ context.Context, _ backend.Mechanism, r int, eps, deltas []float64) (float64, error) {
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
