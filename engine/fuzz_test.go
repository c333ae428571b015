package engine

import (
	"context"
	"math"
	"testing"
)

// FuzzCompose composes two fuzzed 3-outcome pairs and checks Theorem 2
// against the exact delta of the product.
func FuzzCompose(f *testing.F) {
	f.Add(0.2, 0.3, 0.1, 0.5, 0.4, 0.2, 0.7, 0.1, 1.01, uint8(8), uint8(2))
	f.Fuzz(func(t *testing.T, a0, a1, b0, b1, c0, c1, d0, d1, factor float64, nb, tilts uint8) {
		mk := func(x, y float64) []float64 {
			x, y = math.Abs(x), math.Abs(y)
			if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x+y > 1 {
				return nil
			}
			return []float64{x, y, 1 - x - y}
		}
		pa, pb, pc, pd := mk(a0, a1), mk(b0, b1), mk(c0, c1), mk(d0, d1)
		if pa == nil || pb == nil || pc == nil || pd == nil || !(factor > 1 && factor < 1e6) {
			return
		}
		m1, err1 := Histogram(pa, pb)
		m2, err2 := Histogram(pc, pd)
		if err1 != nil || err2 != nil {
			return
		}
		o, err := Options{Buckets: 4 * (2 + int(nb)%64), Factor: factor, Tilts: 1 + int(tilts)%5}.withDefaults()
		if err != nil {
			return
		}
		p, err := newPlan([]Part{{m1, 1}, {m2, 1}}, o)
		if err != nil {
			return
		}
		x, _ := p.leaf(m1)
		y, _ := p.leaf(m2)
		res := newResult(p.cp.compose(x, y, nil), true, len(p.tau), p.lambda)
		h1, h2 := m1.(*histMech), m2.(*histMech)
		qa, qb := product([][]float64{h1.a, h2.a}, [][]float64{h1.b, h2.b})
		// The public path (squaring rule, tilts per level, re-tilting).
		seq, err := ComposeSequence(context.Background(), []Part{{m1, 2}, {m2, 1}}, Options{Buckets: o.Buckets, Factor: factor, Tilts: o.Tilts})
		if err != nil {
			t.Fatalf("ComposeSequence: %v", err)
		}
		sa, sb := product([][]float64{h1.a, h1.a, h2.a}, [][]float64{h1.b, h1.b, h2.b})
		for _, eps := range []float64{0, 0.01, 0.1, 0.5, 1, 3} {
			ex := exactDelta(qa, qb, eps)
			d := res.Delta(eps)
			if d.Upper < ex*(1-1e-12) || d.Lower > ex*(1+1e-12)+1e-300 {
				t.Fatalf("eps=%v: [%g, %g] does not contain %g", eps, d.Lower, d.Upper, ex)
			}
			ex = exactDelta(sa, sb, eps)
			d = seq.Delta(eps)
			if d.Upper < ex*(1-1e-12) || d.Lower > ex*(1+1e-12)+1e-300 {
				t.Fatalf("sequence eps=%v: [%g, %g] does not contain %g", eps, d.Lower, d.Upper, ex)
			}
		}
	})
}
