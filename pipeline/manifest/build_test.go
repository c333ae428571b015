package manifest

import (
	"strings"
	"testing"
)

// TestEngineRanges checks that the parameters' ranges are the engine
// constructors' and that a refusal is reported at the key it concerns, in
// the mechanism table and in a sweep.
func TestEngineRanges(t *testing.T) {
	cases := []struct {
		name, mech, sweep, want string
	}{
		{"gauss sigma", "kind = \"gauss\"\nsigma = -1", "", `t.toml:5: mechanism "m": sigma: must be positive and finite, got -1`},
		{"eps_delta delta", "kind = \"eps_delta\"\neps = 1\ndelta = 1", "", `t.toml:6: mechanism "m": delta: must be in [0, 1), got 1`},
		{"gauss truncate and sensitivity", "kind = \"gauss\"\nsigma = 1\ntruncate = 0.4", "", `t.toml:2: mechanism "m": gauss: truncate 0.4 must exceed half the sensitivity 1`},
		{"sgd q", "kind = \"sgd\"\nsigma = 1\nq = 2", "", `t.toml:6: mechanism "m": q: must be in (0, 1], got 2`},
		{"vuvuzela mu zero", "kind = \"vuvuzela_dialing\"\nmu = 0\nscale = 10", "", ""},
		{"swept sigma", "kind = \"gauss\"\nsigma = 1", "\"m.sigma\" = [1, -1]", `sweep."m.sigma": sigma must be positive and finite, got -1`},
		{"swept q", "kind = \"sgd\"\nsigma = 1\nq = 0.1", "\"m.q\" = [0.1, 0]", `sweep."m.q": q must be in (0, 1], got 0`},
		{"swept dataset_size below batch", "kind = \"sgd\"\nsigma = 1\nsampling = \"fixed_size\"\nbatch = 5\ndataset_size = 10", "\"m.dataset_size\" = [10, 3]", `sweep."m.dataset_size": batch must be in [1, 3] (the data set size n), got 5`},
		{"swept batch", "kind = \"sgd\"\nsigma = 1\nsampling = \"fixed_size\"\nbatch = 2\ndataset_size = 10", "\"m.batch\" = [1.5]", `sweep."m.batch": batch must be a positive integer, got 1.5`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := "name = \"t\"\n[[mechanism]]\nid = \"m\"\n" + c.mech + "\n[query]\ncompositions = [2]\ndelta = [1e-5]\n"
			if c.sweep != "" {
				doc += "[sweep]\n" + c.sweep + "\n"
			}
			_, err := Parse("t.toml", []byte(doc))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestEngineOptionRanges checks that the ranges of the engine options are
// the engine's (engine.Options.Check), reported at their key, in [engine]
// and in a mechanism's own engine table.
func TestEngineOptionRanges(t *testing.T) {
	cases := []struct {
		name, top, own, want string
	}{
		{"buckets", "buckets = 7", "", `t.toml:3: engine.buckets: must be a multiple of 4`},
		{"buckets too many", "buckets = 134217732", "", `engine.buckets: must be at most 67108864`},
		{"tilts 5", "tilts = 5", "", ""},
		{"tilts 6", "tilts = 6", "", `engine.tilts: must be between 1 and 5, got 6`},
		{"factor", "factor = 0.5", "", `engine.factor: must be > 1 and finite (or 0 for automatic), got 0.5`},
		{"tail budget", "tail_budget = 1", "", `engine.tail_budget: must be in (0, 1), got 1`},
		{"own squaring threshold", "", "squaring_threshold = 1", `mechanism "m": engine.squaring_threshold: must be > 1, got 1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := "name = \"t\"\n[engine]\n" + c.top + "\n[[mechanism]]\nid = \"m\"\nkind = \"gauss\"\nsigma = 1\n"
			if c.own != "" {
				doc += "[mechanism.engine]\n" + c.own + "\n"
			}
			doc += "[query]\ncompositions = [2]\ndelta = [1e-5]\n"
			_, err := Parse("t.toml", []byte(doc))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestBuilt checks which instances get the mechanism that parsing built:
// those whose spec is the parsed one (unswept, or at the parsed values),
// not swept points with other values, changed specs or sequences.
func TestBuilt(t *testing.T) {
	const mechs = "[[mechanism]]\nid = \"g\"\nkind = \"gauss\"\nsigma = 2\n" +
		"[[mechanism]]\nid = \"s\"\nkind = \"sgd\"\nsigma = 1\nq = 0.01\n" +
		"[[mechanism]]\nid = \"p\"\nkind = \"laplace\"\nscale = 1\n" +
		"[[sequence]]\nid = \"seq\"\nparts = [{ mechanism = \"p\", count = 2 }]\n"
	doc := "name = \"t\"\n" + mechs + "[query]\ncompositions = [2]\ndelta = [1e-5]\n[sweep]\n\"s.sigma\" = [1, 3]\n"
	m, err := Parse("t.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	changed := func(in Instance) Instance {
		in.Spec.Params = map[string]float64{"sigma": 2.5, "sensitivity": 1, "truncate": 0}
		return in
	}
	cases := []struct {
		label  string
		change func(Instance) Instance
		want   bool
	}{
		{"g", nil, true},
		{"g", changed, false},
		{"s[sigma=1]", nil, true}, // the parsed sigma
		{"s[sigma=3]", nil, false},
		{"seq", nil, false},
	}
	byLabel := map[string]Instance{}
	for _, in := range m.Instances() {
		byLabel[in.Label] = in
	}
	for _, c := range cases {
		in, ok := byLabel[c.label]
		if !ok {
			t.Fatalf("no instance %q among %v", c.label, byLabel)
		}
		if c.change != nil {
			in = c.change(in)
		}
		mech, got := m.Built(in)
		if got != c.want {
			t.Errorf("%s (changed %v): Built = %v, want %v", c.label, c.change != nil, got, c.want)
			continue
		}
		if !got {
			continue
		}
		want, err := in.Spec.Build()
		if err != nil {
			t.Fatal(err)
		}
		if mech.String() != want.String() {
			t.Errorf("%s: Built gave %v, Build %v", c.label, mech, want)
		}
	}
	// A change to the manifest's spec after parsing does not reach the
	// kept copy.
	in := byLabel["g"]
	m.Mechanisms[0].Params["sigma"] = 7
	in.Spec.Params["sigma"] = 7
	if _, ok := m.Built(in); ok {
		t.Errorf("Built accepted sigma changed in place after parsing")
	}
}
