package engine

import (
	"context"
	"math"
	"testing"
)

// TestGridSubnormalLog is the regression test of a lower bound above the
// truth at default settings: the grid's B||A lower sum took math.Log of a
// subnormal A-mass (an atom at loss -725, whose B-mass is about 0.06), which
// Go on amd64 returns as -709.09 (golang/go#56600; see ln), and the bound
// became 1 against an exact 0.988. Found by the soundness property test once
// it drew Options.Lists.
func TestGridSubnormalLog(t *testing.T) {
	a := []float64{0.5070651508461924, 0.49293484720040887, 1.9522447750249525e-09, 7.961532152783738e-155, 1.1540531362990011e-12}
	b := []float64{1.6197585107409644e-59, 0.23049661478867745, 0.3037683979178914, 0.2709154294223938, 0.19481955787103733}
	m, err := Histogram(a, b)
	if err != nil {
		t.Fatal(err)
	}
	as := [][]float64{a, a, a}
	bs := [][]float64{b, b, b}
	for _, lists := range []Lists{ListsBoth, ListsGrid} {
		res, err := Compose(context.Background(), m, 3, Options{Buckets: 4360, Lists: lists})
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 1, 100, 700} {
			lnExact, unc := refEnumerate(as, bs, eps)
			d := res.Delta(eps)
			if lo := ln(d.Lower); lo > lnExact+unc+1e-12 {
				t.Errorf("lists=%d eps=%v: delta_low %.17g above exact %.17g", lists, eps, d.Lower, math.Exp(lnExact))
			}
			if up := ln(d.Upper); up < lnExact-unc-1e-12 {
				t.Errorf("lists=%d eps=%v: delta_up %.17g below exact %.17g", lists, eps, d.Upper, math.Exp(lnExact))
			}
		}
	}
}
