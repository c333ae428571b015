package fft

import (
	"math"
	"math/bits"
	"runtime"
)

// sqrt3Half is fl(sqrt(3)/2), the imaginary part of the cube roots of
// unity -1/2 -+ i sqrt(3)/2 up to sign: a constant of 50 digits, rounded
// once to float64 (relative error at most u; TestRadix3Constants checks it
// against math.Sqrt(3)/2 and a 200-bit square root).
const sqrt3Half = 0.86602540378443864676372317075293618347140262690519

// radix3 is the radix-3 stage of a plan of length n = 3m, m = 2^k: the
// radix-2 plan of length m that transforms the three thirds, and the
// stage's twiddles w_n^t and w_n^(2t), t < m, w_n = exp(-2 pi i/n), each
// within TwiddleErr of the exact value (newPlan3), with their imaginary
// parts negated for the inverse.
type radix3 struct {
	sub               *Plan
	w1Re, w1Im, w1ImC []float64 // w_n^t
	w2Re, w2Im, w2ImC []float64 // w_n^(2t)
}

// threeTimesPow2 reports whether n = 3*2^k with k >= 1, and k.
func threeTimesPow2(n int) (k int, ok bool) {
	if n < 6 || n%3 != 0 {
		return 0, false
	}
	m := n / 3
	if m&(m-1) != 0 {
		return 0, false
	}
	return bits.TrailingZeros(uint(m)), true
}

// newPlan3 returns the plan of length n = 3*2^k, k >= 1.
//
// The twiddle w_n^e = exp(-2 pi i e/n), e < 2m, is computed by math.Sincos
// of (2 pi/3)(e/m) for 4e <= n (fl(2 pi/3) is one rounding of the exact
// constant and e/m is exact, so the argument in [0, pi/2] carries a
// relative error of at most 2u, as the radix-2 plans' arguments do); above
// it comes from exact symmetries: w^e = -conj(w^(n/2-e)) for n/4 < e <=
// n/2 and w^e = -w^(e-n/2) above n/2 (negations only). Each is within
// TwiddleErr of the exact value.
func newPlan3(k int) *Plan {
	m := 1 << k
	n := 3 * m
	r := &radix3{sub: NewPlan(m)}
	wr, wi := make([]float64, 2*m), make([]float64, 2*m)
	for e := 0; e < 2*m; e++ {
		switch {
		case 4*e <= n:
			s, c := math.Sincos(2 * math.Pi / 3 * (float64(e) / float64(m)))
			wr[e], wi[e] = c, -s
		case 2*e <= n:
			wr[e], wi[e] = -wr[n/2-e], wi[n/2-e]
		default:
			wr[e], wi[e] = -wr[e-n/2], -wi[e-n/2]
		}
	}
	r.w1Re, r.w1Im, r.w1ImC = make([]float64, m), make([]float64, m), make([]float64, m)
	r.w2Re, r.w2Im, r.w2ImC = make([]float64, m), make([]float64, m), make([]float64, m)
	for t := 0; t < m; t++ {
		r.w1Re[t], r.w1Im[t], r.w1ImC[t] = wr[t], wi[t], -wi[t]
		r.w2Re[t], r.w2Im[t], r.w2ImC[t] = wr[2*t], wi[2*t], -wi[2*t]
	}
	return &Plan{n: n, logN: k, kappa: Kappa3(k), workers: runtime.GOMAXPROCS(0), r3: r}
}

