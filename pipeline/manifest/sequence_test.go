package manifest

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
)

func TestParseSequence(t *testing.T) {
	m, err := Parse("m.toml", []byte(testfig.Sequence+"[sweep]\n\"main.sigma\" = [2.0, 3.0]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Mechanisms) != 4 {
		t.Fatalf("%d mechanisms, want 2 mechanisms and 2 sequences", len(m.Mechanisms))
	}
	warm, main, sched := m.Mechanisms[0], m.Mechanisms[1], m.Mechanisms[2]
	if !reflect.DeepEqual(warm.InSequences, []string{"sched"}) || !reflect.DeepEqual(main.InSequences, []string{"sched", "const"}) {
		t.Errorf("parts marked %v, %v", warm.InSequences, main.InSequences)
	}
	if sched.Kind != KindSequence || sched.Line != 12 || len(sched.Parts) != 2 || sched.Parts[0].Count != 3 || sched.Parts[1].Count != 5 || sched.Parts[1].Line != 16 {
		t.Fatalf("sched %+v", sched)
	}
	if sched.Params["warmup.sigma"] != 4 || sched.Params["main.sigma"] != 2 || sched.Params["main.sensitivity"] != 1 {
		t.Errorf("sched params %v", sched.Params)
	}
	if sched.Observations() != 8 || !reflect.DeepEqual(sched.PartIDs(), []string{"warmup", "main"}) {
		t.Errorf("observations %d, parts %v", sched.Observations(), sched.PartIDs())
	}
	// Instances: no part on its own, every sequence using "main" swept.
	var labels []string
	for _, in := range m.Instances() {
		labels = append(labels, in.Label)
	}
	want := []string{"sched[main.sigma=2]", "sched[main.sigma=3]", "const[main.sigma=2]", "const[main.sigma=3]"}
	if !reflect.DeepEqual(labels, want) {
		t.Errorf("instances %v, want %v", labels, want)
	}
	in := m.Instances()[1]
	parts := in.Spec.ResolvedParts()
	if parts[1].Mechanism.Params["sigma"] != 3 || parts[0].Mechanism.Params["sigma"] != 4 || parts[1].Mechanism.Engine.Buckets != 4000 {
		t.Errorf("resolved parts %+v", parts)
	}
	if m.Mechanisms[1].Params["sigma"] != 2 || sched.Params["main.sigma"] != 2 {
		t.Error("the sweep must not modify the base specs")
	}
	var desc struct {
		Kind   string             `json:"kind"`
		Params map[string]float64 `json:"params"`
		Parts  []struct {
			Mechanism, Kind string
			Count           int
		} `json:"parts"`
	}
	if err := json.Unmarshal([]byte(in.ParamsJSON()), &desc); err != nil || desc.Kind != KindSequence || desc.Params["main.sigma"] != 3 || len(desc.Parts) != 2 || desc.Parts[1].Count != 5 || desc.Parts[1].Mechanism != "main" {
		t.Errorf("params JSON %s (%v)", in.ParamsJSON(), err)
	}
	if n := m.instanceCount(nil); n != 4 {
		t.Errorf("instanceCount %g, want 4", n)
	}
}

// TestParseSequencePartsAsTables checks the [[sequence.parts]] form: the
// same sequence as the inline array.
func TestParseSequencePartsAsTables(t *testing.T) {
	src := strings.Replace(testfig.Sequence, `parts = [
  { mechanism = "warmup", count = 3 },
  { mechanism = "main", count = 5 },
]`, `[sequence.engine]
buckets = 2000
[[sequence.parts]]
mechanism = "warmup"
count = 3
[[sequence.parts]]
mechanism = "main"
count = 5`, 1)
	m, err := Parse("m.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := m.Mechanisms[2]
	if len(s.Parts) != 2 || s.Parts[1].Mechanism.ID != "main" || s.Parts[1].Line != 19 || s.Engine.Buckets != 2000 || m.Mechanisms[3].Engine.Buckets != 4000 {
		t.Errorf("sequence %+v", s)
	}
}

func TestParseSequenceErrors(t *testing.T) {
	seq := testfig.Sequence
	with := func(old, new string) string {
		if !strings.Contains(seq, old) {
			t.Fatalf("%q not in the manifest", old)
		}
		return strings.Replace(seq, old, new, 1)
	}
	tests := []struct {
		name     string
		manifest string
		want     []string
	}{
		{"count 0", with(`"main", count = 5`, `"main", count = 0`), []string{"m.toml:16", `sequence "sched": parts[1]: count`, "must be an integer in [1, 2^40]"}},
		{"count float", with(`"main", count = 5`, `"main", count = 2.5`), []string{"m.toml:16", "count: must be an integer, got float"}},
		{"count missing", with(`"main", count = 5`, `"main"`), []string{"m.toml:16", "parts[1]: count: missing required key"}},
		{"unknown part", with(`"main", count = 5`, `"mian", count = 5`), []string{"m.toml:16", `parts[1]: mechanism: no mechanism with id "mian" (did you mean "main"?)`}},
		{"part not a string", with(`"main", count = 5`, `1, count = 5`), []string{"m.toml:16", "must be a string (the id of a [[mechanism]]), got integer"}},
		{"nested", with(`"main", count = 5`, `"const", count = 5`), []string{"m.toml:16", `"const" is a sequence: sequences do not nest`}},
		{"unknown part key", with(`"main", count = 5`, `"main", count = 5, times = 2`), []string{"m.toml:16", "times", "unknown key of a part"}},
		{"no parts", with(`parts = [{ mechanism = "main", count = 8 }]`, ``), []string{"m.toml:18", `sequence "const": parts: missing required key`}},
		{"empty parts", with(`parts = [{ mechanism = "main", count = 8 }]`, `parts = []`), []string{"m.toml:20", "must be a non-empty array of tables"}},
		{"parts not tables", with(`parts = [{ mechanism = "main", count = 8 }]`, `parts = ["main"]`), []string{"m.toml:20", "must be a non-empty array of tables"}},
		{"unknown sequence key", with(`id = "const"`, `id = "const"`+"\ncount = 3"), []string{"m.toml:20", "unknown key for a sequence"}},
		{"duplicate id", with(`id = "const"`, `id = "main"`), []string{"m.toml:19", `duplicate id "main" (also a [[mechanism]])`}},
		{"duplicate sequence id", with(`id = "const"`, `id = "sched"`), []string{"m.toml:19", `duplicate id "sched" (also sequence[0])`}},
		{"missing id", with(`id = "const"`, ``), []string{"m.toml:18", "sequence[1]: id: missing required key"}},
		{"single table", strings.ReplaceAll(with(`[[sequence]]
id = "const"
parts = [{ mechanism = "main", count = 8 }]
`, ""), "[[sequence]]", "[sequence]"), []string{"write [[sequence]], not [sequence]"}},
		{"kov", with(`methods = ["buckets", "rdp", "exact"]`, `methods = ["buckets", "kov"]`), []string{"m.toml:25", "query.methods", `method "kov" does not apply to sequence "sched"`}},
		{"advanced", with(`methods = ["buckets", "rdp", "exact"]`, `methods = ["advanced"]`), []string{"m.toml:25", `method "advanced" does not apply to sequence "sched"`}},
		{"too many observations", with(`compositions = [1, 2]`, `compositions = [1, 1099511627776]`), []string{"m.toml:12", `sequence "sched"`, "more than 2^40"}},
		{"part engine", with("sigma = 2.0\n", "sigma = 2.0\n[mechanism.engine]\nbuckets = 8000\n"), []string{"m.toml:12", `mechanism "main": engine`, "move these options to the sequence"}},
		{"sweep a sequence", seq + "[sweep]\n\"sched.main.sigma\" = [1.0]\n", []string{"m.toml:27", "a sequence is swept through its parts", `"main.sigma"`}},
		{"sweep a sequence unquoted", seq + "[sweep]\nsched.main.sigma = [1.0]\n", []string{"m.toml:26", "a sequence is swept through its parts"}},
		{"search a part", strings.Replace(seq, "[query]", "[search]\nmechanisms = [\"main\"]\ncompositions = [1]\neps = 1.0\ndelta = 1e-3\n[query]", 1), []string{"m.toml:22", `mechanism "main" is a part of sequence "sched"`, `tie = ["main.sigma"]`}},
		{"search bad tie", strings.Replace(seq, "[query]", "[search]\ncompositions = [1]\ntie = [\"sigma\"]\neps = 1.0\ndelta = 1e-3\n[query]", 1), []string{"m.toml:23", `mechanism "sched"`, `parameter "sigma" cannot be tied`, `"warmup.sigma"`}},
		{"figure of a part", seq + "[[figure]]\nid = \"f\"\nkind = \"delta_vs_r\"\ne_eps = [1.6487212707001282]\nmechanisms = [\"main\"]\n", []string{`mechanism "main" is a part of sequence "sched" and has no results of its own`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("m.toml", []byte(tc.manifest))
			if err == nil {
				t.Fatalf("no error for\n%s", tc.manifest)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestSequenceSearchTie checks the parameters a search may multiply for a
// sequence: "<part id>.<parameter>" of its distinct parts, the noise of
// every part by default.
func TestSequenceSearchTie(t *testing.T) {
	m, err := Parse("m.toml", []byte(strings.Replace(testfig.Sequence, "[query]", "[search]\nmechanisms = [\"sched\"]\ntie = [\"main.sigma\"]\ncompositions = [1]\neps = 1.0\ndelta = 1e-3\n[query]", 1)))
	if err != nil {
		t.Fatal(err)
	}
	s := *m.mechanism("sched")
	if got := DefaultTieFor(s); !reflect.DeepEqual(got, []string{"warmup.sigma", "main.sigma"}) {
		t.Errorf("default tie %v", got)
	}
	if got := TieAllowedFor(s); !reflect.DeepEqual(got, []string{"warmup.sigma", "warmup.truncate", "main.sigma", "main.truncate"}) {
		t.Errorf("allowed %v", got)
	}
	if msg := CheckTieFor(s, []string{"main.sigma"}); msg != "" {
		t.Error(msg)
	}
	if !reflect.DeepEqual(m.Search.Tie, []string{"main.sigma"}) || !reflect.DeepEqual(m.Search.Mechanisms, []string{"sched"}) {
		t.Errorf("search %+v", m.Search)
	}
}

// TestSequenceExampleManifest parses the DP-SGD schedule of experiments/.
func TestSequenceExampleManifest(t *testing.T) {
	m, err := Load(filepath.Join("..", "..", "experiments", "sgd-schedule.toml"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range m.Mechanisms {
		if s.Kind == KindSequence {
			n++
		}
	}
	if n < 2 {
		t.Errorf("experiments/sgd-schedule.toml has %d sequences", n)
	}
}
