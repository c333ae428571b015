package engine

import (
	"math"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

// This file holds the spectral kernel of the power path (power.go): one
// forward transform of two real sequences packed into one complex one, the
// r-th power of both spectra, and one inverse transform, with a rigorous
// bound on the 2-norm of the result's error. The proof is in power.go's
// comment ("The spectral power"); the names below follow it.

// powerSpec is the result of specPower: the circular r-fold convolution
// powers of the two input sequences (re and im of the inputs), in natural
// order, and err2, a bound on the 2-norm of the error of the complex result
// (so on every entry's error of either part, and sqrt(N) err2 bounds the
// 1-norm of either part's error).
type powerSpec struct {
	a, c []float64
	err2 float64
	// posA, posC are upper bounds on the sums of the positive parts of a
	// and c (the computed results, rounding of the sums included)
	posA, posC float64
	// supA, supC (when asked for, specPowerSup) are upper bounds on the
	// largest entry of the exact circular (r-1)-fold powers of the
	// computed inputs: (1/N) sum_k |A_k|^(r-1) >= max_j |(a^(*(r-1)))_j|
	supA, supC float64
}

// cmulErr is the normwise relative error of one complex multiplication,
// |fl(xy) - xy| <= cmulErr |x||y|: sqrt2 gamma_2 (Higham, Lemma 3.5; the
// bound holds with or without fused multiply-adds, which give 2u:
// Jeannerod, Kornerup, Louvet, Muller, Math. Comp. 2017).
var cmulErr = math.Sqrt2 * gamma(2)

// powSkipLn is ln of the modulus below which the r-th power of a spectral
// coefficient is not formed (it is at most e^powSkipLn, set to 0 and that
// counted as its error): above it, every intermediate power of the
// repeated squaring stays a normal float64.
const powSkipLn = -699.0

// specPower computes the circular r-fold convolution powers of a and c
// (length N = fp.Len(), non-negative, each summing to about 1) in place: a and
// c hold the results on return (natural order). ma, mc bound the 1-norms
// of a and c from above; s2 is the computed sum over j of a[j]^2 + c[j]^2
// (in any order: the bound below allows for its rounding).
//
// The separation of the two spectra and their powers run in one pass over
// the pairs of mirror frequencies (the separated spectra never leave the
// registers); the sums of squares accumulate in the same order as in a
// pass each, so the result is bitwise that of separate passes.
func specPower(fp *fft.Plan, a, c []float64, r int, ma, mc, s2 float64) powerSpec {
	return specPowerSup(fp, a, c, r, ma, mc, s2, false)
}

// specPowerSup is specPower, with sup true also bounding the largest entry
// of the (r-1)-fold powers (powerSpec.supA, supC; r >= 3): by the inverse
// transform, every entry of the circular power is at most (1/N) sum_k
// |A_k|^p, p = r-1, A the exact spectrum of the computed input, and by
// Minkowski's inequality in l^p (p >= 2), (sum_k |A_k|^p)^(1/p) <= (sum_k
// |A^_k|^p)^(1/p) + ||A^ - A||_2. Each |A^_k|^p is |fl(A^_k^r)| / |A^_k|
// enlarged by the power's relative error (1 - rho)^-1, a coefficient not
// raised (|A^_k|^r <= e^-699) at most e^(-699 p/r).
func specPowerSup(fp *fft.Plan, a, c []float64, r int, ma, mc, s2 float64, sup bool) powerSpec {
	N := fp.Len()
	u := unitRoundoff
	fN := float64(N)
	sqN := math.Sqrt(fN)
	// ||x||_2 of the packed input (rounded up)
	nx := math.Sqrt(s2*(1+gamma(2*N+2))) * (1 + 2*u)
	// forward transform, spectrum in bit-reversed order
	fp.ForwardBitReversed(a, c)
	// ||Z^ - Z||_2 <= kappa ||Z||_2 = kappa sqrt(N) ||x||_2 (Theorem 24.2),
	// plus the transform's underflow (transformUnderflow)
	ufT := transformUnderflow(N)
	eZ := fp.Kappa()*sqN*nx*(1+4*u) + ufT
	// Separation of the two real sequences' spectra A and C, with the sums
	// of squares of the computed A^ and C^, and their r-th powers by
	// repeated squaring (pairs (k, N-k) share one power: the conjugate's
	// power is the conjugate, bit for bit), recombined as Q = P_A + i P_C.
	fr := float64(r)
	skipSq := math.Exp(2 * powSkipLn / fr) // |z|^2 below it: |z|^r <= e^-699
	var sA, sC float64
	var nSkip int
	var pA, pC float64     // sums of squares of the computed powers
	var supA, supC float64 // sums of |fl(z^r)| / |z| (specPowerSup)
	// each frequency pair (k, N-k) once: pair(p, q) for the positions p
	// whose mirrors q are at or after them (mirrorPairs)
	pair := func(p, q int) {
		zr, zi, mr, mi := a[p], c[p], a[q], c[q]
		ar, ai := (zr+mr)*0.5, (zi-mi)*0.5
		cr, ci := (zi+mi)*0.5, (mr-zr)*0.5
		m := 1.0
		if q != p {
			m = 2
		}
		sA += m * (ar*ar + ai*ai)
		sC += m * (cr*cr + ci*ci)
		xr, xi := ar, ai
		if sqA := xr*xr + xi*xi; sqA <= skipSq {
			xr, xi = 0, 0
			nSkip += int(m)
		} else {
			xr, xi = cpow(xr, xi, r)
			pA += m * (xr*xr + xi*xi)
			if sup {
				supA += m * math.Sqrt((xr*xr+xi*xi)/sqA)
			}
		}
		yr, yi := cr, ci
		if sqC := yr*yr + yi*yi; sqC <= skipSq {
			yr, yi = 0, 0
			nSkip += int(m)
		} else {
			yr, yi = cpow(yr, yi, r)
			pC += m * (yr*yr + yi*yi)
			if sup {
				supC += m * math.Sqrt((yr*yr+yi*yi)/sqC)
			}
		}
		// Q = P_A + i P_C
		a[p], c[p] = xr-yi, xi+yr
		if q != p {
			// P_A(N-k) = conj, P_C(N-k) = conj
			a[q], c[q] = xr+yi, yr-xi
		}
	}
	mirrorPairs(N, pair)
	nA := math.Sqrt(sA*(1+gamma(N+2))) * (1 + 2*u)
	nC := math.Sqrt(sC*(1+gamma(N+2))) * (1 + 2*u)
	// ||A^ - A||_2 <= ||Z^ - Z||_2 + u/(1-u) ||A^||_2 (the separation is
	// linear with norm at most 1; one rounded addition per component,
	// halving exact, an underflowing half off by 2^-1075 per component)
	uf := sqN * 0x1p-1073
	eA := (eZ + u/(1-u)*nA + uf) * (1 + 2*u)
	eC := (eZ + u/(1-u)*nC + uf) * (1 + 2*u)
	nPA := math.Sqrt(pA*(1+gamma(N+2))) * (1 + 2*u)
	nPC := math.Sqrt(pC*(1+gamma(N+2))) * (1 + 2*u)
	// rounding of the powers: (1+d)^(r-1) - 1 relative
	rho := math.Expm1((fr-1)*math.Log1p(cmulErr)) * (1 + 1e-10)
	// skipped coefficients: at most e^-699 each (set to 0); intermediate
	// products with subnormal components: 2^-1073 each, grown by at most
	// M^r over the remaining factors
	MA := (ma + eA) * (1 + 2*u)
	MC := (mc + eC) * (1 + 2*u)
	lnM := math.Max(math.Log(MA), math.Log(MC))*(1+1e-10) + 1e-300
	growR := math.Exp(math.Max(fr*lnM, 0)*(1+1e-10) + 1e-12)
	ops := 2 * (64 + 1)
	skipE := math.Sqrt(float64(nSkip)) * math.Exp(powSkipLn) * 1.001
	ufPow := sqN * float64(ops) * 0x1p-1073 * growR
	// |A^^r - A^r| <= r max(|A^|, |A|)^(r-1) |A^ - A|, max <= MA
	grA := math.Exp(math.Max((fr-1)*math.Log(MA), 0)*(1+1e-10) + 1e-12)
	grC := math.Exp(math.Max((fr-1)*math.Log(MC), 0)*(1+1e-10) + 1e-12)
	ePA := rho/(1-rho)*(nPA+skipE) + fr*grA*eA + skipE + ufPow
	ePC := rho/(1-rho)*(nPC+skipE) + fr*grC*eC + skipE + ufPow
	var sQ float64
	for j := 0; j < N; j++ {
		sQ += a[j]*a[j] + c[j]*c[j]
	}
	nQ := math.Sqrt(sQ*(1+gamma(N+2))) * (1 + 2*u)
	// recombination: one rounded addition per component
	eQ := (ePA + ePC + u/(1-u)*nQ + uf) * (1 + 4*u)
	fp.InverseBitReversed(a, c)
	inv := 1 / fN
	var posA, posC float64
	for j := 0; j < N; j++ {
		a[j] *= inv
		c[j] *= inv
		// the positive parts (math.Max(0, x): NaN stays NaN)
		if x := a[j]; x > 0 || x != x {
			posA += x
		}
		if x := c[j]; x > 0 || x != x {
			posC += x
		}
	}
	g := 1 + gamma(N+2)
	// ||t^ - t||_2 <= (kappa ||Q^||_2 + ||Q^ - Q||_2) / sqrt(N), and the
	// scaling by 1/N (exact unless the result is subnormal: 2^-1075 each)
	err2 := (fp.Kappa()*nQ+eQ+ufT)/sqN*(1+4*u) + sqN*0x1p-1074
	ps := powerSpec{a: a, c: c, err2: err2, posA: posA * g, posC: posC * g}
	if sup && r >= 3 {
		// |z|^p = |z^r| / |z| <= |fl(z^r)| / ((1 - rho) |z|); each term's
		// own rounding (the squares, quotient, root: 4u) and the sum's
		fp1 := fr - 1
		skipP := float64(nSkip) * math.Exp(powSkipLn*fp1/fr) * 1.001
		bound := func(sum, e float64) float64 {
			T := sum*(1+gamma(N+8))/(1-rho) + skipP
			if !(T > 0) {
				return math.Inf(1)
			}
			// ln( (T^(1/p) + e)^p / N ), rounded up
			x := math.Log(T) / fp1
			y := fp1*math.Log(math.Exp(x)*(1+4*u)+e) - math.Log(fN)
			return expUp(y + 16*u*(math.Abs(y)+fp1*(math.Abs(x)+1)+math.Log(fN)))
		}
		ps.supA, ps.supC = bound(supA, eA), bound(supC, eC)
	} else if sup {
		ps.supA, ps.supC = math.Inf(1), math.Inf(1)
	}
	return ps
}

// mirrorPairs calls pair(p, q) once for every position p of a spectrum of
// length N in ForwardBitReversed's order (fft.Plan.Frequency) whose mirror
// q (the position of the frequency N-k, k at p) is at or after it, p
// ascending: for N = 2^j the bit-reversed order (0 and 1, then the first
// half of each block [h, 2h), whose mirrors are 3h-1-p); for N = 3m the first third as a
// bit-reversed spectrum of length m, then each position m+i of the second
// third with 3m-1-i of the last (Frequency 3 rev(i) + 1 and 3 rev(m-1-i) +
// 2 = 3m - (3 rev(i) + 1), rev(m-1-i) = m-1-rev(i)).
func mirrorPairs(N int, pair func(p, q int)) {
	m := N
	if N%3 == 0 {
		m = N / 3
	}
	pair(0, 0)
	if m >= 2 {
		pair(1, 1)
	}
	for h := 2; h < m; h *= 2 {
		for p := h; p < h+h/2; p++ {
			pair(p, 3*h-1-p)
		}
	}
	if m != N {
		for i := 0; i < m; i++ {
			pair(m+i, 3*m-1-i)
		}
	}
}

// transformUnderflow returns a bound on the 2-norm of the error a
// transform of N points (2^j or 3·2^j) commits by underflow, which
// Theorem 24.2 leaves out: a result below 2^-1022 is off by up to 2^-1075
// per real operation (7.5 2^-1075 per component through a radix-3 stage,
// as four radix-2 stages: engine/internal/fft), every output component
// depends on at most 4 log2(N) + 8 such stages' results, each carried to
// it with a gain of at most N (the unnormalised transform), so each
// component is off by at most N (4 log2 N + 8) 2^-1074 and the vector by
// sqrt(N) times that. About 2^-1030 at 2^22 points: far below kappa
// ||Z||_2 for the power path's normalised inputs, but bounded, not assumed.
func transformUnderflow(N int) float64 {
	fN := float64(N)
	return math.Sqrt(fN) * fN * (4*math.Log2(fN) + 8) * 0x1p-1074
}

// cpow returns (xr + i xi)^r by repeated squaring: r-1 complex
// multiplications in all (the squarings of the binary powers and the
// products of those used), so its result has a relative error of at most
// (1+cmulErr)^(r-1) - 1 while no component underflows.
func cpow(xr, xi float64, r int) (float64, float64) {
	rr, ri := 1.0, 0.0
	first := true
	for {
		if r&1 == 1 {
			if first {
				rr, ri = xr, xi
				first = false
			} else {
				rr, ri = rr*xr-ri*xi, rr*xi+ri*xr
			}
		}
		r >>= 1
		if r == 0 {
			return rr, ri
		}
		xr, xi = xr*xr-xi*xi, 2*xr*xi
	}
}
