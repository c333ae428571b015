package fft

// The butterfly loops of the transforms (transform.go). Each exists as portable
// Go (the *Go functions, the reference) and, on amd64 with AVX2, as
// assembly doing the same IEEE operations in the same order on four
// entries at a time (no fused multiply-add): the results are bitwise the
// same, which TestKernelsMatchGoBitwise checks, so the error analysis of Plan
// holds for both.
//
// A complex product w x is computed as (wr xr - wi xi, wr xi + wi xr),
// each product rounded on its own (the explicit float64 conversions keep
// the compiler from fusing a product and a sum where it may, as on arm64). The
// twiddle tables satisfy w^(k+s/4) = -i w^k exactly (NewPlan), so a
// product by w^(k+s/4) is taken as -i (w^k x) = (Im, -Re) for the forward
// transform and, with conjugated twiddles, +i (conj(w^k) x) = (-Im, Re)
// for the inverse: bitwise the product by the rotated table entry.

// ditPair runs two decimation-in-time stages, of sizes s and 2s, on one
// block re, im of length 2s: quarters x0..x3 of length h = s/2; w1 holds
// w_s^k and w2 holds w_2s^k for k < h.
func ditPair(re, im, w1r, w1i, w2r, w2i []float64, inv bool) {
	h := len(w1r)
	if h >= 4 && useAVX2 {
		ditPairAVX2(&re[0], &im[0], &w1r[0], &w1i[0], &w2r[0], &w2i[0], h, inv)
		return
	}
	ditPairGo(re, im, w1r, w1i, w2r, w2i, inv)
}

func ditPairGo(re, im, w1r, w1i, w2r, w2i []float64, inv bool) {
	h := len(w1r)
	r0, i0 := re[:h], im[:h]
	r1, i1 := re[h:2*h], im[h:2*h]
	r2, i2 := re[2*h:3*h], im[2*h:3*h]
	r3, i3 := re[3*h:4*h], im[3*h:4*h]
	w1i, w2r, w2i = w1i[:h], w2r[:h], w2i[:h]
	for k := range r0 {
		// first stage (size s): pairs (0,1) and (2,3), twiddle w_s^k
		wr, wi := w1r[k], w1i[k]
		xr, xi := r1[k], i1[k]
		tr := float64(wr*xr) - float64(wi*xi)
		ti := float64(wr*xi) + float64(wi*xr)
		a0r, a0i := r0[k]+tr, i0[k]+ti
		a1r, a1i := r0[k]-tr, i0[k]-ti
		xr, xi = r3[k], i3[k]
		tr = float64(wr*xr) - float64(wi*xi)
		ti = float64(wr*xi) + float64(wi*xr)
		a2r, a2i := r2[k]+tr, i2[k]+ti
		a3r, a3i := r2[k]-tr, i2[k]-ti
		// second stage (size 2s): pairs (0,2) with w_2s^k and (1,3) with
		// w_2s^(k+s/2) = -i w_2s^k (+i conjugated)
		wr, wi = w2r[k], w2i[k]
		tr = float64(wr*a2r) - float64(wi*a2i)
		ti = float64(wr*a2i) + float64(wi*a2r)
		r0[k], i0[k] = a0r+tr, a0i+ti
		r2[k], i2[k] = a0r-tr, a0i-ti
		pr := float64(wr*a3r) - float64(wi*a3i)
		pi := float64(wr*a3i) + float64(wi*a3r)
		tr, ti = pi, -pr
		if inv {
			tr, ti = -pi, pr
		}
		r1[k], i1[k] = a1r+tr, a1i+ti
		r3[k], i3[k] = a1r-tr, a1i-ti
	}
}

// ditOne runs one decimation-in-time stage of size s on one block of
// length s; w holds w_s^k for k < s/2.
func ditOne(re, im, wr, wi []float64) {
	h := len(wr)
	if h >= 4 && useAVX2 {
		ditOneAVX2(&re[0], &im[0], &wr[0], &wi[0], h)
		return
	}
	ditOneGo(re, im, wr, wi)
}

