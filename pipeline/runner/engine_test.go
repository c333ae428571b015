package runner

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/memory"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
)

const engineManifest = `name = "eng"
[engine]
buckets = 2000
[[mechanism]]
id = "gauss"
kind = "gauss"
sigma = 5.0
[[mechanism]]
id = "rr"
kind = "randomized_response"
p = 0.55
[query]
compositions = [1, 3, 16]
e_eps = [1.0, 1.2, 2.0]
delta = [1e-4]
`

// TestEngineBackend runs a small manifest through the real engine and
// checks that cached states give the same numbers as fresh ones.
func TestEngineBackend(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "eng.toml", engineManifest)
	out := filepath.Join(dir, "out")
	rep, err := (&Runner{Backend: backend.Engine{}, Out: out, Jobs: 2}).Run(context.Background(), []*manifest.Manifest{m})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK != 6 || rep.Failed != 0 {
		t.Fatalf("report %+v (%v)", rep, rep.Failures)
	}
	first := pipelinetest.ReadFrame(t, filepath.Join(out, "eng", "delta.parquet"))
	up, lo := first.Column("delta_upper").Floats, first.Column("delta_lower").Floats
	for i := range up {
		if !(up[i] >= lo[i]) || !(lo[i] >= 0) || up[i] > 1 {
			t.Errorf("row %d: delta_upper %v, delta_lower %v", i, up[i], lo[i])
		}
	}
	eps := pipelinetest.ReadFrame(t, filepath.Join(out, "eng", "epsilon.parquet"))
	if eps.Rows() != 6 {
		t.Errorf("epsilon rows %d, want 6", eps.Rows())
	}
	// Second run: every state from the cache, identical numbers.
	if _, err := (&Runner{Backend: backend.Engine{}, Out: out}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
		t.Fatal(err)
	}
	runs := pipelinetest.ReadFrame(t, filepath.Join(out, "eng", "runs.parquet"))
	for i := 0; i < runs.Rows(); i++ {
		if !runs.Column("cached").Bools[i] {
			t.Errorf("runs row %d not cached", i)
		}
	}
	pipelinetest.FramesEqual(t, first, pipelinetest.ReadFrame(t, filepath.Join(out, "eng", "delta.parquet")))
	pipelinetest.FramesEqual(t, eps, pipelinetest.ReadFrame(t, filepath.Join(out, "eng", "epsilon.parquet")))
	// A fresh run elsewhere gives the same numbers.
	other := filepath.Join(dir, "other")
	if _, err := (&Runner{Backend: backend.Engine{}, Out: other, Jobs: 1}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
		t.Fatal(err)
	}
	pipelinetest.FramesEqual(t, first, pipelinetest.ReadFrame(t, filepath.Join(other, "eng", "delta.parquet")))
	pipelinetest.FramesEqual(t, eps, pipelinetest.ReadFrame(t, filepath.Join(other, "eng", "epsilon.parquet")))
}

func TestEngineBackendRejectsAndRefuses(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "eng.toml", strings.Replace(engineManifest, "buckets = 2000", "buckets = 67108864", 1))
	rn := &Runner{Backend: backend.Engine{}, Out: filepath.Join(dir, "out"), MemoryBudget: 1 << 30}
	if _, memErrs := rn.Check([]*manifest.Manifest{m}); len(memErrs) != 2 {
		t.Errorf("memory errors %v, want 2", memErrs)
	}
	// A histogram whose PMFs the engine cannot pair (different lengths).
	spec := manifest.MechanismSpec{Kind: manifest.KindHistogram, A: []float64{0.5, 0.5}, B: []float64{1}}
	if _, err := (backend.Engine{}).Mechanism(spec); err == nil {
		t.Error("engine accepted PMFs of different lengths")
	}
}

