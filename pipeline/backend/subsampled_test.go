package backend

import (
	"context"
	"fmt"
	"testing"

	"github.com/pbuckets/pbuckets/engine"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// TestSubsampledMechanism checks that every (sampling, relation) of kinds
// sgd and laplace builds the mechanism of the engine constructor called
// directly: the same String() and the same delta bounds after 3 rounds.
func TestSubsampledMechanism(t *testing.T) {
	type ctor func(scale, sens, q float64, s engine.Sampling, r engine.Relation) (engine.Mechanism, error)
	cases := []struct {
		name, keys string
		build      ctor
		scale      float64
		sens, q    float64
		s          engine.Sampling
		r          engine.Relation
	}{
		{"sgd default", `kind = "sgd"
sigma = 1.1
q = 0.01`, engine.SubsampledGauss, 1.1, 1, 0.01, engine.Poisson, engine.AddRemove},
		{"sgd poisson replace_one", `kind = "sgd"
sigma = 1.1
q = 0.01
relation = "replace_one"`, engine.SubsampledGauss, 1.1, 1, 0.01, engine.Poisson, engine.ReplaceOne},
		{"sgd fixed_size add_remove", `kind = "sgd"
sigma = 0.9
sensitivity = 2
q = 0.02
sampling = "fixed_size"
relation = "add_remove"`, engine.SubsampledGauss, 0.9, 2, 0.02, engine.FixedSize, engine.AddRemove},
		{"sgd fixed_size replace_one batch", `kind = "sgd"
sigma = 1.1
sampling = "fixed_size"
relation = "replace_one"
batch = 256
dataset_size = 60000`, engine.SubsampledGauss, 1.1, 1, mustRate(t, 256, 60000), engine.FixedSize, engine.ReplaceOne},
		{"laplace poisson add_remove", `kind = "laplace"
scale = 2
q = 0.05`, engine.SubsampledLaplace, 2, 1, 0.05, engine.Poisson, engine.AddRemove},
		{"laplace poisson replace_one", `kind = "laplace"
scale = 2
q = 0.05
relation = "replace_one"`, engine.SubsampledLaplace, 2, 1, 0.05, engine.Poisson, engine.ReplaceOne},
		{"laplace fixed_size add_remove", `kind = "laplace"
scale = 3
sensitivity = 0.5
q = 0.05
sampling = "fixed_size"`, engine.SubsampledLaplace, 3, 0.5, 0.05, engine.FixedSize, engine.AddRemove},
		{"laplace fixed_size replace_one", `kind = "laplace"
scale = 2
q = 0.1
sampling = "fixed_size"
relation = "replace_one"`, engine.SubsampledLaplace, 2, 1, 0.1, engine.FixedSize, engine.ReplaceOne},
	}
	var e Engine
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := fmt.Sprintf("name = \"t\"\n[engine]\nbuckets = 2000\n[[mechanism]]\nid = \"m\"\n%s\n[query]\ncompositions = [3]\ndelta = [1e-5]\n", c.keys)
			m, err := manifest.Parse("t.toml", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			spec := m.Mechanisms[0]
			got, err := e.Mechanism(spec)
			if err != nil {
				t.Fatal(err)
			}
			want, err := c.build(c.scale, c.sens, c.q, c.s, c.r)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != want.String() {
				t.Fatalf("mechanism %v, want %v", got, want)
			}
			states, err := e.ComposeMany(context.Background(), got, []int{3}, spec.Engine, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := engine.ComposeMany(context.Background(), want, []int{3}, spec.Engine.Engine())
			if err != nil {
				t.Fatal(err)
			}
			up, lo := states[0].DeltaBounds(0.5)
			d := res[0].Delta(0.5)
			if up != d.Upper || lo != d.Lower || !(up > 0) {
				t.Fatalf("delta(0.5) in [%g, %g], engine [%g, %g]", lo, up, d.Lower, d.Upper)
			}
			// the cached form (the cache stores MarshalBinary) keeps the
			// bounds, the lower pair's included where the pair only
			// dominates (engine/lowerpair.go)
			data, err := states[0].MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			back, err := e.DecodeState(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, eps := range []float64{0, 0.1, 0.5, 2} {
				u1, l1 := states[0].DeltaBounds(eps)
				u2, l2 := back.DeltaBounds(eps)
				if u1 != u2 || l1 != l2 {
					t.Fatalf("eps=%v: decoded state [%g, %g], want [%g, %g]", eps, l2, u2, l1, u1)
				}
			}
			u1, l1 := states[0].EpsBounds(1e-5)
			if u2, l2 := back.EpsBounds(1e-5); u1 != u2 || l1 != l2 {
				t.Fatalf("eps(1e-5): decoded state [%g, %g], want [%g, %g]", l2, u2, l1, u1)
			}
		})
	}
}

// TestSGDDefaultUnchanged checks that today's sgd manifests build exactly
// engine.SGD (the cache keys and golden results depend on it).
func TestSGDDefaultUnchanged(t *testing.T) {
	doc := "name = \"t\"\n[[mechanism]]\nid = \"m\"\nkind = \"sgd\"\nsigma = 0.8\nq = 0.004\nsampling = \"poisson\"\nrelation = \"add_remove\"\n[query]\ncompositions = [3]\ndelta = [1e-5]\n"
	m, err := manifest.Parse("t.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	spec := m.Mechanisms[0]
	if spec.Sampling != "" || spec.Relation != "" || len(spec.Params) != 2 {
		t.Fatalf("defaults stored: %+v", spec)
	}
	got, err := Engine{}.Mechanism(spec)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := engine.SGD(0.8, 0.004)
	if fmt.Sprint(got) != want.String() {
		t.Fatalf("mechanism %v, want %v", got, want)
	}
}

func mustRate(t *testing.T, b, n int) float64 {
	q, err := engine.FixedSizeRate(b, n)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
