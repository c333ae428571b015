package engine

import (
	"math"
	"runtime"
	"slices"
	"sync"
)

// This file computes the regular part of a composition,
//
//	B_{T1xT2}(i) = sum_{j+k=i} B_{T1}(j) B_{T2}(k)        (Definition 4)
//
// for the A-masses and, identically, for the B-masses (whose difference to
// B(i)/f^i is the error-correction term of Definition 7), by FFT.
//
// Soundness through rounding. A plain FFT convolution has an absolute error
// of about 1e-16 times the total mass in every entry, which would swamp the
// tail buckets that decide small deltas. We therefore convolve exponentially
// tilted sequences a_j*exp(tau*L_j): tilting commutes with convolution, and
// the FFT's absolute error in the tilted domain becomes, after untilting, an
// error envelope eta*exp(-tau*L_k) that is tiny in the tail the tilt points
// at. The rounding error of each FFT convolution is bounded a priori from
// the norms of its inputs (Higham's Theorem 24.2 for the transforms plus the
// spectral products), so the bound is rigorous; errors of the inputs are
// propagated in closed form through the moments M(tau) = sum_j a_j exp(tau
// L_j). Each output entry takes the tilt whose bound is smallest there, which
// keeps every envelope valid for every entry (see list.go for the model).

// weights returns w[o] = exp(tau*L(o)) for all offsets o of a list with the
// given n and lambda, and the relative error bound of the entries.
func weights(n int, lambda, tau float64) ([]float64, float64) {
	w := make([]float64, 2*n)
	return w, weightsInto(w, n, lambda, tau)
}

// weightsInto is weights writing into w (length 2n); it returns rel.
func weightsInto(w []float64, n int, lambda, tau float64) float64 {
	if tau == 0 {
		for o := range w {
			w[o] = 1
		}
		return 0
	}
	g := math.Exp(tau * lambda)
	// blocks of weightBlock entries, each from its own exp: independent,
	// so on all cores (the same values in any order; the maximum is exact)
	xmax := 0.0
	var mu sync.Mutex
	blocks := (2*n + weightBlock - 1) / weightBlock
	parallelRange(blocks, runtime.GOMAXPROCS(0), func(b0, b1 int) {
		xm := 0.0
		for b := b0; b < b1; b++ {
			o := weightBlock * b
			x := tau * (float64(o-n+1) * lambda)
			xm = math.Max(xm, math.Abs(x))
			v := math.Exp(x)
			end := min(o+weightBlock, 2*n)
			for p := o; p < end; p++ {
				w[p] = v
				v *= g
			}
		}
		mu.Lock()
		xmax = math.Max(xmax, xm)
		mu.Unlock()
	})
	return weightsRelOf(xmax, lambda, tau)
}

// weightsRelOf is the relative error bound of weights' entries whose
// blocks' largest exp argument in magnitude is xmax.
func weightsRelOf(xmax, lambda, tau float64) float64 {
	xmax += weightBlock * math.Abs(tau*lambda)
	// exp's argument carries a relative error of 2u, exp itself about u,
	// and up to 31 multiplications by g (each u, plus g's own error; 31 =
	// weightBlock - 1).
	return unitRoundoff * (2*xmax + 4 + 31*(3+2*math.Abs(tau*lambda)))
}

// weightBlock is the length of weights' blocks: each starts from its own
// exp.
const weightBlock = 32

// weightRun produces weights(n, lambda, tau)'s entries block by block,
// bitwise the same values, without storing them all.
type weightRun struct {
	n           int
	lambda, tau float64
	g           float64
}

// newWeightRun returns the run of weights(n, lambda, tau) and the
// entries' relative error bound (weights' rel).
func newWeightRun(n int, lambda, tau float64) (weightRun, float64) {
	r := weightRun{n: n, lambda: lambda, tau: tau, g: math.Exp(tau * lambda)}
	if tau == 0 {
		return r, 0
	}
	xmax := 0.0
	for o := 0; o < 2*n; o += weightBlock {
		xmax = math.Max(xmax, math.Abs(tau*(float64(o-n+1)*lambda)))
	}
	return r, weightsRelOf(xmax, lambda, tau)
}

// block sets dst[i] to the weight of offset o+i for the block of
// weightBlock offsets from o (a multiple of weightBlock; entries beyond 2n
// are left as they are).
func (r *weightRun) block(o int, dst *[weightBlock]float64) {
	end := min(weightBlock, 2*r.n-o)
	if r.tau == 0 {
		for i := range end {
			dst[i] = 1
		}
		return
	}
	v := math.Exp(r.tau * (float64(o-r.n+1) * r.lambda))
	for i := range end {
		dst[i] = v
		v *= r.g
	}
}

// weightCache keeps the tilt weights of the most recent (lambda, tilts),
// built from a cache of single-tilt weight arrays: successive compositions
// share their final tilts and differ in the level's own, and the inverse
// weights of a tilt t are the weights of -t (no reciprocals).
type weightCache struct {
	n       int
	entries []weightEntry
	singles []singleWeights // most recent last
	ones    []float64       // the weights of tau = 0
	free    [][]float64     // recycled arrays (evict, alloc)
	// limit is the number of single arrays kept: maxSingles, or 4 times
	// the largest tilt set asked for (get), whichever is larger
	limit int
}

