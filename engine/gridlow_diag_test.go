package engine

import (
	"context"
	"math"
	"os"
	"testing"
)

// lossMoments returns the A-mass, the mean and the variance of the privacy
// loss under the A-masses of one pair of a grid list (upper: a, lower: c),
// regular atoms only.
func (l *list) lossMoments(lower bool) (mass, mean, variance float64) {
	v := l.a
	if lower {
		v = l.c
	}
	var s0, s1, s2 float64
	for o := l.lo; o <= l.hi && o >= 0; o++ {
		L := l.loss(o)
		s0 += v[o]
		s1 += v[o] * L
		s2 += v[o] * L * L
	}
	m := s1 / s0
	return s0, m, s2/s0 - m*m
}

// TestGridLowerDiagnosis prints where the grid lower pair's slack comes
// from on the DP-SGD and Gauss rows (set PB_GRIDLOW_DIAG=1, PB_GRIDLOW_ROW
// to one row, PB_GRIDLOW_LEAF=1 for the leaves only): per row the leaf's loss variance under A of the upper and
// the lower pair, the same after the chain (the grid lists alone, whose
// leaf is cut at half cells), and the delta brackets of the grouped list
// (default lists) and of the grid list at the row's eps.
func TestGridLowerDiagnosis(t *testing.T) {
	if os.Getenv("PB_GRIDLOW_DIAG") == "" {
		t.Skip("diagnostic: set PB_GRIDLOW_DIAG=1")
	}
	type row struct {
		name  string
		m     func() (Mechanism, error)
		r     int
		delta float64
		eps   []float64
		gauss float64 // mu of one step (0: not Gauss)
	}
	rows := []row{
		{"sgd1", func() (Mechanism, error) { return SGD(1.1, 0.01) }, 10000, 1e-5, nil, 0},
		{"sgd4", func() (Mechanism, error) { return SGD(4, 0.01) }, 65536, 1e-5, nil, 0},
		{"sgd1k", func() (Mechanism, error) { return SGD(1, 0.001) }, 250000, 1e-6, nil, 0},
		{"gauss512", func() (Mechanism, error) { return Gauss(200*math.Sqrt2, 1, 0) }, 512, 0, []float64{math.Log(1.01), math.Log(1.5)}, 1 / (200 * math.Sqrt2)},
		{"gauss2", func() (Mechanism, error) { return Gauss(2, 1, 0) }, 1000, 1e-6, nil, 0.5},
	}
	for _, rw := range rows {
		if s := os.Getenv("PB_GRIDLOW_ROW"); s != "" && s != rw.name {
			continue
		}
		m, err := rw.m()
		if err != nil {
			t.Fatal(err)
		}
		o, _ := Options{Lists: ListsGrid}.withDefaults()
		p, err := newPlan([]Part{{m, rw.r}}, o)
		if err != nil {
			t.Fatal(err)
		}
		leaf := p.gridLeaves[m]
		_, _, vu := leaf.lossMoments(false)
		ml, _, vl := leaf.lossMoments(true)
		t.Logf("%s leaf: lambda %.4g n %d, var up %.10g low %.10g (low mass %.12g); r*(up-low) %.4g", rw.name, leaf.lambda, leaf.n, vu, vl, ml, float64(rw.r)*(vu-vl))
		if rw.gauss > 0 {
			t.Logf("  exact var %.10g: up +%.3g low %.3g (relative)", rw.gauss*rw.gauss, vu/(rw.gauss*rw.gauss)-1, vl/(rw.gauss*rw.gauss)-1)
		}
		// the leaf's hockey-stick gap: only atoms near eps differ
		lt := leaf.gridTable(leaf.bounds())
		for _, k := range []float64{0, 1, 2, 3} {
			x := k * math.Sqrt(vu)
			d := leaf.gridDelta(x, lt)
			t.Logf("  leaf eps %.4g (%g sd): [%.12g, %.12g] gap/lambda %.3g", x, k, d.LowerAB, d.UpperAB, (d.UpperAB-d.LowerAB)/leaf.lambda)
		}
		if os.Getenv("PB_GRIDLOW_LEAF") != "" {
			continue
		}
		res, err := Compose(context.Background(), m, rw.r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// the grid lists alone: their leaf is cut at half cells
		resG, err := Compose(context.Background(), m, rw.r, Options{Lists: ListsGrid})
		if err != nil {
			t.Fatal(err)
		}
		g := resG.g
		_, _, fu := g.lossMoments(false)
		fml, _, fl := g.lossMoments(true)
		t.Logf("  final: lambda %.4g squarings %d, var up %.10g low %.10g (low mass %.12g); up-low %.4g, of it leaf r*(up-low) %.2f%%", g.lambda, g.squarings, fu, fl, fml, fu-fl, 100*float64(rw.r)*(vu-vl)/(fu-fl))
		if rw.gauss > 0 {
			ex := float64(rw.r) * rw.gauss * rw.gauss
			t.Logf("  exact var %.10g: up +%.3g low %.3g (relative); leaf alone would give up +%.3g low %.3g", ex, fu/ex-1, fl/ex-1, vu/(rw.gauss*rw.gauss)-1, vl/(rw.gauss*rw.gauss)-1)
		}
		eps := rw.eps
		if rw.delta > 0 {
			e := res.Eps(rw.delta)
			t.Logf("  eps(%g) = [%.9g, %.9g]", rw.delta, e.Lower, e.Upper)
			eps = []float64{(e.Lower + e.Upper) / 2}
		}
		for _, x := range eps {
			dl := res.l.delta(x, res.b, res.ec, res.l.deltaTable(res.b))
			dg := g.gridDelta(x, g.gridTable(g.bounds()))
			rel := func(v float64) float64 { return (dg.UpperAB - v) / dg.UpperAB }
			t.Logf("  eps %.9g: grouped [%.10g, %.10g] grid [%.10g, %.10g] (A||B); rel gap to grid up: grouped low %.3g grid low %.3g grouped up %.3g", x, dl.LowerAB, dl.UpperAB, dg.LowerAB, dg.UpperAB, rel(dl.LowerAB), rel(dg.LowerAB), -rel(dl.UpperAB))
			t.Logf("    B||A: grouped [%.10g, %.10g] grid [%.10g, %.10g]", dl.LowerBA, dl.UpperBA, dg.LowerBA, dg.UpperBA)
			if rw.gauss > 0 {
				ex := exactGauss(rw.gauss*math.Sqrt(float64(rw.r)), x)
				t.Logf("    exact %.10g: grouped low %.3g grid low %.3g grid up %.3g", ex, dl.LowerAB/ex-1, dg.LowerAB/ex-1, dg.UpperAB/ex-1)
			}
		}
	}
}
