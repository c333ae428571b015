package engine

import (
	"math"
	"math/bits"
	"runtime"
	"sync"
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
	stImC      []float64 // -stIm: the conjugate twiddles of the inverse
	// workers is the number of goroutines over which a transform of
	// length at least fftParallelMin runs its independent blocks
	// (GOMAXPROCS when the plan was made).
	workers int
}

// fftParallelMin is the shortest transform whose independent blocks run on
// several goroutines: a composition convolves its tilts on all cores, but
// with 3 tilts on 2 cores (or one list left of two) a core would idle
// while the last tilt's transforms run. Splitting their blocks keeps it
// busy, and costs two goroutines when every core is busy anyway. The
// blocks are disjoint and each is transformed by the same operations, so
// the result is bitwise that of one goroutine.
const fftParallelMin = 1 << 15

// eachBlock calls f(start) for start = 0, size, 2 size, ... < n, on up to
// p.workers goroutines when n >= fftParallelMin and there are at least two
// blocks, one after the other otherwise.
func (p *fftPlan) eachBlock(n, size int, f func(start int)) {
	count := n / size
	w := min(p.workers, count)
	if n < fftParallelMin || w < 2 {
		for start := 0; start < n; start += size {
			f(start)
		}
		return
	}
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func(b0, b1 int) {
			defer wg.Done()
			for b := b0; b < b1; b++ {
				f(b * size)
			}
		}(count*k/w, count*(k+1)/w)
	}
	wg.Wait()
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
	p := &fftPlan{n: n, logN: logN, workers: runtime.GOMAXPROCS(0)}
	p.twRe = make([]float64, n/2)
	p.twIm = make([]float64, n/2)
	// w^(k+n/4) = -i w^k exactly in the table (w^k = (re, im) gives
	// (im, -re)): the rotated entries are as accurate as the computed ones,
	// and the butterflies can multiply by w^k once and rotate the product
	// (an exact operation, bitwise the same as multiplying by the rotated
	// twiddle; see ditPair).
	q := max(n/4, 1)
	for k := 0; k < min(q, n/2); k++ {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		p.twRe[k] = c
		p.twIm[k] = -s
	}
	for k := q; k < n/2; k++ {
		p.twRe[k], p.twIm[k] = p.twIm[k-q], -p.twRe[k-q]
	}
	p.rev = make([]uint32, n)
	for i := 0; i < n; i++ {
		p.rev[i] = uint32(bits.Reverse(uint(i)) >> (bits.UintSize - logN))
	}
	if n >= 8 {
		p.stRe = make([]float64, n-4)
		p.stIm = make([]float64, n-4)
		p.stImC = make([]float64, n-4)
		for size := 8; size <= n; size <<= 1 {
			half, step := size>>1, n/size
			off := half - 4
			for k := 0; k < half; k++ {
				p.stRe[off+k] = p.twRe[k*step]
				p.stIm[off+k] = p.twIm[k*step]
				p.stImC[off+k] = -p.twIm[k*step]
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
// (re, im) in place, in natural order.
func (p *fftPlan) forward(re, im []float64) { p.transform(re, im, false) }

// inverse computes the unnormalised inverse DFT sum_k X_k exp(+2 pi i jk/n)
// in place, in natural order (divide by n for the inverse transform; n is a
// power of two, so the division is exact).
func (p *fftPlan) inverse(re, im []float64) { p.transform(re, im, true) }

// forwardBR computes the DFT of (re, im), given in natural order, in place
// and leaves X_k at position rev(k) (bit-reversed order): the
// decimation-in-frequency (Gentleman-Sande) radix-2 algorithm, no
// permutation. The convolutions multiply spectra pointwise, so they never
// need the natural order: forwardBR, a product in bit-reversed order
// (spectralProduct) and inverseBR save both permutations, whose scattered
// memory accesses cost about a third of a transform at length 2^17.
//
// Error: a decimation-in-frequency butterfly (a, b) -> (a + b, w (a - b))
// computed with a twiddle w^ = w + e, |e| <= mu, has errors of at most
// u|a+b| in the first output and (u + mu(1+u) + sqrt2 gamma_2 (1+mu)(1+u))
// |a-b| <= eta |a-b| in the second, eta = mu + gamma_4 (sqrt2 + mu) as for
// the decimation-in-time butterfly. Since |a+b|^2 + |a-b|^2 = 2(|a|^2 +
// |b|^2), a stage's error is at most eta sqrt2 times the 2-norm of its
// input, and sqrt2 is the 2-norm of the exact stage (the transposed
// butterfly matrix [1 1; w -w] with |w| = 1 has singular values sqrt2,
// sqrt2): the proof of Higham's Theorem 24.2 goes through stage by stage
// unchanged and gives the same kappa. TestFFTBitReversedMatchesNaiveDFT
// checks it against direct summation.
func (p *fftPlan) forwardBR(re, im []float64) { p.dif(re[:p.n], im[:p.n], 1) }

// inverseBR computes the unnormalised inverse DFT of a spectrum given in
// bit-reversed order (as left by forwardBR), in place, and leaves the
// result in natural order: the decimation-in-time algorithm of transform
// without its initial permutation (the same operations on the same values,
// so Theorem 24.2 applies as for transform).
func (p *fftPlan) inverseBR(re, im []float64) { p.dit(re[:p.n], im[:p.n], -1) }

// transform is the natural-order transform: the bit reversal permutation,
// then the decimation-in-time stages.
func (p *fftPlan) transform(re, im []float64, inverse bool) {
	re, im = re[:p.n], im[:p.n]
	p.permute(re, im)
	sign := 1.0
	if inverse {
		sign = -1.0
	}
	p.dit(re, im, sign)
}

// permute applies the bit reversal permutation.
func (p *fftPlan) permute(re, im []float64) {
	for i := range re {
		j := int(p.rev[i])
		if j > i {
			re[i], re[j] = re[j], re[i]
			im[i], im[j] = im[j], im[i]
		}
	}
}

// fftBlock is the length of the blocks on which the small stages run one
// block at a time (64 KiB of values: they stay in the core's cache while
// all of their stages run). The order of the butterflies changes, not their
// operations: the results are bitwise those of one stage at a time over the
// whole array.
const fftBlock = 1 << 12

// stage returns the twiddles exp(-+2 pi i k/size), k < size/2, of the stage
// of the given size (conjugated for the inverse).
func (p *fftPlan) stage(size int, inv bool) (wr, wi []float64) {
	h := size >> 1
	wr = p.stRe[h-4 : h-4+h]
	if inv {
		return wr, p.stImC[h-4 : h-4+h]
	}
	return wr, p.stIm[h-4 : h-4+h]
}

// dit runs the decimation-in-time stages (sizes 2, 4, ..., n) on input in
// bit-reversed order; sign is +1 for the forward transform, -1 for the
// inverse.
func (p *fftPlan) dit(re, im []float64, sign float64) {
	n := p.n
	b := min(n, fftBlock)
	p.eachBlock(n, b, func(start int) {
		p.ditStages(re[start:start+b], im[start:start+b], 2, b, sign)
	})
	if b < n {
		p.ditStages(re, im, 2*b, n, sign)
	}
}

// ditStages runs the decimation-in-time stages of sizes from, 2 from, ...,
// to on every block of length to of (re, im).
func (p *fftPlan) ditStages(re, im []float64, from, to int, sign float64) {
	n := len(re)
	inv := sign < 0
	size := from
	if size == 2 {
		// First stage (w = 1) and second stage (w = 1, -i) without multiplications.
		for i := 0; i+1 < n; i += 2 {
			ar, ai, br, bi := re[i], im[i], re[i+1], im[i+1]
			re[i], im[i] = ar+br, ai+bi
			re[i+1], im[i+1] = ar-br, ai-bi
		}
		size = 4
		if to >= 4 {
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
			size = 8
		}
	}
	// Two radix-2 stages at a time (sizes s and 2s) over the same four
	// elements: the same operations in the same order as two separate
	// stages, with half the passes over memory.
	for ; 2*size <= to; size <<= 2 {
		h := size >> 1 // half of the first stage
		w1r, w1i := p.stage(size, inv)
		w2r, w2i := p.stage(2*size, inv)
		s2 := 2 * size
		p.eachBlock(n, s2, func(start int) {
			ditPair(re[start:start+s2], im[start:start+s2], w1r, w1i, w2r[:h], w2i[:h], inv)
		})
	}
	for ; size <= to; size <<= 1 {
		half := size >> 1
		wr, wi := p.stage(size, inv)
		s1 := size
		p.eachBlock(n, s1, func(start int) {
			ditOne(re[start:start+s1], im[start:start+s1], wr[:half], wi[:half])
		})
	}
}

// dif runs the decimation-in-frequency stages (sizes n, n/2, ..., 2) on
// input in natural order and leaves the spectrum in bit-reversed order.
func (p *fftPlan) dif(re, im []float64, sign float64) {
	n := p.n
	b := min(n, fftBlock)
	if b < n {
		p.difStages(re, im, n, 2*b, sign)
	}
	p.eachBlock(n, b, func(start int) {
		p.difStages(re[start:start+b], im[start:start+b], b, 2, sign)
	})
}

// difStages runs the decimation-in-frequency stages of sizes from, from/2,
// ..., to on every block of length from of (re, im). The butterfly of
// stage s at k is (a, b) -> (a + b, w_s^k (a - b)), w_s = exp(-2 pi i/s)
// (conjugated for the inverse).
func (p *fftPlan) difStages(re, im []float64, from, to int, sign float64) {
	n := len(re)
	inv := sign < 0
	size := from
	low := max(to, 8) // sizes 4 and 2 are done without multiplications
	// Two stages at a time (sizes s and s/2) over four quarters of a block.
	for ; size/2 >= low; size >>= 2 {
		q := size >> 2
		w1r, w1i := p.stage(size, inv)
		w2r, w2i := p.stage(size/2, inv)
		s1 := size
		p.eachBlock(n, s1, func(start int) {
			difPair(re[start:start+s1], im[start:start+s1], w1r[:q], w1i[:q], w2r, w2i, inv)
		})
	}
	for ; size >= low; size >>= 1 {
		wr, wi := p.stage(size, inv)
		s1 := size
		p.eachBlock(n, s1, func(start int) {
			difOne(re[start:start+s1], im[start:start+s1], wr, wi)
		})
	}
	if to <= 4 && n >= 4 {
		// Stage 4: pairs (0,2) with w = 1 and (1,3) with w = -i (forward)
		// or +i (inverse): exact multiplications.
		for i := 0; i+3 < n; i += 4 {
			ar, ai, br, bi := re[i], im[i], re[i+2], im[i+2]
			re[i], im[i] = ar+br, ai+bi
			re[i+2], im[i+2] = ar-br, ai-bi
			cr, ci, er, ei := re[i+1], im[i+1], re[i+3], im[i+3]
			re[i+1], im[i+1] = cr+er, ci+ei
			dr, di := cr-er, ci-ei
			re[i+3], im[i+3] = sign*di, -sign*dr
		}
	}
	if to <= 2 {
		for i := 0; i+1 < n; i += 2 {
			ar, ai, br, bi := re[i], im[i], re[i+1], im[i+1]
			re[i], im[i] = ar+br, ai+bi
			re[i+1], im[i+1] = ar-br, ai-bi
		}
	}
}