// singleWeights are the weights exp(tau L(o)) of one (lambda, tau), or
// with recip their reciprocals 1/exp(tau L(o)).
type singleWeights struct {
	lambda, tau float64
	recip       bool
	w           []float64
	rel         float64
}

// maxSingles is the least number of single-tilt arrays kept (each 2n
// floats); weightCache.limit raises it for larger tilt sets.
const maxSingles = 24

// single returns the weights of (lambda, tau), computed or cached.
func (c *weightCache) single(lambda, tau float64) ([]float64, float64) {
	return c.lookup(lambda, tau, false)
}

// lookup returns the weights of (lambda, tau) or their reciprocals.
func (c *weightCache) lookup(lambda, tau float64, recip bool) ([]float64, float64) {
	for k, e := range c.singles {
		if e.lambda == lambda && e.tau == tau && e.recip == recip {
			// most recent last
			c.singles = append(append(c.singles[:k:k], c.singles[k+1:]...), e)
			return e.w, e.rel
		}
	}
	if tau == 0 {
		// exactly 1 at every offset, whatever lambda: one shared array
		if c.ones == nil {
			c.ones, _ = weights(c.n, 1, 0)
		}
		return c.ones, 0
	}
	var w []float64
	var rel float64
	if recip {
		// a reciprocal adds at most u to the weights' relative error
		v, r := c.lookup(lambda, tau, false)
		w, rel = c.alloc(), r+unitRoundoff
		parallelRange(len(v), runtime.GOMAXPROCS(0), func(i0, i1 int) {
			for o := i0; o < i1; o++ {
				w[o] = 1 / v[o]
			}
		})
	} else {
		w = c.alloc()
		rel = weightsInto(w, c.n, lambda, tau)
	}
	if len(c.singles) >= max(maxSingles, c.limit) {
		c.evict()
	}
	c.singles = append(c.singles, singleWeights{lambda, tau, recip, w, rel})
	return w, rel
}

// alloc returns an array of 2n floats, recycled when possible.
func (c *weightCache) alloc() []float64 {
	if k := len(c.free); k > 0 {
		w := c.free[k-1]
		c.free = c.free[:k-1]
		return w
	}
	return make([]float64, 2*c.n)
}

// evict drops the least recently used single array and recycles it (the
// most recent ones, those of the tilts in use, stay: a composition needs
// at most two tilt sets at once (corners of x and y), each of at most two
// arrays per tilt, and get keeps at least 4 arrays per tilt of the largest
// set), with every assembled entry that refers to it.
func (c *weightCache) evict() {
	old := c.singles[0]
	c.singles = c.singles[1:]
	kept := c.entries[:0]
	for _, e := range c.entries {
		uses := false
		for m := range e.tw.w {
			if &e.tw.w[m][0] == &old.w[0] || &e.tw.inv[m][0] == &old.w[0] {
				uses = true
			}
		}
		if !uses {
			kept = append(kept, e)
		}
	}
	c.entries = kept
	if len(c.free) < 8 {
		c.free = append(c.free, old.w)
	}
}

type weightEntry struct {
	lambda float64
	tau    []float64
	tw     *tiltWeights
}

// tiltWeights are the tilt weights of one (lambda, tilts): w[m][o] =
// exp(tau_m L(o)) and inv[m][o] approximating exp(-tau_m L(o)), both with
// relative error at most rel (the per-offset error bounds exp(-tau_m L(o))
// env are computed as env*inv, with rel in their slack).
type tiltWeights struct {
	w, inv [][]float64
	rel    float64
}

// newTiltWeights computes the tilt weights of n, lambda and tau. The tilts
// usually come in pairs +-t (chooseTilts): then the weights of -t
// serve as the inverses of those of t (exp(-t L) computed directly, with
// relative error at most rel), and only unpaired tilts take reciprocals.
func newTiltWeights(n int, lambda float64, tau []float64) *tiltWeights {
	return tiltWeightsFrom(n, lambda, tau, &arena{m: 2 * n})
}

func (c *weightCache) get(lambda float64, tau []float64) *tiltWeights {
	for _, e := range c.entries {
		if e.lambda == lambda && equalTau(e.tau, tau) {
			return e.tw
		}
	}
	// two sets in use at once, two arrays per tilt: an evicted array is
	// recycled, so none of a set in use may be evicted (with the saddle
	// tilts a set holds up to 9 tilts, 16 arrays for a grid list)
	c.limit = max(c.limit, 4*len(tau))
	tw := &tiltWeights{w: make([][]float64, len(tau)), inv: make([][]float64, len(tau))}
	for m, t := range tau {
		var r1, r2 float64
		tw.w[m], r1 = c.single(lambda, t)
		if slices.Contains(tau, -t) {
			// paired tilts: the weights of -t are the inverses of t's
			tw.inv[m], r2 = c.single(lambda, -t)
		} else {
			tw.inv[m], r2 = c.lookup(lambda, t, true)
		}
		tw.rel = math.Max(tw.rel, math.Max(r1, r2))
	}
	tw.rel += unitRoundoff // as newTiltWeights
	e := weightEntry{lambda: lambda, tau: append([]float64(nil), tau...), tw: tw}
	if len(c.entries) >= 4 {
		c.entries = c.entries[1:]
	}
	c.entries = append(c.entries, e)
	return e.tw
}

