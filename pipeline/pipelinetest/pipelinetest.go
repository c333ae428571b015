// Package pipelinetest holds what the tests of several pipeline packages
// share: Fake, a deterministic Backend standing in for the engine;
// LimitSpy and CheckRuntimeLimit, which check the Go soft memory limit a
// run sets; and helpers that load a manifest written into a test's folder
// and read and compare result frames. It is imported by tests only.
//
// No package's non-test code imports it. May import: internal/testfig,
// pipeline/backend, pipeline/manifest, pipeline/results.
package pipelinetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

// Fake is a deterministic stand-in for the engine. A mechanism with
// parameter sigma = 13 fails to compose; sigma = 17 blocks until
// cancelled; sigma = 99 is rejected by Mechanism. Its states are
// FakeStates.
type Fake struct {
	mu       sync.Mutex
	Composed []int // every r composed, in call order
	Calls    int
	Memory   int64 // bytes per job; 0 means 1 KiB
}

// FakeMech is a mechanism of Fake: its description and parameters.
type FakeMech struct {
	Desc  string
	Scale float64
	Sigma float64
}

// String returns the description.
func (m FakeMech) String() string { return m.Desc }

// Mechanism describes spec by its kind and sorted parameters.
func (f *Fake) Mechanism(spec manifest.MechanismSpec) (backend.Mechanism, error) {
	keys := make([]string, 0, len(spec.Params))
	for k := range spec.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	desc := spec.Kind
	scale := 1.0
	for _, k := range keys {
		desc += fmt.Sprintf(" %s=%g", k, spec.Params[k])
		scale += spec.Params[k]
	}
	if spec.Params["sigma"] == 99 {
		return nil, errors.New("fake: sigma 99 is rejected by the backend")
	}
	return FakeMech{desc, scale, spec.Params["sigma"]}, nil
}

// ComposeMany records the numbers of compositions and returns a
// FakeState for each.
func (f *Fake) ComposeMany(ctx context.Context, m backend.Mechanism, rs []int, opt manifest.EngineOptions, progress func(int, int)) ([]backend.State, error) {
	fm := m.(FakeMech)
	f.mu.Lock()
	f.Calls++
	f.Composed = append(f.Composed, rs...)
	f.mu.Unlock()
	if fm.Sigma == 13 {
		return nil, errors.New("fake: composition blew up")
	}
	if fm.Sigma == 17 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	out := make([]backend.State, len(rs))
	for i, r := range rs {
		if progress != nil {
			progress(i+1, len(rs))
		}
		out[i] = &FakeState{R: r, Scale: fm.Scale, Buckets: opt.Buckets, EC: opt.ErrorCorrection}
	}
	return out, nil
}

// EstimateMemory returns Memory, or 1 KiB when it is 0.
func (f *Fake) EstimateMemory(manifest.MechanismSpec) int64 {
	if f.Memory > 0 {
		return f.Memory
	}
	return 1024
}

// DecodeState restores a FakeState written by its MarshalBinary.
func (f *Fake) DecodeState(data []byte) (backend.State, error) {
	var s FakeState
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// ComposedCount returns the number of states composed so far.
func (f *Fake) ComposedCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.Composed)
}

// FakeState is a state of Fake: its bounds are smooth functions of r and
// the mechanism's parameters (no lower bounds without error correction).
type FakeState struct {
	R       int
	Scale   float64
	Buckets int
	EC      bool
}

// DeltaBounds returns made-up delta bounds, decreasing in eps.
func (s *FakeState) DeltaBounds(eps float64) (float64, float64) {
	up := math.Exp(-eps*s.Scale) * math.Sqrt(float64(s.R)) / 10
	lo := math.NaN()
	if s.EC {
		lo = up * 0.9
	}
	return up, lo
}

// EpsBounds returns made-up eps bounds, decreasing in delta.
func (s *FakeState) EpsBounds(delta float64) (float64, float64) {
	up := math.Log(math.Sqrt(float64(s.R))/10/delta) / s.Scale
	lo := math.NaN()
	if s.EC {
		lo = up * 0.9
	}
	return up, lo
}

// Summary returns the buckets and a fixed factor and corner mass.
func (s *FakeState) Summary() backend.StateSummary {
	return backend.StateSummary{Buckets: s.Buckets, Factor: 1.001, InfinityMass: 1e-30 * float64(s.R)}
}

// MarshalBinary encodes the state as JSON.
func (s *FakeState) MarshalBinary() ([]byte, error) { return json.Marshal(s) }

