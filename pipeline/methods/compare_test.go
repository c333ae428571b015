package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

func TestCompareMethodsApplicability(t *testing.T) {
	reg := Compare()
	small := manifest.EngineOptions{Buckets: 2000, ErrorCorrection: true}
	specs := map[string]manifest.MechanismSpec{
		"gauss":     {Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 5, "sensitivity": 1}},
		"gaussT":    {Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 5, "sensitivity": 1, "truncate": 50}},
		"laplace":   {Kind: manifest.KindLaplace, Params: map[string]float64{"scale": 5, "sensitivity": 1}},
		"rr":        {Kind: manifest.KindRandomizedResponse, Params: map[string]float64{"p": 0.55}},
		"sgd":       {Kind: manifest.KindSGD, Params: map[string]float64{"sigma": 4, "q": 0.01}, Engine: small},
		"epsdelta":  {Kind: manifest.KindEpsDelta, Params: map[string]float64{"eps": 0.1, "delta": 1e-6}},
		"histogram": {Kind: manifest.KindHistogram, A: []float64{0.5, 0.5}, B: []float64{0.4, 0.6}, Engine: small},
		"dialing":   {Kind: manifest.KindVuvuzelaDialing, Noise: manifest.NoiseGauss, Params: map[string]float64{"mu": 100, "scale": 20}, Engine: small},
	}
	tests := []struct {
		spec, method string
		applies      bool
	}{
		{"gauss", manifest.MethodExact, true}, {"gauss", manifest.MethodKOV, true}, {"gauss", manifest.MethodAdvanced, true}, {"gauss", manifest.MethodRDP, true}, {"gauss", manifest.MethodCDP, true},
		{"gaussT", manifest.MethodExact, false}, {"gaussT", manifest.MethodKOV, true}, {"gaussT", manifest.MethodRDP, false},
		{"laplace", manifest.MethodKOV, true}, {"laplace", manifest.MethodRDP, true},
		{"rr", manifest.MethodExact, true}, {"rr", manifest.MethodKOV, true}, {"rr", manifest.MethodCDP, true},
		{"sgd", manifest.MethodRDP, true}, {"sgd", manifest.MethodKOV, true}, {"sgd", manifest.MethodAdvanced, true}, {"sgd", manifest.MethodExact, false},
		{"epsdelta", manifest.MethodKOV, true}, {"epsdelta", manifest.MethodRDP, false},
		{"histogram", manifest.MethodKOV, true}, {"histogram", manifest.MethodAdvanced, true}, {"histogram", manifest.MethodExact, false},
		{"dialing", manifest.MethodKOV, true}, {"dialing", manifest.MethodAdvanced, true}, {"dialing", manifest.MethodRDP, false},
	}
	for _, tc := range tests {
		in := &manifest.Instance{Label: tc.spec, Spec: specs[tc.spec]}
		job := Job{Instance: in, Compositions: []int{1, 4}, Eps: []float64{0.1, 1}, Delta: []float64{1e-3}}
		outs, err := reg[tc.method](context.Background(), job)
		if !tc.applies {
			if !errors.Is(err, ErrNotApplicable) {
				t.Errorf("%s/%s: error %v, want ErrNotApplicable", tc.spec, tc.method, err)
			}
			continue
		}
		if err != nil || len(outs) != 2 {
			t.Errorf("%s/%s: %d outcomes, error %v", tc.spec, tc.method, len(outs), err)
			continue
		}
		for _, o := range outs {
			if o.Err != nil || len(o.Delta) != 2 || len(o.Eps) != 1 {
				t.Errorf("%s/%s r=%d: %+v", tc.spec, tc.method, o.R, o)
				continue
			}
			for _, b := range o.Delta {
				if !(b.Upper >= 0 && b.Upper <= 1) || (tc.method == manifest.MethodExact) != !math.IsNaN(b.Lower) {
					t.Errorf("%s/%s r=%d: bound %+v", tc.spec, tc.method, o.R, b)
				}
			}
		}
	}
}

// TestBucketsBracketExact checks the wiring end to end: the buckets bounds
// of the Gauss mechanism enclose the closed form.
func TestBucketsBracketExact(t *testing.T) {
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 5, "sensitivity": 1}, Engine: manifest.EngineOptions{Buckets: 2000, ErrorCorrection: true}}
	in := &manifest.Instance{Label: "g", Spec: spec}
	job := Job{Instance: in, Compositions: []int{1, 8}, Eps: []float64{0, 0.1, 0.5}, Delta: []float64{1e-4}}
	bm := &Buckets{States: &states.Service{Backend: backend.Engine{}, Memory: states.NewBudget(1 << 40)}}
	got, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := Compare()[manifest.MethodExact](context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		for j := range job.Eps {
			b, e := got[i].Delta[j], exact[i].Delta[j].Upper
			if !(b.Lower <= e*(1+1e-9) && e <= b.Upper*(1+1e-9)) {
				t.Errorf("r=%d eps=%v: exact %v outside [%v, %v]", got[i].R, job.Eps[j], e, b.Lower, b.Upper)
			}
		}
		b, e := got[i].Eps[0], exact[i].Eps[0].Upper
		if !(b.Lower <= e+1e-9 && e <= b.Upper+1e-9) {
			t.Errorf("r=%d: exact eps %v outside [%v, %v]", got[i].R, e, b.Lower, b.Upper)
		}
	}
}

// TestSingleRoundCacheShared: kov and advanced of one mechanism without a
// closed form share one r = 1 computation of the backend, also when they
// run at the same time; a failed computation is not cached.
func TestSingleRoundCacheShared(t *testing.T) {
	fb := &pipelinetest.Fake{}
	reg := CompareWith(&states.Service{Backend: fb})
	spec := manifest.MechanismSpec{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": 4, "q": 0.01}, Engine: manifest.EngineOptions{Buckets: 200, Factor: 1.5}}
	job := Job{Instance: &manifest.Instance{Label: "sgd", Spec: spec}, Compositions: []int{1, 4}, Eps: []float64{0.1}, Delta: []float64{1e-3}}
	errs := make(chan error, 2)
	for _, m := range []string{manifest.MethodKOV, manifest.MethodAdvanced} {
		go func() {
			outs, err := reg[m](context.Background(), job)
			if err == nil && (len(outs) != 2 || outs[0].Err != nil || !(outs[1].Delta[0].Upper > 0)) {
				err = fmt.Errorf("%s: outcomes %+v", m, outs)
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if fb.Calls != 1 || len(fb.Composed) != 1 || fb.Composed[0] != 1 {
		t.Errorf("backend composed %v in %d calls, want r = 1 once", fb.Composed, fb.Calls)
	}
	// The fake blows up for sigma = 13: the error fails the job (it is not
	// "not applicable") and is tried again by the next job.
	spec.Params = map[string]float64{"sigma": 13, "q": 0.01}
	job.Instance = &manifest.Instance{Label: "bad", Spec: spec}
	for i := 0; i < 2; i++ {
		if _, err := reg[manifest.MethodKOV](context.Background(), job); err == nil || errors.Is(err, ErrNotApplicable) || !strings.Contains(err.Error(), "blew up") {
			t.Errorf("failing backend: error %v", err)
		}
	}
	if fb.Calls != 3 {
		t.Errorf("%d backend calls, want 3 (failures are not cached)", fb.Calls)
	}
}
