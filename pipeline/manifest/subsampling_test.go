package manifest

import (
	"reflect"
	"strings"
	"testing"
)

// subDoc returns a manifest with one mechanism of the given keys (line 3
// is the first key) and an optional [sweep] table.
func subDoc(keys, sweep string) string {
	doc := "name = \"x\"\n[[mechanism]]\nid = \"m\"\n" + keys + "\n[query]\ncompositions = [1, 2]\ndelta = [1e-5]\n"
	if sweep != "" {
		doc += "[sweep]\n" + sweep + "\n"
	}
	return doc
}

func TestSubsamplingKeys(t *testing.T) {
	tests := []struct {
		name, keys         string
		params             map[string]float64
		sampling, relation string
	}{
		{"sgd today", "kind = \"sgd\"\nsigma = 1.1\nq = 0.01", map[string]float64{"sigma": 1.1, "q": 0.01}, "", ""},
		{"sgd defaults named", "kind = \"sgd\"\nsigma = 1.1\nq = 0.01\nsampling = \"poisson\"\nrelation = \"add_remove\"", map[string]float64{"sigma": 1.1, "q": 0.01}, "", ""},
		{"sgd sensitivity", "kind = \"sgd\"\nsigma = 1.1\nq = 0.01\nsensitivity = 2", map[string]float64{"sigma": 1.1, "q": 0.01, "sensitivity": 2}, "", ""},
		{"sgd replace_one", "kind = \"sgd\"\nsigma = 1.1\nq = 0.01\nrelation = \"replace_one\"", map[string]float64{"sigma": 1.1, "q": 0.01}, "", RelationReplaceOne},
		{"sgd fixed q", "kind = \"sgd\"\nsigma = 1.1\nq = 1\nsampling = \"fixed_size\"", map[string]float64{"sigma": 1.1, "q": 1}, SamplingFixedSize, ""},
		{"sgd fixed batch", "kind = \"sgd\"\nsigma = 1.1\nsampling = \"fixed_size\"\nrelation = \"replace_one\"\nbatch = 256\ndataset_size = 60000",
			map[string]float64{"sigma": 1.1, "batch": 256, "dataset_size": 60000}, SamplingFixedSize, RelationReplaceOne},
		{"sgd batch = n", "kind = \"sgd\"\nsigma = 1.1\nsampling = \"fixed_size\"\nbatch = 7\ndataset_size = 7.0",
			map[string]float64{"sigma": 1.1, "batch": 7, "dataset_size": 7}, SamplingFixedSize, ""},
		{"laplace today", "kind = \"laplace\"\nscale = 2", map[string]float64{"scale": 2, "sensitivity": 1, "truncate": 0}, "", ""},
		{"laplace q", "kind = \"laplace\"\nscale = 2\nq = 0.5", map[string]float64{"scale": 2, "sensitivity": 1, "truncate": 0, "q": 0.5}, "", ""},
		{"laplace q fixed replace_one", "kind = \"laplace\"\nscale = 2\nq = 0.5\nsampling = \"fixed_size\"\nrelation = \"replace_one\"",
			map[string]float64{"scale": 2, "sensitivity": 1, "truncate": 0, "q": 0.5}, SamplingFixedSize, RelationReplaceOne},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse("m.toml", []byte(subDoc(tc.keys, "")))
			if err != nil {
				t.Fatal(err)
			}
			s := m.Mechanisms[0]
			if !reflect.DeepEqual(s.Params, tc.params) || s.Sampling != tc.sampling || s.Relation != tc.relation {
				t.Fatalf("params %v sampling %q relation %q, want %v %q %q", s.Params, s.Sampling, s.Relation, tc.params, tc.sampling, tc.relation)
			}
			if !s.Subsampled() {
				if s.Kind == KindSGD || s.Params["q"] != 0 {
					t.Fatal("not Subsampled")
				}
			}
		})
	}
}

