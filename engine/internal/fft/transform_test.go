package fft

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// naiveDFT computes the DFT by direct summation in complex128 with twiddles
// reduced exactly modulo n, as an independent reference.
func naiveDFT(x []complex128, inverse bool) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	sign := -1.0
	if inverse {
		sign = 1
	}
	for k := 0; k < n; k++ {
		var s complex128
		for j := 0; j < n; j++ {
			m := (j * k) % n
			s += x[j] * cmplx.Rect(1, sign*2*math.Pi*float64(m)/float64(n))
		}
		out[k] = s
	}
	return out
}

// relErr2 returns ||(re, im) - want||_2 / ||want||_2.
func relErr2(re, im []float64, want []complex128) float64 {
	var errNorm, norm float64
	for i := range want {
		d := complex(re[i], im[i]) - want[i]
		errNorm += real(d)*real(d) + imag(d)*imag(d)
		norm += real(want[i])*real(want[i]) + imag(want[i])*imag(want[i])
	}
	return math.Sqrt(errNorm / norm)
}

func randomComplex(rng *rand.Rand, n int) (re, im []float64) {
	re, im = make([]float64, n), make([]float64, n)
	for i := range re {
		re[i], im[i] = rng.NormFloat64(), rng.NormFloat64()*rng.Float64()
	}
	return re, im
}

func TestForwardInverseMatchNaiveDFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 4, 8, 16, 64, 256, 1024} {
		p := NewPlan(n)
		for _, inv := range []bool{false, true} {
			x := make([]complex128, n)
			re := make([]float64, n)
			im := make([]float64, n)
			for i := range x {
				re[i], im[i] = rng.NormFloat64(), rng.NormFloat64()
				x[i] = complex(re[i], im[i])
			}
			want := naiveDFT(x, inv)
			if inv {
				p.Inverse(re, im)
			} else {
				p.Forward(re, im)
			}
			rel := relErr2(re, im, want)
			// The reference itself carries O(n u) error; the FFT's own
			// bound is kappa. Allow both.
			if lim := p.Kappa() + float64(n)*8*unitRoundoff; rel > lim {
				t.Errorf("n=%d inverse=%v: relative error %.3g > %.3g", n, inv, rel, lim)
			}
		}
	}
}

// TestBitReversedMatchesNaiveDFT checks forwardBR (and inverseBR) against
// direct summation within the error bound kappa of Theorem 24.2.
func TestBitReversedMatchesNaiveDFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{2, 4, 8, 16, 32, 128, 1024, 8192} {
		p := NewPlan(n)
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
				p.BitReverse(re, im)
				p.InverseBitReversed(re, im)
			} else {
				want = naiveDFT(x, false)
				p.ForwardBitReversed(re, im)
				p.BitReverse(re, im)
			}
			rel := relErr2(re, im, want)
			if lim := p.Kappa() + float64(n)*8*unitRoundoff; rel > lim {
				t.Errorf("n=%d inverse=%v: relative error %.3g > %.3g", n, inv, rel, lim)
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 1 << 12
	p := NewPlan(n)
	re := make([]float64, n)
	im := make([]float64, n)
	orig := make([]float64, n)
	for i := range re {
		re[i] = rng.Float64()
		orig[i] = re[i]
	}
	p.Forward(re, im)
	p.Inverse(re, im)
	for i := range re {
		got := re[i] / float64(n)
		if math.Abs(got-orig[i]) > 1e-13 || math.Abs(im[i]/float64(n)) > 1e-13 {
			t.Fatalf("round trip %d: got %v+%vi want %v", i, got, im[i]/float64(n), orig[i])
		}
	}
}

func BenchmarkFFT(b *testing.B) {
	for _, logN := range []int{17, 18, 21} {
		n := 1 << logN
		p := NewPlan(n)
		re := make([]float64, n)
		im := make([]float64, n)
		for i := range re {
			re[i] = float64(i % 7)
		}
		name := "2^" + string(rune('0'+logN/10)) + string(rune('0'+logN%10))
		// natural order (with the bit reversal permutation)
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p.Forward(re, im)
			}
		})
		// what a convolution does per transform: no permutation
		b.Run(name+"/bitreversed", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p.ForwardBitReversed(re, im)
			}
		})
	}
}
