package runner

import (
	"context"
	"math"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/memory"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
)

// TestMemoryLimitDuringRun checks that Runner.Run sets its memory budget
// as the soft memory limit while it runs (see
// pipelinetest.CheckRuntimeLimit), also when the budget is the default,
// the machine's available memory.
func TestMemoryLimitDuringRun(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "iso.toml", strings.Replace(twoMechanisms, "SIGMA", "1.0", 1))
	spy := &pipelinetest.LimitSpy{Backend: &pipelinetest.Fake{}}
	out := 0
	run := func(budget int64) {
		t.Helper()
		out++ // a fresh cache: every run composes
		rn := &Runner{Backend: spy, Out: filepath.Join(dir, "out", string(rune('a'+out))), Jobs: 2, MemoryBudget: budget}
		rep, err := rn.Run(context.Background(), []*manifest.Manifest{m})
		if err != nil || rep.Failed > 0 {
			t.Fatalf("run: %v, %+v", err, rep)
		}
	}
	pipelinetest.CheckRuntimeLimit(t, "Run", spy, run)

	// The default budget (the machine's available memory) is a limit too,
	// when it is known. (MemAvailable moves meanwhile: compare roughly.)
	if avail := memory.Available(); avail > 0 {
		run(0)
		for _, got := range spy.Limits() {
			if got < avail/2 || got > 2*avail {
				t.Errorf("Run, default budget: memory limit %d during the run, want about %d", got, avail)
			}
		}
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Errorf("Run, default budget: memory limit %d after the run, want %d (restored)", got, int64(math.MaxInt64))
		}
	}
}
