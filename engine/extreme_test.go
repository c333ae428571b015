package engine

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestExtremeParameters composes mechanisms at the edges of their legal
// parameters (issue 11: nothing may fail late or return NaN): every
// constructor either refuses with ErrInvalid or gives a mechanism whose
// bounds are numbers in [0, 1] (eps bounds >= 0, possibly +Inf with a
// note) for every eps, including 0, 1e300 and +Inf.
func TestExtremeParameters(t *testing.T) {
	type mk func() (Mechanism, error)
	cases := map[string]mk{
		"gauss tiny sigma":       func() (Mechanism, error) { return Gauss(1e-300, 1, 0) },
		"gauss huge sensitivity": func() (Mechanism, error) { return Gauss(1, 1e300, 0) },
		"gauss tiny sensitivity": func() (Mechanism, error) { return Gauss(1e300, 1e-300, 0) },
		"gauss truncated narrow": func() (Mechanism, error) { return Gauss(1e-3, 1, 0.5000001) },
		"laplace tiny scale":     func() (Mechanism, error) { return Laplace(1e-300, 1, 0) },
		"laplace huge scale":     func() (Mechanism, error) { return Laplace(1e300, 1, 0) },
		"laplace truncated":      func() (Mechanism, error) { return Laplace(1e-3, 1, 1) },
		"sgd tiny sigma":         func() (Mechanism, error) { return SGD(1e-300, 0.5) },
		"sgd huge sigma":         func() (Mechanism, error) { return SGD(1e300, 1) },
		"sgd tiny q":             func() (Mechanism, error) { return SGD(1, 1e-300) },
		"rr p near 1":            func() (Mechanism, error) { return RandomizedResponse(1 - 0x1p-53) },
		"rr p near 0":            func() (Mechanism, error) { return RandomizedResponse(5e-324) },
		"eps_delta huge eps":     func() (Mechanism, error) { return EpsDelta(1e300, 0.5) },
		"eps_delta max eps":      func() (Mechanism, error) { return EpsDelta(math.MaxFloat64, 0) },
		"eps_delta zero":         func() (Mechanism, error) { return EpsDelta(0, 0) },
		"histogram subnormal": func() (Mechanism, error) {
			return Histogram([]float64{1 - 5e-324, 5e-324}, []float64{5e-324, 1 - 5e-324})
		},
		"histogram distinguishes": func() (Mechanism, error) { return Histogram([]float64{1, 0}, []float64{0, 1}) },
	}
	opts := []Options{
		{Buckets: 8},
		{Buckets: 8, Factor: math.MaxFloat64},
		{Buckets: 40, Factor: 1 + 0x1p-52, SquaringThreshold: 1.0001, FreeInftyBudget: -1},
		{Buckets: 2000, Tilts: 5, TailBudget: 0.9},
	}
	for name, f := range cases {
		m, err := f()
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: error %v does not wrap ErrInvalid", name, err)
			}
			continue
		}
		for _, o := range opts {
			// No mass may be lost in the embedding: the leaf's A- and
			// B-masses (regular, corners, distinguishing; upper bounds)
			// add up to at least 1.
			if od, err := o.withDefaults(); err == nil {
				if p, err := newPlan([]Part{{m, 1}}, od); err == nil {
					leaf, _ := p.leaf(m)
					b := leaf.bounds()
					ra, rc := leaf.regularSums(b.ea, b.ec)
					ta := ra.upper() + leaf.hiA.upper() + leaf.loA.upper() + leaf.distA.upper()
					tc := rc.upper() + leaf.hiC.upper() + leaf.loC.upper() + leaf.distB.upper()
					if !(ta >= 1-1e-9 && tc >= 1-1e-9) {
						t.Errorf("%s %+v: leaf masses %v (A), %v (B): mass lost", name, o, ta, tc)
					}
				}
			}
			for _, r := range []int{1, 3, 1 << 40} {
				res, err := Compose(context.Background(), m, r, o)
				if err != nil {
					t.Errorf("%s r=%d %+v: %v", name, r, o, err)
					continue
				}
				for _, eps := range []float64{0, 1e-300, 1, 700, 1e4, 1e300, math.MaxFloat64, math.Inf(1)} {
					d := res.Delta(eps)
					if !(d.Upper >= 0 && d.Upper <= 1) || !(d.Lower >= 0 && d.Lower <= d.Upper) {
						t.Errorf("%s r=%d %+v eps=%v: bounds [%v, %v]", name, r, o, eps, d.Lower, d.Upper)
					}
				}
				for _, delta := range []float64{0, 1e-300, 1e-10, 0.5, 1} {
					e := res.Eps(delta)
					if !(e.Upper >= 0) || !(e.Lower >= 0 && e.Lower <= e.Upper) {
						t.Errorf("%s r=%d %+v delta=%v: eps bounds [%v, %v]", name, r, o, delta, e.Lower, e.Upper)
					}
					if math.IsInf(e.Upper, 1) && e.Note == "" {
						t.Errorf("%s r=%d %+v delta=%v: eps_up +Inf without a note", name, r, o, delta)
					}
				}
				if lo, hi := res.Renyi(2); math.IsNaN(lo) || math.IsNaN(hi) || lo > hi {
					t.Errorf("%s r=%d %+v: Renyi [%v, %v]", name, r, o, lo, hi)
				}
			}
		}
	}
}
