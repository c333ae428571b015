package fft

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSharedPlan checks that Shared returns one plan per length up to
// 2^sharedMaxLog (new ones above), and that a shared plan's transforms are
// bitwise those of a new plan of the same length.
func TestSharedPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{2, 8, 1 << 10, 1 << 15} {
		p := Shared(n)
		if p != Shared(n) || p.Len() != n {
			t.Fatalf("n=%d: Shared returned different plans or length %d", n, p.Len())
		}
		q := NewPlan(n)
		re, im := make([]float64, n), make([]float64, n)
		for i := range re {
			re[i], im[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		re2, im2 := append([]float64(nil), re...), append([]float64(nil), im...)
		p.ForwardBitReversed(re, im)
		p.InverseBitReversed(re, im)
		q.ForwardBitReversed(re2, im2)
		q.InverseBitReversed(re2, im2)
		for i := range re {
			if math.Float64bits(re[i]) != math.Float64bits(re2[i]) || math.Float64bits(im[i]) != math.Float64bits(im2[i]) {
				t.Fatalf("n=%d: the shared plan's transform differs at %d", n, i)
			}
		}
	}
	n := 1 << (sharedMaxLog + 1)
	if p1, p2 := Shared(n), Shared(n); p1 == p2 {
		t.Errorf("n=%d: Shared kept a plan above its cap", n)
	}
}
