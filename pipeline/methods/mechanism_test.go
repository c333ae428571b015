package methods

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

// buildCounter is a Fake that counts the mechanisms it builds.
type buildCounter struct {
	*pipelinetest.Fake
	builds atomic.Int32
}

func (b *buildCounter) Mechanism(spec manifest.MechanismSpec) (backend.Mechanism, error) {
	b.builds.Add(1)
	return b.Fake.Mechanism(spec)
}

// TestJobMechanismBuiltOnce checks that the methods that compose (buckets,
// and kov, advanced, rdp and cdp where they need the single-round state)
// use the mechanism a job carries instead of building it again, and build
// it themselves when the job carries none.
func TestJobMechanismBuiltOnce(t *testing.T) {
	spec := manifest.MechanismSpec{Kind: manifest.KindHistogram, A: []float64{0.5, 0.5}, B: []float64{0.4, 0.6},
		Engine: manifest.EngineOptions{Buckets: 200, ErrorCorrection: true}}
	tests := []struct {
		name       string
		handed     bool
		wantBuilds int32
	}{
		{"handed on", true, 0},
		// buckets builds once per job, kov and advanced once each (to key
		// the single-round state they share)
		{"not handed on", false, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			be := &buildCounter{Fake: &pipelinetest.Fake{}}
			job := Job{Instance: &manifest.Instance{Label: "h", Spec: spec}, Compositions: []int{1, 4}, Eps: []float64{0.5}}
			if tc.handed {
				mech, err := be.Fake.Mechanism(spec)
				if err != nil {
					t.Fatal(err)
				}
				job.Mechanism = mech
			}
			svc := &states.Service{Backend: be, Memory: states.NewBudget(1 << 30)}
			reg := CompareWith(svc)
			reg[manifest.MethodBuckets] = (&Buckets{States: svc}).Run
			for _, m := range []string{manifest.MethodBuckets, manifest.MethodKOV, manifest.MethodAdvanced} {
				outs, err := reg[m](context.Background(), job)
				if err != nil || len(outs) != 2 || outs[0].Err != nil {
					t.Fatalf("%s: %d outcomes, error %v", m, len(outs), err)
				}
			}
			if got := be.builds.Load(); got != tc.wantBuilds {
				t.Errorf("%d mechanisms built, want %d", got, tc.wantBuilds)
			}
		})
	}
}