// Eta3 returns eta_3, the normwise relative error of the radix-3 stage of
// the plans of length 3*2^k: its computed output is A x + e with ||e||_2
// <= eta_3 ||A||_2 ||x||_2, A the exact stage (||A||_2 = sqrt3), as each
// radix-2 stage's is with eta = mu + gamma_4 (sqrt2 + mu) (Higham,
// "Accuracy and Stability of Numerical Algorithms", 2nd ed., proof of
// Theorem 24.2).
//
// The stage. The forward transform (decimation in frequency) takes, for
// each t < m, a = x_t, b = x_(t+m), c = x_(t+2m) to
//
//	y_0 = a + s,  y_1 = h + q,  y_2 = h - q,  s = b + c,  h = a - s/2,
//	q = -+i c3 d,  d = b - c,  c3 = fl(sqrt(3)/2),
//
// the 3-point DFT with the roots -1/2 -+ i sqrt(3)/2 (upper signs for the
// forward transform), then multiplies y_1 by w^t and y_2 by w^(2t) (w =
// w_n, conjugated for the inverse). The inverse (decimation in time) does
// the transposed steps: the twiddle products first, then the 3-point DFT.
// Either way A is a permutation times (F_3 (x) I_m) times a unitary
// diagonal, F_3/sqrt3 unitary.
//
// Error of the 3-point DFT (no twiddles), from u-relative complex sums
// (componentwise rounding: |fl(z) - z| <= u|z|), the exact halving and
// |c3^ - c3| <= u c3, with A = |a| and B = |b| + |c|: |s^ - s|, |d^ - d|
// <= uB; |y_0^ - y_0| <= u|y_0| + (1+u) uB <= alpha_0 A + beta_0 B;
// |h^ - h| <= uA + (u + u^2/2) B; |q^ - q| <= c3 ((1+u)^3 - 1) B; and
// |y_j^ - y_j| <= (1+u)(|h^ - h| + |q^ - q|) + u|y_j| with |y_j| <= A + B:
//
//	alpha_0 = u, beta_0 = 2u + u^2, alpha_1 = alpha_2 = 2u + u^2,
//	beta_1 = beta_2 = (1+u)(u + u^2/2 + c3((1+u)^3 - 1)) + u,
//
// and by Cauchy-Schwarz, (alpha A + beta |b| + beta |c|)^2 <= (alpha^2 +
// 2 beta^2)(|a|^2 + |b|^2 + |c|^2), so the three outputs' errors have a
// 2-norm of at most rho ||(a, b, c)||_2 with
//
//	rho^2 = sum_j (alpha_j^2 + 2 beta_j^2),   rho ~ 10.08 u.
//
// Twiddles: a computed product by w^ = w + e, |e| <= mu, is off by at most
// nu |z| from w z, nu = mu + sqrt2 gamma_2 (1 + mu) (Higham, Lemma 3.5).
// Forward: the error of output j is at most nu |y_j^| + |y_j^ - y_j| <= nu
// |y_j| + (1+nu) |y_j^ - y_j|, and ||(y_1, y_2)||_2 <= ||y||_2 = sqrt3
// ||(a, b, c)||_2 (Parseval). Inverse: the products are v_j = w_j z_j +
// e_j, |e_j| <= nu |z_j|; the exact DFT of the e_j has 2-norm sqrt3
// ||(e_1, e_2)||_2 <= sqrt3 nu ||z||_2, and the rounding of the DFT of the
// computed v (||v||_2 <= (1+nu) ||z||_2) adds rho (1+nu) ||z||_2. Summing
// the squares over t, both directions give
//
//	||e||_2 <= (sqrt3 nu + (1+nu) rho) ||x||_2 = eta_3 sqrt3 ||x||_2,
//	eta_3 = nu + (1+nu) rho/sqrt3  ~ 16.65 u,
//
// about 1.22 times the eta of a radix-2 stage (13.66 u). The value
// returned is rounded up by a relative 2^-40, which covers the rounding of
// its own float64 evaluation and of Kappa3's (TestKappa3CoversStages
// checks both against the formulas in 200-bit arithmetic).
//
// Like Theorem 24.2 it assumes no underflow. A product whose result is
// subnormal is off by up to 2^-1075 more (sums are exact there); through
// the butterfly that is at most 7.5 * 2^-1075 per real output component
// for the decimation in time (2 per twiddle product, 4 per sum of two,
// 3 after the halving, 4.5 after c3, 7.5 at the end) and (2 sqrt2 + 2)
// 2^-1075 for the decimation in frequency, against 2 * 2^-1075 for a
// radix-2 butterfly: underflow allowances may count the stage as four
// radix-2 stages.
func Eta3() float64 {
	u := unitRoundoff
	mu := TwiddleErr
	nu := mu + math.Sqrt2*(2*u/(1-2*u))*(1+mu)
	c3 := math.Sqrt(3) / 2 * (1 + 2*u) // at least sqrt(3)/2
	cube := 3*u + 3*u*u + u*u*u        // (1+u)^3 - 1 (1+u itself rounds to 1)
	a0, b0 := u, 2*u+u*u
	a1 := 2*u + u*u
	b1 := (1+u)*(u+u*u/2+c3*cube) + u
	rho := math.Sqrt(a0*a0 + 2*b0*b0 + 2*(a1*a1+2*b1*b1))
	return (nu + (1+nu)*rho/math.Sqrt(3)) * (1 + 0x1p-40)
}

