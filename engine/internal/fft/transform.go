package fft

// Forward computes the unnormalised DFT X_k = sum_j x_j exp(-2 pi i jk/n) of
// (re, im) in place, in natural order. re and im hold at least n values;
// the first n are transformed.
func (p *Plan) Forward(re, im []float64) { p.transform(re, im, false) }

// Inverse computes the unnormalised inverse DFT sum_k X_k exp(+2 pi i jk/n)
// in place, in natural order (divide by n for the inverse transform; the
// division is exact for n a power of two, one rounding for n = 3*2^k).
func (p *Plan) Inverse(re, im []float64) { p.transform(re, im, true) }

// ForwardBitReversed computes the DFT of (re, im), given in natural order, in place
// and leaves X_k at position rev(k) (bit-reversed order): the
// decimation-in-frequency (Gentleman-Sande) radix-2 algorithm, no
// permutation. The convolutions multiply spectra pointwise, so they never
// need the natural order: ForwardBitReversed, a product in bit-reversed
// order and InverseBitReversed save both permutations, whose scattered
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
// unchanged and gives the same kappa (Kappa).
// TestBitReversedMatchesNaiveDFT checks it against direct summation.
//
// For a plan of length n = 3*2^k the spectrum order is that of the radix-3
// stage (Plan.Frequency gives the frequency at each position) and the
// bound is Kappa3 (radix3.go).
func (p *Plan) ForwardBitReversed(re, im []float64) {
	if p.r3 != nil {
		p.forward3(re[:p.n], im[:p.n], 1)
		return
	}
	p.dif(re[:p.n], im[:p.n], 1)
}

// InverseBitReversed computes the unnormalised inverse DFT of a spectrum
// given in bit-reversed order (as left by ForwardBitReversed), in place, and
// leaves the result in natural order: the decimation-in-time algorithm of
// Inverse without its initial permutation (the same operations on the same
// values, so Theorem 24.2 applies as for Inverse). For a plan of length
// 3*2^k it takes the spectrum in the order ForwardBitReversed leaves.
func (p *Plan) InverseBitReversed(re, im []float64) {
	if p.r3 != nil {
		p.inverse3(re[:p.n], im[:p.n], -1)
		return
	}
	p.dit(re[:p.n], im[:p.n], -1)
}

// transform is the natural-order transform: the bit reversal permutation,
// then the decimation-in-time stages.
func (p *Plan) transform(re, im []float64, inverse bool) {
	re, im = re[:p.n], im[:p.n]
	if p.r3 != nil {
		p.transform3(re, im, inverse)
		return
	}
	p.BitReverse(re, im)
	sign := 1.0
	if inverse {
		sign = -1.0
	}
	p.dit(re, im, sign)
}

// BitReverse applies the bit reversal permutation to the first n values of
// re and im in place: the value at i moves to the bit reversal of i (log2 n
// bits). It is its own inverse. For a plan of length 3*2^k it reverses the
// bits within each third (of length 2^k): it turns the spectrum order of
// ForwardBitReversed into X_(3q+s) at s 2^k + q.
func (p *Plan) BitReverse(re, im []float64) {
	if p.r3 != nil {
		m := p.r3.sub.n
		for s := 0; s < 3; s++ {
			p.r3.sub.BitReverse(re[s*m:(s+1)*m], im[s*m:(s+1)*m])
		}
		return
	}
	rev := p.revTable()
	for i := range re[:p.n] {
		j := int(rev[i])
		if j > i {
			re[i], re[j] = re[j], re[i]
			im[i], im[j] = im[j], im[i]
		}
	}
}

// blockLen is the length of the blocks on which the small stages run one
// block at a time (64 KiB of values: they stay in the core's cache while
// all of their stages run). The order of the butterflies changes, not their
// operations: the results are bitwise those of one stage at a time over the
// whole array.
const blockLen = 1 << 12

// stage returns the twiddles exp(-+2 pi i k/size), k < size/2, of the stage
// of the given size (conjugated for the inverse).
func (p *Plan) stage(size int, inv bool) (wr, wi []float64) {
	h := size >> 1
	wr = p.stRe[h-4 : h-4+h]
	if inv {
		return wr, p.stImC[h-4 : h-4+h]
	}
	return wr, p.stIm[h-4 : h-4+h]
}

// dit runs the decimation-in-time stages (sizes 2, 4, ..., n) on input in
// bit-reversed order; sign is +1 for the forward transform, -1 for the
// inverse. re and im may hold several consecutive blocks of length n (a
// multiple of n values, as the radix-3 plans pass them): each is
// transformed.
func (p *Plan) dit(re, im []float64, sign float64) {
	n, all := p.n, len(re)
	b := min(n, blockLen)
	p.eachBlock(all, b, func(start int) {
		p.ditStages(re[start:start+b], im[start:start+b], 2, b, sign)
	})
	if b < n {
		p.ditStages(re, im, 2*b, n, sign)
	}
}

// ditStages runs the decimation-in-time stages of sizes from, 2 from, ...,
// to on every block of length to of (re, im).
func (p *Plan) ditStages(re, im []float64, from, to int, sign float64) {
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
				tr, ti := float64(sign*di), float64(-sign*dr)
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
// re and im may hold several consecutive blocks of length n (a multiple of
// n values, as the radix-3 plans pass them): each is transformed.
func (p *Plan) dif(re, im []float64, sign float64) {
	n, all := p.n, len(re)
	b := min(n, blockLen)
	if b < n {
		p.difStages(re, im, n, 2*b, sign)
	}
	p.eachBlock(all, b, func(start int) {
		p.difStages(re[start:start+b], im[start:start+b], b, 2, sign)
	})
}

// difStages runs the decimation-in-frequency stages of sizes from, from/2,
// ..., to on every block of length from of (re, im). The butterfly of
// stage s at k is (a, b) -> (a + b, w_s^k (a - b)), w_s = exp(-2 pi i/s)
// (conjugated for the inverse).
func (p *Plan) difStages(re, im []float64, from, to int, sign float64) {
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
