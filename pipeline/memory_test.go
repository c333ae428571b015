package pipeline

import (
	"context"
	"math"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// limitSpy records the Go soft memory limit in force while it composes.
type limitSpy struct {
	mu     sync.Mutex
	limits []int64
}

func (s *limitSpy) see() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits = append(s.limits, debug.SetMemoryLimit(-1))
}

// check fails unless every composition saw want.
func (s *limitSpy) check(t *testing.T, what string, want int64) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.limits) == 0 {
		t.Fatalf("%s: nothing composed", what)
	}
	for _, got := range s.limits {
		if got != want {
			t.Errorf("%s: memory limit %d during the run, want %d", what, got, want)
		}
	}
	s.limits = nil
}

type limitFake struct {
	*fakeBackend
	spy *limitSpy
}

func (f limitFake) ComposeMany(ctx context.Context, m Mechanism, rs []int, opt EngineOptions, progress func(int, int)) ([]State, error) {
	f.spy.see()
	return f.fakeBackend.ComposeMany(ctx, m, rs, opt, progress)
}

type limitSearchFake struct {
	*searchFake
	spy *limitSpy
}

func (f limitSearchFake) ComposeMany(ctx context.Context, m Mechanism, rs []int, opt EngineOptions, progress func(int, int)) ([]State, error) {
	f.spy.see()
	return f.searchFake.ComposeMany(ctx, m, rs, opt, progress)
}

// setLimit sets the soft memory limit for the test and restores the
// current one afterwards.
func setLimit(t *testing.T, limit int64) {
	prev := debug.SetMemoryLimit(limit)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
}

// TestMemoryLimitDuringRun checks that Runner.Run and SearchAll set their
// memory budget as the soft memory limit while they run and restore the
// previous limit afterwards, and leave the limit alone when GOMEMLIMIT is
// set or a lower limit is in place.
func TestMemoryLimitDuringRun(t *testing.T) {
	const budget = 3 << 30
	setLimit(t, math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "")
	dir := t.TempDir()
	m := loadTestManifest(t, dir, "iso.toml", strings.Replace(twoMechanisms, "SIGMA", "1.0", 1))
	spy := &limitSpy{}
	out := 0
	run := func(budget int64) {
		t.Helper()
		out++ // a fresh cache: every run composes
		rn := &Runner{Backend: limitFake{&fakeBackend{}, spy}, Out: filepath.Join(dir, "out", string(rune('a'+out))), Jobs: 2, MemoryBudget: budget}
		rep, err := rn.Run(context.Background(), []*Manifest{m})
		if err != nil || rep.Failed > 0 {
			t.Fatalf("run: %v, %+v", err, rep)
		}
	}
	expo := func(s float64) float64 { return math.Exp(-s) }
	search := func(budget int64) {
		t.Helper()
		s := &Searcher{Backend: limitSearchFake{&searchFake{up: expo, lo: expo}, spy}}
		spec := SearchSpec{Label: "g", Mechanism: gaussSpec(1), R: 2, Eps: 1, Delta: 1e-3}
		if _, errs := s.SearchAll(context.Background(), []SearchSpec{spec}, 2, budget); len(errs) > 0 {
			t.Fatal(errs)
		}
	}
	after := func(what string, want int64) {
		t.Helper()
		if got := debug.SetMemoryLimit(-1); got != want {
			t.Errorf("%s: memory limit %d after the run, want %d (restored)", what, got, want)
		}
	}

	run(budget)
	spy.check(t, "Run", budget)
	after("Run", math.MaxInt64)
	search(budget)
	spy.check(t, "SearchAll", budget)
	after("SearchAll", math.MaxInt64)

	// The default budget (the machine's available memory) is a limit too,
	// when it is known.
	// (MemAvailable moves meanwhile: compare roughly.)
	if avail := AvailableMemory(); avail > 0 {
		run(0)
		for _, got := range spy.limits {
			if got < avail/2 || got > 2*avail {
				t.Errorf("Run, default budget: memory limit %d during the run, want about %d", got, avail)
			}
		}
		spy.limits = nil
		after("Run, default budget", math.MaxInt64)
	}

	// A lower limit already in place stays.
	setLimit(t, 1<<30)
	run(budget)
	spy.check(t, "Run, lower limit", 1<<30)
	after("Run, lower limit", 1<<30)
	search(budget)
	spy.check(t, "SearchAll, lower limit", 1<<30)
	after("SearchAll, lower limit", 1<<30)

	// GOMEMLIMIT is the user's: not touched (a higher limit stays too).
	setLimit(t, 5<<30)
	t.Setenv("GOMEMLIMIT", "5GiB")
	run(budget)
	spy.check(t, "Run, GOMEMLIMIT", 5<<30)
	after("Run, GOMEMLIMIT", 5<<30)
	search(budget)
	spy.check(t, "SearchAll, GOMEMLIMIT", 5<<30)
	after("SearchAll, GOMEMLIMIT", 5<<30)
}
