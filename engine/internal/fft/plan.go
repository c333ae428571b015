package fft

import (
	"math"
	"math/bits"
	"runtime"
	"sync"
)

// unitRoundoff is u = 2^-53, the unit roundoff of float64.
const unitRoundoff = 0x1p-53

// TwiddleErr is mu in Higham's notation: a bound on |w^ - w| for every
// twiddle factor w = exp(-+2 pi i k/n) of a Plan. The twiddles are computed
// by math.Sincos of an argument in [0, pi/2] (not by recurrence), the rest
// by exact symmetries: the argument carries a relative error of at most 2u
// (u = 2^-53: the rounded constant 2 pi or 2 pi/3 and one product; the
// division by a power of two is exact), and Sincos is accurate to about
// one ulp; 8u is generous (the tests measure at most 2.5u,
// TestTwiddlesWithinTwiddleErr).
const TwiddleErr = 8 * unitRoundoff

// Kappa returns the relative 2-norm error bound of Higham, "Accuracy and
// Stability of Numerical Algorithms" (2nd ed.), Theorem 24.2, for a
// radix-2 FFT of length 2^logN whose twiddles are within TwiddleErr of the
// exact ones: the computed transform y^ of x satisfies
// ||y^ - y||_2 <= kappa ||y||_2, y the exact transform, with
//
//	kappa = t eta / (1 - t eta),  t = logN,  eta = mu + gamma_4 (sqrt 2 + mu),
//
// mu = TwiddleErr and gamma_4 = 4u/(1-4u). It holds for every transform of
// a Plan of that length (Plan.Kappa).
func Kappa(logN int) float64 {
	u := unitRoundoff
	gamma4 := 4 * u / (1 - 4*u)
	eta := TwiddleErr + float64(gamma4*(math.Sqrt2+TwiddleErr))
	t := float64(logN)
	return t * eta / (1 - float64(t*eta))
}

// A Plan holds the precomputed twiddle factors of the FFTs of one length
// n. For n a power of two: the radix-2 decimation-in-time Cooley-Tukey
// algorithm (Forward, Inverse, InverseBitReversed) and the
// decimation-in-frequency Gentleman-Sande algorithm (ForwardBitReversed).
// For n = 3*2^k: one radix-3 stage and three radix-2 transforms of length
// 2^k (a decimation-in-frequency radix-3 stage first in
// ForwardBitReversed, a decimation-in-time one last in
// InverseBitReversed; radix3.go).
//
// Every twiddle w^k = exp(-2 pi i k/n) is computed directly with math.Sincos
// (not by recurrence) or by an exact symmetry, so each is within
// TwiddleErr of the exact value, and every transform of the plan satisfies
// the error bound of Higham's Theorem 24.2 with the constant Plan.Kappa
// returns (Kappa for 2^k, Kappa3 for 3*2^k).
//
// A Plan is safe for concurrent use by several goroutines (its transforms
// only read it). Transforms of length at least 2^15 run their independent
// blocks on up to GOMAXPROCS goroutines (as when the plan was made); the
// blocks are disjoint and each is transformed by the same operations, so
// the results are bitwise those of one goroutine.
type Plan struct {
	n    int
	logN int       // log2 n, or log2(n/3) for n = 3*2^k
	twRe []float64 // twRe[k] + i*twIm[k] = exp(-2 pi i k / n), k < n/2
	twIm []float64
	// rev is the bit reversal permutation, built on first use (only the
	// natural-order transforms and BitReverse need it)
	rev     []uint32
	revOnce sync.Once
	kappa   float64
	// stage twiddles: for the stage of butterfly size s (s = 8, 16, ...,
	// n), the s/2 twiddles exp(-2 pi i k/s) = tw[k*n/s] stored contiguously
	// from offset s/2 - 4 (the same floating-point values as twRe/twIm, so
	// the error analysis is unchanged; contiguous access is faster).
	stRe, stIm []float64
	stImC      []float64 // -stIm: the conjugate twiddles of the inverse
	// workers is the number of goroutines over which a transform of
	// length at least parallelMin runs its independent blocks
	// (GOMAXPROCS when the plan was made).
	workers int
	// r3 holds the radix-3 stage of a plan of length 3*2^k (nil for a
	// power of two): the radix-2 plan of length 2^k and the stage's
	// twiddles (radix3.go).
	r3 *radix3
}

