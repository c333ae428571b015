package plots

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"gonum.org/v1/plot"
)

var testManifest = testfig.Manifest("name = \"p\"\ntitle = \"plots test\"", "[1, 2, 4]", "[1e-5]") + `[[figure]]
id = "de"
kind = "delta-eeps"
r = 4
mechanisms = ["gauss"]
target = true
note = "SYNTHETIC"
points = [{ mechanism = "gauss", method = "kov", r = 4, delta = 1e-5, label = "kov point" }]
[[figure]]
id = "er"
kind = "eeps-r"
delta = 1e-5
mechanisms = ["gauss"]
series = ["gauss:buckets"]
[[figure]]
id = "dr"
kind = "delta-r"
e_eps = [1.5, 2.0]
mechanisms = ["gauss"]
[[figure]]
id = "hm"
kind = "heatmap"
r = 4
x = "sgd.sigma"
y = "sgd.q"
value = "e_eps_upper"
delta = 1e-5
[[figure]]
id = "re"
kind = "renyi"
r = 4
mechanisms = ["gauss"]
[[figure]]
id = "tab"
kind = "table"
delta = 1e-5
r = 4
[[figure]]
id = "badrange"
kind = "delta-eeps"
r = 4
mechanisms = ["gauss"]
y_range = [0, 1]
[[figure]]
id = "empty"
kind = "delta-eeps"
r = 1
mechanisms = ["sgd"]
`

// fakeResults builds results with known values: gauss delta = 0.5 e^-r*eps
// (lower 0.9 of it), kov twice the upper; eps(delta) = r/10; sgd eps rows
// for the heatmap with eps = sigma*q*100.
func fakeResults() *Results {
	res := &Results{}
	for _, r := range []int{1, 2, 4} {
		for _, e := range []float64{1.0, 1.5, 2.0} {
			eps := math.Log(e)
			up := 0.5 * math.Exp(-float64(r)*eps*10)
			res.Delta = append(res.Delta, Row{Mechanism: "gauss", ID: "gauss", Method: "buckets", R: r, At: eps, Upper: up, Lower: 0.9 * up})
			res.Delta = append(res.Delta, Row{Mechanism: "gauss", ID: "gauss", Method: "kov", R: r, At: eps, Upper: 2 * up, Lower: math.NaN()})
		}
		res.Eps = append(res.Eps, Row{Mechanism: "gauss", ID: "gauss", Method: "buckets", R: r, At: 1e-5, Upper: float64(r) / 10, Lower: float64(r) / 11})
		res.Eps = append(res.Eps, Row{Mechanism: "gauss", ID: "gauss", Method: "kov", R: r, At: 1e-5, Upper: float64(r) / 5, Lower: math.NaN()})
		for _, a := range []float64{2, 4} {
			res.Renyi = append(res.Renyi, Row{Mechanism: "gauss", ID: "gauss", Method: "buckets", R: r, At: a, Upper: math.Inf(1), Lower: 0.01 * a * float64(r), Estimate: 0.011 * a * float64(r), Analytic: 0.0105 * a * float64(r)})
		}
	}
	for _, s := range []float64{2, 4} {
		for _, q := range []float64{0.01, 0.02} {
			label := "sgd[q=" + ftoa(q) + ",sigma=" + ftoa(s) + "]"
			res.Eps = append(res.Eps, Row{Mechanism: label, ID: "sgd", Method: "buckets", R: 4, At: 1e-5, Upper: s * q * 100, Lower: s * q * 90, Params: map[string]float64{"sigma": s, "q": q}})
		}
	}
	return res
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// labels adapts a Ticks function to return the non-empty labels.
type labels func(lo, hi float64) []plot.Tick

func (f labels) Labels(lo, hi float64) []string {
	var out []string
	for _, t := range f(lo, hi) {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

func TestDrawEveryKind(t *testing.T) {
	dir := t.TempDir()
	m, err := manifest.Load(testfig.WriteFile(t, dir, "p.toml", testManifest))
	if err != nil {
		t.Fatal(err)
	}
	res := fakeResults()
	tests := []struct {
		id        string
		files     []string
		wantNote  string
		noteCount int
	}{
		{"de", []string{"de.png", "de.svg", "de.pdf"}, "", 0},
		{"er", []string{"er.png", "er.svg", "er.pdf"}, "", 0},
		{"dr", []string{"dr.png", "dr.svg", "dr.pdf"}, "", 0},
		{"hm", []string{"hm.png", "hm.svg", "hm.pdf"}, "", 0},
		{"re", []string{"re.png", "re.svg", "re.pdf"}, "upper bound on D_alpha is infinite", 1},
		{"tab", []string{"tab.md", "tab.csv"}, "", 0},
		{"empty", []string{"empty.png", "empty.svg", "empty.pdf"}, "no results to draw", 1},
		{"badrange", []string{"badrange.png", "badrange.svg", "badrange.pdf"}, "y_range [0 1] ignored", 1},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			var fig manifest.Figure
			for _, f := range m.Figures {
				if f.ID == tc.id {
					fig = f
				}
			}
			out := filepath.Join(dir, "out")
			files, notes, err := Draw(m, fig, res, out)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != len(tc.files) {
				t.Fatalf("files %v, want %v", files, tc.files)
			}
			for i, f := range files {
				if filepath.Base(f) != tc.files[i] {
					t.Fatalf("file %s, want %s", f, tc.files[i])
				}
				st, err := os.Stat(f)
				if err != nil || st.Size() == 0 {
					t.Fatalf("%s: %v", f, err)
				}
				if strings.HasSuffix(f, ".png") {
					fh, _ := os.Open(f)
					img, err := png.Decode(fh)
					fh.Close()
					if err != nil {
						t.Fatal(err)
					}
					if w := img.Bounds().Dx(); w != int(6.5*pngDPI) {
						t.Fatalf("png width %d, want %d", w, int(6.5*pngDPI))
					}
				}
			}
			if len(notes) != tc.noteCount || tc.wantNote != "" && !strings.Contains(strings.Join(notes, "\n"), tc.wantNote) {
				t.Fatalf("notes %q, want %d containing %q", notes, tc.noteCount, tc.wantNote)
			}
		})
	}
	md, err := os.ReadFile(filepath.Join(dir, "out", "tab.md"))
	if err != nil {
		t.Fatal(err)
	}
	// gauss buckets at r = 4: e^eps = e^0.4 = 1.49182..., printed rounded outwards (upper up, lower down).
	if !strings.Contains(string(md), "| gauss |  | sensitivity=1 sigma=10 truncate=0 | buckets | 4 | 1e-05 | 1.4919 | 1.4385 |") {
		t.Fatalf("table:\n%s", md)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "out", "de.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SYNTHETIC", "privacy target", "kov point"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("de.svg lacks %q", want)
		}
	}
}