// TestSubsamplingParamsJSONUnchanged checks that today's sgd and laplace
// manifests (and those naming the defaults) describe their instances as
// before the keys existed: the results' params column and the cache keys.
func TestSubsamplingParamsJSONUnchanged(t *testing.T) {
	for keys, want := range map[string]string{
		"kind = \"sgd\"\nsigma = 1.1\nq = 0.01":                                                    `{"kind":"sgd","params":{"q":0.01,"sigma":1.1},`,
		"kind = \"sgd\"\nsigma = 1.1\nq = 0.01\nsampling = \"poisson\"\nrelation = \"add_remove\"": `{"kind":"sgd","params":{"q":0.01,"sigma":1.1},`,
		"kind = \"laplace\"\nscale = 2":                                                            `{"kind":"laplace","params":{"scale":2,"sensitivity":1,"truncate":0},`,
		"kind = \"sgd\"\nsigma = 1.1\nq = 0.01\nrelation = \"replace_one\"":                        `{"kind":"sgd","params":{"q":0.01,"sigma":1.1},"relation":"replace_one",`,
	} {
		m, err := Parse("m.toml", []byte(subDoc(keys, "")))
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Instances()[0].ParamsJSON(); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %s, want prefix %s", keys, got, want)
		}
	}
}

func TestSubsamplingErrors(t *testing.T) {
	tests := []struct {
		name, keys, sweep string
		want              []string // substrings of the error, with file:line:key
	}{
		{"unknown sampling", "kind = \"sgd\"\nsigma = 1\nq = 0.1\nsampling = \"fixedsize\"",
			"", []string{`m.toml:7: mechanism "m": sampling: unknown sampling "fixedsize"`, `did you mean "fixed_size"?`}},
		{"unknown relation", "kind = \"sgd\"\nsigma = 1\nq = 0.1\nrelation = \"replace-one\"",
			"", []string{`m.toml:7: mechanism "m": relation: unknown relation "replace-one"`, `did you mean "replace_one"?`}},
		{"sampling not a string", "kind = \"sgd\"\nsigma = 1\nq = 0.1\nsampling = 1",
			"", []string{`m.toml:7: mechanism "m": sampling: must be a string`}},
		{"q and batch", "kind = \"sgd\"\nsigma = 1\nq = 0.1\nsampling = \"fixed_size\"\nbatch = 10\ndataset_size = 100",
			"", []string{`m.toml:8: mechanism "m": batch: give either the rate q or batch and dataset_size, not both`}},
		{"q and dataset_size", "kind = \"sgd\"\nsigma = 1\nq = 0.1\nsampling = \"fixed_size\"\ndataset_size = 100",
			"", []string{`m.toml:8: mechanism "m": dataset_size: give either the rate q`}},
		{"batch with poisson", "kind = \"sgd\"\nsigma = 1\nbatch = 10\ndataset_size = 100",
			"", []string{`m.toml:6: mechanism "m": batch: batch and dataset_size need sampling = "fixed_size"`}},
		{"batch with poisson named", "kind = \"sgd\"\nsigma = 1\nsampling = \"poisson\"\ndataset_size = 100\nbatch = 10",
			"", []string{`m.toml:8: mechanism "m": batch: batch and dataset_size need sampling = "fixed_size"`}},
		{"batch without dataset_size", "kind = \"sgd\"\nsigma = 1\nsampling = \"fixed_size\"\nbatch = 10",
			"", []string{`m.toml:7: mechanism "m": batch: give dataset_size too`}},
		{"dataset_size without batch", "kind = \"sgd\"\nsigma = 1\nsampling = \"fixed_size\"\ndataset_size = 10",
			"", []string{`m.toml:7: mechanism "m": dataset_size: give batch too`}},
		{"batch above dataset_size", "kind = \"sgd\"\nsigma = 1\nsampling = \"fixed_size\"\nbatch = 11\ndataset_size = 10",
			"", []string{`m.toml:7: mechanism "m": batch: must be in [1, 10] (the data set size n), got 11`}},
		{"batch zero", "kind = \"sgd\"\nsigma = 1\nsampling = \"fixed_size\"\nbatch = 0\ndataset_size = 10",
			"", []string{`m.toml:7: mechanism "m": batch: must be a positive integer, got 0`}},
		{"batch fractional", "kind = \"sgd\"\nsigma = 1\nsampling = \"fixed_size\"\nbatch = 2.5\ndataset_size = 10",
			"", []string{`m.toml:7: mechanism "m": batch: must be a positive integer, got 2.5`}},
		{"no rate", "kind = \"sgd\"\nsigma = 1",
			"", []string{`m.toml:2: mechanism "m": q: missing required key for kind sgd`}},
		{"q out of range", "kind = \"sgd\"\nsigma = 1\nq = 0",
			"", []string{`m.toml:6: mechanism "m": q: must be in (0, 1], got 0`}},
		{"sgd sensitivity", "kind = \"sgd\"\nsigma = 1\nq = 0.5\nsensitivity = -1",
			"", []string{`m.toml:7: mechanism "m": sensitivity: must be positive and finite`}},
		{"laplace sampling without q", "kind = \"laplace\"\nscale = 1\nsampling = \"fixed_size\"",
			"", []string{`m.toml:6: mechanism "m": sampling: applies to a subsampled Laplace mechanism only: give the sampling rate q too`}},
		{"laplace relation without q", "kind = \"laplace\"\nscale = 1\nrelation = \"replace_one\"",
			"", []string{`m.toml:6: mechanism "m": relation: applies to a subsampled Laplace mechanism only`}},
		{"laplace q and truncate", "kind = \"laplace\"\nscale = 1\nq = 0.1\ntruncate = 5",
			"", []string{`m.toml:6: mechanism "m": q: a subsampled Laplace mechanism (q given) cannot be truncated`}},
		{"laplace batch", "kind = \"laplace\"\nscale = 1\nq = 0.1\nbatch = 5",
			"", []string{`m.toml:7: mechanism "m": batch: unknown key for kind laplace`}},
		{"gauss sampling", "kind = \"gauss\"\nsigma = 1\nsampling = \"poisson\"",
			"", []string{`m.toml:6: mechanism "m": sampling: unknown key for kind gauss`}},
		{"sweep q with batch", "kind = \"sgd\"\nsigma = 1\nsampling = \"fixed_size\"\nbatch = 5\ndataset_size = 10",
			"m.q = [0.1, 0.2]", []string{`m.toml:13: sweep."m.q": mechanism has batch and dataset_size: sweep those, not q`}},
		{"sweep batch above n", "kind = \"sgd\"\nsigma = 1\nsampling = \"fixed_size\"\nbatch = 5\ndataset_size = 10",
			"m.batch = [5, 20]", []string{`m.toml:13: sweep."m.batch": batch must be in [1, 10] (the data set size n), got 20`}},
		{"sweep batch with q", "kind = \"sgd\"\nsigma = 1\nq = 0.1",
			"m.batch = [5, 20]", []string{`m.toml:11: sweep."m.batch": mechanism has the rate q: sweep q, not batch`}},
		{"sweep truncate with q", "kind = \"laplace\"\nscale = 1\nq = 0.1",
			"m.truncate = [0, 2]", []string{`m.toml:11: sweep."m.truncate": a subsampled Laplace mechanism (q given) cannot be truncated`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("m.toml", []byte(subDoc(tc.keys, tc.sweep)))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestSubsamplingSweep checks that the new numeric keys sweep.
func TestSubsamplingSweep(t *testing.T) {
	m, err := Parse("m.toml", []byte(subDoc("kind = \"sgd\"\nsigma = 1\nsampling = \"fixed_size\"\nbatch = 5\ndataset_size = 10", "m.batch = [1, 10]\nm.sensitivity = [1, 2]")))
	if err != nil {
		t.Fatal(err)
	}
	insts := m.Instances()
	if len(insts) != 4 || insts[3].Spec.Params["batch"] != 10 || insts[3].Spec.Params["sensitivity"] != 2 || insts[3].Spec.Sampling != SamplingFixedSize {
		t.Fatalf("instances %+v", insts)
	}
}

// TestSequencePartRelations checks that a sequence's subsampled parts must
// share their neighbouring relation (non-subsampled parts do not count).
func TestSequencePartRelations(t *testing.T) {
	doc := func(rel2 string) string {
		return `name = "x"
[[mechanism]]
id = "a"
kind = "sgd"
sigma = 2
q = 0.01
[[mechanism]]
id = "b"
kind = "sgd"
sigma = 1.1
q = 0.01
` + rel2 + `
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 5
[[sequence]]
id = "s"
parts = [{ mechanism = "a", count = 3 }, { mechanism = "g", count = 1 }, { mechanism = "b", count = 5 }]
[query]
compositions = [1]
delta = [1e-5]
`
	}
	if _, err := Parse("m.toml", []byte(doc(`relation = "add_remove"`))); err != nil {
		t.Fatalf("same relations refused: %v", err)
	}
	_, err := Parse("m.toml", []byte(doc(`relation = "replace_one"`)))
	want := `m.toml:17: sequence "s": parts: parts "a" (relation add_remove) and "b" (relation replace_one) use different neighbouring relations`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
}
