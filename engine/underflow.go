package engine

import "math"

// This file holds the float64 helpers for values near and below the
// smallest normal number, where relative error bounds stop holding (see
// list.abs and the underflow allowances in delta.go).

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