// Kappa3 returns the relative 2-norm error bound of the transforms of
// length 3*2^k (Plan.Kappa of those plans): the computed transform y^ of x
// satisfies ||y^ - y||_2 <= kappa ||y||_2, y the exact transform. The
// transform is the radix-3 stage (Eta3) and k radix-2 stages (eta = mu +
// gamma_4 (sqrt2 + mu), as Kappa's), applied to three blocks at once; the
// proof of Higham's Theorem 24.2 takes the stages one by one, each with
// ||fl(A_j z) - A_j z||_2 <= eta_j ||A_j||_2 ||z||_2, and gives
// ||y^ - y||_2 <= (prod (1 + eta_j) - 1) prod ||A_j||_2 ||x||_2, where
// prod ||A_j||_2 = sqrt3 sqrt2^k = sqrt n and ||y||_2 = sqrt n ||x||_2.
// With 1 + x <= e^x and e^T - 1 <= T/(1 - T),
//
//	kappa = T/(1 - T),  T = k eta + eta_3,
//
// between Kappa(k+1) and Kappa(k+2) (the radix-3 stage counts as about
// 1.22 radix-2 stages).
func Kappa3(k int) float64 {
	u := unitRoundoff
	gamma4 := 4 * u / (1 - 4*u)
	eta := TwiddleErr + float64(gamma4*(math.Sqrt2+TwiddleErr))
	t := float64(float64(k)*eta) + Eta3()
	return t / (1 - t)
}

// forward3 is ForwardBitReversed of a plan of length 3m: the radix-3
// stage (decimation in frequency), then the radix-2 decimation in
// frequency of each third (by the radix-2 plan of length m, on up to its
// workers when the three thirds together reach parallelMin). Position s m
// + rev(q) (rev the bit reversal of log2 m bits) ends up holding
// X_(3q+s).
func (p *Plan) forward3(re, im []float64, sign float64) {
	r := p.r3
	w1i, w2i := r.w1Im, r.w2Im
	if sign < 0 {
		w1i, w2i = r.w1ImC, r.w2ImC
	}
	p.stage3(re, im, w1i, w2i, sign < 0, radix3DIF)
	r.sub.dif(re, im, sign)
}

// inverse3 is InverseBitReversed of a plan of length 3m: the radix-2
// decimation in time of each third, then the radix-3 stage (decimation in
// time).
func (p *Plan) inverse3(re, im []float64, sign float64) {
	r := p.r3
	r.sub.dit(re, im, sign)
	w1i, w2i := r.w1Im, r.w2Im
	if sign < 0 {
		w1i, w2i = r.w1ImC, r.w2ImC
	}
	p.stage3(re, im, w1i, w2i, sign < 0, radix3DIT)
}

// stage3 runs a radix-3 stage kernel over the m butterflies of (re, im),
// in runs of blockLen on up to p.workers goroutines from parallelMin (each
// butterfly the same operations whichever goroutine runs it).
func (p *Plan) stage3(re, im, w1i, w2i []float64, inv bool, kernel func(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i []float64, inv bool)) {
	r := p.r3
	m := r.sub.n
	run := min(m, blockLen)
	p.eachIndex(p.n, m/run, func(b int) {
		lo, hi := b*run, (b+1)*run
		kernel(re[lo:hi], im[lo:hi], re[m+lo:m+hi], im[m+lo:m+hi], re[2*m+lo:2*m+hi], im[2*m+lo:2*m+hi],
			r.w1Re[lo:hi], w1i[lo:hi], r.w2Re[lo:hi], w2i[lo:hi], inv)
	})
}

// radix3DIF is the forward stage's butterfly on each t: (a, b, c) =
// (x0_t, x1_t, x2_t) -> (y_0, w1_t y_1, w2_t y_2) (Eta3), with y_1 = h -
// i c3 d and y_2 = h + i c3 d for the forward transform and the two
// swapped for the inverse (conjugate roots of unity). On amd64 with AVX2
// it runs as assembly doing the same operations (radix3DIFGo is the
// reference; TestRadix3KernelsMatchGoBitwise).
func radix3DIF(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i []float64, inv bool) {
	if n := len(r0); n >= 4 && n%4 == 0 && useAVX2 {
		_, _, _, _, _ = i0[n-1], r1[n-1], i1[n-1], r2[n-1], i2[n-1]
		_, _, _, _ = w1r[n-1], w1i[n-1], w2r[n-1], w2i[n-1]
		radix3DIFAVX2(&r0[0], &i0[0], &r1[0], &i1[0], &r2[0], &i2[0], &w1r[0], &w1i[0], &w2r[0], &w2i[0], n, inv)
		return
	}
	radix3DIFGo(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i, inv)
}

