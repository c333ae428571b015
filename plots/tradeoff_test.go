package plots

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

const tradeoffManifest = `name = "t"
[[mechanism]]
id = "gauss"
kind = "gauss"
sigma = 4.0
[query]
compositions = [16]
fpr = [1e-4, 1e-3, 1e-2, 0.1]
[[figure]]
id = "roc"
kind = "tradeoff"
r = 16
`

// TestDrawTradeoff draws the ROC figure from tradeoff rows (the mu-GDP
// curve with mu = 1, lower 0.99 of it) and checks the files, the guessing
// line, and that the false-positive axis is labelled in decades.
func TestDrawTradeoff(t *testing.T) {
	dir := t.TempDir()
	m, err := manifest.Load(testfig.WriteFile(t, dir, "t.toml", tradeoffManifest))
	if err != nil {
		t.Fatal(err)
	}
	res := &Results{}
	for _, f := range m.Query.FPR {
		z := -math.Sqrt2*math.Erfcinv(2*f) + 1
		tpr := 0.5 * math.Erfc(-z/math.Sqrt2)
		res.Tradeoff = append(res.Tradeoff, Row{Mechanism: "gauss", ID: "gauss", Method: "buckets", R: 16, At: f, Upper: tpr, Lower: 0.99 * tpr})
	}
	files, notes, err := Draw(m, m.Figures[0], res, filepath.Join(dir, "out"))
	if err != nil || len(files) != 3 || len(notes) != 0 {
		t.Fatalf("files %v notes %q: %v", files, notes, err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "out", "roc.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TPR = FPR (guessing)", "false-positive rate", "1e-3", "gauss: buckets"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("roc.svg lacks %q", want)
		}
	}
	// no tradeoff.parquet: drawn empty with a note
	_, notes, err = Draw(m, m.Figures[0], &Results{}, filepath.Join(dir, "empty"))
	if err != nil || !strings.Contains(strings.Join(notes, "\n"), "no tradeoff.parquet") {
		t.Errorf("without results: notes %q, %v", notes, err)
	}
}
