package engine

import (
	"math"
	"testing"
)

// recordSink records the groups a pair adds, in order.
type recordSink struct {
	lam  float64
	n    int
	adds [][4]float64
}

func (s *recordSink) add(pa, pb, lo, hi float64) { s.adds = append(s.adds, [4]float64{pa, pb, lo, hi}) }
func (s *recordSink) grid() (float64, int)       { return s.lam, s.n }

// TestEmbedWorkersIdentical checks that embedding a continuous pair on
// several goroutines adds the same groups, bit for bit and in the same
// order, as embedding it on one (monotonePair.embedWorkers).
func TestEmbedWorkersIdentical(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		mp   *monotonePair
		lam  float64
		n    int
	}{
		{"remove q=0.01 a=0.25", gaussRemove(0.01, 0.25), 1e-5, 20000},
		{"remove q=0.2 a=2", gaussRemove(0.2, 2), 4e-4, 50000},
		{"antipodal q=0.05 a=1", gaussAntipodal(0.05, 1), 2e-4, 30000},
		{"antipodal few buckets", gaussAntipodal(0.05, 1), 0.05, 300},
		{"symmetric half (both sides)", func() *monotonePair {
			mp := gaussRemove(0.1, 1)
			mp.tMin, mp.lossAtMin, mp.bothSides = 0.5, 0, true
			return mp
		}(), 1e-4, 20000},
	} {
		one := &recordSink{lam: c.lam, n: c.n}
		c.mp.embedWorkers(one, 1)
		for _, w := range []int{2, 3, 8} {
			many := &recordSink{lam: c.lam, n: c.n}
			c.mp.embedWorkers(many, w)
			if len(many.adds) != len(one.adds) {
				t.Fatalf("%s, %d workers: %d groups, one worker %d", c.name, w, len(many.adds), len(one.adds))
			}
			for i := range one.adds {
				for k := range 4 {
					if math.Float64bits(many.adds[i][k]) != math.Float64bits(one.adds[i][k]) {
						t.Fatalf("%s, %d workers: group %d = %v, one worker %v", c.name, w, i, many.adds[i], one.adds[i])
					}
				}
			}
		}
		if len(one.adds) < 1000 && c.n > 1000 {
			t.Errorf("%s: only %d groups", c.name, len(one.adds))
		}
	}
}

// TestContinuousLeafMisplacement checks that the leaves of the continuous
// pairs place every piece in the bucket of its upper border (counter u of
// Definition 7 at most 1 plus rounding): the bucket borders are moved below
// the loss error bound (monotonePair.embed). With borders only 1e-13 below,
// SGD's loss error bound pushed every piece one bucket up (u = 2).
func TestContinuousLeafMisplacement(t *testing.T) {
	t.Parallel()
	var ms []Mechanism
	add := func(m Mechanism, err error) {
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	add(Gauss(3, 1, 0))
	add(Gauss(0.7, 1, 5))
	add(Laplace(2, 1, 0))
	add(SGD(4, 0.01))
	add(SGD(0.8, 0.999))
	for _, s := range []Sampling{Poisson, FixedSize} {
		for _, r := range []Relation{AddRemove, ReplaceOne} {
			add(SubsampledGauss(1.1, 1, 0.02, s, r))
			add(SubsampledLaplace(1.5, 1, 0.3, s, r))
		}
	}
	for _, m := range ms {
		for _, B := range []int{4000, 100000} {
			o, _ := Options{Buckets: B}.withDefaults()
			p, err := newPlan([]Part{{m, 1000}}, o)
			if err != nil {
				t.Fatal(err)
			}
			l, _ := p.leaf(m)
			if l.u > 1+1e-6 {
				t.Errorf("%v, %d buckets: leaf u = %v > 1", m, B, l.u)
			}
		}
	}
}
