package engine

import (
	"math"
	"math/bits"
)

// unitRoundoff is u = 2^-53, the unit roundoff of float64.
const unitRoundoff = 0x1p-53

// fftPlan holds the precomputed twiddle factors of a radix-2 decimation-in-time
// Cooley-Tukey FFT of length n (a power of two).
//
// Every twiddle w^k = exp(-2 pi i k/n) is computed directly with math.Sincos
// (not by recurrence), so each has an absolute error of at most a few units
// in the last place; twiddleErr (mu in Higham's notation) bounds it. The
// transform is therefore the algorithm of Higham, "Accuracy and Stability of
// Numerical Algorithms" (2nd ed.), Theorem 24.2, whose computed result y^
// satisfies ||y^ - y||_2 <= kappa ||y||_2 with kappa = t*eta/(1-t*eta),
// t = log2 n and eta = mu + gamma_4 (sqrt 2 + mu). kappa is returned by
// (*fftPlan).kappa and used by the convolution error bounds.
type fftPlan struct {
	n     int
	logN  int
	twRe  []float64 // twRe[k] + i*twIm[k] = exp(-2 pi i k / n), k < n/2
	twIm  []float64
	rev   []uint32 // bit reversal permutation
	kappa float64
	// stage twiddles: for the stage of butterfly size s (s = 8, 16, ...,
	// n), the s/2 twiddles exp(-2 pi i k/s) = tw[k*n/s] stored contiguously
	// from offset s/2 - 4 (the same floating-point values as twRe/twIm, so
	// the error analysis is unchanged; contiguous access is faster).
	stRe, stIm []float64
}

// twiddleErr bounds |w^ - w| for the twiddles computed by math.Sincos of an
// argument in [0, pi]: the argument itself carries a relative error of at
// most u, and Sincos is accurate to about one ulp; 8u is generous.
const twiddleErr = 8 * unitRoundoff

func newFFTPlan(n int) *fftPlan {
	if n < 2 || n&(n-1) != 0 {
		panic("engine: FFT length must be a power of two >= 2")
	}
	logN := bits.TrailingZeros(uint(n))
	p := &fftPlan{n: n, logN: logN}
	p.twRe = make([]float64, n/2)
	p.twIm = make([]float64, n/2)
	for k := 0; k < n/2; k++ {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		p.twRe[k] = c
		p.twIm[k] = -s
	}
	p.rev = make([]uint32, n)
	for i := 0; i < n; i++ {
		p.rev[i] = uint32(bits.Reverse(uint(i)) >> (bits.UintSize - logN))
	}
	if n >= 8 {
		p.stRe = make([]float64, n-4)
		p.stIm = make([]float64, n-4)
		for size := 8; size <= n; size <<= 1 {
			half, step := size>>1, n/size
			off := half - 4
			for k := 0; k < half; k++ {
				p.stRe[off+k] = p.twRe[k*step]
				p.stIm[off+k] = p.twIm[k*step]
			}
		}
	}
	u := unitRoundoff
	gamma4 := 4 * u / (1 - 4*u)
	eta := twiddleErr + gamma4*(math.Sqrt2+twiddleErr)
	t := float64(logN)
	p.kappa = t * eta / (1 - t*eta)
	return p
}

// forward computes the unnormalised DFT X_k = sum_j x_j exp(-2 pi i jk/n) of
// (re, im) in place.
func (p *fftPlan) forward(re, im []float64) { p.transform(re, im, false) }

// inverse computes the unnormalised inverse DFT sum_k X_k exp(+2 pi i jk/n)
// in place (divide by n for the inverse transform; n is a power of two, so
// the division is exact).
func (p *fftPlan) inverse(re, im []float64) { p.transform(re, im, true) }

