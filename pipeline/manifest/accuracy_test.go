package manifest

import "testing"

// TestAccuracyTargets: the description of the accuracy targets a run
// records in its result files, before and after SetAccuracy (which leaves
// the hash alone); parts of sequences do not count.
func TestAccuracyTargets(t *testing.T) {
	const mechs = `
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 2.0
[[mechanism]]
id = "s"
kind = "sgd"
sigma = 1.0
q = 0.01
`
	const seq = `
[[mechanism]]
id = "p"
kind = "gauss"
sigma = 2.0
[[sequence]]
id = "q"
parts = [{ mechanism = "p", count = 2 }]
`
	tests := []struct {
		name, body string
		want       string
		set        float64 // SetAccuracy, if > 0
		wantSet    string
	}{
		{"none", mechs, "", 0.01, "0.01"},
		{"manifest-wide", "[engine]\naccuracy = 1e-3\n" + mechs, "0.001", 0.01, "0.01"},
		{"per mechanism", mechs + "[mechanism.engine]\naccuracy = 1e-4\n", "g=none, s=0.0001", 0.001, "0.001"},
		{"sequence", seq, "", 0.5, "0.5"},
		{"sequence with its own", "[[mechanism]]\nid = \"p\"\nkind = \"gauss\"\nsigma = 2.0\n[[sequence]]\nid = \"q\"\nparts = [{ mechanism = \"p\", count = 2 }]\nengine = { accuracy = 0.1 }\n", "0.1", 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse("m.toml", []byte("name = \"m\"\n"+tc.body+"[query]\ncompositions = [1]\neps = [1.0]\n"))
			if err != nil {
				t.Fatal(err)
			}
			if got := m.AccuracyTargets(); got != tc.want {
				t.Errorf("AccuracyTargets = %q, want %q", got, tc.want)
			}
			if tc.set == 0 {
				return
			}
			hash := m.Hash
			if err := m.SetAccuracy(tc.set); err != nil {
				t.Fatal(err)
			}
			if got := m.AccuracyTargets(); got != tc.wantSet || m.Hash != hash {
				t.Errorf("after SetAccuracy(%v): %q (hash changed: %v), want %q", tc.set, got, m.Hash != hash, tc.wantSet)
			}
		})
	}
}
