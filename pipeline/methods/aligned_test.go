package methods

import (
	"context"
	"math"
	"testing"

	"github.com/pbuckets/pbuckets/engine"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

// TestAlignedDeltasTighten runs delta(eps) questions on compositions in
// closed form (the Gauss pair, r 512 and 1, at 4,096 buckets) and checks
// that each bracket lies within the engine's unaligned one (the
// intersection never widens), that the largest maxAlignedEps eps are
// exact up to rounding (relative width <= 1e-9), and that a mechanism the
// engine does not compose in closed form (DP-SGD), or a bracket within the
// target already, composes nothing more.
func TestAlignedDeltasTighten(t *testing.T) {
	ctx := context.Background()
	eps := []float64{math.Log(1.01), math.Log(1.5), 0.05, 0.2, 0.3, 0.45}
	for _, c := range []struct {
		sigma float64
		r     int
	}{{200 * math.Sqrt2, 512}, {3, 1}} {
		spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": c.sigma, "sensitivity": 1},
			Engine: manifest.EngineOptions{Buckets: 4096, ErrorCorrection: true}}
		job := Job{Instance: &manifest.Instance{Label: "g", Spec: spec}, Compositions: []int{c.r}, Eps: eps}
		bm := &Buckets{States: &states.Service{Backend: backend.Engine{}, Memory: states.NewBudget(1 << 40)}}
		outs, err := bm.Run(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		m, err := engine.Gauss(c.sigma, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := engine.Compose(ctx, m, c.r, engine.Options{Buckets: 4096})
		if err != nil {
			t.Fatal(err)
		}
		exact := 0
		for j, e := range eps {
			got, p := outs[0].Delta[j], plain.Delta(e)
			if got.Upper > p.Upper || got.Lower < p.Lower {
				t.Errorf("sigma %g r %d eps %g: [%g, %g] not within the unaligned [%g, %g]", c.sigma, c.r, e, got.Lower, got.Upper, p.Lower, p.Upper)
			}
			if (got.Upper-got.Lower)/got.Upper <= 1e-9 {
				exact++
			}
		}
		// the four largest eps aligned (ln 1.5, 0.45, 0.3, 0.2)
		if exact < maxAlignedEps {
			t.Errorf("sigma %g r %d: %d brackets exact, want at least %d", c.sigma, c.r, exact, maxAlignedEps)
		}
	}
	sgd := manifest.MechanismSpec{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": 1, "q": 0.01},
		Engine: manifest.EngineOptions{Buckets: 4096, ErrorCorrection: true}}
	bm := &Buckets{States: &states.Service{Backend: backend.Engine{}, Memory: states.NewBudget(1 << 40)}}
	mech, err := backend.Engine{}.Mechanism(sgd)
	if err != nil {
		t.Fatal(err)
	}
	out := []Outcome{{R: 10, Delta: make([]Bound, len(eps))}}
	a, err := bm.alignedDeltas(ctx, Job{Instance: &manifest.Instance{Label: "s", Spec: sgd}, Compositions: []int{10}, Eps: eps}, mech, sgd, []int{10}, nil, out)
	if err != nil || len(a) != 0 {
		t.Errorf("DP-SGD: %d aligned compositions (%v), want none", len(a), err)
	}
	// a target the round's own brackets meet: nothing aligned
	g := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 3, "sensitivity": 1},
		Engine: manifest.EngineOptions{Buckets: 4096, ErrorCorrection: true, Accuracy: 0.5}}
	gm, err := backend.Engine{}.Mechanism(g)
	if err != nil {
		t.Fatal(err)
	}
	out = []Outcome{{R: 1, Delta: []Bound{{Upper: 0.1, Lower: 0.09}}}}
	a, err = bm.alignedDeltas(ctx, Job{Instance: &manifest.Instance{Label: "g", Spec: g}, Compositions: []int{1}, Eps: []float64{0.3}}, gm, g, []int{1}, nil, out)
	if err != nil || len(a) != 0 {
		t.Errorf("Gauss with its bracket within the target: %d aligned compositions (%v), want none", len(a), err)
	}
}
