package manifest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
)

var figureBase = testfig.Manifest(`name = "f"`, "[1, 512]", "[1e-4, 1e-5]")

func TestFigureParsing(t *testing.T) {
	tests := []struct {
		name    string
		figure  string
		wantErr string // empty: valid
		check   func(t *testing.T, f Figure)
	}{
		{"delta-eeps", `[[figure]]
id = "a"
kind = "delta-eeps"
r = 512
mechanisms = ["gauss"]
target = true
labels = { gauss = "GS" }
points = [{ e_eps = 2.0, delta = 1e-4, label = "p" }, { mechanism = "gauss", method = "kov", r = 512, delta = 1e-4 }]
y_range = [1e-12, 1]`, "", func(t *testing.T, f Figure) {
			if f.R != 512 || !f.Target || f.Labels["gauss"] != "GS" || len(f.Points) != 2 || !f.Points[1].FromResults() || f.YRange != [2]float64{1e-12, 1} || f.Bounds != "both" {
				t.Fatalf("parsed %+v", f)
			}
		}},
		{"eeps-r several deltas", `[[figure]]
id = "b"
kind = "eeps-r"
delta = [1e-4, 1e-5]
series = ["gauss:kov"]
per_round = { gauss = 2 }`, "", func(t *testing.T, f Figure) {
			if f.Delta != 1e-4 || len(f.Deltas) != 2 || f.PerRound["gauss"] != 2 || f.Series[0] != "gauss:kov" {
				t.Fatalf("parsed %+v", f)
			}
		}},
		{"delta-r", "[[figure]]\nid = \"c\"\nkind = \"delta-r\"\ne_eps = [1.5, 2.0]\nbounds = \"upper\"", "", nil},
		{"heatmap", "[[figure]]\nid = \"h\"\nkind = \"heatmap\"\nr = 512\nx = \"sgd.sigma\"\ny = \"sgd.q\"\nvalue = \"eps_upper\"\ndelta = 1e-5", "", nil},
		{"renyi", "[[figure]]\nid = \"re\"\nkind = \"renyi\"\nr = 1", "", nil},
		{"table", "[[figure]]\nid = \"t\"\nkind = \"table\"\ndelta = 1e-4", "", nil},
		{"unknown key", "[[figure]]\nid = \"a\"\nkind = \"delta-eeps\"\nr = 512\ntitel = \"x\"", `titel: unknown figure key (did you mean "title"?)`, nil},
		{"unknown kind", "[[figure]]\nid = \"a\"\nkind = \"delta-eps\"\nr = 512", `unknown figure kind "delta-eps" (did you mean "delta-eeps"?)`, nil},
		{"r not computed", "[[figure]]\nid = \"a\"\nkind = \"delta-eeps\"\nr = 64", "r = 64 is not in query.compositions", nil},
		{"missing r", "[[figure]]\nid = \"a\"\nkind = \"delta-eeps\"", "figure kind delta-eeps needs r", nil},
		{"delta not queried", "[[figure]]\nid = \"a\"\nkind = \"eeps-r\"\ndelta = 1e-3", "delta = 0.001 is not in query.delta", nil},
		{"e_eps not queried", "[[figure]]\nid = \"a\"\nkind = \"delta-r\"\ne_eps = [1.7]", "e_eps = 1.7 is not in the query", nil},
		{"unknown mechanism", "[[figure]]\nid = \"a\"\nkind = \"delta-eeps\"\nr = 1\nmechanisms = [\"laplace\"]", `no mechanism with id "laplace"`, nil},
		{"method not queried", "[[figure]]\nid = \"a\"\nkind = \"delta-eeps\"\nr = 1\nmethods = [\"rdp\"]", `method "rdp" is not in query.methods`, nil},
		{"bad series", "[[figure]]\nid = \"a\"\nkind = \"delta-eeps\"\nr = 1\nseries = [\"gauss\"]", `"gauss": must be "<mechanism id>:<method>"`, nil},
		{"heatmap over unswept", "[[figure]]\nid = \"h\"\nkind = \"heatmap\"\nr = 512\nx = \"gauss.sigma\"\ny = \"sgd.q\"\nvalue = \"eps_upper\"\ndelta = 1e-5", "must name a swept parameter", nil},
		{"heatmap bad value", "[[figure]]\nid = \"h\"\nkind = \"heatmap\"\nr = 512\nx = \"sgd.sigma\"\ny = \"sgd.q\"\nvalue = \"eps\"\ndelta = 1e-5", "heatmap value must be one of", nil},
		{"duplicate id", "[[figure]]\nid = \"a\"\nkind = \"renyi\"\nr = 1\n[[figure]]\nid = \"a\"\nkind = \"renyi\"\nr = 1", `duplicate figure id "a"`, nil},
		{"bad point", "[[figure]]\nid = \"a\"\nkind = \"delta-eeps\"\nr = 1\npoints = [{ e_eps = 0.5, delta = 1e-4 }]", "give e_eps (>= 1) and delta", nil},
		{"bad range", "[[figure]]\nid = \"a\"\nkind = \"delta-eeps\"\nr = 1\nx_range = [2, 1]", "x_range: must be [low, high]", nil},
		{"single table", "[figure]\nid = \"a\"", "write [[figure]], not [figure]", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse("f.toml", []byte(figureBase+tc.figure+"\n"))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if len(m.Figures) == 0 {
					t.Fatal("no figure parsed")
				}
				if tc.check != nil {
					tc.check(t, m.Figures[0])
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), "f.toml:") {
				t.Fatalf("error %v does not name the file and line", err)
			}
		})
	}
}

