package search

import (
	"context"
	"math"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
)

// TestMemoryLimitDuringSearchAll checks that SearchAll sets its memory
// budget as the soft memory limit while it runs (see
// pipelinetest.CheckRuntimeLimit).
func TestMemoryLimitDuringSearchAll(t *testing.T) {
	expo := func(s float64) float64 { return math.Exp(-s) }
	spy := &pipelinetest.LimitSpy{}
	pipelinetest.CheckRuntimeLimit(t, "SearchAll", spy, func(budget int64) {
		t.Helper()
		spy.Backend = &searchFake{up: expo, lo: expo} // a fresh in-memory cache
		s := &Searcher{Backend: spy}
		spec := Spec{Label: "g", Mechanism: gaussSpec(1), R: 2, Eps: 1, Delta: 1e-3}
		if _, errs := s.SearchAll(context.Background(), []Spec{spec}, 2, budget); len(errs) > 0 {
			t.Fatal(errs)
		}
	})
}
