package manifest

import (
	"reflect"
	"strings"
	"testing"
)

func TestEpochs(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spec     MechanismSpec
		epochs   float64
		r, steps int
		wantErr  string
	}{
		{"poisson", MechanismSpec{Kind: KindSGD, Params: map[string]float64{"q": 0.01}}, 50, 5000, 5000, ""},
		{"poisson inexact rate", MechanismSpec{Kind: KindSGD, Params: map[string]float64{"q": 0.001}}, 3, 3000, 3000, ""},
		{"fixed size", MechanismSpec{Kind: KindSGD, Params: map[string]float64{"batch": 600, "dataset_size": 60000}}, 2, 200, 200, ""},
		{"random allocation", MechanismSpec{Kind: KindRandomAllocation, Params: map[string]float64{"steps_per_epoch": 1000}}, 20, 20, 20000, ""},
		{"not whole", MechanismSpec{Kind: KindSGD, Params: map[string]float64{"q": 0.03}}, 1, 0, 0, "not a whole number"},
		{"fraction of an epoch of allocation", MechanismSpec{Kind: KindRandomAllocation, Params: map[string]float64{"steps_per_epoch": 10}}, 1.5, 0, 0, "not a whole number"},
		{"no rate", MechanismSpec{Kind: KindLaplace, Params: map[string]float64{"scale": 1}}, 1, 0, 0, "has no epochs"},
		{"gauss", MechanismSpec{Kind: KindGauss}, 1, 0, 0, "has no epochs"},
		{"zero", MechanismSpec{Kind: KindSGD, Params: map[string]float64{"q": 0.01}}, 0, 0, 0, "positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, steps, err := tc.spec.Epochs(tc.epochs)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || r != tc.r || steps != tc.steps {
				t.Fatalf("got r %d steps %d (%v), want %d, %d", r, steps, err, tc.r, tc.steps)
			}
		})
	}
}

// epochsManifest has the three sampling schemes, a sweep of sigma x
// steps_per_epoch and a [query] given as query (epochs and/or
// compositions).
func epochsManifest(query string) string {
	return `name = "e"
[[mechanism]]
id = "alloc"
kind = "random_allocation"
sigma = 1.0
steps_per_epoch = 10
[[mechanism]]
id = "poisson"
kind = "sgd"
sigma = 1.0
q = 0.01
[[mechanism]]
id = "fixed"
kind = "sgd"
sigma = 1.0
sampling = "fixed_size"
batch = 250
dataset_size = 1000
[sweep]
"alloc.sigma" = [1.0, 2.0]
"alloc.steps_per_epoch" = [10, 100]
[query]
delta = [1e-5]
` + query + "\n"
}

