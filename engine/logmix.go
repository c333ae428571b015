package engine

import "math"

// logMix returns L = ln(1 - q + q e^x), the privacy loss of a subsampled pair
// ((1-q) P + q P', P) at a point where ln(P'/P) = x, together with a bound
// on the absolute rounding error of L. The input x is taken as exact: an
// error e in x moves L by at most e, because dL/dx = q e^x / (1-q+q e^x) lies
// in (0, 1]. q must be in (0, 1].
//
// Three formulas, each with its own error bound (u is the unit roundoff;
// Expm1, Exp, Log and Log1p are taken to be accurate to 2u relative):
//
//   - 1 + q expm1(x) >= 1/2: log1p(y) with y = q expm1(x) computed to
//     3.1u relative, so |error| <= 3.1u |y| / min(1+y, 1+y_computed) + 2u|L|;
//   - 1 + q expm1(x) < 1/2 (then q > 1/2, so 1-q is exact): ln((1-q) + q e^x),
//     a sum of two non-negative terms with 4.2u relative error;
//   - x > 700 (expm1 would overflow): with lw = x + ln q = ln(q e^x),
//     lw + log1p((1-q) e^-lw) if lw > 0, else log1p(e^lw - q); the error of
//     lw, 3u(|x| + |ln q|), enters twice.
//
// Underflow of q e^x in the second and third forms is covered by an
// absolute 1e-300. For q = 1, L = x exactly.
func logMix(q, x float64) (L, err float64) {
	const u = unitRoundoff
	if q == 1 {
		return x, 0
	}
	if math.IsInf(x, -1) {
		L = math.Log1p(-q)
		return L, 2*u*math.Abs(L) + 1e-300
	}
	if x > 700 {
		// lw = ln(q e^x), with |error| <= 3u(|x| + |ln q|).
		lq := ln(q)
		lw := x + lq
		e := 3 * u * (math.Abs(x) + math.Abs(lq))
		if lw > 0 {
			L = lw + math.Log1p(math.Exp(-lw)*(1-q))
		} else {
			L = math.Log1p(math.Exp(lw) - q)
		}
		return L, 2*e + 4*u + 2*u*math.Abs(L) + 1e-300
	}
	y := q * math.Expm1(x)
	if 1+y >= 0.5 {
		L = math.Log1p(y)
		// min(1+y, 1+y_computed) >= (1+y_computed)(1 - 6.4u); 4u covers
		// 3.1u/(1-6.4u) and the rounding of the bound itself.
		return L, 4*u*math.Abs(y)/(1+y) + 2*u*math.Abs(L) + 1e-300
	}
	s := (1 - q) + q*math.Exp(x)
	L = ln(s)
	return L, 5*u + 2*u*math.Abs(L) + 1e-300
}
