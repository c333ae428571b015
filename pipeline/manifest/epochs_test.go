package manifest

import (
	"strings"
	"testing"
)

func TestEpochs(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spec     MechanismSpec
		epochs   float64
		r, steps int
		wantErr  string
	}{
		{"poisson", MechanismSpec{Kind: KindSGD, Params: map[string]float64{"q": 0.01}}, 50, 5000, 5000, ""},
		{"poisson inexact rate", MechanismSpec{Kind: KindSGD, Params: map[string]float64{"q": 0.001}}, 3, 3000, 3000, ""},
		{"fixed size", MechanismSpec{Kind: KindSGD, Params: map[string]float64{"batch": 600, "dataset_size": 60000}}, 2, 200, 200, ""},
		{"random allocation", MechanismSpec{Kind: KindRandomAllocation, Params: map[string]float64{"steps_per_epoch": 1000}}, 20, 20, 20000, ""},
		{"not whole", MechanismSpec{Kind: KindSGD, Params: map[string]float64{"q": 0.03}}, 1, 0, 0, "not a whole number"},
		{"fraction of an epoch of allocation", MechanismSpec{Kind: KindRandomAllocation, Params: map[string]float64{"steps_per_epoch": 10}}, 1.5, 0, 0, "not a whole number"},
		{"no rate", MechanismSpec{Kind: KindLaplace, Params: map[string]float64{"scale": 1}}, 1, 0, 0, "has no epochs"},
		{"gauss", MechanismSpec{Kind: KindGauss}, 1, 0, 0, "has no epochs"},
		{"zero", MechanismSpec{Kind: KindSGD, Params: map[string]float64{"q": 0.01}}, 0, 0, 0, "positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, steps, err := tc.spec.Epochs(tc.epochs)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || r != tc.r || steps != tc.steps {
				t.Fatalf("got r %d steps %d (%v), want %d, %d", r, steps, err, tc.r, tc.steps)
			}
		})
	}
}