// TestEngineBackendEstimateMemory checks that the Vuvuzela pairs' builds
// are part of a job's memory: a conversation at the engine's largest FFT
// (LP(450k, 20k), 2^23 entries) needs more than 1 GiB on top of the
// composition, and a budget that holds the composition alone refuses it.
func TestEngineBackendEstimateMemory(t *testing.T) {
	b := backend.Engine{}
	opts := manifest.DefaultEngineOptions()
	base := b.EstimateMemory(manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 5}, Engine: opts})
	conv := manifest.MechanismSpec{Kind: manifest.KindVuvuzelaConversation, Noise: manifest.NoiseLaplace, Params: map[string]float64{"mu": 450000, "scale": 20000}, Engine: opts}
	dial := manifest.MechanismSpec{Kind: manifest.KindVuvuzelaDialing, Noise: manifest.NoiseGauss, Params: map[string]float64{"mu": 8000, "scale": 500}, Engine: opts}
	if got := b.EstimateMemory(conv) - base; got < 1<<30 || got > 4<<30 {
		t.Errorf("conversation LP(450k, 20k) adds %s, want 1 to 4 GiB", memory.FormatBytes(got))
	}
	if got := b.EstimateMemory(dial) - base; got <= 0 {
		t.Errorf("dialing adds %d bytes", got)
	}
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "conv.toml", `name = "conv"
[[mechanism]]
id = "lp"
kind = "vuvuzela_conversation"
noise = "laplace"
mu = 450000.0
scale = 20000.0
[query]
compositions = [2]
e_eps = [2.0]
`)
	rn := &Runner{Backend: b, Out: filepath.Join(dir, "out"), MemoryBudget: 4 * base}
	if _, memErrs := rn.Check([]*manifest.Manifest{m}); len(memErrs) != 1 || !strings.Contains(memErrs[0].Error(), "needs about") {
		t.Errorf("memory errors %v, want the conversation refused", memErrs)
	}
}

// TestEngineNotesAndLargeEps runs the reproducers of issue 11 through the
// pipeline: no NaN in any bound, eps_upper +Inf where the distinguishing
// mass exceeds delta, and the engine's reasons for trivial bounds in the
// note column of runs.parquet.
func TestEngineNotesAndLargeEps(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "notes.toml", `name = "notes"
[engine]
buckets = 100
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 35.86799698181659
[[mechanism]]
id = "ed"
kind = "eps_delta"
eps = 800.0
delta = 0.05
[query]
compositions = [1, 59792]
eps = [0.0, 23.2, 2000.0, 1e4]
delta = [0.01]
`)
	out := filepath.Join(dir, "out")
	rep, err := (&Runner{Backend: backend.Engine{}, Out: out, Jobs: 1}).Run(context.Background(), []*manifest.Manifest{m})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 0 {
		t.Fatalf("report %+v (%v)", rep, rep.Failures)
	}
	delta := pipelinetest.ReadFrame(t, filepath.Join(out, "notes", "delta.parquet"))
	for i, v := range delta.Column("delta_upper").Floats {
		if !(v >= 0 && v <= 1) {
			t.Errorf("delta row %d: delta_upper %v", i, v)
		}
	}
	eps := pipelinetest.ReadFrame(t, filepath.Join(out, "notes", "epsilon.parquet"))
	ids, ups := eps.Column("mechanism_id").Strings, eps.Column("eps_upper").Floats
	for i := range ups {
		if ids[i] == "ed" && !math.IsInf(ups[i], 1) {
			t.Errorf("eps_delta row %d: eps_upper %v, exact +Inf (distinguishing mass 0.05 > 0.01)", i, ups[i])
		}
	}
	runs := pipelinetest.ReadFrame(t, filepath.Join(out, "notes", "runs.parquet"))
	notes := strings.Join(runs.Column("note").Strings, "\n")
	for _, want := range []string{"distinguishing events", "delta_up is the trivial bound 1"} {
		if !strings.Contains(notes, want) {
			t.Errorf("runs notes lack %q:\n%s", want, notes)
		}
	}
}
