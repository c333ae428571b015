package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

func randomComplex(rng *rand.Rand, n int) (re, im []float64) {
	re, im = make([]float64, n), make([]float64, n)
	for i := range re {
		re[i], im[i] = rng.NormFloat64(), rng.NormFloat64()*rng.Float64()
	}
	return re, im
}

// spectralProductNatural is the product of spectra in natural order, the
// reference for spectralProduct (which works in bit-reversed order).
func spectralProductNatural(s *convScratch, N int, self bool) {
	reX, imX, reY, imY := s.reX, s.imX, s.reY, s.imY
	if self {
		reY, imY = reX, imX
	}
	for k := 0; k <= N/2; k++ {
		j := (N - k) & (N - 1)
		xkr, xki, xjr, xji := reX[k], imX[k], reX[j], imX[j]
		ykr, yki, yjr, yji := reY[k], imY[k], reY[j], imY[j]
		wkr, wki := packedProduct(xkr, xki, xjr, xji, ykr, yki, yjr, yji)
		if j != k {
			reX[j], imX[j] = packedProduct(xjr, xji, xkr, xki, yjr, yji, ykr, yki)
		}
		reX[k], imX[k] = wkr, wki
	}
}

func TestSpectralProductBitReversed(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for logN := 1; logN <= 12; logN++ {
		N := 1 << logN
		p := fft.NewPlan(N)
		for _, self := range []bool{false, true} {
			var a, b convScratch
			a.reX, a.imX = randomComplex(rng, N)
			a.reY, a.imY = randomComplex(rng, N)
			b.reX, b.imX = append([]float64(nil), a.reX...), append([]float64(nil), a.imX...)
			b.reY, b.imY = append([]float64(nil), a.reY...), append([]float64(nil), a.imY...)
			// a in bit-reversed order, b natural.
			p.BitReverse(a.reX, a.imX)
			p.BitReverse(a.reY, a.imY)
			spectralProduct(&a, N, self)
			spectralProductNatural(&b, N, self)
			p.BitReverse(a.reX, a.imX)
			for i := range a.reX {
				if a.reX[i] != b.reX[i] || a.imX[i] != b.imX[i] {
					t.Fatalf("N=%d self=%v: entry %d differs", N, self, i)
				}
			}
		}
	}
}

// TestConvolutionBitReversed checks the whole packed convolution path
// (ForwardBitReversed, spectralProduct, InverseBitReversed) against direct convolution within
// convErrBound.
func TestConvolutionBitReversed(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, N := range []int{8, 64, 1024, 16384} {
		p := fft.NewPlan(N)
		var s convScratch
		s.buffers(N)
		m := N / 2
		a, c := make([]float64, m), make([]float64, m)
		a2, c2 := make([]float64, m), make([]float64, m)
		for i := 0; i < m; i++ {
			a[i], c[i] = rng.Float64(), rng.Float64()*1e-3
			a2[i], c2[i] = rng.Float64(), rng.Float64()*1e-3
		}
		for i := range s.reX {
			s.reX[i], s.imX[i], s.reY[i], s.imY[i] = 0, 0, 0, 0
		}
		var nx, ny seqNorms
		for i := 0; i < m; i++ {
			s.reX[i], s.imX[i], s.reY[i], s.imY[i] = a[i], c[i], a2[i], c2[i]
			nx.l1a += a[i]
			nx.l2a += a[i] * a[i]
			nx.l1c += c[i]
			nx.l2c += c[i] * c[i]
			ny.l1a += a2[i]
			ny.l2a += a2[i] * a2[i]
			ny.l1c += c2[i]
			ny.l2c += c2[i] * c2[i]
		}
		finishNorms(&nx)
		finishNorms(&ny)
		p.ForwardBitReversed(s.reX, s.imX)
		p.ForwardBitReversed(s.reY, s.imY)
		spectralProduct(&s, N, false)
		p.InverseBitReversed(s.reX, s.imX)
		E := convErrBound(p.Kappa(), N, nx, ny)
		worst := 0.0
		for k := 0; k < 2*m-1; k++ {
			var wa, wc float64
			for i := max(0, k-m+1); i <= min(k, m-1); i++ {
				wa += a[i] * a2[k-i]
				wc += c[i] * c2[k-i]
			}
			ga, gc := s.reX[k]/float64(N), s.imX[k]/float64(N)
			// the reference sums carry at most m u relative error
			tol := E + float64(m)*unitRoundoff*(wa+wc)
			if math.Abs(ga-wa) > tol || math.Abs(gc-wc) > tol {
				t.Fatalf("N=%d entry %d: got (%g, %g) want (%g, %g), bound %g", N, k, ga, gc, wa, wc, E)
			}
			worst = math.Max(worst, math.Max(math.Abs(ga-wa), math.Abs(gc-wc))/E)
		}
		t.Logf("N=%d: worst error / bound = %.3g", N, worst)
	}
}

// TestPackedProductPair: the pair gives both mirrors' products of two
// packedProduct calls, value for value, also with zeros,
// signed zeros, infinities and subnormals among the inputs.
func TestPackedProductPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0x1p-1070, -0x1p-1060, 1e300, math.Inf(1)}
	for i := 0; i < 200000; i++ {
		var v [8]float64
		for k := range v {
			switch rng.IntN(6) {
			case 0:
				v[k] = special[rng.IntN(len(special))]
			default:
				v[k] = (rng.Float64()*2 - 1) * math.Exp(rng.NormFloat64()*20)
			}
		}
		kr, ki := packedProduct(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])
		jr, ji := packedProduct(v[2], v[3], v[0], v[1], v[6], v[7], v[4], v[5])
		pkr, pki, pjr, pji := packedProductPair(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
		if !same(kr, pkr) || !same(ki, pki) || !same(jr, pjr) || !same(ji, pji) {
			t.Fatalf("inputs %v: pair (%v %v %v %v), two calls (%v %v %v %v)", v, pkr, pki, pjr, pji, kr, ki, jr, ji)
		}
	}
}

// BenchmarkSpectralProduct: the packed spectral product at N = 2^18.
func BenchmarkSpectralProduct(b *testing.B) {
	rng := rand.New(rand.NewPCG(24, 2))
	const N = 1 << 18
	var s convScratch
	s.reX, s.imX = randomComplex(rng, N)
	s.reY, s.imY = randomComplex(rng, N)
	for i := 0; i < b.N; i++ {
		spectralProduct(&s, N, false)
	}
}
