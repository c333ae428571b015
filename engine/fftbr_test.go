package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// difReference is the plain one-stage-at-a-time decimation-in-frequency
// transform (natural order in, bit-reversed order out), to check that the
// blocked and fused dif gives bitwise the same results.
func (p *fftPlan) difReference(re, im []float64, sign float64) {
	n := p.n
	for size := n; size >= 2; size >>= 1 {
		half := size >> 1
		step := n / size
		for start := 0; start < n; start += size {
			for k := 0; k < half; k++ {
				ar, ai := re[start+k], im[start+k]
				br, bi := re[start+half+k], im[start+half+k]
				re[start+k], im[start+k] = ar+br, ai+bi
				dr, di := ar-br, ai-bi
				switch {
				case k == 0:
					re[start+half+k], im[start+half+k] = dr, di
				case size == 4: // k == 1: w = -i (forward), +i (inverse)
					re[start+half+k], im[start+half+k] = sign*di, -sign*dr
				default:
					wr, wi := p.twRe[k*step], sign*p.twIm[k*step]
					re[start+half+k], im[start+half+k] = wr*dr-wi*di, wr*di+wi*dr
				}
			}
		}
	}
}

func randomComplex(rng *rand.Rand, n int) (re, im []float64) {
	re, im = make([]float64, n), make([]float64, n)
	for i := range re {
		re[i], im[i] = rng.NormFloat64(), rng.NormFloat64()*rng.Float64()
	}
	return re, im
}

func TestFFTDIFBlockedBitwiseIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for logN := 1; logN <= 15; logN++ {
		n := 1 << logN
		p := newFFTPlan(n)
		for _, sign := range []float64{1, -1} {
			re, im := randomComplex(rng, n)
			r2, i2 := append([]float64(nil), re...), append([]float64(nil), im...)
			p.dif(re, im, sign)
			p.difReference(r2, i2, sign)
			for i := range re {
				if re[i] != r2[i] || im[i] != i2[i] {
					t.Fatalf("n=%d sign=%v: entry %d differs: (%v,%v) vs (%v,%v)", n, sign, i, re[i], im[i], r2[i], i2[i])
				}
			}
		}
	}
}

// TestFFTBitReversedMatchesNaiveDFT checks forwardBR (and inverseBR) against
// direct summation within the error bound kappa of Theorem 24.2.
func TestFFTBitReversedMatchesNaiveDFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{2, 4, 8, 16, 32, 128, 1024, 8192} {
		p := newFFTPlan(n)
		for _, inv := range []bool{false, true} {
			re, im := randomComplex(rng, n)
			x := make([]complex128, n)
			for i := range x {
				x[i] = complex(re[i], im[i])
			}
			var want []complex128
			if inv {
				// inverseBR takes its input in bit-reversed order.
				want = naiveDFT(x, true)
				p.permute(re, im)
				p.inverseBR(re, im)
			} else {
				want = naiveDFT(x, false)
				p.forwardBR(re, im)
				p.permute(re, im)
			}
			rel := relErr2(re, im, want)
			if lim := p.kappa + float64(n)*8*unitRoundoff; rel > lim {
				t.Errorf("n=%d inverse=%v: relative error %.3g > %.3g", n, inv, rel, lim)
			}
		}
	}
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
		p := newFFTPlan(N)
		for _, self := range []bool{false, true} {
			var a, b convScratch
			a.reX, a.imX = randomComplex(rng, N)
			a.reY, a.imY = randomComplex(rng, N)
			b.reX, b.imX = append([]float64(nil), a.reX...), append([]float64(nil), a.imX...)
			b.reY, b.imY = append([]float64(nil), a.reY...), append([]float64(nil), a.imY...)
			// a in bit-reversed order, b natural.
			p.permute(a.reX, a.imX)
			p.permute(a.reY, a.imY)
			spectralProduct(&a, N, self)
			spectralProductNatural(&b, N, self)
			p.permute(a.reX, a.imX)
			for i := range a.reX {
				if a.reX[i] != b.reX[i] || a.imX[i] != b.imX[i] {
					t.Fatalf("N=%d self=%v: entry %d differs", N, self, i)
				}
			}
		}
	}
}

// TestConvolutionBitReversed checks the whole packed convolution path
// (forwardBR, spectralProduct, inverseBR) against direct convolution within
// convErrBound.
func TestConvolutionBitReversed(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, N := range []int{8, 64, 1024, 16384} {
		p := newFFTPlan(N)
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
		p.forwardBR(s.reX, s.imX)
		p.forwardBR(s.reY, s.imY)
		spectralProduct(&s, N, false)
		p.inverseBR(s.reX, s.imX)
		E := convErrBound(p.kappa, N, nx, ny)
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

// TestFFTParallelBlocksBitwiseIdentical checks that transforms whose blocks
// run on several goroutines (fftPlan.eachBlock, lengths from
// fftParallelMin) give bitwise the results of one goroutine, forward (dif)
// and inverse (dit), for worker counts that do and do not divide the
// number of blocks.
func TestFFTParallelBlocksBitwiseIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, logN := range []int{15, 16, 17} {
		n := 1 << logN
		one := newFFTPlan(n)
		one.workers = 1
		for _, w := range []int{2, 3, 8} {
			many := newFFTPlan(n)
			many.workers = w
			for _, sign := range []float64{1, -1} {
				re, im := randomComplex(rng, n)
				r2, i2 := append([]float64(nil), re...), append([]float64(nil), im...)
				one.dif(re, im, sign)
				many.dif(r2, i2, sign)
				one.dit(re, im, -sign)
				many.dit(r2, i2, -sign)
				for i := range re {
					if math.Float64bits(re[i]) != math.Float64bits(r2[i]) || math.Float64bits(im[i]) != math.Float64bits(i2[i]) {
						t.Fatalf("n=%d workers=%d sign=%v: entry %d differs", n, w, sign, i)
					}
				}
			}
		}
	}
}

// TestPackedProductPair: the pair gives both mirrors' products of two
// packedProduct calls, value for value (issue 24), also with zeros,
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
