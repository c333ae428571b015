package engine

import "math"

// This file computes the factors 1 - e^(x -+ allowance) of a grid list's
// delta terms (griddelta.go) with one exponential per atom or fewer.

// oneMinusExp returns bounds on the factors of one grid atom's delta term,
// f_U >= 1 - e^(x - dU) and f_L <= 1 - e^(x + dL), from one Expm1 of x
// instead of one per end (x is the computed exponent eps - L or eps + L, dU
// and dL >= 0 the window and rounding allowances of the upper and the lower
// end). okU (okL) is false where that end's exponent is not negative, where
// the atom contributes nothing to that bound.
//
// With f = 1 - e^x and x < 0 (so e^x < 1):
//
//	1 - e^(x - dU) = f + e^x (1 - e^-dU) <= f + dU,
//	1 - e^(x + dL) = f - e^x (e^dL - 1) >= f - dL (1 + dL)   (dL <= 1),
//
// and the computed f^ = -Expm1(x) has a relative error of at most u, so
// f^ (1 + 2u) >= f >= f^ (1 - 2u) after the rounding of that product
// (factorPair). Where x >= 0 but x - dU < 0 (an atom within dU of eps), or
// where an allowance exceeds 1e-3, the ends are computed by their own
// Expm1.
func oneMinusExp(x, dU, dL float64) (fU, fL float64, okU, okL bool) {
	const u = unitRoundoff
	okU, okL = x-dU < 0, x+dL < 0
	if !okU {
		return 0, 0, false, false // then x + dL >= x - dU >= 0 too
	}
	if x >= 0 || dL > 1e-3 || dU > 1e-3 {
		fU = -math.Expm1(x-dU) * (1 + 2*u)
		if okL {
			fL = -math.Expm1(x+dL) * (1 - 2*u)
		}
		return fU, fL, okU, okL
	}
	fU, fL = factorPair(-math.Expm1(x), 2*u, dU, dL)
	if !okL {
		fL = 0
	}
	return fU, fL, okU, okL
}

// factorPair returns f_U >= 1 - e^(x - dU) and f_L <= 1 - e^(x + dL) for
// x < 0 from a computed f^ of f = 1 - e^x with f^ (1 - rel) <= f <= f^ (1 +
// rel) (the bounds of oneMinusExp; the sum and the difference round once
// more, a factor 1 + 2u up and 1 - 2u down, the difference clamped at 0).
func factorPair(f, rel, dU, dL float64) (fU, fL float64) {
	const u = unitRoundoff
	fU = (f*(1+rel) + dU) * (1 + 2*u)
	fL = f*(1-rel) - dL*(1+dL)*(1+2*u)
	if !(fL > 0) {
		return fU, 0
	}
	return fU, fL * (1 - 2*u)
}

// expWalk gives oneMinusExp's factors along a loop whose exponents step
// by a constant s (x_(k+1) = x_k + s, the grid's lambda with the sign of
// the loop), with one exponential per block of expBlock atoms: e^x_k is
// e^x_a q^(k-a) with q = fl(e^s), anchored by math.Exp at the block's first
// atom a. Go's Exp and every product round within 2u and u, so after j <=
// expBlock - 1 steps the relative error of e^x is at most 2u + j (2u + u)
// < 48u (to first order); the anchor's exponent is the computed x of its
// atom, whose own rounding the allowances d cover, and the steps add the
// exact multiples of s. It is used only where -38 <= x < -0.7: there e^x <=
// 1/2 <= f = 1 - e^x, so f^ = fl(1 - e^x) has a relative error below 48u
// + u < 64u (factorPair's rel); below -38 f = 1 to within e^-38 < u/2, the
// value -Expm1 returns (rel u), and above -0.7 the atom takes oneMinusExp.
// Any atom that does not take the recurrence ends the block, so the next
// one anchors afresh: the walk must see every atom of the loop in order.
type expWalk struct {
	q    float64
	e    float64
	left int
}

// expBlock is the length of expWalk's blocks.
const expBlock = 16

// newExpWalk returns a walk whose exponents step by s.
func newExpWalk(s float64) expWalk { return expWalk{q: math.Exp(s)} }

// factors returns oneMinusExp(x, dU, dL) for the next atom of the walk.
func (w *expWalk) factors(x, dU, dL float64) (fU, fL float64, okU, okL bool) {
	const u = unitRoundoff
	if x < -0.7 && dU <= 1e-3 && dL <= 1e-3 {
		if x < -38 {
			w.left = 0
			fU, fL = factorPair(1, u, dU, dL)
			return fU, fL, true, true
		}
		if w.left == 0 {
			w.e, w.left = math.Exp(x), expBlock-1
		} else {
			w.e *= w.q
			w.left--
		}
		fU, fL = factorPair(1-w.e, 64*u, dU, dL)
		return fU, fL, true, true
	}
	w.left = 0
	return oneMinusExp(x, dU, dL)
}