func (p *fftPlan) transform(re, im []float64, inverse bool) {
	n := p.n
	re = re[:n]
	im = im[:n]
	for i := 0; i < n; i++ {
		j := int(p.rev[i])
		if j > i {
			re[i], re[j] = re[j], re[i]
			im[i], im[j] = im[j], im[i]
		}
	}
	sign := 1.0
	if inverse {
		sign = -1.0
	}
	// First stage (w = 1) and second stage (w = 1, -i) without multiplications.
	for i := 0; i+1 < n; i += 2 {
		ar, ai, br, bi := re[i], im[i], re[i+1], im[i+1]
		re[i], im[i] = ar+br, ai+bi
		re[i+1], im[i+1] = ar-br, ai-bi
	}
	if n >= 4 {
		for i := 0; i+3 < n; i += 4 {
			ar, ai := re[i], im[i]
			br, bi := re[i+2], im[i+2]
			re[i], im[i] = ar+br, ai+bi
			re[i+2], im[i+2] = ar-br, ai-bi
			// w = -i (forward) or +i (inverse): exact multiplication.
			cr, ci := re[i+1], im[i+1]
			dr, di := re[i+3], im[i+3]
			tr, ti := sign*di, -sign*dr
			re[i+1], im[i+1] = cr+tr, ci+ti
			re[i+3], im[i+3] = cr-tr, ci-ti
		}
	}
	size := 8
	// Two radix-2 stages at a time (sizes s and 2s) over the same four
	// elements: the same operations in the same order as two separate
	// stages (bitwise identical results, so Theorem 24.2 applies
	// unchanged), with half the passes over memory.
	for ; 2*size <= n; size <<= 2 {
		h := size >> 1 // half of the first stage
		tw1Re := p.stRe[h-4 : h-4+h]
		tw1Im := p.stIm[h-4 : h-4+h]
		tw2Re := p.stRe[size-4 : size-4+size]
		tw2Im := p.stIm[size-4 : size-4+size]
		for start := 0; start < n; start += 2 * size {
			r0, i0 := re[start:start+h], im[start:start+h]
			r1, i1 := re[start+h:start+size], im[start+h:start+size]
			r2, i2 := re[start+size:start+size+h], im[start+size:start+size+h]
			r3, i3 := re[start+size+h:start+2*size], im[start+size+h:start+2*size]
			i0, r1, i1, r2, i2, r3, i3 = i0[:len(r0)], r1[:len(r0)], i1[:len(r0)], r2[:len(r0)], i2[:len(r0)], r3[:len(r0)], i3[:len(r0)]
			for k := range r0 {
				// first stage (size s): pairs (0,1) and (2,3), twiddle w_s^k
				wr, wi := tw1Re[k], sign*tw1Im[k]
				xr, xi := r1[k], i1[k]
				tr := wr*xr - wi*xi
				ti := wr*xi + wi*xr
				a0r, a0i := r0[k]+tr, i0[k]+ti
				a1r, a1i := r0[k]-tr, i0[k]-ti
				xr, xi = r3[k], i3[k]
				tr = wr*xr - wi*xi
				ti = wr*xi + wi*xr
				a2r, a2i := r2[k]+tr, i2[k]+ti
				a3r, a3i := r2[k]-tr, i2[k]-ti
				// second stage (size 2s): pairs (0,2) with w_2s^k and
				// (1,3) with w_2s^(k+s/2)
				wr, wi = tw2Re[k], sign*tw2Im[k]
				tr = wr*a2r - wi*a2i
				ti = wr*a2i + wi*a2r
				r0[k], i0[k] = a0r+tr, a0i+ti
				r2[k], i2[k] = a0r-tr, a0i-ti
				wr, wi = tw2Re[k+h], sign*tw2Im[k+h]
				tr = wr*a3r - wi*a3i
				ti = wr*a3i + wi*a3r
				r1[k], i1[k] = a1r+tr, a1i+ti
				r3[k], i3[k] = a1r-tr, a1i-ti
			}
		}
	}
	for ; size <= n; size <<= 1 {
		half := size >> 1
		twRe := p.stRe[half-4 : half-4+half]
		twIm := p.stIm[half-4 : half-4+half]
		for start := 0; start < n; start += size {
			lo := re[start : start+half]
			loI := im[start : start+half]
			hi := re[start+half : start+size]
			hiI := im[start+half : start+size]
			loI, hi, hiI = loI[:len(lo)], hi[:len(lo)], hiI[:len(lo)]
			for k := range lo {
				wr := twRe[k]
				wi := sign * twIm[k]
				xr, xi := hi[k], hiI[k]
				tr := wr*xr - wi*xi
				ti := wr*xi + wi*xr
				ar, ai := lo[k], loI[k]
				lo[k], loI[k] = ar+tr, ai+ti
				hi[k], hiI[k] = ar-tr, ai-ti
			}
		}
	}
}
