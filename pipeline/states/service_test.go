package states

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
)

// fakeRequest returns a request for a Fake mechanism of parameter sigma
// at the numbers of compositions rs.
func fakeRequest(t *testing.T, f *pipelinetest.Fake, sigma float64, rs ...int) Request {
	t.Helper()
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": sigma},
		Engine: manifest.EngineOptions{Buckets: 1000, ErrorCorrection: true}}
	mech, err := f.Mechanism(spec)
	if err != nil {
		t.Fatal(err)
	}
	return Request{Mechanism: mech, Spec: spec, R: rs}
}

// TestGetHitMiss checks which states come from the cache and which are
// composed: a first Get composes the missing r with the chain's shaping
// counts in one call; a second (another Service on the same folder) finds
// them all; a request whose chain has other shaping counts misses; a state
// the backend cannot decode is composed again; without a folder nothing
// is kept.
func TestGetHitMiss(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name       string
		dir        string
		rs, basis  []int
		corrupt    int    // r whose cached file is overwritten before the Get
		wantCached []bool // per r
		wantCalls  [][]int
	}{
		// the chain's shaping counts are 1, 10, 100, 500 (one r per group
		// of results at most half the largest, engine.ChainCounts) and 6400
		// (the largest); 4000 is not one
		{"first: all composed with the chain", dir, []int{10, 100}, []int{1, 500, 6400}, 0, []bool{false, false}, [][]int{{10, 100, 1, 500, 6400}}},
		{"second: all cached", dir, []int{100, 10}, []int{1, 500, 6400}, 0, []bool{true, true}, nil},
		{"chain's extra r cached too", dir, []int{1, 6400}, []int{10, 100, 500}, 0, []bool{true, true}, nil},
		{"same shaping counts, other basis: cached", dir, []int{10}, []int{1, 100, 500, 6400, 4000}, 0, []bool{true}, nil},
		{"other shaping counts: missed", dir, []int{10, 100}, []int{6400}, 0, []bool{false, false}, [][]int{{10, 100, 6400}}},
		{"undecodable state composed again", dir, []int{10, 100}, []int{1, 500, 6400}, 100, []bool{true, false}, [][]int{{100, 1, 10, 500, 6400}}},
		{"duplicate r composed once", dir, []int{7, 7}, nil, 0, []bool{false, false}, [][]int{{7}}},
		{"no folder: composed", "", []int{10, 100}, []int{1, 500, 6400}, 0, []bool{false, false}, [][]int{{10, 100, 1, 500, 6400}}},
		{"no folder: composed again", "", []int{10, 100}, []int{1, 500, 6400}, 0, []bool{false, false}, [][]int{{10, 100, 1, 500, 6400}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &pipelinetest.Fake{}
			s := &Service{Backend: f, Dir: tc.dir, Memory: NewBudget(1 << 20)}
			req := fakeRequest(t, f, 2, tc.rs...)
			req.Basis = tc.basis
			if tc.corrupt > 0 {
				path := disk(tc.dir).path(s.Key(req, tc.corrupt))
				if err := os.WriteFile(path, []byte("not a state"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.Get(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if err := got.Stored(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Cached, tc.wantCached) {
				t.Errorf("cached %v, want %v", got.Cached, tc.wantCached)
			}
			for i, st := range got.States {
				if fs := st.(*pipelinetest.FakeState); fs.R != tc.rs[i] || fs.Buckets != 1000 {
					t.Errorf("state %d: r %d, %d buckets; want r %d, 1000 buckets", i, fs.R, fs.Buckets, tc.rs[i])
				}
			}
			var calls [][]int
			if f.Calls > 0 {
				calls = [][]int{f.Composed}
			}
			if f.Calls > 1 || !reflect.DeepEqual(calls, tc.wantCalls) {
				t.Errorf("%d calls composing %v, want %v", f.Calls, f.Composed, tc.wantCalls)
			}
		})
	}
}

// TestGetMemory checks the budget: a composition needing more than the
// whole budget is refused with an *OverBudgetError before the backend is
// called; one needing all of it runs; a cached state needs no memory; the
// reservation is released after the composition.
func TestGetMemory(t *testing.T) {
	tests := []struct {
		name     string
		need     int64
		budget   int64
		cached   bool
		wantErr  bool
		wantCall bool
	}{
		{"within", 512, 1024, false, false, true},
		{"exactly the budget", 1024, 1024, false, false, true},
		{"over: refused", 2048, 1024, false, true, false},
		{"over but cached", 2048, 1024, true, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f := &pipelinetest.Fake{Memory: tc.need}
			req := fakeRequest(t, f, 2, 5)
			if tc.cached {
				if _, err := (&Service{Backend: &pipelinetest.Fake{}, Dir: dir}).getStored(req); err != nil {
					t.Fatal(err)
				}
			}
			s := &Service{Backend: f, Dir: dir, Memory: NewBudget(tc.budget)}
			if got := s.MemoryNeed(req.Spec); got != tc.need {
				t.Errorf("MemoryNeed = %d, want %d", got, tc.need)
			}
			_, err := s.getStored(req)
			var over *OverBudgetError
			if tc.wantErr != errors.As(err, &over) || (err != nil && !tc.wantErr) {
				t.Fatalf("error %v, want an *OverBudgetError: %v", err, tc.wantErr)
			}
			if tc.wantErr && !strings.Contains(err.Error(), "with 1000 buckets, more than the") {
				t.Errorf("error %q does not say the bucket count and the budget", err)
			}
			if (f.Calls > 0) != tc.wantCall {
				t.Errorf("backend called %d times, want a call: %v", f.Calls, tc.wantCall)
			}
			// the reservation is released: the whole budget can be taken
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if err := s.Memory.sem.Acquire(ctx, tc.budget); err != nil {
				t.Errorf("the budget is not free after Get: %v", err)
			}
		})
	}
}

// getStored is Get followed by Stored, given 10 s (a Get waiting for
// memory that never comes fails instead of hanging).
func (s *Service) getStored(req Request) (*Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := s.Get(ctx, req)
	if err != nil {
		return nil, err
	}
	return got, got.Stored()
}

// TestGetCancel checks that a Get waiting for memory and one whose
// composition is under way end with the context's error, and that nothing
// is cached then.
func TestGetCancel(t *testing.T) {
	tests := []struct {
		name  string
		sigma float64 // 17: the Fake's composition blocks until cancelled
		hold  bool    // the budget is taken by another composition
	}{
		{"waiting for memory", 2, true},
		{"composing", 17, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f := &pipelinetest.Fake{Memory: 1024}
			s := &Service{Backend: f, Dir: dir, Memory: NewBudget(1024)}
			if tc.hold {
				if err := s.Memory.sem.Acquire(context.Background(), 1024); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			got, err := s.Get(ctx, fakeRequest(t, f, tc.sigma, 3))
			if !errors.Is(err, context.DeadlineExceeded) || got != nil {
				t.Fatalf("Get = %v, %v; want nil and the context's error", got, err)
			}
			if tc.hold && f.Calls != 0 {
				t.Errorf("backend called %d times while waiting for memory", f.Calls)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the cache holds %d entries after a cancelled Get", len(entries))
			}
		})
	}
}

// TestGetErrors checks the refusals of malformed requests, a backend's
// failure and a cache that cannot be written (reported by Stored, with the
// states still usable).
func TestGetErrors(t *testing.T) {
	f := &pipelinetest.Fake{}
	good := fakeRequest(t, f, 2, 3)
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		s         *Service
		req       Request
		wantGet   string
		wantStore string
	}{
		{"no backend", &Service{}, good, "Service.Backend is nil", ""},
		{"no mechanism", &Service{Backend: f}, Request{Spec: good.Spec, R: []int{3}}, "Request.Mechanism is nil", ""},
		{"no r", &Service{Backend: f}, Request{Mechanism: good.Mechanism, Spec: good.Spec}, "Request.R is empty", ""},
		{"backend fails", &Service{Backend: f}, fakeRequest(t, f, 13, 3), "composition blew up", ""},
		{"unwritable cache", &Service{Backend: f, Dir: filepath.Join(blocked, "cache")}, good, "", "caching state"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.s.Get(context.Background(), tc.req)
			if tc.wantGet != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantGet) {
					t.Fatalf("Get error %v, want one containing %q", err, tc.wantGet)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if up, _ := got.States[0].DeltaBounds(1); !(up > 0) {
				t.Errorf("state unusable: delta_up %v", up)
			}
			stored := got.Stored()
			if stored == nil || !strings.Contains(stored.Error(), tc.wantStore) {
				t.Errorf("Stored = %v, want an error containing %q", stored, tc.wantStore)
			}
			if again := got.Stored(); again != stored {
				t.Errorf("Stored again = %v, want %v", again, stored)
			}
		})
	}
}

