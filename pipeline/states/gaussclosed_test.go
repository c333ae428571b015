package states

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// TestGetCachedGaussAnswersAsFresh checks with the engine that states of
// an untruncated Gauss mechanism, which the engine composes in closed form
// (one leaf per r, a lower pair at mu rounded down), answer from the cache
// as they did when composed: delta, eps, TPR and Renyi brackets at several r of one
// request, read back by another Service on the same folder.
func TestGetCachedGaussAnswersAsFresh(t *testing.T) {
	ctx := context.Background()
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss,
		Params: map[string]float64{"sigma": 200 * math.Sqrt2, "sensitivity": 1},
		Engine: manifest.EngineOptions{Buckets: 4000, ErrorCorrection: true}}
	be := backend.Engine{}
	mech, err := be.Mechanism(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rs := []int{512, 65536, 3}
	req := Request{Mechanism: mech, Spec: spec, R: rs, Delta: []float64{1e-5}}
	type answer struct{ dUp, dLo, eUp, eLo, tLo, tUp, rLo, rUp float64 }
	type extra interface {
		Notes() []string
		TPRBounds(fpr float64) (lower, upper, mu float64)
		RenyiBounds(alpha float64) (lower, upper, estimate float64)
	}
	var got [2][]answer
	for i, wantCached := range []bool{false, true} {
		s := &Service{Backend: be, Dir: dir}
		res, err := s.Get(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Stored(); err != nil {
			t.Fatal(err)
		}
		for k, st := range res.States {
			if res.Cached[k] != wantCached {
				t.Fatalf("get %d, r=%d: cached %v, want %v", i, rs[k], res.Cached[k], wantCached)
			}
			x, ok := st.(extra)
			if !ok {
				t.Fatalf("the engine's state has no notes, TPR or Renyi bounds")
			}
			if !strings.Contains(strings.Join(x.Notes(), "\n"), "closed form") {
				t.Fatalf("get %d, r=%d: not composed in closed form (notes %q)", i, rs[k], x.Notes())
			}
			for _, eps := range []float64{0, math.Log(1.01), math.Log(1.5), 2} {
				var a answer
				a.dUp, a.dLo = st.DeltaBounds(eps)
				a.eUp, a.eLo = st.EpsBounds(1e-5)
				a.tLo, a.tUp, _ = x.TPRBounds(1e-3)
				a.rLo, a.rUp, _ = x.RenyiBounds(2 + eps)
				got[i] = append(got[i], a)
			}
		}
	}
	for k := range got[0] {
		if got[0][k] != got[1][k] {
			t.Errorf("answer %d: cached %+v, composed %+v", k, got[1][k], got[0][k])
		}
	}
}
