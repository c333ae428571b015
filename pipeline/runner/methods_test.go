package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/methods"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
)

// TestPipelineKOVOnEngineOnlyKinds runs kov and advanced next to the
// buckets on kinds without a closed-form single-round curve, through the
// Runner with the real engine, and checks that they run and stay above the
// buckets lower bound (every sound upper bound must).
func TestPipelineKOVOnEngineOnlyKinds(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "h.csv"), []byte("bin,a,b\n0,0.5,0.3\n1,0.3,0.3\n2,0.2,0.3\n3,0,0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := pipelinetest.LoadManifest(t, dir, "m.toml", `
name = "kov-engine"
[engine]
buckets = 2000
[[mechanism]]
id = "sgd"
kind = "sgd"
sigma = 2.0
q = 0.05
[[mechanism]]
id = "hist"
kind = "histogram"
file = "h.csv"
[[mechanism]]
id = "dialing"
kind = "vuvuzela_dialing"
noise = "laplace"
mu = 200.0
scale = 20.0
[query]
compositions = [1, 8, 64]
e_eps = [1.0, 1.5, 3.0]
delta = [1e-3]
methods = ["buckets", "kov", "advanced"]
`)
	rn := &Runner{Backend: backend.Engine{}, Methods: methods.CompareWith, Out: filepath.Join(dir, "out"), Jobs: 2, Version: "test"}
	rep, err := rn.Run(context.Background(), []*manifest.Manifest{m})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tasks != 27 || rep.OK != 27 {
		t.Fatalf("report %+v, want 27 tasks, all ok", rep)
	}
	runs := pipelinetest.ReadFrame(t, filepath.Join(dir, "out", "kov-engine", "runs.parquet"))
	for i := 0; i < runs.Rows(); i++ {
		if meth := runs.Column("method").Strings[i]; meth == manifest.MethodKOV || meth == manifest.MethodAdvanced {
			if note := runs.Column("note").Strings[i]; !strings.Contains(note, "single-round delta_up of the buckets (r = 1") {
				t.Errorf("row %d: note %q does not name the engine's single-round curve", i, note)
			}
		}
	}
	delta := pipelinetest.ReadFrame(t, filepath.Join(dir, "out", "kov-engine", "delta.parquet"))
	type key struct {
		mech string
		r    int64
		eps  float64
	}
	lower := map[key]float64{}
	upper := map[key]map[string]float64{}
	for i := 0; i < delta.Rows(); i++ {
		k := key{delta.Column("mechanism").Strings[i], delta.Column("compositions").Ints[i], delta.Column("eps").Floats[i]}
		meth := delta.Column("method").Strings[i]
		if meth == manifest.MethodBuckets {
			lower[k] = delta.Column("delta_lower").Floats[i]
		}
		if upper[k] == nil {
			upper[k] = map[string]float64{}
		}
		upper[k][meth] = delta.Column("delta_upper").Floats[i]
	}
	if len(lower) != 27 {
		t.Fatalf("%d buckets rows, want 27", len(lower))
	}
	for k, lo := range lower {
		for _, meth := range []string{manifest.MethodKOV, manifest.MethodAdvanced} {
			up, ok := upper[k][meth]
			if !ok || !(up >= lo*(1-1e-9)) || up > 1 {
				t.Errorf("%v: %s upper %v (present %v), buckets lower %v", k, meth, up, ok, lo)
			}
		}
		if k.r == 64 {
			t.Logf("%s r=64 eps=%.3g: buckets [%.4g, %.4g], kov %.4g, advanced %.4g", k.mech, k.eps, lo, upper[k][manifest.MethodBuckets], upper[k][manifest.MethodKOV], upper[k][manifest.MethodAdvanced])
		}
	}
}

// TestComparisonMethodsShareService checks that the comparison methods
// compose their single-round states through the runner's service: the
// states are cached in the runner's cache folder, and a composition beyond
// the runner's memory budget is refused.
func TestComparisonMethodsShareService(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "h.csv"), []byte("bin,a,b\n0,0.5,0.3\n1,0.3,0.3\n2,0.2,0.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := pipelinetest.LoadManifest(t, dir, "m.toml", `
name = "kov-cache"
[engine]
buckets = 2000
[[mechanism]]
id = "hist"
kind = "histogram"
file = "h.csv"
[query]
compositions = [4]
delta = [1e-3]
methods = ["kov"]
`)
	cases := []struct {
		name   string
		budget int64
		failed int
		states int
	}{
		{"within budget", 0, 0, 1},
		{"over budget", 1 << 10, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			rn := &Runner{Backend: backend.Engine{}, Methods: methods.CompareWith, Out: out, Jobs: 1, MemoryBudget: c.budget}
			rep, err := rn.Run(context.Background(), []*manifest.Manifest{m})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Failed != c.failed {
				t.Errorf("%d failed tasks, want %d: %v", rep.Failed, c.failed, rep.Failures)
			}
			for _, f := range rep.Failures {
				if !strings.Contains(f.Error(), "needs about") {
					t.Errorf("failure %v does not name the memory budget", f)
				}
			}
			files, err := filepath.Glob(filepath.Join(out, ".cache", "*", "*.state"))
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != c.states {
				t.Errorf("%d states in the runner's cache folder, want %d", len(files), c.states)
			}
		})
	}
}
