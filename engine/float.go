package engine

import "math"

// This file holds the float64 helpers of the error analysis: the unit
// roundoff and Higham's gamma_k, directed products and exponentials, and
// the helpers for values near and below the smallest normal number, where
// relative error bounds stop holding (see list.abs and the underflow
// allowances in delta.go).

// unitRoundoff is u = 2^-53, the unit roundoff of float64.
const unitRoundoff = 0x1p-53

// mulNN returns a*b for a, b >= 0 with 0*Inf = 0 (a zero factor is exact,
// so the product is 0 whatever bound the other carries).
func mulNN(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return a * b
}

// mulUp is mulNN for upper bounds: a product of positive factors that
// falls below 2^-1022 is rounded up by 2^-1074, so that a positive bound
// never underflows to 0 (a true B-mass of e^-2000 still matters at eps
// 2000).
func mulUp(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	p := a * b
	if p < minNormal {
		p += 0x1p-1074
	}
	return p
}

// minNormal is the smallest normal float64, 2^-1022: products and masses
// below it carry an absolute error of up to 2^-1075 that relative error
// bounds do not cover.
const minNormal = 0x1p-1022

// tinyMass is the absolute underflow allowance of one mass computed by a
// mechanism's distribution functions (or of one chain of a few products):
// their results below minNormal are accurate to a few units of 2^-1074,
// and 2^-1060 covers that with a wide margin.
const tinyMass = 0x1p-1060

// ln returns the natural logarithm of x, also for subnormal x: Go's
// math.Log on amd64 does not normalise subnormal arguments (golang/go
// issue 56600: math.Log(5e-324) = -709.09 instead of -744.44), which would
// misplace events with subnormal masses by up to 35 units of privacy loss.
// Scaling by 2^54 is exact for subnormals.
func ln(x float64) float64 {
	if x > 0 && x < minNormal {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// gamma is gamma_k = k u / (1 - k u) of Higham's error analysis.
func gamma(k int) float64 {
	ku := float64(k) * unitRoundoff
	return ku / (1 - ku)
}

// upInf returns v, or +Inf for NaN (an unknown bound).
func upInf(v float64) float64 {
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

// tinyDir is the absolute rounding allowance of one directed term: a
// product or sum below 2^-1022 may be off by 2^-1075.
const tinyDir = 0x1p-1073

// mulExp returns x e^a rounded up (up) or down, for x >= 0 and an exponent
// a carrying an absolute error of at most errA (< 0.01), without overflow
// in the intermediate results (in log space for |a| >= 700). The result is
// +Inf only when x e^a is beyond the float64 range.
func mulExp(x, a, errA float64, up bool) float64 {
	if x == 0 || math.IsInf(a, -1) {
		return 0
	}
	var v, r float64
	if a > -700 && a < 700 {
		v = x * math.Exp(a)
		r = 4*unitRoundoff + 2*errA
	} else {
		la := ln(x) + a
		v = math.Exp(la)
		r = 4*unitRoundoff*(math.Abs(la)+math.Abs(a)+2) + 2*errA
	}
	return roundRel(v, r, up)
}

// roundRel returns an upper (up) or lower bound of a non-negative value
// computed as v with relative error at most r, plus tinyDir for the
// rounding of a result below 2^-1022: +Inf for a NaN upper end, 0 for a
// lower end that is not positive.
func roundRel(v, r float64, up bool) float64 {
	if up {
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v*(1+r) + tinyDir
	}
	v = v*(1-r) - tinyDir
	if !(v > 0) {
		return 0
	}
	return v
}
