package methods

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// sequenceJob returns a job of the instance id of the manifest src (in a
// temporary folder, for its data files).
func sequenceJob(t *testing.T, dir, src, id string, rs ...int) Job {
	t.Helper()
	m, err := manifest.Parse(filepath.Join(dir, "m.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range m.Instances() {
		if in.Spec.ID == id {
			return Job{Manifest: m, Instance: &in, Compositions: rs, Eps: []float64{0, 0.5, 2}, Delta: []float64{1e-3, 1e-6}}
		}
	}
	t.Fatalf("no instance %q", id)
	return Job{}
}

// checkCurve compares a method's outcomes with a curve per r: equal up to
// rounding (relative 1e-12).
func checkCurve(t *testing.T, what string, outs []Outcome, job Job, curve func(r int) compare.Curve) {
	t.Helper()
	if len(outs) != len(job.Compositions) {
		t.Fatalf("%s: %d outcomes for %d r", what, len(outs), len(job.Compositions))
	}
	close := func(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }
	for i, o := range outs {
		r := job.Compositions[i]
		if o.R != r || o.Err != nil {
			t.Fatalf("%s: outcome %d is for r %d (want %d), error %v", what, i, o.R, r, o.Err)
		}
		c := curve(r)
		for j, eps := range job.Eps {
			if want := c.Delta(eps); !close(o.Delta[j].Upper, want) {
				t.Errorf("%s r=%d: delta(%g) = %v, want %v", what, r, eps, o.Delta[j].Upper, want)
			}
		}
		for j, d := range job.Delta {
			if want := c.Eps(d); !close(o.Eps[j].Upper, want) {
				t.Errorf("%s r=%d: eps(%g) = %v, want %v", what, r, d, o.Eps[j].Upper, want)
			}
		}
	}
}

// TestSequenceMethods checks the comparison methods on the sequences of
// testfig.Sequence against package compare called directly: exact is the
// Gauss closed form with sigma_eff^-2 = 3/4^2 + 5/2^2 per run, rdp the
// classic conversion of the summed Renyi curves, kov and advanced refuse
// the sequence of two mechanisms, and every method treats the sequence of
// one mechanism (8 observations of Gauss sigma 2 per run) as that
// mechanism observed 8r times.
func TestSequenceMethods(t *testing.T) {
	ctx := context.Background()
	reg := Compare()
	dir := t.TempDir()
	sched := sequenceJob(t, dir, testfig.Sequence, "sched", 1, 3)
	must := func(c compare.Curve, err error) compare.Curve {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	outs, err := reg[manifest.MethodExact](ctx, sched)
	if err != nil {
		t.Fatal(err)
	}
	sigmaEff := 1 / math.Sqrt(3/16.0+5/4.0)
	checkCurve(t, "exact sched", outs, sched, func(r int) compare.Curve { return must(compare.ExactGauss(sigmaEff, 1, r)) })

	outs, err = reg[manifest.MethodRDP](ctx, sched)
	if err != nil {
		t.Fatal(err)
	}
	g4, _ := compare.GaussRenyi(4, 1)
	g2, _ := compare.GaussRenyi(2, 1)
	sum, err := compare.ComposeRenyi([]compare.RenyiFunc{g4, g2}, []int{3, 5})
	if err != nil {
		t.Fatal(err)
	}
	checkCurve(t, "rdp sched", outs, sched, func(r int) compare.Curve { return must(compare.RDP(sum, r, compare.Classic, compare.RDPOptions{})) })

	if _, err := reg[manifest.MethodCDP](ctx, sched); err != nil {
		t.Errorf("cdp sched: %v", err)
	}
	for _, meth := range []string{manifest.MethodKOV, manifest.MethodAdvanced} {
		if _, err := reg[meth](ctx, sched); !errors.Is(err, ErrNotApplicable) || !strings.Contains(err.Error(), "different mechanisms") {
			t.Errorf("%s sched: %v, want not applicable", meth, err)
		}
	}

	// The sequence of one mechanism.
	cnst := sequenceJob(t, dir, testfig.Sequence, "const", 1, 3)
	gauss := cnst
	gauss.Instance = &manifest.Instance{Label: "g", Spec: manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 2, "sensitivity": 1, "truncate": 0}}}
	gauss.Compositions = []int{8, 24}
	for _, meth := range []string{manifest.MethodExact, manifest.MethodKOV, manifest.MethodAdvanced, manifest.MethodRDP, manifest.MethodCDP} {
		got, err := reg[meth](ctx, cnst)
		if err != nil {
			t.Fatalf("%s const: %v", meth, err)
		}
		want, err := reg[meth](ctx, gauss)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i].R != cnst.Compositions[i] {
				t.Errorf("%s const: outcome %d for r %d", meth, i, got[i].R)
			}
			for j := range got[i].Delta {
				if got[i].Delta[j] != want[i].Delta[j] && !(math.IsNaN(got[i].Delta[j].Lower) && got[i].Delta[j].Upper == want[i].Delta[j].Upper) {
					t.Errorf("%s const r=%d: delta %+v, gauss at r=%d: %+v", meth, got[i].R, got[i].Delta[j], want[i].R, want[i].Delta[j])
				}
			}
			for j := range got[i].Eps {
				if got[i].Eps[j].Upper != want[i].Eps[j].Upper {
					t.Errorf("%s const r=%d: eps %+v, gauss at r=%d: %+v", meth, got[i].R, got[i].Eps[j], want[i].R, want[i].Eps[j])
				}
			}
		}
	}
}

// TestSequenceRenyiFromBackend checks rdp on a sequence whose part has no
// closed-form Renyi curve (a histogram: randomized response p = 0.6 as a
// data file), fed with the backend's sound single-round bound: its eps is
// at least that of the same sequence with the closed form of randomized
// response (the bound is an upper bound), and close to it.
func TestSequenceRenyiFromBackend(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	testfig.WriteFile(t, dir, "rr.csv", "a,b\n0.6,0.4\n0.4,0.6\n")
	src := func(part string) string {
		return `name = "h"
[engine]
buckets = 20000
[[mechanism]]
id = "rr"
` + part + `
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 3.0
[[sequence]]
id = "s"
parts = [{ mechanism = "rr", count = 3 }, { mechanism = "g", count = 2 }]
[query]
compositions = [1, 4]
delta = [1e-3]
`
	}
	hist := sequenceJob(t, dir, src("kind = \"histogram\"\nfile = \"rr.csv\""), "s", 1, 4)
	closed := sequenceJob(t, dir, src("kind = \"randomized_response\"\np = 0.6"), "s", 1, 4)
	got, err := Compare()[manifest.MethodRDP](ctx, hist)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Compare()[manifest.MethodRDP](ctx, closed)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got[0].Note, "sound upper bounds") {
		t.Errorf("note %q", got[0].Note)
	}
	for i := range got {
		for j := range got[i].Eps {
			g, w := got[i].Eps[j].Upper, want[i].Eps[j].Upper
			if !(g >= w*(1-1e-9)) || g > 1.01*w {
				t.Errorf("r=%d: eps %v from the backend's Renyi bound, %v from the closed form", got[i].R, g, w)
			}
		}
	}
}
