package manifest

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseValues checks that a manifest given as Go values (the
// one-line commands' flags) parses to what its TOML text parses to, and
// that its errors name the keys.
func TestParseValues(t *testing.T) {
	cases := []struct {
		name string
		doc  map[string]any
		toml string
		err  string
	}{
		{"sgd query", map[string]any{"name": "eps",
			"mechanism": []map[string]any{{"id": "sgd", "kind": "sgd", "sigma": 1.1, "q": 0.01}},
			"engine":    map[string]any{"buckets": 200000, "tilts": 2, "error_correction": true},
			"query":     map[string]any{"methods": []string{"buckets", "rdp"}, "compositions": []int64{1000, 10000}, "delta": []float64{1e-5, 1e-6}}},
			"name = \"eps\"\n[engine]\nbuckets = 200000\ntilts = 2\nerror_correction = true\n[[mechanism]]\nid = \"sgd\"\nkind = \"sgd\"\nsigma = 1.1\nq = 0.01\n[query]\nmethods = [\"buckets\", \"rdp\"]\ncompositions = [1000, 10000]\ndelta = [1e-5, 1e-6]\n", ""},
		{"search", map[string]any{"name": "search",
			"mechanism": []map[string]any{{"id": "g", "kind": "gauss", "sigma": 1.0}},
			"search":    map[string]any{"compositions": []int64{16}, "eps": 1.0, "delta": 1e-5, "max_probes": 20}},
			"name = \"search\"\n[[mechanism]]\nid = \"g\"\nkind = \"gauss\"\nsigma = 1.0\n[search]\ncompositions = [16]\neps = 1.0\ndelta = 1e-5\nmax_probes = 20\n", ""},
		{"refused", map[string]any{"name": "eps",
			"mechanism": []map[string]any{{"id": "e", "kind": "eps_delta", "eps": 1.0, "delta": 1.0}},
			"query":     map[string]any{"compositions": []int64{2}, "delta": []float64{1e-5}}},
			"", `flags: mechanism "e": delta: must be in [0, 1), got 1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseValues("flags", c.doc)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := Parse("flags", []byte(c.toml))
			if err != nil {
				t.Fatal(err)
			}
			if len(got.built) != len(want.built) {
				t.Errorf("values built %d mechanisms, the TOML text %d", len(got.built), len(want.built))
			}
			for id, b := range want.built {
				if g, ok := got.built[id]; !ok || g.mech.String() != b.mech.String() {
					t.Errorf("mechanism %q: values built %v, the TOML text %v", id, g.mech, b.mech)
				}
			}
			for _, m := range []*Manifest{got, want} {
				m.Hash = ""
				m.built = nil // compared above (the mechanisms are distinct values)
				for i := range m.Mechanisms {
					m.Mechanisms[i].Line = 0
				}
				if m.Search != nil {
					m.Search.Line = 0
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("values give\n%+v\nthe TOML text\n%+v", got, want)
			}
		})
	}
}
