package compare

import (
	"fmt"
	"math"
)

// Tight single-round privacy curves delta0(eps0) (paper Definition 1, both
// directions) of the mechanisms the paper evaluates. They feed KOV, Advanced,
// Naive and Adaptive without the privacy-buckets engine. All of them are
// symmetric pairs, so the A||B and B||A directions coincide.

// gaussDelta is the tight delta(eps) of N(0,1) vs N(mu,1) (mu >= 0):
// Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu), computed through the Mills
// ratio in the tail so that it stays accurate down to ~1e-300.
func gaussDelta(mu, eps float64) float64 {
	if math.IsNaN(eps) || math.IsNaN(mu) {
		return math.NaN()
	}
	if mu == 0 {
		if eps >= 0 {
			return 0
		}
		return -math.Expm1(eps)
	}
	if math.IsInf(mu, 1) {
		return 1
	}
	a := mu/2 - eps/mu
	b := a - mu
	if a >= 0 {
		d := normCDF(a) - math.Exp(eps+logNormCDF(b))
		return clamp01(d)
	}
	// a < 0: Phi(a) = phi(a) M(-a); e^eps Phi(b) = e^eps phi(b) M(-b) and
	// e^eps phi(b) = phi(a) exactly, so delta = phi(a) (M(-a) - M(-b)).
	d := math.Exp(logNormPDF(a)) * (millsNeg(-a) - millsNeg(-b))
	return clamp01(d)
}