// parallelMin is the shortest transform whose independent blocks run on
// several goroutines: a composition convolves its tilts on all cores, but
// with 3 tilts on 2 cores (or one list left of two) a core would idle
// while the last tilt's transforms run. Splitting their blocks keeps it
// busy, and costs two goroutines when every core is busy anyway. The
// blocks are disjoint and each is transformed by the same operations, so
// the result is bitwise that of one goroutine. Below 2^17 points the
// goroutines cost more than they save: at 2^15 the DP-SGD 4/0.01/65,536
// answer at 1.45e-4 (3·2^14 points) took 16% more CPU and 5% more wall
// time, 100 answers in one process on 2 cores (with parallelRange's
// threshold at 2^15 beside it).
const parallelMin = 1 << 17

// eachBlock calls f(start) for start = 0, size, 2 size, ... < n, on up to
// p.workers goroutines when n >= parallelMin and there are at least two
// blocks, one after the other otherwise.
func (p *Plan) eachBlock(n, size int, f func(start int)) {
	p.eachIndex(n, n/size, func(b int) { f(b * size) })
}

// eachIndex calls f(b) for b = 0, 1, ..., count-1, on up to p.workers
// goroutines (each a run of consecutive b) when the transform's length n
// is at least parallelMin and count is at least two, in order on this
// goroutine otherwise. The calls must be independent of each other.
func (p *Plan) eachIndex(n, count int, f func(b int)) {
	w := min(p.workers, count)
	if n < parallelMin || w < 2 {
		for b := 0; b < count; b++ {
			f(b)
		}
		return
	}
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func(b0, b1 int) {
			defer wg.Done()
			for b := b0; b < b1; b++ {
				f(b)
			}
		}(count*k/w, count*(k+1)/w)
	}
	wg.Wait()
}

// NewPlan returns the plan of the transforms of length n: the radix-2
// algorithms for n = 2^k (k >= 1), and for n = 3*2^k (k >= 1) one radix-3
// stage around three radix-2 transforms of length 2^k (radix3.go). It
// panics for any other n (the callers choose n; it is never read from
// input).
func NewPlan(n int) *Plan {
	if k, ok := threeTimesPow2(n); ok {
		return newPlan3(k)
	}
	if n < 2 || n&(n-1) != 0 {
		panic("fft: FFT length must be 2^k or 3*2^k with k >= 1")
	}
	logN := bits.TrailingZeros(uint(n))
	p := &Plan{n: n, logN: logN, workers: runtime.GOMAXPROCS(0)}
	if n >= 8 {
		// the stage of size n holds the n/2 twiddles themselves: twRe and
		// twIm are its part of the stage tables (computed there first)
		p.stRe = make([]float64, n-4)
		p.stIm = make([]float64, n-4)
		p.stImC = make([]float64, n-4)
		p.twRe = p.stRe[n/2-4 : n-4]
		p.twIm = p.stIm[n/2-4 : n-4]
	} else {
		p.twRe = make([]float64, n/2)
		p.twIm = make([]float64, n/2)
	}
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
	if n >= 8 {
		for size := 8; size < n; size <<= 1 {
			half, step := size>>1, n/size
			off := half - 4
			for k := 0; k < half; k++ {
				p.stRe[off+k] = p.twRe[k*step]
				p.stIm[off+k] = p.twIm[k*step]
			}
		}
		for i, v := range p.stIm {
			p.stImC[i] = -v
		}
	}
	p.kappa = Kappa(logN)
	return p
}

// revTable returns the bit reversal permutation of the plan's length,
// building it on first use.
func (p *Plan) revTable() []uint32 {
	p.revOnce.Do(func() {
		p.rev = make([]uint32, p.n)
		for i := range p.rev {
			p.rev[i] = uint32(bits.Reverse(uint(i)) >> (bits.UintSize - p.logN))
		}
	})
	return p.rev
}

// Len returns the length n of the plan's transforms.
func (p *Plan) Len() int { return p.n }

// Kappa returns the relative 2-norm error bound kappa of Higham's Theorem
// 24.2 for the plan's transforms: the package function Kappa of log2 n
// for n a power of two, Kappa3 of log2(n/3) for n = 3*2^k.
func (p *Plan) Kappa() float64 { return p.kappa }
