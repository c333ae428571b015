package engine

import (
	"context"
	"math"
	"testing"
)

// TestGridSquareEmptyKeepsEnvelopes: squaring a grid list that stores no
// value (every entry zeroed as rounding noise) keeps its upper pair's
// error envelopes, under which its true mass may hide. Before the fix the
// squared list had zero envelopes and claimed no mass at all.
func TestGridSquareEmptyKeepsEnvelopes(t *testing.T) {
	l := newList(8, 0.5, []float64{0, 0.1, -1.1})
	l.grid = true
	l.envA = []float64{0.3, 2, 1e-3}
	l.envC = []float64{0.2, 1, 1e-3}
	l.l1A, l.l1C = 1, 1
	z := l.gridSquare()
	for m := range l.tau {
		if !(z.envA[m] >= l.envA[m]) {
			t.Errorf("tilt %v: squared envelope %v below the list's %v", l.tau[m], z.envA[m], l.envA[m])
		}
	}
	if !(z.l1A >= l.l1A) {
		t.Errorf("total error bound %v below the list's %v", z.l1A, l.l1A)
	}
}

// TestGridSquareEmptyCompose is the case of the soundness property test
// (seed 9, case 1982) that found it: Gauss sigma 7.74, r = 495,473,837 with
// 4,604 buckets and factor 1.1867. The grid list's values were all zeroed
// as noise at one level (tilt-0 envelope 1.5e26), squaring dropped the
// envelopes, and delta_up(0) came out 1.0e-8 for an exact of nearly 1
// (the grouped list's lower bound is 0.9918).
func TestGridSquareEmptyCompose(t *testing.T) {
	m, _ := Gauss(7.743027538460318, 1, 0)
	for _, lists := range []Lists{ListsBoth, ListsGrid} {
		res, err := Compose(context.Background(), m, 495473837, Options{Buckets: 4604, Factor: 1.1867369452043324, Lists: lists})
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 1, 100} {
			d := res.Delta(eps)
			// exact: 2 Phi(mu/2 - eps/mu) - 1 + ..., at least 0.99 here
			mu := math.Sqrt(495473837) / 7.743027538460318
			ex := exactGaussLarge(mu, eps)
			if d.UpperAB < ex || d.UpperBA < ex {
				t.Errorf("lists %v eps %v: upper (%v, %v) below exact %v", lists, eps, d.UpperAB, d.UpperBA, ex)
			}
		}
	}
}