func clamp01(x float64) float64 {
	switch {
	case x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// GaussDelta0 returns the tight single-round curve of the (untruncated) Gauss
// mechanism with noise standard deviation sigma and sensitivity sens, i.e. of
// the pair N(0, sigma^2) vs N(sens, sigma^2) (paper Section 5.2 without
// truncation): delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu),
// mu = sens/sigma.
func GaussDelta0(sigma, sens float64) (DeltaFunc, error) {
	if err := positive("GaussDelta0", "sigma", sigma); err != nil {
		return nil, err
	}
	if err := positive("GaussDelta0", "sensitivity", sens); err != nil {
		return nil, err
	}
	mu := sens / sigma
	return func(eps float64) float64 { return gaussDelta(mu, eps) }, nil
}

// laplaceDelta is the tight delta(eps) of Lap(0,b) vs Lap(Delta,b) with
// eps0 = Delta/b: 1 - exp((eps-eps0)/2) for |eps| < eps0.
func laplaceDelta(eps0, eps float64) float64 {
	switch {
	case math.IsNaN(eps):
		return math.NaN()
	case eps >= eps0:
		return 0
	case eps <= -eps0:
		return -math.Expm1(eps)
	}
	return -math.Expm1((eps - eps0) / 2)
}

// LaplaceDelta0 returns the tight single-round curve of the (untruncated)
// Laplace mechanism LP(0, scale) vs LP(sens, scale) (paper Section 5.1):
// with eps0 = sens/scale, delta(eps) = 1 - exp((eps - eps0)/2) for
// 0 <= eps < eps0 and 0 for eps >= eps0.
func LaplaceDelta0(scale, sens float64) (DeltaFunc, error) {
	if err := positive("LaplaceDelta0", "scale", scale); err != nil {
		return nil, err
	}
	if err := positive("LaplaceDelta0", "sensitivity", sens); err != nil {
		return nil, err
	}
	eps0 := sens / scale
	return func(eps float64) float64 { return laplaceDelta(eps0, eps) }, nil
}

// truncDelta computes the tight delta(eps) (eps >= 0) of A = F restricted to
// [-T, T] vs B = F(.-sens) restricted to [sens-T, sens+T] (both renormalised
// by the same Z), for a symmetric unimodal noise distribution whose privacy
// loss is decreasing in x on the overlap. cdfDiff(x, y) = F(y) - F(x),
// xStar(eps) is where the loss log(pA/pB) equals eps.
func truncDelta(eps, sens, T float64, cdfDiff func(x, y float64) float64, xStar float64) float64 {
	z := cdfDiff(-T, T)
	lo := sens - T
	// B has no mass on [-T, sens-T): infinite privacy loss.
	inf := cdfDiff(-T, math.Min(lo, T))
	hi := math.Min(xStar, T)
	over := 0.0
	if hi > lo {
		over = cdfDiff(lo, hi) - math.Exp(eps)*cdfDiff(lo-sens, hi-sens)
		if over < 0 {
			over = 0
		}
	}
	return clamp01((inf + over) / z)
}

// TruncatedLaplaceDelta0 returns the tight single-round curve of the
// truncated Laplace pair the paper uses (Section 5.1): A = LP(0, scale)
// restricted to [-T, T], B = LP(sens, scale) restricted to
// [sens-T, sens+T], each renormalised. The mass of A on [-T, sens-T), where B
// has none, is always part of delta (the paper's bucket B(inf)).
func TruncatedLaplaceDelta0(scale, sens, T float64) (DeltaFunc, error) {
	const who = "TruncatedLaplaceDelta0"
	for _, c := range []struct {
		n string
		v float64
	}{{"scale", scale}, {"sensitivity", sens}, {"truncation T", T}} {
		if err := positive(who, c.n, c.v); err != nil {
			return nil, err
		}
	}
	cdf := func(x float64) float64 { // Laplace(0, scale) CDF, tails exact
		if x < 0 {
			return 0.5 * math.Exp(x/scale)
		}
		return 1 - 0.5*math.Exp(-x/scale)
	}
	ccdf := func(x float64) float64 { return cdf(-x) }
	diff := func(x, y float64) float64 {
		if y <= x {
			return 0
		}
		if x >= 0 { // both in the upper tail: use survival functions
			return ccdf(x) - ccdf(y)
		}
		return cdf(y) - cdf(x)
	}
	eps0 := sens / scale
	return func(eps float64) float64 {
		if math.IsNaN(eps) {
			return math.NaN()
		}
		if eps < 0 {
			return 1
		}
		xs := math.Inf(-1) // loss <= eps0 everywhere in the overlap
		if eps < eps0 {
			xs = (sens - eps*scale) / 2
		}
		return truncDelta(eps, sens, T, diff, xs)
	}, nil
}

// TruncatedGaussDelta0 returns the tight single-round curve of the truncated
// Gauss pair the paper uses (Section 5.2, but exact instead of a histogram):
// A = N(0, sigma^2) restricted to [-T, T], B = N(sens, sigma^2) restricted to
// [sens-T, sens+T], each renormalised.
func TruncatedGaussDelta0(sigma, sens, T float64) (DeltaFunc, error) {
	const who = "TruncatedGaussDelta0"
	for _, c := range []struct {
		n string
		v float64
	}{{"sigma", sigma}, {"sensitivity", sens}, {"truncation T", T}} {
		if err := positive(who, c.n, c.v); err != nil {
			return nil, err
		}
	}
	diff := func(x, y float64) float64 {
		if y <= x {
			return 0
		}
		if x >= 0 {
			return normCDF(-x/sigma) - normCDF(-y/sigma)
		}
		return normCDF(y/sigma) - normCDF(x/sigma)
	}
	return func(eps float64) float64 {
		if math.IsNaN(eps) {
			return math.NaN()
		}
		if eps < 0 {
			return 1
		}
		xs := sens/2 - eps*sigma*sigma/sens
		return truncDelta(eps, sens, T, diff, xs)
	}, nil
}

// rrEps0 validates p and returns max(p,1-p), min(p,1-p) and
// eps0 = log(p/(1-p)) >= 0.
func rrEps0(who string, p float64) (hi, lo, eps0 float64, err error) {
	if !(p > 0 && p < 1) {
		return 0, 0, 0, fmt.Errorf("compare: %s: bias p must be in (0, 1), got %v", who, p)
	}
	hi, lo = p, 1-p
	if hi < lo {
		hi, lo = lo, hi
	}
	return hi, lo, math.Log(hi) - math.Log(lo), nil
}

// RRDelta0 returns the tight single-round curve of randomized response with
// bias p (paper Section 5.5: A = (p, 1-p), B = (1-p, p)):
// delta(eps) = max(0, p - e^eps (1-p)) for p >= 1/2 (p < 1/2 is mirrored).
// It is eps0-DP with eps0 = ln(p/(1-p)).
func RRDelta0(p float64) (DeltaFunc, error) {
	hi, lo, _, err := rrEps0("RRDelta0", p)
	if err != nil {
		return nil, err
	}
	return func(eps float64) float64 {
		if math.IsNaN(eps) {
			return math.NaN()
		}
		return math.Max(0, hi-math.Exp(eps)*lo)
	}, nil
}

// EpsDeltaDelta0 returns the tight curve of the worst-case pair M_{eps,delta}
// of Kairouz, Oh and Viswanath (paper Section 2.1, footnote 5): the
// four-outcome mechanism that is (eps, delta)-ADP and nothing better:
// delta(e) = delta + (1-delta) max(0, (e^eps - e^e)/(1 + e^eps)).
func EpsDeltaDelta0(eps, delta float64) (DeltaFunc, error) {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return nil, fmt.Errorf("compare: EpsDeltaDelta0: eps must be finite and >= 0, got %v", eps)
	}
	if !(delta >= 0 && delta <= 1) {
		return nil, fmt.Errorf("compare: EpsDeltaDelta0: delta must be in [0, 1], got %v", delta)
	}
	return func(e float64) float64 {
		if math.IsNaN(e) {
			return math.NaN()
		}
		if e >= eps {
			return delta
		}
		return delta + (1-delta)*(-math.Expm1(e-eps))/(1+math.Exp(-eps))
	}, nil
}