// TestQueryEpochs checks query.epochs: each instance's numbers of
// observations (compositions and the r of its epochs, per sampling scheme
// and sweep point) and what each r is in epochs and steps.
func TestQueryEpochs(t *testing.T) {
	type point struct {
		label    string
		rs       []int
		epochsAt map[int][2]float64 // r -> epochs, steps
	}
	for _, tc := range []struct {
		name  string
		query string
		want  []point
	}{
		{"epochs only", "epochs = [1, 2]", []point{
			{"alloc[sigma=1,steps_per_epoch=10]", []int{1, 2}, map[int][2]float64{1: {1, 10}, 2: {2, 20}}},
			{"alloc[sigma=1,steps_per_epoch=100]", []int{1, 2}, map[int][2]float64{1: {1, 100}, 2: {2, 200}}},
			{"alloc[sigma=2,steps_per_epoch=10]", []int{1, 2}, map[int][2]float64{1: {1, 10}, 2: {2, 20}}},
			{"alloc[sigma=2,steps_per_epoch=100]", []int{1, 2}, map[int][2]float64{1: {1, 100}, 2: {2, 200}}},
			{"poisson", []int{100, 200}, map[int][2]float64{100: {1, 100}, 200: {2, 200}}},
			{"fixed", []int{4, 8}, map[int][2]float64{4: {1, 4}, 8: {2, 8}}},
		}},
		{"epochs beside compositions", "compositions = [3]\nepochs = [1]", []point{
			{"alloc[sigma=1,steps_per_epoch=10]", []int{1, 3}, map[int][2]float64{1: {1, 10}}},
			{"alloc[sigma=1,steps_per_epoch=100]", []int{1, 3}, map[int][2]float64{1: {1, 100}}},
			{"alloc[sigma=2,steps_per_epoch=10]", []int{1, 3}, map[int][2]float64{1: {1, 10}}},
			{"alloc[sigma=2,steps_per_epoch=100]", []int{1, 3}, map[int][2]float64{1: {1, 100}}},
			{"poisson", []int{3, 100}, map[int][2]float64{100: {1, 100}}},
			{"fixed", []int{3, 4}, map[int][2]float64{4: {1, 4}}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse("e.toml", []byte(epochsManifest(tc.query)))
			if err != nil {
				t.Fatal(err)
			}
			insts := m.Instances()
			if len(insts) != len(tc.want) {
				t.Fatalf("%d instances, want %d", len(insts), len(tc.want))
			}
			for i, w := range tc.want {
				in := &insts[i]
				if in.Label != w.label {
					t.Fatalf("instance %d is %s, want %s", i, in.Label, w.label)
				}
				if got := m.Compositions(in); !reflect.DeepEqual(got, w.rs) {
					t.Errorf("%s: compositions %v, want %v", w.label, got, w.rs)
				}
				for _, r := range w.rs {
					p, ok := m.EpochsAt(in, r)
					if want, has := w.epochsAt[r]; ok != has || ok && (p.Epochs != want[0] || float64(p.Steps) != want[1]) {
						t.Errorf("%s r %d: epochs %v steps %d (%v), want %v (%v)", w.label, r, p.Epochs, p.Steps, ok, want, has)
					}
				}
			}
		})
	}
}

// TestQueryEpochsMixed checks a manifest with compositions and epochs and
// a mechanism without epochs: it is queried at compositions only, the
// others at both, and only the epochs' r carry epochs.
func TestQueryEpochsMixed(t *testing.T) {
	doc := `name = "mixed"
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 2.0
[[mechanism]]
id = "s"
kind = "sgd"
sigma = 1.0
q = 0.1
[query]
compositions = [5, 20]
epochs = [2, 3]
eps = [1.0]
`
	m, err := Parse("mixed.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	insts := m.Instances()
	if got := m.Compositions(&insts[0]); !reflect.DeepEqual(got, []int{5, 20}) {
		t.Errorf("gauss compositions %v, want [5 20]", got)
	}
	if got := m.Compositions(&insts[1]); !reflect.DeepEqual(got, []int{5, 20, 30}) {
		t.Errorf("sgd compositions %v, want [5 20 30]", got)
	}
	if p, ok := m.EpochsAt(&insts[1], 20); !ok || p.Epochs != 2 || p.Steps != 20 {
		t.Errorf("sgd r 20: %+v %v, want 2 epochs of 20 steps", p, ok)
	}
	if _, ok := m.EpochsAt(&insts[1], 5); ok {
		t.Error("r 5 of query.compositions has epochs")
	}
	if _, ok := m.EpochsAt(&insts[0], 20); ok {
		t.Error("gauss has epochs")
	}
}

// TestQueryEpochsErrors checks that query.epochs refuses, with its line
// and a way out, numbers of epochs that are not whole numbers of
// observations at some sweep point, mechanisms without epochs when no
// compositions are given, and values that are not positive.
func TestQueryEpochsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, manifest string
		want           []string
	}{
		{"half an epoch of allocation", epochsManifest("epochs = [0.5]"),
			[]string{"e.toml:24", "query.epochs", `mechanism "alloc[sigma=1,steps_per_epoch=10]"`, "not a whole number", "give 1 or 2"}},
		{"steps not whole at a swept rate", strings.Replace(epochsManifest("epochs = [1]"), `"alloc.sigma"`, `"poisson.q" = [0.01, 0.03]`+"\n"+`"alloc.sigma"`, 1),
			[]string{`mechanism "poisson[q=0.03]"`, "33.33333333 steps", "a multiple of 0.03 epochs", "r = 33 is 0.99 epochs"}},
		{"fixed size not whole", epochsManifest("epochs = [0.3]"),
			[]string{`mechanism "fixed"`, "1.2 steps", "dataset_size/batch = 4 steps"}},
		{"no epochs without compositions", strings.Replace(base, "compositions = [1, 2]", "epochs = [1]", 1),
			[]string{`mechanism "g" (kind gauss) has no epochs`, "query.compositions"}},
		{"zero", epochsManifest("epochs = [0, 1]"), []string{"query.epochs", "must be positive"}},
		{"not a number", epochsManifest(`epochs = ["one"]`), []string{"query.epochs"}},
		{"neither", epochsManifest(""), []string{"query.compositions", "missing required key", "or epochs"}},
		{"figure at an r no instance has", epochsManifest("epochs = [1]\n[[figure]]\nid = \"f\"\nkind = \"eeps-r\"\nr = 7"), []string{"r = 7 is not in query.compositions (nor the r of query.epochs)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("e.toml", []byte(tc.manifest))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestSearchEpochs checks search.epochs: each searched instance's r are
// those its epochs make, with search.compositions, and epochs that make no
// whole r are refused with the key's name.
func TestSearchEpochs(t *testing.T) {
	search := func(keys string) string {
		return strings.Replace(epochsManifest("epochs = [1]"), "[query]", "[search]\nmechanisms = [\"alloc\", \"poisson\"]\neps = 1.0\ndelta = 1e-5\n"+keys+"\n[query]", 1)
	}
	m, err := Parse("s.toml", []byte(search("epochs = [2]\ncompositions = [7]")))
	if err != nil {
		t.Fatal(err)
	}
	insts := m.Instances()
	for _, tc := range []struct {
		inst  int
		rs    []int
		r     int
		steps int
	}{{0, []int{2, 7}, 2, 20}, {1, []int{2, 7}, 2, 200}, {4, []int{7, 200}, 200, 200}} {
		in := &insts[tc.inst]
		if got := m.SearchCompositions(in); !reflect.DeepEqual(got, tc.rs) {
			t.Errorf("%s: searched at %v, want %v", in.Label, got, tc.rs)
		}
		if p, ok := m.SearchEpochsAt(in, tc.r); !ok || p.Epochs != 2 || p.Steps != tc.steps {
			t.Errorf("%s r %d: %+v %v, want 2 epochs of %d steps", in.Label, tc.r, p, ok, tc.steps)
		}
		if _, ok := m.SearchEpochsAt(in, 7); ok {
			t.Errorf("%s: r 7 of search.compositions has epochs", in.Label)
		}
	}
	_, err = Parse("s.toml", []byte(search("epochs = [0.015]")))
	if err == nil || !strings.Contains(err.Error(), "search.epochs") || !strings.Contains(err.Error(), `mechanism "poisson"`) || !strings.Contains(err.Error(), "1.5 steps") {
		t.Errorf("1.5 steps at q = 0.01: error %v", err)
	}
}
