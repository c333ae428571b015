package runner

import (
	"context"
	"math"
	"path/filepath"
	"testing"

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
