package backend

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/engine"
	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// sequenceSpec returns the instance of sequence id of testfig.Sequence.
func sequenceSpec(t *testing.T, id string) manifest.MechanismSpec {
	t.Helper()
	m, err := manifest.Parse("seq.toml", []byte(testfig.Sequence))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range m.Instances() {
		if in.Spec.ID == id {
			return in.Spec
		}
	}
	t.Fatalf("no sequence %q", id)
	return manifest.MechanismSpec{}
}

// composeSeq composes spec through Engine for each r.
func composeSeq(t *testing.T, spec manifest.MechanismSpec, rs ...int) []State {
	t.Helper()
	var e Engine
	mech, err := e.Mechanism(spec)
	if err != nil {
		t.Fatal(err)
	}
	states, err := e.ComposeMany(context.Background(), mech, rs, spec.Engine, nil)
	if err != nil {
		t.Fatal(err)
	}
	return states
}

// TestSequenceEqualsComposeSequence checks that a sequence of the manifest
// is engine.ComposeSequence of its parts, built directly with the engine's
// constructors, and that r runs of it are the parts with r times their
// counts: the bounds are bitwise equal.
func TestSequenceEqualsComposeSequence(t *testing.T) {
	spec := sequenceSpec(t, "sched")
	states := composeSeq(t, spec, 1, 3)
	warm, err := engine.Gauss(4, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	main, err := engine.Gauss(2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []int{1, 3} {
		direct, err := engine.ComposeSequence(context.Background(), []engine.Part{{Mechanism: warm, Count: 3 * r}, {Mechanism: main, Count: 5 * r}}, engine.Options{Buckets: 4000})
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 0.3, 1, 2.5} {
			up, lo := states[i].DeltaBounds(eps)
			d := direct.Delta(eps)
			if up != d.Upper || lo != d.Lower {
				t.Errorf("r %d, eps %g: sequence [%v, %v], ComposeSequence [%v, %v]", r, eps, lo, up, d.Lower, d.Upper)
			}
		}
		for _, delta := range []float64{1e-3, 1e-6} {
			up, lo := states[i].EpsBounds(delta)
			if e := direct.Eps(delta); up != e.Upper || lo != e.Lower {
				t.Errorf("r %d, delta %g: eps [%v, %v], ComposeSequence [%v, %v]", r, delta, lo, up, e.Lower, e.Upper)
			}
		}
	}
}

// TestSequenceGaussClosedForm checks the bounds of Gauss sequences against
// the closed form: independent Gauss losses add, so a run of a sequence of
// Gauss mechanisms (sensitivity 1) is one Gauss mechanism with
// sigma_eff^-2 = sum count_j / sigma_j^2, and r runs are ExactGauss(
// sigma_eff, 1, r).
func TestSequenceGaussClosedForm(t *testing.T) {
	cases := []struct {
		id       string
		sigmaEff float64
	}{
		{"sched", 1 / math.Sqrt(3/16.0+5/4.0)},
		{"const", 1 / math.Sqrt(8/4.0)},
	}
	for _, c := range cases {
		states := composeSeq(t, sequenceSpec(t, c.id), 1, 2, 7)
		for i, r := range []int{1, 2, 7} {
			exact, err := compare.ExactGauss(c.sigmaEff, 1, r)
			if err != nil {
				t.Fatal(err)
			}
			for _, eps := range []float64{0, 0.5, 1, 2, 4} {
				up, lo := states[i].DeltaBounds(eps)
				want := exact.Delta(eps)
				if !(lo <= want && want <= up) || up-lo > 0.02*want+1e-15 {
					t.Errorf("%s r=%d eps=%g: [%g, %g] does not enclose the exact %g tightly", c.id, r, eps, lo, up, want)
				}
			}
			for _, delta := range []float64{1e-3, 1e-6} {
				up, lo := states[i].EpsBounds(delta)
				want := exact.Eps(delta)
				if !(lo <= want && want <= up) {
					t.Errorf("%s r=%d delta=%g: eps [%g, %g] does not enclose the exact %g", c.id, r, delta, lo, up, want)
				}
			}
		}
	}
}

// TestSequenceMechanism checks the description (the cache key's mechanism
// part) and the refusals of malformed sequences.
func TestSequenceMechanism(t *testing.T) {
	var e Engine
	spec := sequenceSpec(t, "sched")
	mech, err := e.Mechanism(spec)
	if err != nil {
		t.Fatal(err)
	}
	other := spec
	other.Params = map[string]float64{}
	for k, v := range spec.Params {
		other.Params[k] = v
	}
	other.Params["main.sigma"] = 2.5
	mech2, err := e.Mechanism(other)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mech.String(), "sequence(") || !strings.Contains(mech.String(), "^3") || mech.String() == mech2.String() {
		t.Errorf("descriptions %q and %q", mech, mech2)
	}
	if n := e.EstimateMemory(spec); n != engine.EstimateMemory(engine.Options{Buckets: 4000}) {
		t.Errorf("EstimateMemory %d", n)
	}
	bad := spec
	bad.Parts = append([]manifest.PartSpec(nil), spec.Parts...)
	bad.Parts[1].Count = 0
	if _, err := e.Mechanism(bad); err == nil || !strings.Contains(err.Error(), "count must be >= 1") {
		t.Errorf("count 0: %v", err)
	}
	bad.Parts[1] = manifest.PartSpec{Mechanism: spec, Count: 1}
	if _, err := e.Mechanism(bad); err == nil || !strings.Contains(err.Error(), "do not nest") {
		t.Errorf("nested: %v", err)
	}
	bad = other
	bad.Params["main.sigma"] = -1
	if _, err := e.Mechanism(bad); err == nil || !strings.Contains(err.Error(), `part 1 ("main")`) {
		t.Errorf("negative sigma: %v", err)
	}
	if _, err := e.ComposeMany(context.Background(), mech, []int{1 << 39}, spec.Engine, nil); !errors.Is(err, engine.ErrInvalid) {
		t.Errorf("2^39 runs of 8 observations: %v", err)
	}
}
