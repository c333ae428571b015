package search

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// sequenceSearch is testfig.Sequence with a [search] that calibrates the
// main phase of "sched" (tie = ["main.sigma"]), the warm-up fixed.
var sequenceSearch = strings.Replace(testfig.Sequence, "[query]", `[search]
mechanisms = ["sched"]
tie = ["main.sigma"]
compositions = [2]
eps = 2.0
delta = 1e-2
rel_tol = 0.02
[query]`, 1)

// TestSearchSequencePart searches the noise of one part of a sequence with
// the real engine and checks both answers against the closed form of the
// Gauss sequence (r runs of 3 observations with sigma 4 and 5 with sigma
// s: one Gauss mechanism with sigma_eff^-2 = r (3/16 + 5/s^2)): the sigma
// that meets the target meets it exactly too, the one proved insufficient
// misses it, and the warm-up's noise is never changed.
func TestSearchSequencePart(t *testing.T) {
	m, err := manifest.Parse("s.toml", []byte(sequenceSearch))
	if err != nil {
		t.Fatal(err)
	}
	specs := Specs(m)
	if len(specs) != 1 || specs[0].Label != "sched" || specs[0].Tie[0] != "main.sigma" {
		t.Fatalf("specs %+v", specs)
	}
	res, err := (&Searcher{Backend: backend.Engine{}}).Search(context.Background(), specs[0])
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusOK {
		t.Fatalf("status %s, notes %v", res.Status, res.Notes)
	}
	exact := func(s float64) float64 {
		c, err := compare.ExactGauss(1/math.Sqrt(3/16.0+5/(s*s)), 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		return c.Delta(2)
	}
	meets, ins := res.Meets.Params["main.sigma"], res.Insufficient.Params["main.sigma"]
	if d := exact(meets); d > 1e-2 {
		t.Errorf("main.sigma %g meets by the upper bound (%g) but its exact delta is %g", meets, res.Meets.Upper, d)
	}
	if d := exact(ins); d <= 1e-2 {
		t.Errorf("main.sigma %g is proved insufficient (lower %g) but its exact delta is %g", ins, res.Insufficient.Lower, d)
	}
	if meets/ins > 1.05 {
		t.Errorf("bracket (%g, %g] too wide", ins, meets)
	}
	for _, p := range res.Probes {
		if p.Params["warmup.sigma"] != 4 {
			t.Errorf("probe %d changed the warm-up: %v", p.Order, p.Params)
		}
	}
	f := ResultsFrame([]*Result{res})
	if f.Column("kind").Strings[0] != manifest.KindSequence || f.Column("tie").Strings[0] != "main.sigma" || !strings.Contains(f.Column("base_params").Strings[0], `"parts"`) {
		t.Errorf("results frame: kind %q, tie %q, base %q", f.Column("kind").Strings[0], f.Column("tie").Strings[0], f.Column("base_params").Strings[0])
	}
}