// seqNorms are the 1- and 2-norms of a tilted A-sequence and B-sequence.
type seqNorms struct{ l1a, l2a, l1c, l2c float64 }

// convErrBound bounds the absolute error of every entry of both circular
// convolutions (A*A' in the real part, C*C' in the imaginary part) computed
// by packing z = a + i c, z' = a' + i c', two forward FFTs of length N, the
// spectral products and one inverse FFT, then dividing by N. kappa is the
// transform's relative 2-norm error bound. The derivation follows the
// operations one by one (every quantity below is a 2-norm divided by
// sqrt(N)); the result is doubled for safety.
func convErrBound(kappa float64, N int, x, y seqNorms) float64 {
	u := unitRoundoff
	sq := math.Sqrt(float64(N))
	zx := math.Hypot(x.l2a, x.l2c)
	zy := math.Hypot(y.l2a, y.l2c)
	// Errors of the extracted spectra.
	dA1 := kappa*zx + 1.01*u*x.l2a
	dC1 := kappa*zx + 1.01*u*x.l2c
	dA2 := kappa*zy + 1.01*u*y.l2a
	dC2 := kappa*zy + 1.01*u*y.l2c
	g2 := math.Sqrt2 * 2 * u / (1 - 2*u)
	prod := func(l1p, l2p, dp, l1q, l2q, dq float64) (norm, err float64) {
		norm = math.Min(l1p*l2q, l2p*l1q)
		err = dp*(l1q+sq*dq) + l1p*dq + g2*(l1p+sq*dp)*(l2q+dq)
		return norm, err
	}
	pa, ea := prod(x.l1a, x.l2a, dA1, y.l1a, y.l2a, dA2)
	pc, ec := prod(x.l1c, x.l2c, dC1, y.l1c, y.l2c, dC2)
	wNorm := pa + pc + ea + ec
	wErr := ea + ec + u*wNorm
	return 2 * (wErr + kappa*wNorm) * (1 + 1e-6)
}

// convScratch holds the FFT buffers of one composition.
type convScratch struct {
	reX, imX, reY, imY []float64
}

func (s *convScratch) buffers(N int) {
	if cap(s.reX) < N {
		s.reX = make([]float64, N)
		s.imX = make([]float64, N)
		s.reY = make([]float64, N)
		s.imY = make([]float64, N)
	}
	s.reX, s.imX = s.reX[:N], s.imX[:N]
	s.reY, s.imY = s.reY[:N], s.imY[:N]
}

// fill loads the tilted sequences of l into re (A) and im (B, scaled by
// scale, a power of two) and returns their norms unscaled-by-tilt moments.
func fill(re, im []float64, l *list, w []float64) (nrm seqNorms, momA, momC float64) {
	for i := range re {
		re[i], im[i] = 0, 0
	}
	for o := l.lo; o <= l.hi; o++ {
		t := o - l.lo
		ra := l.a[o] * w[o]
		rc := l.c[o] * w[o]
		re[t], im[t] = ra, rc
		nrm.l1a += ra
		nrm.l2a += ra * ra
		nrm.l1c += rc
		nrm.l2c += rc * rc
	}
	momA, momC = nrm.l1a, nrm.l1c
	return nrm, momA, momC
}

// scaleIm multiplies im by s (a power of two: exact) and adjusts the norms.
func scaleIm(im []float64, nrm *seqNorms, s float64) {
	if s == 1 {
		return
	}
	for i := range im {
		im[i] *= s
	}
	nrm.l1c *= s
	nrm.l2c *= s * s
}

func finishNorms(n *seqNorms) {
	g := 1 + gamma(len64)
	n.l1a *= g
	n.l1c *= g
	n.l2a = math.Sqrt(n.l2a * g)
	n.l2c = math.Sqrt(n.l2c * g)
}

// len64 bounds the number of terms of the norm sums for the rounding factor
// (2^26 buckets at most, see Options.Buckets).
const len64 = 1 << 27

// pow2Balance returns a power of two s with s*b close to a (1 if either is
// 0), between 2^-500 and 2^500: the convolution is unscaled by 1/s^2,
// which must stay a normal float64 (at 2^900, s^2 overflowed and 1/s^2 was
// 0, which zeroed the B-side results and their error bounds).
func pow2Balance(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 1
	}
	e := math.Round(math.Log2(a / b))
	e = math.Max(-500, math.Min(500, e))
	return math.Ldexp(1, int(e))
}
