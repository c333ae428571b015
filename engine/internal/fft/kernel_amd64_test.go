//go:build amd64 && !purego

package fft

import (
	"math/rand/v2"
	"testing"
)

// TestKernelsMatchGoBitwise checks that the AVX2 butterfly loops give bitwise
// the results of the Go loops (the transforms' bitwise tests then cover
// both, whichever runs).
func TestKernelsMatchGoBitwise(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for _, h := range []int{4, 8, 64, 1024} {
		for _, inv := range []bool{false, true} {
			re, im := randomComplex(rng, 4*h)
			w1r, w1i := randomComplex(rng, h)
			w2r, w2i := randomComplex(rng, 2*h)
			type kernel struct {
				name string
				asm  func(re, im []float64)
				ref  func(re, im []float64)
			}
			ks := []kernel{
				{"ditPair", func(re, im []float64) { ditPairAVX2(&re[0], &im[0], &w1r[0], &w1i[0], &w2r[0], &w2i[0], h, inv) },
					func(re, im []float64) { ditPairGo(re, im, w1r, w1i, w2r[:h], w2i[:h], inv) }},
				{"difPair", func(re, im []float64) { difPairAVX2(&re[0], &im[0], &w1r[0], &w1i[0], &w2r[0], &w2i[0], h, inv) },
					func(re, im []float64) { difPairGo(re, im, w1r, w1i, w2r[:h], w2i[:h], inv) }},
				{"ditOne", func(re, im []float64) { ditOneAVX2(&re[0], &im[0], &w2r[0], &w2i[0], 2*h) },
					func(re, im []float64) { ditOneGo(re, im, w2r, w2i) }},
				{"difOne", func(re, im []float64) { difOneAVX2(&re[0], &im[0], &w2r[0], &w2i[0], 2*h) },
					func(re, im []float64) { difOneGo(re, im, w2r, w2i) }},
			}
			for _, k := range ks {
				a1, a2 := append([]float64(nil), re...), append([]float64(nil), im...)
				b1, b2 := append([]float64(nil), re...), append([]float64(nil), im...)
				k.asm(a1, a2)
				k.ref(b1, b2)
				for i := range a1 {
					if a1[i] != b1[i] || a2[i] != b2[i] {
						t.Fatalf("%s h=%d inv=%v: entry %d differs: (%v,%v) vs (%v,%v)", k.name, h, inv, i, a1[i], a2[i], b1[i], b2[i])
					}
				}
			}
		}
	}
}