// radix3DIFGo is radix3DIF in Go. The explicit conversions round every
// product on its own (no fused multiply-add on any architecture).
func radix3DIFGo(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i []float64, inv bool) {
	n := len(r0)
	i0, r1, i1, r2, i2 = i0[:n], r1[:n], i1[:n], r2[:n], i2[:n]
	w1r, w1i, w2r, w2i = w1r[:n], w1i[:n], w2r[:n], w2i[:n]
	for t := range r0 {
		ar, ai := r0[t], i0[t]
		br, bi := r1[t], i1[t]
		cr, ci := r2[t], i2[t]
		sr, si := br+cr, bi+ci
		dr, di := br-cr, bi-ci
		r0[t], i0[t] = ar+sr, ai+si
		hr, hi := ar-float64(0.5*sr), ai-float64(0.5*si)
		pr, pi := float64(sqrt3Half*dr), float64(sqrt3Half*di)
		ur, ui := hr+pi, hi-pr // h - i c3 d
		vr, vi := hr-pi, hi+pr // h + i c3 d
		if inv {
			ur, ui, vr, vi = vr, vi, ur, ui
		}
		wr, wi := w1r[t], w1i[t]
		r1[t], i1[t] = float64(wr*ur)-float64(wi*ui), float64(wr*ui)+float64(wi*ur)
		wr, wi = w2r[t], w2i[t]
		r2[t], i2[t] = float64(wr*vr)-float64(wi*vi), float64(wr*vi)+float64(wi*vr)
	}
}

// radix3DIT is the inverse stage's butterfly on each t: (a, b, c) ->
// the 3-point DFT of (a, w1_t b, w2_t c) (Eta3), with the roots of unity
// conjugated for the inverse (inv). On amd64 with AVX2 it runs as
// assembly doing the same operations (radix3DITGo is the reference).
func radix3DIT(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i []float64, inv bool) {
	if n := len(r0); n >= 4 && n%4 == 0 && useAVX2 {
		_, _, _, _, _ = i0[n-1], r1[n-1], i1[n-1], r2[n-1], i2[n-1]
		_, _, _, _ = w1r[n-1], w1i[n-1], w2r[n-1], w2i[n-1]
		radix3DITAVX2(&r0[0], &i0[0], &r1[0], &i1[0], &r2[0], &i2[0], &w1r[0], &w1i[0], &w2r[0], &w2i[0], n, inv)
		return
	}
	radix3DITGo(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i, inv)
}

// radix3DITGo is radix3DIT in Go (explicit conversions as in radix3DIFGo).
func radix3DITGo(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i []float64, inv bool) {
	n := len(r0)
	i0, r1, i1, r2, i2 = i0[:n], r1[:n], i1[:n], r2[:n], i2[:n]
	w1r, w1i, w2r, w2i = w1r[:n], w1i[:n], w2r[:n], w2i[:n]
	for t := range r0 {
		wr, wi := w1r[t], w1i[t]
		xr, xi := r1[t], i1[t]
		br, bi := float64(wr*xr)-float64(wi*xi), float64(wr*xi)+float64(wi*xr)
		wr, wi = w2r[t], w2i[t]
		xr, xi = r2[t], i2[t]
		cr, ci := float64(wr*xr)-float64(wi*xi), float64(wr*xi)+float64(wi*xr)
		ar, ai := r0[t], i0[t]
		sr, si := br+cr, bi+ci
		dr, di := br-cr, bi-ci
		r0[t], i0[t] = ar+sr, ai+si
		hr, hi := ar-float64(0.5*sr), ai-float64(0.5*si)
		pr, pi := float64(sqrt3Half*dr), float64(sqrt3Half*di)
		ur, ui := hr+pi, hi-pr // h - i c3 d
		vr, vi := hr-pi, hi+pr // h + i c3 d
		if inv {
			ur, ui, vr, vi = vr, vi, ur, ui
		}
		r1[t], i1[t] = ur, ui
		r2[t], i2[t] = vr, vi
	}
}

// transform3 is the natural-order transform of a plan of length 3m:
// ForwardBitReversed and then the permutation to natural order, or the
// permutation to the spectrum order and then InverseBitReversed (each
// through a copy of the values).
func (p *Plan) transform3(re, im []float64, inverse bool) {
	tr, ti := append([]float64(nil), re...), append([]float64(nil), im...)
	if inverse {
		for pos := range re {
			f := p.Frequency(pos)
			re[pos], im[pos] = tr[f], ti[f]
		}
		p.inverse3(re, im, -1)
		return
	}
	p.forward3(tr, ti, 1)
	for pos := range tr {
		f := p.Frequency(pos)
		re[f], im[f] = tr[pos], ti[pos]
	}
}
