package compare

import (
	"fmt"
	"math"
)

// GaussCurve is the exact (tight) privacy curve of the r-fold untruncated
// Gauss mechanism. r-fold composition of N(0,s^2) vs N(sens,s^2) is
// equivalent to a single pair with mu = sqrt(r)*sens/sigma, so
// delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu).
// This is the closed form of reference/exact-cases.csv.
type GaussCurve struct {
	mu float64
}

// ExactGauss returns the exact r-fold curve of the untruncated Gauss
// mechanism with noise standard deviation sigma and sensitivity sens.
func ExactGauss(sigma, sens float64, r int) (*GaussCurve, error) {
	if err := positive("ExactGauss", "sigma", sigma); err != nil {
		return nil, err
	}
	if err := positive("ExactGauss", "sensitivity", sens); err != nil {
		return nil, err
	}
	if err := validR("ExactGauss", r); err != nil {
		return nil, err
	}
	return &GaussCurve{mu: math.Sqrt(float64(r)) * sens / sigma}, nil
}

// Mu returns mu = sqrt(r)*sens/sigma, the equivalent single-round distance.
func (c *GaussCurve) Mu() float64 { return c.mu }

// Delta returns the tight delta(eps); it is accurate (relative ~1e-12 or
// better) down to about 1e-300, where it underflows to 0.
func (c *GaussCurve) Delta(eps float64) float64 { return gaussDelta(c.mu, eps) }

// Eps returns the smallest eps >= 0 with Delta(eps) <= delta (bisection).
func (c *GaussCurve) Eps(delta float64) float64 { return epsForDelta(c.Delta, delta) }

// RRCurve is the exact privacy curve of r-fold randomized response with bias
// p (paper Section 5.5), computed from the binomial sum
// delta(eps) = sum_k max(0, C(r,k) p^k q^(r-k) - e^eps C(r,k) q^k p^(r-k))
// in log space; it works for r up to about 2^24.
type RRCurve struct {
	p, q, eps0 float64
	r          int
}

// ExactRR returns the exact r-fold curve of randomized response with bias p
// in (0, 1) (p and 1-p give the same curve).
func ExactRR(p float64, r int) (*RRCurve, error) {
	hi, lo, eps0, err := rrEps0("ExactRR", p)
	if err != nil {
		return nil, err
	}
	if err := validR("ExactRR", r); err != nil {
		return nil, err
	}
	if r > 1<<26 {
		return nil, fmt.Errorf("compare: ExactRR: r = %d too large (limit 2^26)", r)
	}
	return &RRCurve{p: hi, q: lo, eps0: eps0, r: r}, nil
}

// Eps0 returns the single-round epsilon ln(p/(1-p)).
func (c *RRCurve) Eps0() float64 { return c.eps0 }

// Delta returns the tight delta(eps) of r-fold randomized response. With k
// the number of outputs that agree with A's bias, the privacy loss is
// L_k = (2k - r) eps0 and delta = sum_{L_k > eps} P_A(k) (1 - e^(eps - L_k)).
func (c *RRCurve) Delta(eps float64) float64 {
	if math.IsNaN(eps) {
		return math.NaN()
	}
	if c.eps0 == 0 {
		if eps >= 0 {
			return 0
		}
		return -math.Expm1(eps)
	}
	r := c.r
	if eps >= float64(r)*c.eps0 {
		return 0
	}
	if eps < -float64(r)*c.eps0 {
		return -math.Expm1(eps) // every outcome has privacy loss > eps
	}
	// smallest k with L_k > eps
	kth := int(math.Floor((float64(r)+eps/c.eps0)/2)) + 1
	for kth > 0 && float64(2*(kth-1)-r)*c.eps0 > eps {
		kth--
	}
	for kth <= r && !(float64(2*kth-r)*c.eps0 > eps) {
		kth++
	}
	if kth < 0 {
		kth = 0
	}
	if kth > r {
		return 0
	}
	term := func(k int) float64 {
		lk := float64(2*k-r) * c.eps0
		return logDbinom(k, r, c.p, c.q) + math.Log(-math.Expm1(eps-lk))
	}
	mode := int(math.Floor(float64(r+1) * c.p))
	if mode > r {
		mode = r
	}
	start := kth
	if mode > start {
		start = mode
	}
	logs := make([]float64, 0, 256)
	best := math.Inf(-1)
	// upwards from start: terms rise (near the threshold), then fall
	prev := math.Inf(-1)
	for k := start; k <= r; k++ {
		t := term(k)
		logs = append(logs, t)
		if t > best {
			best = t
		}
		if t < prev && t < best-80 {
			break
		}
		prev = t
	}
	// downwards from start-1 to the threshold: terms fall monotonically
	for k := start - 1; k >= kth; k-- {
		t := term(k)
		logs = append(logs, t)
		if t > best {
			best = t
		}
		if t < best-80 {
			break
		}
	}
	return clamp01(math.Exp(logSumExp(logs)))
}

// Eps returns the smallest eps >= 0 with Delta(eps) <= delta (bisection).
func (c *RRCurve) Eps(delta float64) float64 { return epsForDelta(c.Delta, delta) }

// LaplaceCurve is the exact single-round (r = 1) curve of the untruncated
// Laplace mechanism LP(0, scale) vs LP(sens, scale):
// delta(eps) = 1 - exp((eps - eps0)/2) for |eps| < eps0 = sens/scale.
// The r-fold exact curve has no closed form here; use KOV (which the paper
// finds tight for Laplace) or the privacy-buckets engine.
type LaplaceCurve struct {
	eps0 float64
}

// ExactLaplace returns the exact single-round Laplace curve.
func ExactLaplace(scale, sens float64) (*LaplaceCurve, error) {
	if err := positive("ExactLaplace", "scale", scale); err != nil {
		return nil, err
	}
	if err := positive("ExactLaplace", "sensitivity", sens); err != nil {
		return nil, err
	}
	return &LaplaceCurve{eps0: sens / scale}, nil
}

// Delta returns the tight delta(eps).
func (c *LaplaceCurve) Delta(eps float64) float64 { return laplaceDelta(c.eps0, eps) }

// Eps returns the smallest eps >= 0 with Delta(eps) <= delta, in closed form.
func (c *LaplaceCurve) Eps(delta float64) float64 {
	switch {
	case math.IsNaN(delta):
		return math.NaN()
	case delta >= 1:
		return 0
	case delta <= 0:
		return c.eps0
	}
	// 1 - exp((e - eps0)/2) = delta  <=>  e = eps0 + 2 log(1 - delta)
	return math.Max(0, c.eps0+2*math.Log1p(-delta))
}
