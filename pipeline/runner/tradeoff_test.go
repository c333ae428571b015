package runner

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/methods"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
)

const tradeoffManifest = `name = "tradeoff"
[engine]
buckets = 8000
[[mechanism]]
id = "gauss"
kind = "gauss"
sigma = 8.0
[query]
compositions = [1, 16]
fpr = [1e-4, 0.01, 0.3]
methods = ["buckets", "rdp"]
`

// TestTradeoffTable runs TPR queries through the real engine and checks
// tradeoff.parquet against the exact trade-off curve of composed Gaussian
// mechanisms (mu-GDP, mu = sqrt(r)/sigma), its GDP summary mu, and that
// only the buckets method writes rows.
func TestTradeoffTable(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "tradeoff.toml", tradeoffManifest)
	out := filepath.Join(dir, "out")
	rep, err := (&Runner{Backend: backend.Engine{}, Methods: methods.CompareWith, Out: out, Jobs: 2}).Run(context.Background(), []*manifest.Manifest{m})
	if err != nil || rep.Failed != 0 {
		t.Fatalf("run: %v %+v", err, rep)
	}
	f := pipelinetest.ReadFrame(t, filepath.Join(out, "tradeoff", "tradeoff.parquet"))
	if f.Rows() != 2*3 {
		t.Fatalf("%d rows, want 6", f.Rows())
	}
	meth, r, fpr := f.Column("method"), f.Column("compositions"), f.Column("fpr")
	lo, up, mu := f.Column("tpr_lower"), f.Column("tpr_upper"), f.Column("gdp_mu")
	for i := 0; i < f.Rows(); i++ {
		wantMu := math.Sqrt(float64(r.Ints[i])) / 8
		z := -math.Sqrt2*math.Erfcinv(2*fpr.Floats[i]) + wantMu
		want := 0.5 * math.Erfc(-z/math.Sqrt2)
		if meth.Strings[i] != "buckets" || !(lo.Floats[i] <= want && want <= up.Floats[i]) || up.Floats[i]-lo.Floats[i] > 1e-4*want {
			t.Errorf("r %d fpr %g: %s [%g, %g], exact %g", r.Ints[i], fpr.Floats[i], meth.Strings[i], lo.Floats[i], up.Floats[i], want)
		}
		if math.Abs(mu.Floats[i]-wantMu) > 1e-4 {
			t.Errorf("r %d fpr %g: gdp_mu %g, want about %g", r.Ints[i], fpr.Floats[i], mu.Floats[i], wantMu)
		}
	}
}
