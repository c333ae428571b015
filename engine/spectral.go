package engine

// The product of the spectra of the packed sequences of a convolution
// (tiltConv): two real sequences (the A- and B-masses) travel as the real
// and imaginary parts of one complex sequence, and the product separates
// them with the mirror frequencies.

// spectralProduct turns the spectra of the packed sequences, in
// bit-reversed order (fft.Plan.ForwardBitReversed), into the packed
// spectrum of the two convolutions, in place in s.reX/s.imX and in the same order. The packing
// needs each frequency k with its mirror N-k: position p holds X_rev(p),
// and for p in [h, 2h) (h a power of two) the mirror sits at 3h-1-p, in
// the same block (rev(p) = 2^s (2m+1) with 2^s = N/(2h), and N - rev(p) =
// 2^s (2(h-1-m)+1) reverses to 3h-1-p); positions 0 and 1 (k = 0 and N/2)
// are their own mirrors. Each pair is processed together, so the in-place
// update is safe.
func spectralProduct(s *convScratch, N int, self bool) {
	reX, imX, reY, imY := s.reX, s.imX, s.reY, s.imY
	if self {
		reY, imY = reX, imX
	}
	for p := 0; p < min(2, N); p++ {
		xr, xi, yr, yi := reX[p], imX[p], reY[p], imY[p]
		reX[p], imX[p] = packedProduct(xr, xi, xr, xi, yr, yi, yr, yi)
	}
	for h := 2; h < N; h <<= 1 {
		for p := h; p < h+h/2; p++ {
			q := 3*h - 1 - p
			xkr, xki, xjr, xji := reX[p], imX[p], reX[q], imX[q]
			ykr, yki, yjr, yji := reY[p], imY[p], reY[q], imY[q]
			reX[p], imX[p], reX[q], imX[q] = packedProductPair(xkr, xki, xjr, xji, ykr, yki, yjr, yji)
		}
	}
}

// packedProduct returns W_k = A_k A'_k + i C_k C'_k where A_k, C_k are the
// spectra of the real and imaginary parts of x (Z_k and Z_{-k} given) and
// A'_k, C'_k those of y.
func packedProduct(xkr, xki, xjr, xji, ykr, yki, yjr, yji float64) (float64, float64) {
	// A = (Z_k + conj Z_-k)/2, C = (Z_k - conj Z_-k)/(2i).
	ar, ai := (xkr+xjr)*0.5, (xki-xji)*0.5
	cr, ci := (xki+xji)*0.5, (xjr-xkr)*0.5
	br, bi := (ykr+yjr)*0.5, (yki-yji)*0.5
	dr, di := (yki+yji)*0.5, (yjr-ykr)*0.5
	par, pai := ar*br-ai*bi, ar*bi+ai*br
	pcr, pci := cr*dr-ci*di, cr*di+ci*dr
	// W = PA + i PC.
	return par - pci, pai + pcr
}

// packedProductPair returns packedProduct for k and for its mirror j at
// once: packedProduct(xk, xj, yk, yj) and packedProduct(xj, xk, yj, yk)
// with the same values (the same real numbers; only the sign of a zero
// may differ), so the error bound of the product is unchanged. The
// mirror's operands are A_j = conj A_k and C_j = conj C_k computed exactly
// so (the sums are the same sums, the differences their exact negations),
// and rounding commutes with negation, so its products are PA_j = conj
// PA_k and PC_j = conj PC_k bit for bit: W_j = (par + pci) + i (pcr - pai).
// Half the arithmetic of two packedProduct calls.
func packedProductPair(xkr, xki, xjr, xji, ykr, yki, yjr, yji float64) (wkr, wki, wjr, wji float64) {
	ar, ai := (xkr+xjr)*0.5, (xki-xji)*0.5
	cr, ci := (xki+xji)*0.5, (xjr-xkr)*0.5
	br, bi := (ykr+yjr)*0.5, (yki-yji)*0.5
	dr, di := (yki+yji)*0.5, (yjr-ykr)*0.5
	par, pai := ar*br-ai*bi, ar*bi+ai*br
	pcr, pci := cr*dr-ci*di, cr*di+ci*dr
	return par - pci, pai + pcr, par + pci, pcr - pai
}
