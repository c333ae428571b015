package engine

import "math"

// normMass returns P(t1 < Z <= t2) for a standard normal Z, with a relative
// error of a few units of roundoff everywhere, including far tails and
// narrow intervals (no cancellation of 1 - 1 or of two nearly equal tails).
func normMass(t1, t2 float64) float64 {
	if !(t2 > t1) {
		return 0
	}
	if t2 <= 0 {
		return normMass(-t2, -t1)
	}
	if t1 < 0 {
		// Phi(t2) - Phi(t1) = erf(t2/sqrt2)/2 + erf(-t1/sqrt2)/2, both >= 0.
		return 0.5 * (math.Erf(t2/math.Sqrt2) + math.Erf(-t1/math.Sqrt2))
	}
	if narrowNormal(t1, t2) {
		// q2 <= q1/2 below would fail: skip the two tails
		return narrowMass(t1, t2-t1)
	}
	q1 := normQ(t1)
	q2 := normQ(t2)
	if q2 <= 0.5*q1 {
		return q1 - q2
	}
	return narrowMass(t1, t2-t1)
}

// narrowNormal reports, for 0 <= t1 < t2, that Q(t2)/Q(t1) is at least
// e^-0.6 > 0.54 (Q the standard normal tail), so that the computed tails
// satisfy normQ(t2) > normQ(t1)/2 and normMass takes narrowMass without
// computing them: the same result, bit for bit, at a fifth of the cost.
//
// ln Q(t2) - ln Q(t1) = -int_t1^t2 h(s) ds >= -(t2 - t1) h(t2), where the
// hazard h = phi/Q is increasing and below (s + sqrt(s^2 + 4))/2 <= s + 1
// (Birnbaum 1942, Q(s)/phi(s) > (sqrt(s^2 + 4) - s)/2 for s >= 0). The test
// w (t2 + 1) <= 0.6 is evaluated with two roundings (the true product is
// at most 0.6 (1 + 3u)), and t2 <= 30 keeps both tails normal floats
// (Q(30) = 4.9e-198) with a relative error of a few u: far from the
// factor 1.09 between e^-0.6 and 1/2. TestNarrowNormalTails checks the
// claim on a grid of intervals.
func narrowNormal(t1, t2 float64) bool {
	return t2 <= 30 && (t2-t1)*(t2+1) <= 0.6
}

// normQ returns P(Z > t) for a standard normal Z. The argument t/sqrt2 of
// erfc is formed in double-double and erfc is corrected to first order for
// its low part: rounding t/sqrt2 to float64 alone moves Q(t) by a relative
// 2u t^2 (3e-13 at t = 37), which no error bound of the callers allows for.
func normQ(t float64) float64 {
	if math.IsInf(t, 0) || math.IsNaN(t) {
		return 0.5 * math.Erfc(t)
	}
	y := t * invSqrt2Hi
	yl := math.FMA(t, invSqrt2Hi, -y) + t*invSqrt2Lo
	return 0.5 * (math.Erfc(y) - twoOverSqrtPi*math.Exp(-y*y)*yl)
}

// phiAt returns phi(m + l) for a double-double m + l (l a few u |m| + u
// at most: a midpoint from twoSum plus a start's low part), as phiAccurate
// does for m: (m + l)^2 = p + e + 2 m l + l^2 with p = fl(m m) and e exact
// (fused multiply-add); c = e/2 + m l is about 3u p < 1e-12 where the
// result is a normal float64 (p < 1500), and wherever |c| <= 2^-30, e^-c
// = 1 - c up to c^2/2 < 2^-61 (else Exp); l^2/2 < 1e-28 is dropped.
func phiAt(m, l float64) float64 {
	p := m * m
	if !(p < 1500) {
		return math.Exp(-p/2) / math.Sqrt(2*math.Pi)
	}
	c := math.FMA(m, m, -p)/2 + m*l
	ec := 1 - c
	if !(math.Abs(c) <= 0x1p-30) {
		ec = math.Exp(-c)
	}
	return math.Exp(-p/2) * ec / math.Sqrt(2*math.Pi)
}

// invSqrt2Hi + invSqrt2Lo = 1/sqrt(2) to about 2^-106.
const (
	invSqrt2Hi    = 0.7071067811865476
	invSqrt2Lo    = -4.833646656726457e-17
	twoOverSqrtPi = 1.1283791670955126
)

// twoSum returns s = fl(a+b) and e with s + e = a + b exactly (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// normQ2 returns P(Z > h + l) for |l| <= u|h|, to first order in l.
func normQ2(h, l float64) float64 {
	if l == 0 {
		return normQ(h)
	}
	return normQ(h) - phiAccurate(h)*l
}

