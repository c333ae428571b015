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
	q1 := normQ(t1)
	q2 := normQ(t2)
	if q2 <= 0.5*q1 {
		return q1 - q2
	}
	return narrowMass(t1, t2-t1)
}

// normQ returns P(Z > t).
func normQ(t float64) float64 { return 0.5 * math.Erfc(t/math.Sqrt2) }

// gl8 are the 8-point Gauss-Legendre nodes and weights on [-1, 1].
var gl8x = [8]float64{-0.9602898564975363, -0.7966664774136267, -0.5255324099163290, -0.1834346424956498, 0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363}
var gl8w = [8]float64{0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.3626837833783620, 0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763}

// narrowMass returns the integral of the standard normal density over
// [t, t+w] for t >= 0 and w small enough that the density changes by at most
// a factor of about 2 over it: phi(t) * int_0^w exp(-t s - s^2/2) ds by
// 8-point Gauss-Legendre (its error is far below roundoff for such smooth
// integrands), with phi(t) computed without the roundoff of t*t.
func narrowMass(t, w float64) float64 {
	sum := 0.0
	h := w / 2
	for k := 0; k < 8; k++ {
		s := h * (1 + gl8x[k])
		sum += gl8w[k] * math.Exp(-t*s-s*s/2)
	}
	return phiAccurate(t) * sum * h
}

// phiAccurate returns exp(-t^2/2)/sqrt(2 pi) with t^2 split into an exact
// high part and a small low part.
func phiAccurate(t float64) float64 {
	th := math.Float64frombits(math.Float64bits(t) &^ (1<<27 - 1))
	tl := t - th
	return math.Exp(-th*th/2) * math.Exp(-(th*tl + tl*tl/2)) / math.Sqrt(2*math.Pi)
}