func TestTicks(t *testing.T) {
	tests := []struct {
		name   string
		ticker interface{ Labels(lo, hi float64) []string }
		lo, hi float64
		want   []string
	}{
		{"log10", labels(log10Ticks{}.Ticks), 1e-6, 1, []string{"1e-6", "1e-5", "1e-4", "1e-3", "1e-2", "1e-1", "1"}},
		{"log10 thinned", labels(log10Ticks{}.Ticks), 1e-20, 1, []string{"1e-20", "1e-17", "1e-14", "1e-11", "1e-8", "1e-5", "1e-2"}},
		{"log2", labels(log2Ticks{}.Ticks), 1, 16, []string{"1", "2", "4", "8", "16"}},
		{"linear narrow", labels(linearTicks{}.Ticks), 1, 1.02, []string{"1.000", "1.005", "1.010", "1.015", "1.020"}},
		{"linear", labels(linearTicks{}.Ticks), 1, 2, []string{"1.0", "1.2", "1.4", "1.6", "1.8", "2.0"}},
		{"linear wide", labels(linearTicks{}.Ticks), 0, 30, []string{"0", "5", "10", "15", "20", "25", "30"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.ticker.Labels(tc.lo, tc.hi)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("labels %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCoincidingBounds checks that an upper and a lower bound that
// coincide stay visible: the lower one is drawn first (beneath, wider), the upper
// one on top, and within coincideTolerance everywhere they share one
// legend entry that states the largest gap measured.
func TestCoincidingBounds(t *testing.T) {
	dir := t.TempDir()
	m, err := manifest.Load(testfig.WriteFile(t, dir, "p.toml", testfig.Manifest("name = \"p\"", "[1, 2, 4]", "[1e-5, 1e-6]")+`[[figure]]
id = "de"
kind = "delta-eeps"
r = 4
mechanisms = ["gauss"]
methods = ["buckets"]
[[figure]]
id = "er"
kind = "eeps-r"
delta = [1e-5, 1e-6]
mechanisms = ["gauss"]
methods = ["buckets"]
[[figure]]
id = "re"
kind = "renyi"
r = 4
mechanisms = ["gauss"]
`))
	if err != nil {
		t.Fatal(err)
	}
	// results with lower = ratio * upper everywhere (Renyi upper finite).
	results := func(ratio float64) *Results {
		res := &Results{}
		for _, r := range []int{1, 2, 4} {
			for _, e := range []float64{1.0, 1.5, 2.0} {
				up := 0.5 * math.Exp(-float64(r)*math.Log(e)*10)
				res.Delta = append(res.Delta, Row{Mechanism: "gauss", ID: "gauss", Method: "buckets", R: r, At: math.Log(e), Upper: up, Lower: ratio * up})
			}
			for _, delta := range []float64{1e-5, 1e-6} {
				up := float64(r) / 10 * -math.Log10(delta)
				// e^eps is drawn: ratio applies to e^eps_lower / e^eps_upper.
				res.Eps = append(res.Eps, Row{Mechanism: "gauss", ID: "gauss", Method: "buckets", R: r, At: delta, Upper: up, Lower: up + math.Log(ratio)})
			}
			for _, a := range []float64{2, 4} {
				up := 0.01 * a * float64(r)
				res.Renyi = append(res.Renyi, Row{Mechanism: "gauss", ID: "gauss", Method: "buckets", R: r, At: a, Upper: up, Lower: ratio * up, Estimate: math.NaN(), Analytic: 1.1 * up})
			}
		}
		return res
	}
	tests := []struct {
		name, fig string
		ratio     float64
		want      []string // in the legend
		notWant   []string
	}{
		{"delta-eeps within 1.2%", "de", 1 - 0.012, []string{"upper = lower within 1.2%"}, []string{"(upper)", "(lower)"}},
		{"delta-eeps exact", "de", 1, []string{"upper = lower exactly"}, []string{"(upper)", "(lower)"}},
		{"delta-eeps apart", "de", 0.9, []string{"gauss (upper)", "gauss (lower)"}, []string{"upper = lower"}},
		{"eeps-r per delta within 0.5%", "er", 1 - 0.005, []string{"δ = 1e-5 (upper = lower within 0.5%)", "δ = 1e-6 (upper = lower within 0.5%)"}, []string{"(lower)"}},
		{"eeps-r apart", "er", 0.9, []string{"δ = 1e-5 (upper)", "δ = 1e-6 (lower)"}, []string{"upper = lower"}},
		{"renyi within 0.01%", "re", 1 - 1e-4, []string{"gauss: buckets (upper = lower within 0.01%)"}, []string{"buckets upper bound"}},
		{"renyi apart", "re", 0.5, []string{"gauss: buckets upper bound", "gauss: buckets lower bound"}, []string{"upper = lower"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var fig manifest.Figure
			for _, f := range m.Figures {
				if f.ID == tc.fig {
					fig = f
				}
			}
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			if _, notes, err := Draw(m, fig, results(tc.ratio), out); err != nil || len(notes) > 0 {
				t.Fatalf("Draw: %v, notes %q", err, notes)
			}
			data, err := os.ReadFile(filepath.Join(out, tc.fig+".svg"))
			if err != nil {
				t.Fatal(err)
			}
			svg := string(data)
			for _, w := range tc.want {
				if !strings.Contains(svg, w) {
					t.Errorf("svg lacks %q", w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(svg, w) {
					t.Errorf("svg has %q", w)
				}
			}
			// The plot is drawn before the legend: the first red stroke
			// (upper) must come after the first blue one (lower), so that
			// the upper bound lies on top.
			red, blue := strings.Index(svg, "stroke:#C81919"), strings.Index(svg, "stroke:#1446C8")
			if red < 0 || blue < 0 || red < blue {
				t.Errorf("first red (upper) stroke at %d, first blue (lower) at %d: the upper bound must be drawn on top", red, blue)
			}
		})
	}
}

func TestDescribeGap(t *testing.T) {
	tests := []struct {
		gap  float64
		want string
	}{
		{0, "exactly"},
		{0.012, "within 1.2%"},
		{0.0158435, "within 1.6%"},
		{0.01501, "within 1.6%"},
		{3.5e-6, "within 0.00035%"},
		{0.02, "within 2%"},
		{5.6e-8, "within 5.6e-6%"},
	}
	for _, tc := range tests {
		if got := describeGap(tc.gap); got != tc.want {
			t.Errorf("describeGap(%v) = %q, want %q", tc.gap, got, tc.want)
		}
	}
}
