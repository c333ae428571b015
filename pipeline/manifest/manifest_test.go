package manifest

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
)

func TestParseManifestValid(t *testing.T) {
	m, err := Parse("m.toml", []byte(testfig.Valid))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "t1" || m.Title != "test" || len(m.Mechanisms) != 2 {
		t.Fatalf("unexpected manifest %+v", m)
	}
	if got, want := m.Query.Compositions, []int{1, 2, 4, 8}; !reflect.DeepEqual(got, want) {
		t.Errorf("compositions = %v, want %v", got, want)
	}
	if got := m.Query.Eps; len(got) != 2 || got[0] != 0 || math.Abs(got[1]-math.Log(1.5)) > 1e-15 {
		t.Errorf("eps = %v", got)
	}
	g := m.Mechanisms[0]
	if g.Params["sigma"] != 2 || g.Params["sensitivity"] != 1 || g.Params["truncate"] != 0 || g.Engine.Buckets != 2000 || !g.Engine.ErrorCorrection {
		t.Errorf("gauss spec %+v", g)
	}
	if rr := m.Mechanisms[1]; rr.Engine.Buckets != 1000 || rr.Line != 13 {
		t.Errorf("rr spec %+v", rr)
	}
	insts := m.Instances()
	var labels []string
	for _, in := range insts {
		labels = append(labels, in.Label)
	}
	if want := []string{"g[sigma=2]", "g[sigma=4]", "rr"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("instances %v, want %v", labels, want)
	}
	if insts[1].Spec.Params["sigma"] != 4 || m.Mechanisms[0].Params["sigma"] != 2 {
		t.Error("sweep must not modify the base spec")
	}
}

// base is a minimal valid manifest; cases replace parts of it.
const base = `name = "x"
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 1.0
[query]
compositions = [1, 2]
eps = [0.5]
`

func TestParseManifestErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		testfig.WriteFile(t, dir, name, content)
		return name
	}
	write("nan.csv", "a,b\n0.5,NaN\n0.5,0.5\n")
	write("neg.csv", "a,b\n1.5,0.5\n-0.5,0.5\n")
	write("sum.csv", "a,b\n0.5,0.5\n0.4,0.5\n")
	write("sum1e-7.csv", "a,b\n0.5000001,0.5\n0.5,0.5\n") // sums to 1 + 1e-7, beyond engine.HistogramTolerance
	write("cols.csv", "x,y\n0.5,0.5\n0.5,0.5\n")
	write("ok.csv", "a,b\n0.5,0.25\n0.5,0.75\n")
	hist := func(file string) string {
		return strings.Replace(base, "kind = \"gauss\"\nsigma = 1.0", "kind = \"histogram\"\nfile = \""+file+"\"", 1)
	}
	tests := []struct {
		name     string
		manifest string
		want     []string // substrings of the error
	}{
		{"syntax", "name = \"x\"\n[query\n", []string{"m.toml:3", "table name"}},
		{"typo", strings.Replace(base, "sigma = 1.0", "sigam = 1.0", 1), []string{"m.toml:5", `mechanism "g": sigam`, `did you mean "sigma"`, "missing required key"}},
		{"unknown top", base + "colour = 1\n", []string{"m.toml:9", "colour", "unknown key"}},
		{"missing name", strings.Replace(base, `name = "x"`, "", 1), []string{"name: missing required key"}},
		{"missing kind", strings.Replace(base, `kind = "gauss"`, "", 1), []string{"m.toml:2", "kind", "missing"}},
		{"unknown kind", strings.Replace(base, `"gauss"`, `"gaus"`, 1), []string{"m.toml:4", `did you mean "gauss"`}},
		{"wrong type", strings.Replace(base, "sigma = 1.0", `sigma = "big"`, 1), []string{"m.toml:5", "sigma", "must be a number, got string"}},
		{"zero sigma", strings.Replace(base, "sigma = 1.0", "sigma = 0.0", 1), []string{"m.toml:5", "sigma", "positive"}},
		{"negative sigma", strings.Replace(base, "sigma = 1.0", "sigma = -3", 1), []string{"m.toml:5", "positive"}},
		{"nan sigma", strings.Replace(base, "sigma = 1.0", "sigma = nan", 1), []string{"m.toml:5", "positive"}},
		{"p outside", strings.Replace(base, "kind = \"gauss\"\nsigma = 1.0", "kind = \"randomized_response\"\np = 1.0", 1), []string{"m.toml:5", ": p:", "(0, 1)"}},
		{"allocation replace-one", strings.Replace(base, "kind = \"gauss\"\nsigma = 1.0", "kind = \"random_allocation\"\nsigma = 1.0\nsteps_per_epoch = 10\nrelation = \"replace_one\"", 1), []string{"relation", "replace_one is not supported", "add_remove"}},
		{"allocation participations", strings.Replace(base, "kind = \"gauss\"\nsigma = 1.0", "kind = \"random_allocation\"\nsigma = 1.0\nsteps_per_epoch = 10\nparticipations = 11", 1), []string{"participations", "[1, steps_per_epoch = 10]"}},
		{"q outside", strings.Replace(base, "sigma = 1.0", "sigma = 1.0\nq = 0.0", 1) + "", []string{"m.toml:6", "unknown key for kind gauss"}},
		{"sgd q", strings.Replace(base, "kind = \"gauss\"\nsigma = 1.0", "kind = \"sgd\"\nsigma = 4.0\nq = 1.5", 1), []string{"m.toml:6", ": q:", "(0, 1]"}},
		{"r zero", strings.Replace(base, "[1, 2]", "[0, 2]", 1), []string{"m.toml:7", "compositions", ">= 1"}},
		{"r range", strings.Replace(base, "[1, 2]", `{ from = 0, to = 8, scale = "log2" }`, 1), []string{"m.toml:7", "from"}},
		{"r float", strings.Replace(base, "[1, 2]", "[1.5]", 1), []string{"m.toml:7", "integer"}},
		{"e_eps below 1", strings.Replace(base, "eps = [0.5]", "e_eps = [0.5]", 1), []string{"m.toml:8", ">= 1"}},
		{"eps and e_eps", base + "e_eps = [1.1]\n", []string{"either e_eps or eps"}},
		{"delta range", base + "delta = [2.0]\n", []string{"m.toml:9", "(0, 1)"}},
		{"no query points", strings.Replace(base, "eps = [0.5]\n", "", 1), []string{"nothing to compute"}},
		{"unknown method", base + `methods = ["bucket"]` + "\n", []string{"m.toml:9", `did you mean "buckets"`}},
		{"missing query", strings.Split(base, "[query]")[0], []string{"query", "missing"}},
		{"duplicate id", base[:strings.Index(base, "[query]")] + "[[mechanism]]\nid = \"g\"\nkind = \"gauss\"\nsigma = 2.0\n" + base[strings.Index(base, "[query]"):], []string{"m.toml:7", "duplicate id"}},
		{"single table", strings.Replace(base, "[[mechanism]]", "[mechanism]", 1), []string{"[[mechanism]]"}},
		{"engine buckets odd", "[engine]\nbuckets = 1001\n" + strings.Replace(base, `name = "x"`, "", 1) + "name = \"x\"\n", []string{"m.toml:2", "even"}},
		{"engine typo", base + "[engine]\nbucket = 1000\n", []string{"m.toml:10", `did you mean "buckets"`}},
		{"accuracy one", base + "[engine]\naccuracy = 1.0\n", []string{"m.toml:10", "engine.accuracy", "(0, 1)"}},
		{"accuracy zero", base + "[engine]\naccuracy = 0.0\n", []string{"m.toml:10", "engine.accuracy", "(0, 1)"}},
		{"accuracy nan", base + "[engine]\naccuracy = nan\n", []string{"m.toml:10", "engine.accuracy", "(0, 1)"}},
		{"accuracy string", base + "[engine]\naccuracy = \"1e-3\"\n", []string{"m.toml:10", "engine.accuracy", "must be a number"}},
		{"accuracy without error correction", base + "[engine]\nerror_correction = false\naccuracy = 1e-3\n", []string{"m.toml:11", "engine.accuracy", "lower bounds"}},
		{"accuracy inherited, error correction off", strings.Replace(base, "sigma = 1.0", "sigma = 1.0\n[mechanism.engine]\nerror_correction = false", 1) + "[engine]\naccuracy = 1e-3\n", []string{"m.toml:7", "error_correction", "lower bounds"}},
		{"sweep unknown mechanism", base + "[sweep]\n\"h.sigma\" = [1.0]\n", []string{"m.toml:10", `no mechanism with id "h"`}},
		{"sweep unknown param", base + "[sweep]\n\"g.sigam\" = [1.0]\n", []string{"m.toml:10", `did you mean "sigma"`}},
		{"sweep bad value", base + "[sweep]\n\"g.sigma\" = [1.0, -1.0]\n", []string{"m.toml:10", "positive"}},
		{"histogram NaN", hist("nan.csv"), []string{"m.toml:5", "file: nan.csv", "NaN is not a probability"}},
		{"histogram negative", hist("neg.csv"), []string{"m.toml:5", "-0.5 is not a probability"}},
		{"histogram sum beyond the engine's tolerance", hist("sum1e-7.csv"), []string{"m.toml:5", "file: sum1e-7.csv", "sums to 1.0000000999", "tolerance 1e-09"}},
		{"histogram sum", hist("sum.csv"), []string{"m.toml:5", "sums to 0.9"}},
		{"histogram columns", hist("cols.csv"), []string{"columns a and b"}},
		{"histogram unreadable", hist("missing.csv"), []string{"m.toml:5", "no such file"}},
		{"vuvuzela noise", strings.Replace(base, "kind = \"gauss\"\nsigma = 1.0", "kind = \"vuvuzela_dialing\"\nmu = 100.0\nscale = 10.0\nnoise = \"cauchy\"", 1), []string{"m.toml:7", "noise"}},
		{"too many tasks", strings.Replace(base, "[1, 2]", `{ from = 1, to = 100000 }`, 1) + "[sweep]\n\"g.sigma\" = { from = 1.0, to = 2.0, num = 100 }\n", []string{"m.toml:9", "split it"}},
		{"histogram not a file", hist("/dev/null"), []string{"regular file"}},
		{"bad name", strings.Replace(base, `"x"`, `"../up"`, 1), []string{"m.toml:1", "folder name"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(filepath.Join(dir, "m.toml"), []byte(tc.manifest))
			if err == nil {
				t.Fatalf("no error for\n%s", tc.manifest)
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
	// The valid histogram parses.
	if _, err := Parse(filepath.Join(dir, "m.toml"), []byte(hist("ok.csv"))); err != nil {
		t.Errorf("valid histogram: %v", err)
	}
}

// TestParseAccuracy: the accuracy key reaches the effective engine
// options of every mechanism, a mechanism's own engine table may set or
// override it, and without it the options are those of before (0).
func TestParseAccuracy(t *testing.T) {
	m, err := Parse("m.toml", []byte(base+"[engine]\naccuracy = 1e-3\nbuckets = 4000\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Mechanisms[0].Engine; got.Accuracy != 1e-3 || got.Buckets != 4000 || m.Engine.Accuracy != 1e-3 {
		t.Errorf("engine options %+v, want accuracy 1e-3 and buckets 4000", got)
	}
	own := strings.Replace(base, "sigma = 1.0", "sigma = 1.0\n[mechanism.engine]\naccuracy = 0.01", 1)
	if m, err = Parse("m.toml", []byte(own)); err != nil {
		t.Fatal(err)
	}
	if got := m.Mechanisms[0].Engine.Accuracy; got != 0.01 || m.Engine.Accuracy != 0 {
		t.Errorf("mechanism accuracy %v (manifest %v), want 0.01 (0)", got, m.Engine.Accuracy)
	}
	if m, err = Parse("m.toml", []byte(base)); err != nil {
		t.Fatal(err)
	}
	if got := m.Mechanisms[0].Engine; got != DefaultEngineOptions() {
		t.Errorf("without [engine]: %+v, want the defaults %+v", got, DefaultEngineOptions())
	}
	if d := m.Instances()[0].ParamsJSON(); strings.Contains(d, "accuracy") {
		t.Errorf("params %s mention accuracy without a target", d)
	}
}

func TestParseManifestEveryKind(t *testing.T) {
	m, err := Load(filepath.Join("..", "..", "experiments", "all-kinds.toml"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, s := range m.Mechanisms {
		kinds[s.Kind] = true
	}
	for _, k := range Kinds() {
		if !kinds[k] {
			t.Errorf("experiments/all-kinds.toml lacks kind %s", k)
		}
	}
}