// versionedFake is a Fake with a build version (as backend.Engine has).
type versionedFake struct {
	*pipelinetest.Fake
	v string
}

func (b versionedFake) Version() string { return b.v }

// TestKeyIncludesWhatFixesTheBits checks that Service.Key changes with
// everything that changes a state's bits (the backend's build, the
// mechanism, its data, every engine option, r and the chain's shaping
// counts) and with nothing else (the accuracy target, a basis with the
// same shaping counts, the spec's label and line). Every field of
// manifest.EngineOptions but Accuracy must enter the key: an option added
// without it would let a state of other bits be taken for this one.
func TestKeyIncludesWhatFixesTheBits(t *testing.T) {
	f := &pipelinetest.Fake{}
	s := &Service{Backend: versionedFake{f, "v1"}}
	base := fakeRequest(t, f, 2, 64)
	base.Basis = []int{1, 6400}
	want := s.Key(base, 64)
	type change struct {
		name    string
		s       *Service
		edit    func(*Request)
		r       int
		changes bool
	}
	cases := []change{
		{"backend build", &Service{Backend: versionedFake{f, "v2"}}, func(*Request) {}, 64, true},
		{"mechanism", s, func(q *Request) { q.Mechanism = pipelinetest.FakeMech{Desc: "gauss sigma=3"} }, 64, true},
		{"data", s, func(q *Request) { q.Spec.DataHash = "abc" }, 64, true},
		{"r", s, func(*Request) {}, 65, true},
		{"shaping counts", s, func(q *Request) { q.Basis = []int{6400} }, 64, true},
		{"largest r", s, func(q *Request) { q.Basis = []int{1, 6401} }, 64, true},
		{"basis with the same shaping counts", s, func(q *Request) { q.Basis = []int{6400, 4000, 1} }, 64, false},
		{"accuracy target", s, func(q *Request) { q.Spec.Engine.Accuracy = 1e-3 }, 64, false},
		{"id and line", s, func(q *Request) { q.Spec.ID, q.Spec.Line = "other", 42 }, 64, false},
		{"progress", s, func(q *Request) { q.Progress = func(int, int) {} }, 64, false},
	}
	opts := reflect.TypeOf(manifest.EngineOptions{})
	for i := range opts.NumField() {
		field := opts.Field(i)
		cases = append(cases, change{"engine option " + field.Name, s, func(q *Request) {
			v := reflect.ValueOf(&q.Spec.Engine).Elem().Field(i)
			switch v.Kind() {
			case reflect.Int:
				v.SetInt(v.Int() + 7)
			case reflect.Float64:
				v.SetFloat(v.Float() + 0.25)
			case reflect.Bool:
				v.SetBool(!v.Bool())
			case reflect.String:
				v.SetString(v.String() + manifest.PathPower)
			default:
				t.Fatalf("EngineOptions.%s: kind %s not handled by this test", field.Name, v.Kind())
			}
		}, 64, field.Name != "Accuracy"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := base
			q.Spec.Engine = base.Spec.Engine
			c.edit(&q)
			if got := c.s.Key(q, c.r); (got != want) != c.changes {
				t.Errorf("key changed: %v, want %v", got != want, c.changes)
			}
		})
	}
}

