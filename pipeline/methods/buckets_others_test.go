package methods

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"golang.org/x/sync/semaphore"
)

// TestBucketsTakesOtherBounds checks issue 20 item 3's intersection: with
// few buckets the buckets bracket of DP-SGD (Poisson, add/remove) is loose,
// and the method reports RDP's upper bound (padded) and the sum test's
// lower bound instead, each named in the note; a fixed-size pair (no RDP
// curve, no sum test) keeps the buckets bracket.
func TestBucketsTakesOtherBounds(t *testing.T) {
	const sigma, q, r, delta, eps = 2.0, 0.01, 1000, 1e-5, 1.0
	spec := manifest.MechanismSpec{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": sigma, "q": q},
		Engine: manifest.EngineOptions{Buckets: 16, ErrorCorrection: true}}
	job := Job{Instance: &manifest.Instance{Label: "sgd", Spec: spec}, Compositions: []int{r}, Eps: []float64{eps}, Delta: []float64{delta}}
	bm := &Buckets{Backend: backend.Engine{}, Mem: semaphore.NewWeighted(1 << 40), Budget: 1 << 40}
	outs, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	rf, _ := compare.SampledGaussianRenyi(sigma, q)
	rdp, _ := compare.RDP(rf, r, compare.Classic, compare.RDPOptions{})
	st, _ := compare.NewSumTest(sigma, q, r)
	o := outs[0]
	if e := o.Eps[0]; e.Upper != rdp.Eps(delta)*(1+rdpPad) || e.Lower != st.EpsLower(delta) {
		t.Errorf("eps bracket [%v, %v], want RDP's %v (padded) and the sum test's %v", e.Lower, e.Upper, rdp.Eps(delta), st.EpsLower(delta))
	}
	if d := o.Delta[0]; d.Upper != math.Min(1, rdp.Delta(eps)*(1+rdpPad)) || d.Lower != st.DeltaLower(eps) {
		t.Errorf("delta bracket [%v, %v], want RDP's %v and the sum test's %v", d.Lower, d.Upper, rdp.Delta(eps), st.DeltaLower(eps))
	}
	for _, s := range []string{"eps_upper at delta 1e-05 from Renyi DP", "eps_lower at delta 1e-05 from the sum-of-outputs test", "delta_upper at eps 1 from Renyi DP", "delta_lower at eps 1 from the sum-of-outputs test"} {
		if !strings.Contains(o.Note, s) {
			t.Errorf("note %q does not say %q", o.Note, s)
		}
	}
	// fixed-size sampling: neither applies
	spec.Sampling = manifest.SamplingFixedSize
	job.Instance = &manifest.Instance{Label: "sgd", Spec: spec}
	outs, err = bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(outs[0].Note, "Renyi DP") || strings.Contains(outs[0].Note, "sum-of-outputs") {
		t.Errorf("fixed-size sampling: note %q names another method", outs[0].Note)
	}
}