// normMassShift returns P(t1 < Z + m <= t2) for a standard normal Z: the
// mass of [t1, t2] under N(m, 1), with the shifted ends t - m taken exactly
// (twoSum) and the width t2 - t1 taken from the unshifted ends. Computing
// normMass(t1-m, t2-m) instead rounds each shifted end by up to u|t - m|,
// which moves the mass of a narrow interval by a relative u|t - m|/width.
func normMassShift(t1, t2, m float64) float64 {
	if !(t2 > t1) {
		return 0
	}
	if m == 0 {
		return normMass(t1, t2)
	}
	h1, l1 := twoSum(t1, -m)
	h2, l2 := twoSum(t2, -m)
	if math.IsInf(t1, -1) {
		h1, l1 = math.Inf(-1), 0
	}
	if math.IsInf(t2, 1) {
		h2, l2 = math.Inf(1), 0
	}
	w := t2 - t1
	a := max(math.Abs(h1), math.Abs(h2))
	if w*(a+w) <= 0.5 && !math.IsInf(w, 0) {
		// Narrow: phi(s1) int_0^w exp(-s1 s - s^2/2) ds with s1 = h1 + l1
		// and the exact width; the density changes by at most e^0.5.
		return narrowMassAt(h1, l1, w)
	}
	switch {
	case h1 >= 0:
		return normQ2(h1, l1) - normQ2(h2, l2)
	case h2 <= 0:
		return normQ2(-h2, -l2) - normQ2(-h1, -l1)
	default:
		// Straddles 0: both erf terms are non-negative and the relative
		// error of each end's high part is at most u.
		return normMass(h1, h2)
	}
}

// narrowMassAt is narrowMass for a start h + l (|l| <= u|h|) of any sign.
func narrowMassAt(h, l, w float64) float64 {
	hw := w / 2
	if few4(w, math.Abs(h)+w) {
		// the midpoint h + l + w/2 in double-double (see narrowMass)
		mh, ml := twoSum(h, hw)
		return phiAt(mh, ml+l) * gl4Pairs(mh, hw) * hw
	}
	sum := glNormal(h, w, math.Abs(h)+w, hw)
	// phi(h + l) = phi(h) exp(-h l - l^2/2); the l s term of the integrand
	// is at most u |h| w <= u/2 relative and is dropped. |h l| <= u h^2 is
	// below 2^-30 wherever phi(h) is a normal float64 (h^2 < 1500), and
	// there exp(-h l) = 1 - h l up to (h l)^2/2 < 2^-61 (one rounding of
	// u/2, as good as Exp's).
	x := h * l
	el := 1 - x
	if !(math.Abs(x) <= 0x1p-30) {
		el = math.Exp(-x)
	}
	return phiAccurate(h) * el * sum * hw
}

// gl8 are the 8-point Gauss-Legendre nodes and weights on [-1, 1].
var gl8x = [8]float64{-0.9602898564975363, -0.7966664774136267, -0.5255324099163290, -0.1834346424956498, 0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363}
var gl8w = [8]float64{0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.3626837833783620, 0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763}

// narrowMass returns the integral of the standard normal density over
// [t, t+w] for t >= 0 and w small enough that the density changes by at most
// a factor of about 2 over it: phi(t) * int_0^w exp(-t s - s^2/2) ds by
// 4- or 8-point Gauss-Legendre (glNormal; its error is far below roundoff
// for such smooth integrands), with phi(t) computed without the roundoff
// of t*t.
//
// Where few4 takes the 4-point rule, the density at the start times the
// rule's sum for f(s) = phi(t+s)/phi(t) is the density at the midpoint
// t + h times gl4Pairs (phi(t) f(h) = phi(t + h)): one exponential, with
// the midpoint in double-double (phiAt) so that its rounding does not
// move phi by a relative u (t+h)^2. Relative error: phiAt's 3.5u,
// gl4Pairs' 4u and two roundings, at most 9u (TestNarrowMassAccuracy
// checks both narrow masses against 256-bit evaluations of the rule).
func narrowMass(t, w float64) float64 {
	h := w / 2
	if few4(w, t+w) {
		mh, ml := twoSum(t, h)
		return phiAt(mh, ml) * gl4Pairs(mh, h) * h
	}
	return phiAccurate(t) * glNormal(t, w, t+w, h) * h
}

