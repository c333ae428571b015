package search

import (
	"math"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

// TestFramesEpochColumns checks the last columns of search.parquet and
// search-probes.parquet: a search at the r of [search] epochs has its
// epochs and steps (Specs sets Spec.Epoch), one at a given r has nulls.
func TestFramesEpochColumns(t *testing.T) {
	src := `
name = "s"
[[mechanism]]
id = "sgd"
kind = "sgd"
sigma = 1.0
q = 0.01
[search]
compositions = [50]
epochs = [2]
e_eps = 2.0
delta = 1e-5
`
	m, err := manifest.Parse("s.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	specs := Specs(m)
	want := map[int]manifest.EpochPoint{50: {}, 200: {R: 200, Epochs: 2, Steps: 200}}
	if len(specs) != len(want) {
		t.Fatalf("%d searches, want %d", len(specs), len(want))
	}
	var rs []*Result
	for _, s := range specs {
		if w, ok := want[s.R]; !ok || s.Epoch != w {
			t.Errorf("search at r %d: epoch %+v, want %+v", s.R, s.Epoch, w)
		}
		rs = append(rs, &Result{Spec: s, Status: "ok", Probes: []Probe{{Factor: 1, Upper: 1e-6, Lower: 1e-7, Order: 1}, {Factor: 0.5, Upper: 1e-4, Lower: 1e-5, Order: 2}}})
	}
	for name, f := range map[string]*results.Frame{"search": ResultsFrame(rs), "search-probes": ProbesFrame(rs)} {
		cols := f.Columns
		if n := len(cols); n < 2 || cols[n-2].Name != "epochs" || cols[n-1].Name != "steps" {
			t.Fatalf("%s: the last columns are not epochs, steps", name)
		}
		epochs, steps, comp := f.Column("epochs"), f.Column("steps"), f.Column("compositions")
		for i := 0; i < f.Rows(); i++ {
			w := want[int(comp.Ints[i])]
			gotNull := math.IsNaN(epochs.Floats[i])
			if gotNull != (w.Epochs == 0) || steps.Null[i] != gotNull || !gotNull && (epochs.Floats[i] != w.Epochs || steps.Ints[i] != int64(w.Steps)) {
				t.Errorf("%s row %d (r %d): epochs %v steps %v (null %v), want %+v", name, i, comp.Ints[i], epochs.Floats[i], steps.Ints[i], steps.Null[i], w)
			}
		}
	}
}