func TestQueryAlpha(t *testing.T) {
	tests := []struct {
		alpha   string
		want    []float64
		wantErr string
	}{
		{"[4, 2]", []float64{2, 4}, ""},
		{"{ from = 2, to = 8, num = 3 }", []float64{2, 5, 8}, ""},
		{"[1.0]", nil, "Renyi orders must be > 1"},
		{`["x"]`, nil, "expected a number"},
	}
	for _, tc := range tests {
		t.Run(tc.alpha, func(t *testing.T) {
			src := "name = \"a\"\n[[mechanism]]\nid = \"g\"\nkind = \"gauss\"\nsigma = 1.0\n[query]\ncompositions = [1]\ndelta = [1e-5]\nalpha = " + tc.alpha + "\n"
			m, err := Parse("a.toml", []byte(src))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Query.Alpha) != len(tc.want) {
				t.Fatalf("alpha %v, want %v", m.Query.Alpha, tc.want)
			}
			for i := range tc.want {
				if m.Query.Alpha[i] != tc.want[i] {
					t.Fatalf("alpha %v, want %v", m.Query.Alpha, tc.want)
				}
			}
		})
	}
}

// TestPaperManifests parses every manifest of experiments/ and checks that
// each paper figure manifest (fig-N.toml) declares figures and uses the
// paper's 100,000 buckets.
func TestPaperManifests(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "experiments", "*.toml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	figures := 0
	for _, path := range paths {
		m, err := Load(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if !strings.HasPrefix(filepath.Base(path), "fig-") {
			continue
		}
		figures++
		if len(m.Figures) == 0 {
			t.Errorf("%s declares no [[figure]]", path)
		}
		if m.Name != strings.TrimSuffix(filepath.Base(path), ".toml") {
			t.Errorf("%s: name %q should match the file name (make fig-N finds results/fig-N/)", path, m.Name)
		}
		for _, spec := range m.Mechanisms {
			if spec.Engine.Buckets != 100000 {
				t.Errorf("%s: mechanism %q uses %d buckets, not the paper's 100,000", path, spec.ID, spec.Engine.Buckets)
			}
		}
	}
	if figures < 16 {
		t.Errorf("found %d figure manifests, want the 15 figures of the paper plus the Figure 19 check", figures)
	}
}

func TestQueryFPR(t *testing.T) {
	tests := []struct {
		query   string
		want    []float64
		wantErr string
	}{
		{"delta = [1e-5]\nfpr = [0.01, 0.001, 0.01]", []float64{0.001, 0.01}, ""},
		{"fpr = [0.001]", []float64{0.001}, ""}, // a tpr query alone
		{"fpr = [0.0]", nil, "false-positive rates must be in (0, 1)"},
		{"fpr = [1.0]", nil, "false-positive rates must be in (0, 1)"},
		{"", nil, "nothing to compute"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			src := "name = \"a\"\n[[mechanism]]\nid = \"g\"\nkind = \"gauss\"\nsigma = 1.0\n[query]\ncompositions = [1]\n" + tc.query + "\n"
			m, err := Parse("a.toml", []byte(src))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(m.Query.FPR, tc.want) {
				t.Fatalf("fpr %v, want %v", m.Query.FPR, tc.want)
			}
		})
	}
}
