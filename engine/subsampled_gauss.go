package engine

import "math"

// Gaussian pairs of subsampled.go in the standardised variable t (noise
// N(0, 1), shift a = sensitivity/sigma or twice that).

// gaussXErr bounds the error of x = a t - a^2/2 computed in floating point
// plus the effect of the rounding of a itself (relative u, dx/da = t - a).
func gaussXErr(a, t, x float64) float64 {
	u := unitRoundoff
	return 2 * u * (math.Abs(a*t) + a*a + math.Abs(x) + a*(math.Abs(t)+a))
}

// gaussRemove is R(q, a): A = (1-q) N(0,1) + q N(a,1), B = N(0,1), with
// increasing loss L(t) = ln(1 - q + q e^(a t - a^2/2)).
func gaussRemove(q, a float64) *monotonePair {
	half := a * a / 2
	lq := ln(q)
	mp := &monotonePair{
		increasing: true,
		tMin:       math.Inf(-1), tMax: math.Inf(1),
		loss: func(t float64) float64 {
			L, _ := logMix(q, a*t-half)
			return L
		},
		lossErr: func(t float64) float64 {
			if math.IsInf(t, 0) {
				_, e := logMix(q, math.Inf(-1))
				return e
			}
			x := a*t - half
			_, e := logMix(q, x)
			return e + gaussXErr(a, t, x)
		},
		inv: func(L float64) float64 {
			return (logMixInv(q, lq, L) + half) / a
		},
		massA: func(t1, t2 float64) float64 {
			return (1-q)*normMass(t1, t2) + q*normMassShift(t1, t2, a)
		},
		massB: func(t1, t2 float64) float64 { return normMass(t1, t2) },
		lossBoth: func(t float64) (float64, float64) {
			x := a*t - half
			L, e := logMix(q, x)
			return L, e + gaussXErr(a, t, x)
		},
		masses: func(t1, t2 float64) (float64, float64) {
			nm := normMass(t1, t2)
			return (1-q)*nm + q*normMassShift(t1, t2, a), nm
		},
		lossAtMin: math.Log1p(-q), lossAtMax: math.Inf(1),
	}
	if q == 1 {
		mp.lossAtMin = math.Inf(-1)
	}
	return mp
}

// logMixInv returns x with ln(1 - q + q e^x) = L, for L > ln(1-q)
// (approximately: it places bucket borders, whose losses are recomputed);
// lq = ln(q), computed once by the caller, which inverts at every border.
func logMixInv(q, lq, L float64) float64 {
	if q == 1 {
		return L
	}
	if L-lq > 700 {
		// e^x = (e^L - (1-q))/q with e^L huge.
		return L - lq + math.Log1p(-(1-q)*math.Exp(-L))
	}
	return math.Log1p(math.Expm1(L) / q)
}

// gaussAntipodal is P(q, a): A = (1-q) N(0,1) + q N(-a,1), B = (1-q) N(0,1)
// + q N(a,1), with decreasing loss L(t) = ln(1-q + q e^(-a t - a^2/2)) -
// ln(1-q + q e^(a t - a^2/2)), L(-t) = -L(t).
func gaussAntipodal(q, a float64) *monotonePair {
	half := a * a / 2
	lossErr := func(t float64) (float64, float64) {
		x1, x2 := -a*t-half, a*t-half
		L1, e1 := logMix(q, x1)
		L2, e2 := logMix(q, x2)
		return L1 - L2, e1 + e2 + gaussXErr(a, -t, x1) + gaussXErr(a, t, x2) + 2*unitRoundoff*math.Abs(L1-L2)
	}
	return &monotonePair{
		increasing: false,
		tMin:       math.Inf(-1), tMax: math.Inf(1),
		loss: func(t float64) float64 {
			L, _ := lossErr(t)
			return L
		},
		lossErr: func(t float64) float64 {
			if math.IsInf(t, 0) {
				return 0
			}
			_, e := lossErr(t)
			return e
		},
		inv: func(L float64) float64 { return antipodalInv(q, a, L) },
		massA: func(t1, t2 float64) float64 {
			return (1-q)*normMass(t1, t2) + q*normMassShift(t1, t2, -a)
		},
		massB: func(t1, t2 float64) float64 {
			return (1-q)*normMass(t1, t2) + q*normMassShift(t1, t2, a)
		},
		lossBoth: lossErr,
		masses: func(t1, t2 float64) (float64, float64) {
			nm := normMass(t1, t2)
			return (1-q)*nm + q*normMassShift(t1, t2, -a), (1-q)*nm + q*normMassShift(t1, t2, a)
		},
		lossAtMin: math.Inf(1), lossAtMax: math.Inf(-1),
	}
}

// antipodalInv returns t with L(t) = L for the antipodal pair
// (approximately). With x = e^(a t), c = q e^(-a^2/2) and A = (1-q)(1 -
// e^-L), L(t) = L is c x^2 + A x - c e^-L = 0 for L >= 0, whose positive
// root is x = w e^(-L/2) / (A + hypot(A, w)) with w = 2 c e^(-L/2); L < 0
// follows from L(-t) = -L(t). Computed in logarithms.
func antipodalInv(q, a, L float64) float64 {
	if L < 0 {
		return -antipodalInv(q, a, -L)
	}
	A := -(1 - q) * math.Expm1(-L)
	lw := math.Ln2 + ln(q) - a*a/2 - L/2
	var lnx float64
	switch {
	case A == 0 || lw > 700:
		lnx = -L / 2
	case lw < -700:
		lnx = lw - L/2 - ln(2*A)
	default:
		w := math.Exp(lw)
		lnx = lw - L/2 - ln(A+math.Hypot(A, w))
	}
	return lnx / a
}

// gaussSymmetric embeds S(q, a): the part t >= a/2 of R(q, a) (loss >= 0),
// its mirror image and an atom z = (1-q) erf(a/(2 sqrt2)) at loss 0.
func gaussSymmetric(q, a float64, b eventSink) {
	mp := gaussRemove(q, a)
	t0 := a / 2 // L(t0) = logMix(q, a*(a/2) - a*a/2) = 0 exactly
	mp.tMin = t0
	mp.lossAtMin = 0
	mp.bothSides = true
	mp.embed(mirrorSink{b})
	z := (1 - q) * math.Erf(t0/math.Sqrt2)
	b.add(z, z, 0, 0)
}

// SGD returns the worst-case pair of DP-SGD with Poisson sampling rate q and
// noise multiplier sigma under add/remove neighbours (Section 5.4, Abadi et
// al.): A = (1-q) N(0, sigma^2) + q N(1, sigma^2), B = N(0, sigma^2),
// embedded exactly; A||B is the removal of a record, B||A its addition. It
// is SubsampledGauss(sigma, 1, q, Poisson, AddRemove).
func SGD(sigma, q float64) (Mechanism, error) {
	return SubsampledGauss(sigma, 1, q, Poisson, AddRemove)
}
