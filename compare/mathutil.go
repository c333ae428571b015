package compare

import "math"

// Numerical helpers shared by all methods. Everything that can underflow or
// overflow in double precision is computed in log space.

const (
	ln2Pi     = 1.8378770664093454835606594728112 // log(2*pi)
	sqrt2     = math.Sqrt2
	invSqrtPi = 0.56418958354775628694807945156077 // 1/sqrt(pi)
)

// logAddExp returns log(exp(a) + exp(b)) without overflow; -Inf is the
// neutral element.
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// logSumExp returns log(sum_i exp(x_i)). It skips the exponentials that
// underflow to +0 (exp(x - max) for x - max < expUnderflow: adding +0
// leaves the sum as it is, so the result has the bits of the full sum);
// at large Renyi orders most of a quadrature's points are such (the
// integrand's peak moves thousands of nats above its left end).
func logSumExp(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		if x > m {
			m = x
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, x := range xs {
		if d := x - m; !(d < expUnderflow) { // NaN included
			s += math.Exp(d)
		}
	}
	return m + math.Log(s)
}

// expUnderflow is a value below which math.Exp returns +0.
const expUnderflow = -746

// erfcx returns the scaled complementary error function exp(x^2)*erfc(x)
// for x >= 0, accurate to a few ulps also where erfc underflows.
func erfcx(x float64) float64 {
	if x < 5 {
		return math.Exp(x*x) * math.Erfc(x)
	}
	// Continued fraction (Laplace): erfc(x) = exp(-x^2)/sqrt(pi) *
	// 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), evaluated backwards.
	// For x >= 5, 60 terms are far more than enough for double precision.
	f := x
	for n := 60; n >= 1; n-- {
		f = x + float64(n)/2/f
	}
	return invSqrtPi / f
}

// millsNeg returns Phi(-t)/phi(t) for t >= 0 (the Mills ratio), computed
// without underflow.
func millsNeg(t float64) float64 {
	return math.Sqrt(math.Pi/2) * erfcx(t/sqrt2)
}

// normCDF returns Phi(x) with full relative precision in the lower tail
// (down to the underflow threshold).
func normCDF(x float64) float64 {
	return 0.5 * math.Erfc(-x/sqrt2)
}

// logNormCDF returns log Phi(x), accurate also far in the lower tail where
// Phi(x) underflows.
func logNormCDF(x float64) float64 {
	switch {
	case x < -5:
		return -0.5*x*x - 0.5*ln2Pi + math.Log(millsNeg(-x))
	case x > 5:
		return math.Log1p(-0.5 * math.Erfc(x/sqrt2))
	default:
		return math.Log(0.5 * math.Erfc(-x/sqrt2))
	}
}

// logNormPDF returns log phi(x) for the standard normal density.
func logNormPDF(x float64) float64 { return -0.5*x*x - 0.5*ln2Pi }

// lchoose returns log C(n, k) via lgamma; adequate for moderate n (it loses
// about |lgamma(n)|*1e-16 absolutely).
func lchoose(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}

// stirlerr(n) = log(n!) - log(sqrt(2 pi n) (n/e)^n), the error of Stirling's
// formula, for integer n >= 1 (Loader 2000).
func stirlerr(n float64) float64 {
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	if n <= 15 {
		lg, _ := math.Lgamma(n + 1)
		return lg - (n+0.5)*math.Log(n) + n - 0.5*ln2Pi
	}
	nn := n * n
	switch {
	case n > 500:
		return (s0 - s1/nn) / n
	case n > 80:
		return (s0 - (s1-s2/nn)/nn) / n
	case n > 35:
		return (s0 - (s1-(s2-s3/nn)/nn)/nn) / n
	default:
		return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
	}
}

// bd0(x, m) = x log(x/m) + m - x, the deviance term, computed without
// cancellation when x is close to m (Loader 2000).
func bd0(x, m float64) float64 {
	if math.Abs(x-m) < 0.1*(x+m) {
		v := (x - m) / (x + m)
		s := (x - m) * v
		ej := 2 * x * v
		v *= v
		for j := 1; j < 1000; j++ {
			ej *= v
			s1 := s + ej/float64(2*j+1)
			if s1 == s {
				return s1
			}
			s = s1
		}
		return s
	}
	return x*math.Log(x/m) + m - x
}

// logDbinom returns log( C(n,k) p^k q^(n-k) ) with q = 1-p passed separately
// so that both may be accurate. The relative error of the probability is a
// few ulps even for n in the millions (Loader's saddle point method).
func logDbinom(k, n int, p, q float64) float64 {
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	if p == 0 {
		if k == 0 {
			return 0
		}
		return math.Inf(-1)
	}
	if q == 0 {
		if k == n {
			return 0
		}
		return math.Inf(-1)
	}
	if k == 0 {
		return float64(n) * math.Log(q)
	}
	if k == n {
		return float64(n) * math.Log(p)
	}
	x, nf := float64(k), float64(n)
	lc := stirlerr(nf) - stirlerr(x) - stirlerr(nf-x) - bd0(x, nf*p) - bd0(nf-x, nf*q)
	return lc + 0.5*math.Log(nf/(2*math.Pi*x*(nf-x)))
}

// bisect finds, for a non-increasing f, the smallest x in [lo, hi] with
// f(x) <= target, to about machine precision. f(hi) <= target is assumed.
func bisect(f func(float64) float64, target, lo, hi float64) float64 {
	for it := 0; it < 200; it++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if f(mid) <= target {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// epsForDelta inverts a non-increasing delta(eps) curve: the smallest eps >= 0
// with delta(eps) <= target, or +Inf if none below maxEps exists.
func epsForDelta(delta func(float64) float64, target float64) float64 {
	switch {
	case math.IsNaN(target):
		return math.NaN()
	case target >= 1:
		return 0
	}
	if delta(0) <= target {
		return 0
	}
	hi := 1e-6
	for delta(hi) > target {
		hi *= 2
		if hi > 1e7 {
			return math.Inf(1)
		}
	}
	return bisect(delta, target, 0, hi)
}