// TestGetKeepsChainBits checks with the engine that the states Get gives
// have the bits of one ComposeMany call of the chain: r = 10 asked alone
// with the basis {1000} equals r = 10 of a call composing {10, 1000}, and
// the cached copy answers the same.
func TestGetKeepsChainBits(t *testing.T) {
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 20, "sensitivity": 1},
		Engine: manifest.EngineOptions{Buckets: 2000, ErrorCorrection: true}}
	be := backend.Engine{}
	mech, err := be.Mechanism(spec)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := be.ComposeMany(context.Background(), mech, []int{10, 1000}, spec.Engine, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantUp, wantLo := direct[0].DeltaBounds(0.5)
	s := &Service{Backend: be, Dir: t.TempDir()}
	for _, wantCached := range []bool{false, true} {
		got, err := s.getStored(Request{Mechanism: mech, Spec: spec, R: []int{10}, Basis: []int{1000}})
		if err != nil {
			t.Fatal(err)
		}
		up, lo := got.States[0].DeltaBounds(0.5)
		if got.Cached[0] != wantCached || up != wantUp || lo != wantLo {
			t.Errorf("cached %v: delta(0.5) in [%v, %v], want cached %v and [%v, %v]", got.Cached[0], lo, up, wantCached, wantLo, wantUp)
		}
	}
}

// TestGetKeepsChainBitsOnTheChosenPath checks the same at the default
// bucket count, where the engine chooses the path per call from the
// mechanism, the options and the shaping counts (DP-SGD sigma 1.1, q 0.01:
// the power path at 2^19 points): r = 5,000 asked alone with the basis
// {10,000} equals r = 5,000 of a call composing {5,000, 10,000}.
func TestGetKeepsChainBitsOnTheChosenPath(t *testing.T) {
	if testing.Short() {
		t.Skip("composes four times at 2^19 points")
	}
	spec := manifest.MechanismSpec{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": 1.1, "q": 0.01, "sensitivity": 1},
		Engine: manifest.EngineOptions{ErrorCorrection: true}}
	be := backend.Engine{}
	mech, err := be.Mechanism(spec)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := be.ComposeMany(context.Background(), mech, []int{5000, 10000}, spec.Engine, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b := direct[0].Summary().Buckets; b != 1<<19 {
		t.Fatalf("the composition has %d buckets, want the power path's 2^19 points", b)
	}
	wantUp, wantLo := direct[0].EpsBounds(1e-5)
	s := &Service{Backend: be}
	got, err := s.Get(context.Background(), Request{Mechanism: mech, Spec: spec, R: []int{5000}, Basis: []int{10000}})
	if err != nil {
		t.Fatal(err)
	}
	if up, lo := got.States[0].EpsBounds(1e-5); up != wantUp || lo != wantLo {
		t.Errorf("eps(1e-5) in [%v, %v], want [%v, %v]", lo, up, wantLo, wantUp)
	}
}
