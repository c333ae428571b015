//go:build amd64 && !purego

package fft

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
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

// TestRadix3KernelsMatchGoBitwise checks that the AVX2 radix-3 stage
// kernels give bitwise the results of radix3DIFGo and radix3DITGo, in both
// directions, on random values with signed zeros and a spread of
// exponents.
func TestRadix3KernelsMatchGoBitwise(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{4, 8, 64, 1024} {
		for _, inv := range []bool{false, true} {
			v := make([][]float64, 10)
			for j := range v {
				v[j] = make([]float64, n)
				for i := range v[j] {
					v[j][i] = math.Ldexp(rng.NormFloat64(), rng.IntN(80)-40)
					if rng.IntN(16) == 0 {
						v[j][i] = math.Copysign(0, rng.NormFloat64())
					}
				}
			}
			type kernel struct {
				name     string
				asm, ref func(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i *float64, n int, inv bool)
			}
			ks := []kernel{
				{"radix3DIF", radix3DIFAVX2, func(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i *float64, n int, inv bool) {
					radix3DIFGo(v0(r0, n), v0(i0, n), v0(r1, n), v0(i1, n), v0(r2, n), v0(i2, n), v0(w1r, n), v0(w1i, n), v0(w2r, n), v0(w2i, n), inv)
				}},
				{"radix3DIT", radix3DITAVX2, func(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i *float64, n int, inv bool) {
					radix3DITGo(v0(r0, n), v0(i0, n), v0(r1, n), v0(i1, n), v0(r2, n), v0(i2, n), v0(w1r, n), v0(w1i, n), v0(w2r, n), v0(w2i, n), inv)
				}},
			}
			for _, k := range ks {
				a, b := make([][]float64, 6), make([][]float64, 6)
				for j := range a {
					a[j], b[j] = append([]float64(nil), v[j]...), append([]float64(nil), v[j]...)
				}
				k.asm(&a[0][0], &a[1][0], &a[2][0], &a[3][0], &a[4][0], &a[5][0], &v[6][0], &v[7][0], &v[8][0], &v[9][0], n, inv)
				k.ref(&b[0][0], &b[1][0], &b[2][0], &b[3][0], &b[4][0], &b[5][0], &v[6][0], &v[7][0], &v[8][0], &v[9][0], n, inv)
				for j := range a {
					for i := range a[j] {
						if math.Float64bits(a[j][i]) != math.Float64bits(b[j][i]) {
							t.Fatalf("%s n=%d inv=%v: output %d entry %d differs: %v vs %v", k.name, n, inv, j, i, a[j][i], b[j][i])
						}
					}
				}
			}
		}
	}
}

// v0 returns the n values from p as a slice.
func v0(p *float64, n int) []float64 { return unsafe.Slice(p, n) }