// glNormal returns the Gauss-Legendre sum for int_0^w exp(-t s - s^2/2) ds
// (without the factor w/2 = h): by 4 points where few4 allows (A bounds
// |t + s| on the interval), else by 8.
//
// The n-point rule on [0, w] errs by w^(2n+1) (n!)^4 / ((2n+1) ((2n)!)^3)
// |f^(2n)(xi)| (Abramowitz and Stegun 25.4.30), 5.7e-10 w^9 |f^(8)| for
// n = 4. Here f(s) = phi(t+s)/phi(t), so f^(8) = He_8(t+s) f with |He_8(y)|
// <= (|y| + sqrt 8)^8 (its coefficients are C(8, 2k) (2k-1)!! <= C(8, 2k)
// 8^k), and f varies by at most e^(A w) over the interval: relative to the
// integral the rule errs by at most 5.7e-10 (w (A + 3))^8 e^(A w), below
// 1.1e-19 (u/1000) where w (A + 3) <= 0.06. The rule is chosen per
// interval; TestGaussLegendreFew checks it against 8 points up to the
// threshold and beyond.
//
// The 4-point sum takes one exponential (gl4Sum): its nodes lie in pairs
// h -+ d around the midpoint h, where f(h -+ d) = f(h) e^(-d^2/2) e^(-+z)
// with z = (t + h) d, so a pair sums to 2 f(h) e^(-d^2/2) cosh z, with
// |z| <= A w/2 <= 0.03 and d^2/2 <= w^2/8 <= 5e-5 under few4 (w <= 0.02):
// both factors by their Taylor polynomials (cosh to z^8, remainder below
// 2e-22; e^-y to y^3, remainder below 3e-19), sums of positive terms or
// near 1. Relative error: the exponential's 1 ulp, about 1u for each
// polynomial and 3u for the products and the sum, at most 7u against the
// four exponentials' 4u; inside the few units of roundoff the masses claim
// (TestGLSumAccuracy checks it against a 256-bit evaluation of the rule).
func glNormal(t, w, A, h float64) float64 {
	if few4(w, A) {
		return gl4Sum(t, h)
	}
	sum := 0.0
	for k := 0; k < 8; k++ {
		s := h * (1 + gl8x[k])
		sum += gl8w[k] * math.Exp(-t*s-s*s/2)
	}
	return sum
}

// gl4Sum is the 4-point Gauss-Legendre sum of glNormal on [0, 2h] (without
// the factor h), by pairs of nodes around the midpoint (see glNormal; its
// bounds need few4).
func gl4Sum(t, h float64) float64 {
	return math.Exp(-h*(t+h/2)) * gl4Pairs(t+h, h) // f(h) = e^(-t h - h^2/2)
}

// gl4Pairs returns sum_k w_k e^(-d_k^2/2) 2 cosh(c d_k) over the two
// pairs of 4-point nodes h -+ d_k (d_k = h x_k), c the midpoint of the
// interval in the variable of the density (t + h): the 4-point sum of
// phi over [t, t + 2h], divided by phi(c) and h. Needs few4 (glNormal
// gives the bounds on c d_k and d_k).
func gl4Pairs(c, h float64) float64 {
	pair := func(x, wt float64) float64 {
		d := h * x
		y := d * d / 2
		m := 1 - y*(1-y*(0.5-y/6)) // e^-y
		z := c * d
		z2 := z * z
		ch := 1 + z2*(1.0/2+z2*(1.0/24+z2*(1.0/720+z2*(1.0/40320)))) // cosh z
		return wt * (m * ch)
	}
	return 2 * (pair(gl4x[3], gl4w[3]) + pair(gl4x[2], gl4w[2]))
}

// few4 reports whether the 4-point rule suffices for an interval of width
// w on which |t + s| <= A (glNormal): w (A + 3) <= 0.06.
func few4(w, A float64) bool { return w*(A+3) <= 0.06 }

// gl4 are the 4-point Gauss-Legendre nodes and weights on [-1, 1].
var gl4x = [4]float64{-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526}
var gl4w = [4]float64{0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538}

// phiAccurate returns exp(-t^2/2)/sqrt(2 pi) without the roundoff of
// t*t: t^2 = p + e exactly (p = fl(t*t), e from a fused multiply-add,
// |e| <= u p), so e^(-t^2/2) = e^(-p/2) e^(-e/2), where p/2 is exact and
// e^(-e/2) = 1 - e/2 up to (e/2)^2/2 <= (u p)^2/8, below 1e-26 wherever
// the result is a normal float64 (p < 1500). One exponential, at most 1
// ulp off, and three roundings of u/2: within the few units of roundoff
// that normMass and normMassShift claim (TestDistributionAccuracy checks
// them against 60-digit references; TestPhiAccurate this function).
func phiAccurate(t float64) float64 {
	p := t * t
	if !(p < 1500) {
		// e^(-p/2) < 1e-325 rounds to 0 (NaN stays NaN)
		return math.Exp(-p/2) / math.Sqrt(2*math.Pi)
	}
	e := math.FMA(t, t, -p)
	return math.Exp(-p/2) * (1 - e/2) / math.Sqrt(2*math.Pi)
}
