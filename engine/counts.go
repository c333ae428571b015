package engine

import "math"

// This file computes the distributions of Vuvuzela's noise counts
// C = ceil(max(0, X)) for X = mu + scale*Z, Z standard Laplace or normal
// (Section 7.1; NOTES.md: the counts are integers, so their PMF is embedded,
// not a density), with a rigorous bound on the relative error of every mass.
//
// The masses P(C = k) = P(k-1 < X <= k) are intervals of width 1/scale in
// standard units. Differences of two rounded distribution-function values,
// or of two rounded endpoints (k-1-mu)/scale and (k-mu)/scale, would lose
// about scale*|t| units of roundoff; instead the width 1/scale enters the
// formulas directly, so the relative error stays near |t|^2 units.

// countDist is the PMF of a count on lo..lo+len(p)-1 with the masses left
// below lo and right above the last entry, and a bound rel on the relative
// error of every entry and of both tails.
type countDist struct {
	lo          int
	p           []float64
	left, right float64
	rel         float64
	// env[k-lo] bounds the relative error of every entry between k and
	// the mode (the entries' own bounds, their running maximum outward
	// from the largest entry): the largest bound over counts j0..j1 is
	// max(env at j0, env at j1).
	env []float64
	// the count's noise, mean and scale, for masses outside the range
	noise     Noise
	mu, scale float64
}

// massAt returns P(C = k) and a bound on its relative error, from the
// table inside the stored range and computed directly (countMass) outside
// it, for any k >= 0. Masses below 2^-1022 carry an absolute error of a
// few units of 2^-1074 beyond it.
func (d countDist) massAt(k int) (float64, float64) {
	if k >= d.lo && k <= d.hi() {
		return d.p[k-d.lo], d.relAt(k)
	}
	return countMass(d.noise, k, d.mu, d.scale)
}

// relAt bounds the relative error of P(C = k) (0 outside the stored
// range, where at returns 0).
func (d countDist) relAt(k int) float64 {
	if k < d.lo || k > d.hi() {
		return 0
	}
	return d.relOver(k, k)
}

// relOver bounds the relative error of the entries j0..j1 (lo <= j0 <= j1
// <= hi).
func (d countDist) relOver(j0, j1 int) float64 {
	if d.env == nil {
		return d.rel
	}
	return math.Max(d.env[j0-d.lo], d.env[j1-d.lo])
}

// hi returns the last count with an entry.
func (d countDist) hi() int { return d.lo + len(d.p) - 1 }

// at returns P(C = k) (0 outside the stored range).
func (d countDist) at(k int) float64 {
	if k < d.lo || k > d.hi() {
		return 0
	}
	return d.p[k-d.lo]
}

// tailWidth returns t with P(Z > t) <= tail for the standard noise.
func tailWidth(noise Noise, tail float64) float64 {
	if noise == NoiseGauss {
		return qInv(tail) * (1 + 1e-9)
	}
	return -ln(2*tail) * (1 + 1e-9)
}

// newCountDist returns the PMF of ceil(max(0, mu + scale*Z)) on the counts
// whose interval lies within tailWidth(noise, tail) standard units of mu;
// the masses outside go to left and right (each at most tail).
func newCountDist(noise Noise, mu, scale, tail float64) countDist {
	t := tailWidth(noise, tail)
	lo := max(0, int(math.Floor(mu-t*scale)))
	hi := int(math.Ceil(mu+t*scale)) + 1
	d := countDist{lo: lo, p: make([]float64, hi-lo+1), noise: noise, mu: mu, scale: scale}
	rel := 0.0
	d.env = make([]float64, len(d.p))
	mode := 0
	for k := lo; k <= hi; k++ {
		m, r := countMass(noise, k, mu, scale)
		d.p[k-lo] = m
		d.env[k-lo] = r
		rel = math.Max(rel, r)
		if m > d.p[mode] {
			mode = k - lo
		}
	}
	// Running maxima outward from the mode (the count 0, the clamp, is
	// included like any other entry).
	for i := mode + 1; i < len(d.env); i++ {
		d.env[i] = math.Max(d.env[i], d.env[i-1])
	}
	for i := mode - 1; i >= 0; i-- {
		d.env[i] = math.Max(d.env[i], d.env[i+1])
	}
	// Tails: P(C < lo) = P(X <= lo-1) for lo > 0, P(C > hi) = P(X > hi).
	if lo > 0 {
		tl := (float64(lo-1) - mu) / scale
		d.left = upperTail(noise, -tl)
		rel = math.Max(rel, tailRel(noise, tl))
	}
	tr := (float64(hi) - mu) / scale
	d.right = upperTail(noise, tr)
	d.rel = math.Max(rel, tailRel(noise, tr))
	// tails below 2^-1075 may have rounded to 0 (tailRel)
	d.left += 0x1p-1074
	d.right += 0x1p-1074
	return d
}

