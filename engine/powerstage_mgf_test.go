package engine

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

// TestStageTrueMGFPick checks that the second stage's grid of s is part
// of the first stage's (composeStages builds both) on the DP-SGD and Gauss
// rows where two stages compose, at 2^14-2^18 points, so that
// stageTrueMGF takes the fine leaf's bounds from the first stage's grid,
// and that they are bitwise those it computes on its own.
func TestStageTrueMGFPick(t *testing.T) {
	rows := []struct {
		name  string
		mk    func() (Mechanism, error)
		r     int
		floor float64
	}{
		{"sgd4", func() (Mechanism, error) { return SGD(4, 0.01) }, 65536, 1e-9},
		{"sgd4-1e6", func() (Mechanism, error) { return SGD(4, 0.01) }, 1 << 20, 0},
		{"gauss", func() (Mechanism, error) { return Gauss(200*math.Sqrt2, 1, 0) }, 65536, 0},
	}
	picked := 0
	for _, row := range rows {
		mech, err := row.mk()
		if err != nil {
			t.Fatal(err)
		}
		for N := 1 << 14; N <= 1<<18; N *= 4 {
			p := stagedPlan(t, mech, row.r, N, Options{DeltaFloor: row.floor})
			if p == nil {
				t.Fatalf("%s: no plan", row.name)
			}
			fp := fft.Shared(p.powerN)
			ps, why, err := p.powerPrepare(context.Background(), mech, row.r, fp, p.leaves[mech].leafMeans())
			if err != nil || ps == nil {
				t.Fatalf("%s: no setup: %s %v", row.name, why, err)
			}
			st, ok := p.powerStagesFor(mech, row.r, fp.Len(), ps.leaf.lambda)
			if !ok {
				t.Fatalf("%s N %d: one stage", row.name, N)
			}
			// the grids as composeStages builds them
			lam1 := ps.leaf.lambda / float64(st.k)
			sd1 := math.Sqrt(float64(st.m) * ps.gl.lossVariance())
			R1 := float64(st.n1+1) * lam1
			sg := append(powerTiltGrid(ps.tau, sd1, R1), powerSGrid(nil, sd1, R1)...)
			slices.Sort(sg)
			sg = slices.Compact(sg)
			n := fp.Len() / 2
			s2 := powerTiltGrid(ps.tau, ps.sd, float64(n+1)*ps.leaf.lambda)
			_, leaf1, err := powerGridLeaf(mech, st.n1, lam1)
			if err != nil {
				t.Fatal(err)
			}
			mg1 := newMGFGrid(leaf1, sg)
			if _, ok := mg1.pick(s2); !ok {
				t.Errorf("%s N %d: the second stage's grid is not part of the first's", row.name, N)
				continue
			}
			picked++
			got := stageTrueMGF(leaf1, st.m, s2, ps.leaf.lambda, &mg1)
			want := stageTrueMGF(leaf1, st.m, s2, ps.leaf.lambda, nil)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Errorf("%s N %d: s %g: picked %v, computed %v", row.name, N, s2[i], got[i], want[i])
				}
			}
		}
	}
	if picked == 0 {
		t.Error("no grid picked")
	}
}
