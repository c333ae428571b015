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