// upperTail returns P(Z > t).
func upperTail(noise Noise, t float64) float64 {
	if noise == NoiseGauss {
		return normQ(t)
	}
	if t >= 0 {
		return math.Exp(-t) / 2
	}
	return 1 - math.Exp(t)/2
}

// gaussFar is the standard-normal argument beyond which a tail is below
// 2^-1075: Q(38.6) <= phi(38.6)/38.6 < 1e-325.
const gaussFar = 38.6

// tailRel bounds the relative error of upperTail at an argument t computed
// with a relative error of 2u: the log-derivative of the tail is at most
// |t|+1 (Gauss) or 1 (Laplace). Gauss tails beyond gaussFar are below
// 2^-1075, an absolute error the callers allow for (masses below 2^-1022
// carry a few units of 2^-1074), so |t| counts up to gaussFar only: at
// scales of 1e-3 the counts' right tails, at 1/scale standard units, set
// 1e-9 for every mass of the count, and at 1e-300 +Inf.
func tailRel(noise Noise, t float64) float64 {
	a := math.Abs(t)
	if noise == NoiseGauss {
		a = math.Min(a, gaussFar)
		return unitRoundoff * (16 + 4*a*(a+1))
	}
	return unitRoundoff * (16 + 4*a)
}

// countMass returns P(C = k) and a bound on its relative error.
func countMass(noise Noise, k int, mu, scale float64) (float64, float64) {
	u := unitRoundoff
	if k == 0 { // P(X <= 0) = P(Z > mu/scale)
		t := mu / scale
		return upperTail(noise, t), tailRel(noise, t)
	}
	// (k-1, k] in standard units: [t1, t1+w], t2 = t1+w; each endpoint is
	// computed with an absolute error of at most 2u|t|, w with 1u relative.
	t1 := (float64(k-1) - mu) / scale
	t2 := (float64(k) - mu) / scale
	w := 1 / scale
	if noise == NoiseLaplace {
		switch {
		case t2 <= 0: // e^t2 (1 - e^-w) / 2
			return math.Exp(t2) * -math.Expm1(-w) / 2, u * (12 + 4*math.Abs(t2))
		case t1 >= 0: // e^-t1 (1 - e^-w) / 2
			return math.Exp(-t1) * -math.Expm1(-w) / 2, u * (12 + 4*t1)
		default: // straddles the mode, |t1|, |t2| <= w
			return (-math.Expm1(t1) - math.Expm1(-t2)) / 2, u * (16 + 8*w/(1-math.Exp(-w)))
		}
	}
	if t1 >= gaussFar || t2 <= -gaussFar {
		// below 2^-1075: an absolute error the callers allow for
		return 0, 0
	}
	a := math.Max(math.Abs(t1), math.Abs(t2))
	// Narrow: the density changes by at most e^(w (a + w)) <= e^0.5 over
	// the interval, where narrowMass's quadrature is exact to roundoff. The
	// end nearer to the mean alone (t1 w <= 0.5) does not make it narrow:
	// at t1 = 0 (an integer mean) and w = 1000 the quadrature gave 5e-85
	// for a mass of 1/2.
	narrow := w*(a+w) <= 0.5
	switch {
	case narrow && t1 >= 0:
		return narrowMass(t1, w), u * (32 + 4*a*a + 4*a)
	case narrow && t2 <= 0:
		return narrowMass(-t2, w), u * (32 + 4*a*a + 4*a)
	default:
		// Wide or straddling interval: the endpoints' errors 2u|t| times
		// the density there, relative to the mass, which is at least
		// phi(end)*min(w, 1/(a+1))/4.5 next to the endpoint nearer to 0.
		// An end beyond gaussFar is moved to it (exact, so without
		// rounding error), which changes the mass by less than 2^-1075.
		c1, c2 := math.Max(t1, -gaussFar), math.Min(t2, gaussFar)
		a = math.Max(math.Abs(c1), math.Abs(c2))
		return normMass(c1, c2), u * (32 + 20*a*math.Max(1/(c2-c1), a+1))
	}
}
