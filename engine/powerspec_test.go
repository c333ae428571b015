package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

// TestSpecPowerFusedBitwise checks that specPower (the separation of the
// spectra and their powers in one pass) gives bitwise the powers, the
// error bound and the positive parts' sums of specPowerRef (a pass each),
// on random normalised sequences with a short support at both ends (as
// the power path's tilted leaves), for small and large r (most
// coefficients' powers skipped).
func TestSpecPowerFusedBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, N := range []int{1 << 10, 1 << 13, 3 << 9, 3 << 12} {
		fp := fft.NewPlan(N)
		for _, r := range []int{1, 2, 7, 100, 1000, 65536, 1 << 20} {
			for _, width := range []int{3, 40, N / 8} {
				a, c := make([]float64, N), make([]float64, N)
				var sa, sc float64
				for g := -width; g <= width; g++ {
					j := wrapIndex(g, N)
					a[j], c[j] = rng.Float64()*math.Exp(-float64(g*g)/float64(width)), rng.Float64()
					sa += a[j]
					sc += c[j]
				}
				var s2 float64
				for j := range a {
					a[j] /= sa
					c[j] /= sc
					s2 += a[j]*a[j] + c[j]*c[j]
				}
				a0, c0 := append([]float64(nil), a...), append([]float64(nil), c...)
				wr, wi := make([]float64, N), make([]float64, N)
				got := specPower(fp, a, c, r, 1.01, 1.01, s2)
				want := specPowerRef(fp, a0, c0, wr, wi, r, 1.01, 1.01, s2)
				if i := sameBits(got.a, want.a); i >= 0 {
					t.Errorf("N=%d r=%d width %d: a differs at %d", N, r, width, i)
				}
				if i := sameBits(got.c, want.c); i >= 0 {
					t.Errorf("N=%d r=%d width %d: c differs at %d", N, r, width, i)
				}
				if i := sameBits([]float64{got.err2, got.posA, got.posC}, []float64{want.err2, want.posA, want.posC}); i >= 0 {
					t.Errorf("N=%d r=%d width %d: err2, posA, posC %v %v %v, want %v %v %v", N, r, width,
						got.err2, got.posA, got.posC, want.err2, want.posA, want.posC)
				}
				if !(got.err2 > 0) || !(got.posA > 0) {
					t.Errorf("N=%d r=%d width %d: err2 %v, posA %v", N, r, width, got.err2, got.posA)
				}
			}
		}
	}
}

// specPowerRef is specPower with the separation of the spectra and their
// powers in separate passes (the separated C spectrum in the work arrays
// wr, wi of length N): specPower must give its bits
// (TestSpecPowerFusedBitwise).
func specPowerRef(fp *fft.Plan, a, c, wr, wi []float64, r int, ma, mc, s2 float64) powerSpec {
	N := fp.Len()
	u := unitRoundoff
	fN := float64(N)
	sqN := math.Sqrt(fN)
	// ||x||_2 of the packed input (rounded up)
	nx := math.Sqrt(s2*(1+gamma(2*N+2))) * (1 + 2*u)
	// forward transform, spectrum in bit-reversed order
	fp.ForwardBitReversed(a, c)
	// ||Z^ - Z||_2 <= kappa ||Z||_2 = kappa sqrt(N) ||x||_2 (Theorem 24.2)
	ufT := transformUnderflow(N)
	eZ := fp.Kappa()*sqN*nx*(1+4*u) + ufT
	// Separation of the two real sequences' spectra (A in a, c; C in wr,
	// wi), with the sums of squares of the computed A^ and C^.
	var sA, sC float64
	for p := 0; p < N; p++ {
		q := fp.Position((N - fp.Frequency(p)) % N) // the mirror frequency's position
		if q < p {
			continue
		}
		zr, zi, mr, mi := a[p], c[p], a[q], c[q]
		ar, ai := (zr+mr)*0.5, (zi-mi)*0.5
		cr, ci := (zi+mi)*0.5, (mr-zr)*0.5
		a[p], c[p] = ar, ai
		wr[p], wi[p] = cr, ci
		m := 1.0
		if q != p {
			a[q], c[q] = ar, -ai
			wr[q], wi[q] = cr, -ci
			m = 2
		}
		sA += m * (ar*ar + ai*ai)
		sC += m * (cr*cr + ci*ci)
	}
	nA := math.Sqrt(sA*(1+gamma(N+2))) * (1 + 2*u)
	nC := math.Sqrt(sC*(1+gamma(N+2))) * (1 + 2*u)
	// ||A^ - A||_2 <= ||Z^ - Z||_2 + u/(1-u) ||A^||_2 (the separation is
	// linear with norm at most 1; one rounded addition per component,
	// halving exact, an underflowing half off by 2^-1075 per component)
	uf := sqN * 0x1p-1073
	eA := (eZ + u/(1-u)*nA + uf) * (1 + 2*u)
	eC := (eZ + u/(1-u)*nC + uf) * (1 + 2*u)
	// r-th powers by repeated squaring; pairs (k, N-k) share one power
	// (the conjugate's power is the conjugate, bit for bit)
	fr := float64(r)
	skipSq := math.Exp(2 * powSkipLn / fr) // |z|^2 below it: |z|^r <= e^-699
	var nSkip int
	var pA, pC float64 // sums of squares of the computed powers
	for p := 0; p < N; p++ {
		q := fp.Position((N - fp.Frequency(p)) % N) // the mirror frequency's position
		if q < p {
			continue
		}
		m := 1.0
		if q != p {
			m = 2
		}
		xr, xi := a[p], c[p]
		if xr*xr+xi*xi <= skipSq {
			xr, xi = 0, 0
			nSkip += int(m)
		} else {
			xr, xi = cpow(xr, xi, r)
			pA += m * (xr*xr + xi*xi)
		}
		yr, yi := wr[p], wi[p]
		if yr*yr+yi*yi <= skipSq {
			yr, yi = 0, 0
			nSkip += int(m)
		} else {
			yr, yi = cpow(yr, yi, r)
			pC += m * (yr*yr + yi*yi)
		}
		// Q = P_A + i P_C
		a[p], c[p] = xr-yi, xi+yr
		if q != p {
			// P_A(N-k) = conj, P_C(N-k) = conj
			a[q], c[q] = xr+yi, yr-xi
		}
	}
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
	return powerSpec{a: a, c: c, err2: err2, posA: posA * g, posC: posC * g}
}
