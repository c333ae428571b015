package methods

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// TestSubsampledApplicability checks which methods apply to the subsampled
// kinds: rdp and cdp only for the sampled Gaussian with Poisson sampling
// under add/remove (a not-applicable outcome saying why otherwise), kov and
// advanced always (from the buckets' single-round curve), exact never.
func TestSubsampledApplicability(t *testing.T) {
	reg := Compare()
	small := manifest.EngineOptions{Buckets: 2000, ErrorCorrection: true}
	sgd := func(sampling, relation string, extra map[string]float64) manifest.MechanismSpec {
		p := map[string]float64{"sigma": 4, "q": 0.01}
		for k, v := range extra {
			p[k] = v
		}
		return manifest.MechanismSpec{Kind: manifest.KindSGD, Params: p, Sampling: sampling, Relation: relation, Engine: small}
	}
	lap := func(sampling, relation string) manifest.MechanismSpec {
		return manifest.MechanismSpec{Kind: manifest.KindLaplace, Params: map[string]float64{"scale": 5, "sensitivity": 1, "truncate": 0, "q": 0.1},
			Sampling: sampling, Relation: relation, Engine: small}
	}
	tests := []struct {
		name   string
		spec   manifest.MechanismSpec
		method string
		reason string // "" when the method applies
	}{
		{"sgd", sgd("", "", nil), manifest.MethodRDP, ""},
		{"sgd", sgd("", "", nil), manifest.MethodCDP, ""},
		{"sgd sens 2", sgd("", "", map[string]float64{"sensitivity": 2}), manifest.MethodRDP, ""},
		{"sgd", sgd("", "", nil), manifest.MethodExact, "no closed form"},
		{"sgd replace_one", sgd("", manifest.RelationReplaceOne, nil), manifest.MethodRDP, `relation "replace_one"`},
		{"sgd replace_one", sgd("", manifest.RelationReplaceOne, nil), manifest.MethodCDP, `relation "replace_one"`},
		{"sgd replace_one", sgd("", manifest.RelationReplaceOne, nil), manifest.MethodKOV, ""},
		{"sgd replace_one", sgd("", manifest.RelationReplaceOne, nil), manifest.MethodAdvanced, ""},
		{"sgd replace_one", sgd("", manifest.RelationReplaceOne, nil), manifest.MethodExact, "no closed form"},
		{"sgd fixed", sgd(manifest.SamplingFixedSize, "", nil), manifest.MethodRDP, ""},
		{"sgd fixed", sgd(manifest.SamplingFixedSize, "", nil), manifest.MethodKOV, ""},
		{"sgd fixed replace_one", sgd(manifest.SamplingFixedSize, manifest.RelationReplaceOne, nil), manifest.MethodCDP, ""},
		{"sgd fixed replace_one", sgd(manifest.SamplingFixedSize, manifest.RelationReplaceOne, nil), manifest.MethodRDP, ""},
		{"sgd fixed replace_one", sgd(manifest.SamplingFixedSize, manifest.RelationReplaceOne, nil), manifest.MethodAdvanced, ""},
		{"laplace q", lap("", ""), manifest.MethodRDP, "subsampled Laplace"},
		{"laplace q", lap("", ""), manifest.MethodCDP, "subsampled Laplace"},
		{"laplace q", lap("", ""), manifest.MethodExact, "no closed form"},
		{"laplace q", lap("", ""), manifest.MethodKOV, ""},
		{"laplace q fixed replace_one", lap(manifest.SamplingFixedSize, manifest.RelationReplaceOne), manifest.MethodRDP, "subsampled Laplace"},
		{"laplace q fixed replace_one", lap(manifest.SamplingFixedSize, manifest.RelationReplaceOne), manifest.MethodAdvanced, ""},
	}
	for _, tc := range tests {
		in := &manifest.Instance{Label: tc.name, Spec: tc.spec}
		job := Job{Instance: in, Compositions: []int{1, 4}, Eps: []float64{0.1, 1}, Delta: []float64{1e-3}}
		outs, err := reg[tc.method](context.Background(), job)
		if tc.reason != "" {
			if !errors.Is(err, ErrNotApplicable) || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("%s/%s: error %v, want ErrNotApplicable saying %q", tc.name, tc.method, err, tc.reason)
			}
			continue
		}
		if err != nil || len(outs) != 2 {
			t.Errorf("%s/%s: %d outcomes, error %v", tc.name, tc.method, len(outs), err)
			continue
		}
		for _, o := range outs {
			if o.Err != nil || len(o.Delta) != 2 || len(o.Eps) != 1 || !(o.Eps[0].Upper > 0) {
				t.Errorf("%s/%s r=%d: %+v", tc.name, tc.method, o.R, o)
			}
		}
	}
}

// TestSubsampledLaplaceNotClosedForm checks that the subsampled Laplace
// mechanism does not use the Laplace closed forms (which would bound the
// unsubsampled mechanism with shift m, not the replace-one pair with 2m).
func TestSubsampledLaplaceNotClosedForm(t *testing.T) {
	spec := manifest.MechanismSpec{Kind: manifest.KindLaplace, Params: map[string]float64{"scale": 5, "sensitivity": 1, "q": 0.1}}
	if _, err := delta0(spec); !errors.Is(err, ErrNotApplicable) {
		t.Errorf("delta0: %v, want ErrNotApplicable", err)
	}
	if _, err := renyiCurve(spec); !errors.Is(err, ErrNotApplicable) {
		t.Errorf("renyiCurve: %v, want ErrNotApplicable", err)
	}
}
