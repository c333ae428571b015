package runner

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

// TestRunEpochColumns checks a run of a manifest with query.epochs beside
// compositions: each instance is computed at its own r (the epochs' r of
// its sampling scheme and sweep point, and compositions), and the rows of
// every table name both epochs and steps, null for an r of compositions
// only and for mechanisms without epochs.
func TestRunEpochColumns(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "m.toml", `name = "ep"
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 2.0
[[mechanism]]
id = "s"
kind = "sgd"
sigma = 1.0
q = 0.1
[[mechanism]]
id = "a"
kind = "random_allocation"
sigma = 1.0
steps_per_epoch = 10
[sweep]
"a.steps_per_epoch" = [10, 100]
[query]
compositions = [5]
epochs = [1, 2]
delta = [1e-5]
eps = [1.0]
`)
	if _, err := (&Runner{Backend: &pipelinetest.Fake{}, Out: filepath.Join(dir, "out"), Jobs: 2}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
		t.Fatal(err)
	}
	type row struct {
		mechanism string
		r         int64
		epochs    float64 // NaN for null
		steps     int64   // -1 for null
	}
	nan := math.NaN()
	want := []row{
		{"g", 5, nan, -1},
		{"s", 5, nan, -1}, {"s", 10, 1, 10}, {"s", 20, 2, 20},
		{"a[steps_per_epoch=10]", 1, 1, 10}, {"a[steps_per_epoch=10]", 2, 2, 20}, {"a[steps_per_epoch=10]", 5, nan, -1},
		{"a[steps_per_epoch=100]", 1, 1, 100}, {"a[steps_per_epoch=100]", 2, 2, 200}, {"a[steps_per_epoch=100]", 5, nan, -1},
	}
	for _, table := range []string{"delta", "epsilon", "runs"} {
		f := pipelinetest.ReadFrame(t, filepath.Join(dir, "out", "ep", table+".parquet"))
		mech, comp, epochs, steps := f.Column("mechanism"), f.Column("compositions"), f.Column("epochs"), f.Column("steps")
		if epochs == nil || steps == nil || epochs.Type != results.Float64 || steps.Type != results.Int64 {
			t.Fatalf("%s: columns epochs %+v, steps %+v", table, epochs, steps)
		}
		if f.Rows() != len(want) {
			t.Fatalf("%s: %d rows, want %d", table, f.Rows(), len(want))
		}
		for i, w := range want {
			got := row{mech.Strings[i], comp.Ints[i], epochs.Floats[i], steps.Ints[i]}
			if steps.IsNull(i) {
				got.steps = -1
			}
			same := got.mechanism == w.mechanism && got.r == w.r && got.steps == w.steps &&
				(got.epochs == w.epochs || math.IsNaN(w.epochs) && epochs.IsNull(i))
			if !same {
				t.Errorf("%s row %d: %+v, want %+v", table, i, got, w)
			}
		}
	}
}

// TestExampleEpochsManifest runs experiments/sgd-epochs.toml (the sweep of
// sigma x steps_per_epoch x epochs) through the real engine at 4,000
// buckets: every task succeeds, every row names its epochs and steps, eps
// grows with the epochs, and random allocation's lower bound stays below
// Poisson's upper bound at the same expected batch size (q =
// 1/steps_per_epoch), the published relation.
func TestExampleEpochsManifest(t *testing.T) {
	m, err := manifest.Load(filepath.Join("..", "..", "experiments", "sgd-epochs.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m.Engine.Buckets = 4000
	for i := range m.Mechanisms {
		m.Mechanisms[i].Engine.Buckets = 4000
	}
	out := t.TempDir()
	rep, err := (&Runner{Backend: backend.Engine{}, Out: out, Jobs: 2}).Run(context.Background(), []*manifest.Manifest{m})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK != 18 || rep.Failed != 0 {
		t.Fatalf("report %+v (%v)", rep, rep.Failures)
	}
	f := pipelinetest.ReadFrame(t, filepath.Join(out, m.Name, "epsilon.parquet"))
	type key struct {
		sigma  float64
		t      int64 // steps per epoch
		epochs float64
	}
	alloc, poisson := map[key][2]float64{}, map[key][2]float64{}
	last := map[string][2]float64{} // instance -> bounds at its previous epochs
	for i := range f.Rows() {
		mech, kind := f.Column("mechanism").Strings[i], f.Column("kind").Strings[i]
		r, epochs, steps := f.Column("compositions").Ints[i], f.Column("epochs").Floats[i], f.Column("steps").Ints[i]
		lo, up := f.Column("eps_lower").Floats[i], f.Column("eps_upper").Floats[i]
		if f.Column("epochs").IsNull(i) || f.Column("steps").IsNull(i) || !(lo <= up) {
			t.Fatalf("row %d (%s r %d): epochs %v steps %d, eps in [%v, %v]", i, mech, r, epochs, steps, lo, up)
		}
		if prev, ok := last[mech]; ok && !(up > prev[0]) {
			t.Errorf("%s: eps_upper %v at %v epochs not above eps_lower %v at fewer", mech, up, epochs, prev[0])
		}
		last[mech] = [2]float64{lo, up}
		var p struct {
			Params map[string]float64 `json:"params"`
		}
		if err := json.Unmarshal([]byte(f.Column("params").Strings[i]), &p); err != nil {
			t.Fatal(err)
		}
		switch {
		case kind == manifest.KindRandomAllocation:
			k := key{p.Params["sigma"], int64(p.Params["steps_per_epoch"]), epochs}
			if r != int64(epochs) || steps != r*k.t {
				t.Errorf("%s: r %d steps %d at %v epochs", mech, r, steps, epochs)
			}
			alloc[k] = [2]float64{lo, up}
		case p.Params["q"] > 0:
			k := key{p.Params["sigma"], int64(math.Round(1 / p.Params["q"])), epochs}
			if r != steps || r != int64(epochs)*k.t {
				t.Errorf("%s: r %d steps %d at %v epochs", mech, r, steps, epochs)
			}
			poisson[k] = [2]float64{lo, up}
		}
	}
	if len(alloc) != 8 || len(poisson) != 8 {
		t.Fatalf("%d allocation and %d Poisson points, want 8 each", len(alloc), len(poisson))
	}
	for k, a := range alloc {
		if po, ok := poisson[k]; !ok || a[0] > po[1] {
			t.Errorf("sigma %v, %d steps, %v epochs: allocation eps in [%v, %v] above Poisson [%v, %v]", k.sigma, k.t, k.epochs, a[0], a[1], po[0], po[1])
		}
	}
}