func ditOneGo(re, im, twr, twi []float64) {
	h := len(twr)
	lo, loI := re[:h], im[:h]
	hi, hiI := re[h:2*h], im[h:2*h]
	twi = twi[:h]
	for k := range lo {
		wr, wi := twr[k], twi[k]
		xr, xi := hi[k], hiI[k]
		tr := float64(wr*xr) - float64(wi*xi)
		ti := float64(wr*xi) + float64(wi*xr)
		ar, ai := lo[k], loI[k]
		lo[k], loI[k] = ar+tr, ai+ti
		hi[k], hiI[k] = ar-tr, ai-ti
	}
}

// difPair runs two decimation-in-frequency stages, of sizes s and s/2, on
// one block of length s: quarters of length q = s/4; w1 holds w_s^k for
// k < q and w2 holds w_(s/2)^k for k < q.
func difPair(re, im, w1r, w1i, w2r, w2i []float64, inv bool) {
	q := len(w1r)
	if q >= 4 && useAVX2 {
		difPairAVX2(&re[0], &im[0], &w1r[0], &w1i[0], &w2r[0], &w2i[0], q, inv)
		return
	}
	difPairGo(re, im, w1r, w1i, w2r, w2i, inv)
}

func difPairGo(re, im, w1r, w1i, w2r, w2i []float64, inv bool) {
	q := len(w1r)
	r0, i0 := re[:q], im[:q]
	r1, i1 := re[q:2*q], im[q:2*q]
	r2, i2 := re[2*q:3*q], im[2*q:3*q]
	r3, i3 := re[3*q:4*q], im[3*q:4*q]
	w1i, w2r, w2i = w1i[:q], w2r[:q], w2i[:q]
	for k := range r0 {
		// stage s: pairs (0,2) with w_s^k and (1,3) with w_s^(k+s/4) =
		// -i w_s^k (+i conjugated)
		ar, ai, br, bi := r0[k], i0[k], r2[k], i2[k]
		a0r, a0i := ar+br, ai+bi
		dr, di := ar-br, ai-bi
		wr, wi := w1r[k], w1i[k]
		a2r, a2i := float64(wr*dr)-float64(wi*di), float64(wr*di)+float64(wi*dr)
		ar, ai, br, bi = r1[k], i1[k], r3[k], i3[k]
		a1r, a1i := ar+br, ai+bi
		dr, di = ar-br, ai-bi
		pr, pi := float64(wr*dr)-float64(wi*di), float64(wr*di)+float64(wi*dr)
		a3r, a3i := pi, -pr
		if inv {
			a3r, a3i = -pi, pr
		}
		// stage s/2: pairs (0,1) and (2,3), both with w_(s/2)^k
		wr, wi = w2r[k], w2i[k]
		r0[k], i0[k] = a0r+a1r, a0i+a1i
		dr, di = a0r-a1r, a0i-a1i
		r1[k], i1[k] = float64(wr*dr)-float64(wi*di), float64(wr*di)+float64(wi*dr)
		r2[k], i2[k] = a2r+a3r, a2i+a3i
		dr, di = a2r-a3r, a2i-a3i
		r3[k], i3[k] = float64(wr*dr)-float64(wi*di), float64(wr*di)+float64(wi*dr)
	}
}

// difOne runs one decimation-in-frequency stage of size s on one block of
// length s; w holds w_s^k for k < s/2.
func difOne(re, im, wr, wi []float64) {
	h := len(wr)
	if h >= 4 && useAVX2 {
		difOneAVX2(&re[0], &im[0], &wr[0], &wi[0], h)
		return
	}
	difOneGo(re, im, wr, wi)
}

func difOneGo(re, im, twr, twi []float64) {
	h := len(twr)
	lo, loI := re[:h], im[:h]
	hi, hiI := re[h:2*h], im[h:2*h]
	twi = twi[:h]
	for k := range lo {
		ar, ai, br, bi := lo[k], loI[k], hi[k], hiI[k]
		lo[k], loI[k] = ar+br, ai+bi
		dr, di := ar-br, ai-bi
		wr, wi := twr[k], twi[k]
		hi[k], hiI[k] = float64(wr*dr)-float64(wi*di), float64(wr*di)+float64(wi*dr)
	}
}