// LoadManifest writes content to dir/name and loads it as a manifest; an
// error fails the test.
func LoadManifest(t *testing.T, dir, name, content string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load(testfig.WriteFile(t, dir, name, content))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ReadFrame reads a Parquet file; an error fails the test.
func ReadFrame(t *testing.T, path string) *results.Frame {
	t.Helper()
	f, err := results.ReadParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// ReadParts reads the Parquet files of a table's parts and returns their
// rows in order as one frame; an error, or parts with other columns, fail
// the test.
func ReadParts(t *testing.T, files []string) *results.Frame {
	t.Helper()
	if len(files) == 0 {
		t.Fatal("no parts")
	}
	merged := ReadFrame(t, files[0])
	for _, path := range files[1:] {
		f := ReadFrame(t, path)
		if len(f.Columns) != len(merged.Columns) {
			t.Fatalf("%s: %d columns, want %d", path, len(f.Columns), len(merged.Columns))
		}
		for c, mc := range merged.Columns {
			fc := f.Columns[c]
			if fc.Name != mc.Name || fc.Type != mc.Type {
				t.Fatalf("%s: column %d is %s, want %s", path, c, fc.Name, mc.Name)
			}
			mc.Strings, mc.Ints, mc.Floats, mc.Bools = append(mc.Strings, fc.Strings...), append(mc.Ints, fc.Ints...), append(mc.Floats, fc.Floats...), append(mc.Bools, fc.Bools...)
			mc.Null = append(mc.Null, fc.Null...)
		}
	}
	return merged
}

// FramesEqual fails the test unless a and b have the same columns and
// values (NaN and null match), except the columns named in skip.
func FramesEqual(t *testing.T, a, b *results.Frame, skip ...string) {
	t.Helper()
	if len(a.Columns) != len(b.Columns) {
		t.Fatalf("column counts differ: %d vs %d", len(a.Columns), len(b.Columns))
	}
	for i := range a.Columns {
		ca, cb := *a.Columns[i], *b.Columns[i]
		if slices.Contains(skip, ca.Name) {
			continue
		}
		if !reflect.DeepEqual(ca.Strings, cb.Strings) || !reflect.DeepEqual(ca.Ints, cb.Ints) || !reflect.DeepEqual(ca.Bools, cb.Bools) || len(ca.Floats) != len(cb.Floats) {
			t.Fatalf("column %s differs", ca.Name)
		}
		for j := range ca.Floats {
			if ca.Floats[j] != cb.Floats[j] && !(ca.IsNull(j) && cb.IsNull(j)) {
				t.Fatalf("column %s row %d: %v vs %v", ca.Name, j, ca.Floats[j], cb.Floats[j])
			}
		}
	}
}

// LimitSpy is a Backend that records the Go soft memory limit in force
// whenever it composes, then composes with the Backend it wraps.
type LimitSpy struct {
	backend.Backend
	mu     sync.Mutex
	limits []int64
}

// ComposeMany records the soft memory limit and calls the wrapped backend.
func (s *LimitSpy) ComposeMany(ctx context.Context, m backend.Mechanism, rs []int, opt manifest.EngineOptions, progress func(int, int)) ([]backend.State, error) {
	s.mu.Lock()
	s.limits = append(s.limits, debug.SetMemoryLimit(-1))
	s.mu.Unlock()
	return s.Backend.ComposeMany(ctx, m, rs, opt, progress)
}

// Limits returns the limits recorded since the last call and forgets them.
func (s *LimitSpy) Limits() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.limits
	s.limits = nil
	return out
}

// SetLimit sets the soft memory limit for the test and restores the
// current one afterwards.
func SetLimit(t *testing.T, limit int64) {
	prev := debug.SetMemoryLimit(limit)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
}

// CheckRuntimeLimit checks that run, which computes through spy with the
// memory budget it is given, sets that budget as the Go soft memory limit
// while it composes and restores the previous limit afterwards, and leaves
// the limit alone when a lower one is in place or GOMEMLIMIT is set (the
// user's limit wins, a higher one too). what names run in messages. It
// leaves GOMEMLIMIT unset and no limit in place.
func CheckRuntimeLimit(t *testing.T, what string, spy *LimitSpy, run func(budget int64)) {
	t.Helper()
	const budget = 3 << 30
	cases := []struct {
		name             string
		limit            int64
		gomemlimit       string
		during, restored int64
	}{
		{"", math.MaxInt64, "", budget, math.MaxInt64},
		{", lower limit", 1 << 30, "", 1 << 30, 1 << 30},
		{", GOMEMLIMIT", 5 << 30, "5GiB", 5 << 30, 5 << 30},
	}
	for _, c := range cases {
		SetLimit(t, c.limit)
		t.Setenv("GOMEMLIMIT", c.gomemlimit)
		run(budget)
		limits := spy.Limits()
		if len(limits) == 0 {
			t.Fatalf("%s%s: nothing composed", what, c.name)
		}
		for _, got := range limits {
			if got != c.during {
				t.Errorf("%s%s: memory limit %d during the run, want %d", what, c.name, got, c.during)
			}
		}
		if got := debug.SetMemoryLimit(-1); got != c.restored {
			t.Errorf("%s%s: memory limit %d after the run, want %d (restored)", what, c.name, got, c.restored)
		}
	}
	SetLimit(t, math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "")
}
