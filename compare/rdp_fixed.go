package compare

import (
	"fmt"
	"math"
	"sync"
)

// SymmetrisedGaussianRenyiUpper returns a certified upper bound on the
// Renyi divergence of the symmetrised sampled Gaussian pair S, for every
// order alpha > 1. S is the pair that the engine composes for DP-SGD with
// fixed-size sampling under replace-one (engine/subsampled.go, S(gamma,
// 2m); there with noise multiplier sigma/(2 sensitivity)): with R = (R_A,
// R_B) = ((1-q) N(0, s^2) + q N(1, s^2), N(0, s^2)) (s = sigma) and L its
// loss, increasing in the output t and 0 at t0 = 1/2,
//
//	S_A = R_A on {t >= t0} + the mirror image of R_B on {t >= t0} + z,
//	S_B = R_B on {t >= t0} + the mirror image of R_A on {t >= t0} + z,
//
// z an atom of loss 0 holding the rest (1 - R_A(t >= t0) - R_B(t >= t0)).
// S is its own mirror image, so D_alpha(S_A||S_B) = D_alpha(S_B||S_A) and
// one direction bounds both orders of the data sets. The pair dominates one
// step of the mechanism in every hockey-stick divergence (Zhu, Dong, Wang,
// AISTATS 2022; its tradeoff function is that of Dong, Roth, Su's
// subsampling theorem for sampling without replacement, JRSS B 2022), so
// its Renyi divergence bounds the step's (see fixedSizeRenyiUpper in
// pipeline/methods).
//
// The bound. With x = qX, X = R_A/R_B - 1 >= 0 on {t >= t0}, b = alpha-1:
//
//	E_alpha(S) - 1 = int_{t>=t0} R_A (e^(bL) - 1) + int_{t>=t0} R_B (e^(-bL) - 1)
//	             = int_{t>=t0} R_B [((1+x)^alpha - 1 - alpha x) + ((1+x)^-b - 1 + b x)]
//
// (the events of the mirrored part have S_A = R_B, S_B = R_A; the atom
// adds z to both E_alpha and 1). The second bracket is at most C(alpha,2)
// x^2 for x >= 0 (Taylor with Lagrange remainder: the second derivative of
// (1+x)^-b is at most b(b+1) there), so its integral is at most C(alpha,2)
// q^2 M, M = E[X^2; t >= t0] (closed form below). The first is >= 0 for
// every x > -1; for 1 < alpha <= 2 it is also at most C(alpha,2) x^2 for x
// >= 0, so
//
//	D_alpha(S) <= ln(1 + alpha (alpha-1) q^2 M) / (alpha-1)     (1 < alpha <= 2);
//
// for integer alpha >= 3 its integral over {t >= t0} is the one over the
// whole line, A_alpha - 1 (A_alpha = E_alpha(R_A||R_B), Mironov, Talwar,
// Zhang 2019, summed as in SampledGaussianRenyiUpper), less the one over
// {t < t0}, where -q <= x <= 0 and the bracket is at least C(alpha,2)
// (1-q)^(alpha-2) x^2; so the k = 2 term of A_alpha - 1, C(alpha,2)
// (1-q)^(alpha-2) q^2 E[X^2], becomes C(alpha,2) (1-q)^(alpha-2) q^2 M:
//
//	D_alpha(S) <= ln(1 + sum_{k>=3} T_k + C(alpha,2) q^2 M ((1-q)^(alpha-2) + 1)) / (alpha-1),
//
// T_k the terms of A_alpha - 1. M = E[X^2; z >= a/2] (a = 1/s, z ~ N(0,1),
// X = exp(a z - a^2/2) - 1) = expm1(a^2) - e^(a^2) Phi(-3a/2) + 3 Phi(-a/2)
// - 1, evaluated with bounded error (normalMomentHalfUpper), and at most
// E[X^2] = expm1(a^2). For small q this is the exact value's leading term
// (both brackets are about C(alpha,2) x^2 where x is small); it is loose
// where q X > 1 carries the mass of X^2 (sigma below about 0.8, where the
// second bracket is nearer b x). Orders between integers above 2 use the
// chord of (alpha-1) D_alpha through the neighbouring integers (convex in
// alpha), capped by the bound at the next integer (D_alpha is
// nondecreasing); above certMaxIntOrder it is alpha/(2 s^2) + ln 2/(alpha-1),
// from E_alpha(S) <= E_alpha(R_A||R_B) + 1 <= 2 exp((alpha-1) alpha/(2
// s^2)). At q = 1, S is the Gaussian pair: alpha/(2 s^2).
func SymmetrisedGaussianRenyiUpper(sigma, q float64) (RenyiFunc, error) {
	if err := positive("SymmetrisedGaussianRenyiUpper", "sigma", sigma); err != nil {
		return nil, err
	}
	if !(q >= 0 && q <= 1) {
		return nil, fmt.Errorf("compare: SymmetrisedGaussianRenyiUpper: sampling rate q must be in [0, 1], got %v", q)
	}
	c0 := 1 / (2 * sigma * sigma)
	inv2s2 := certUp(c0, 0)
	var mHalf float64 // >= E[X^2; z >= a/2]
	if q > 0 && q < 1 {
		mHalf = math.Min(normMomentHalfUpper(1/sigma), certUp(math.Expm1(2*inv2s2), 2*certEps*math.Expm1(2*inv2s2)))
	}
	var mu sync.Mutex
	memo := map[int]float64{}
	atInt := func(a int) float64 {
		mu.Lock()
		v, ok := memo[a]
		mu.Unlock()
		if ok {
			return v
		}
		v = certUp(symLogEUpper(a, inv2s2, q, mHalf)/float64(a-1), 0)
		mu.Lock()
		memo[a] = v
		mu.Unlock()
		return v
	}
	far := func(a float64) float64 {
		return certUp(a*inv2s2, 0) + certUp(math.Ln2/(a-1), 0)*(1+certEps)
	}
	return func(a float64) float64 {
		switch {
		case !(a > 1):
			return math.NaN()
		case q == 0:
			return 0
		case math.IsInf(a, 1):
			return math.Inf(1)
		case q == 1:
			return certUp(a*inv2s2, 0)
		case a > certMaxIntOrder:
			return far(a)
		case a == math.Trunc(a):
			return atInt(int(a))
		}
		hi := int(math.Ceil(a))
		if hi > certMaxIntOrder {
			return far(a)
		}
		uh := atInt(hi)
		if hi == 2 {
			// ln(1 + a (a-1) q^2 M)/(a-1): a few roundings of positive
			// terms, then log1p
			v := a * (a - 1) * powUpper(q, 2) * mHalf * (1 + 8*certEps)
			l := certUp(math.Log1p(v), 2*certEps*math.Log1p(v))
			return math.Min(uh, certUp(l/(a-1), 0))
		}
		lo := hi - 1
		ul := atInt(lo)
		t := a - float64(lo) // exact
		c := ((1-t)*float64(lo-1)*ul + t*float64(hi-1)*uh) / (a - 1)
		return math.Min(uh, certUp(c, 8*certEps*c))
	}, nil
}

// symLogEUpper returns an upper bound on ln(1 + sum_{k>=3} T_k + C(a,2)
// q^2 M ((1-q)^(a-2) + 1)) (SymmetrisedGaussianRenyiUpper) for integer a >=
// 2, 0 < q < 1, given c >= 1/(2 s^2) and mHalf >= M: the terms T_k of A_a -
// 1 (sgmLogATerms, whose first is the k = 2 term) with ln expm1(2c)
// replaced by ln mHalf in the k = 2 term, and the extra term, each with
// its absolute error, summed in log space and rounded up; then log1p.
func symLogEUpper(a int, c, q, mHalf float64) float64 {
	if !(mHalf > 0) {
		return 0 // M = 0 only when the shift is 0
	}
	ys, errs := sgmLogATerms(a, c, q)
	// ys[0] is ln C(a,2) + (a-2) ln(1-q) + 2 ln q + ln expm1(2c)
	x := 2 * c // exact
	var t3 float64
	if x < 1 {
		t3 = math.Log(math.Expm1(x))
	} else {
		t3 = x + math.Log1p(-math.Exp(-x))
	}
	lm := math.Log(mHalf)
	// replace t3 by lm in the k = 2 term: the error bound of ys[0] covered
	// t3's; add lm's and that of the two additions.
	ys[0] = ys[0] - t3 + lm
	errs[0] += certEps * (math.Abs(lm) + 2*math.Abs(t3) + 2*math.Abs(ys[0]))
	af := float64(a)
	// the extra term C(a,2) q^2 M: ln a + ln(a-1) - ln 2 + 2 ln q + ln M
	l1, l2, lq := math.Log(af), math.Log(af-1), math.Log(q)
	lc := l1 + l2 - math.Ln2
	elc := certEps * (math.Abs(l1) + math.Abs(l2) + math.Ln2 + 2*math.Abs(lc))
	t2 := 2 * lq
	y := lc + t2 + lm
	ys = append(ys, y)
	errs = append(errs, elc+certEps*math.Abs(lm)+2*certEps*math.Abs(t2)+3*certEps*(math.Abs(lc)+math.Abs(t2)+math.Abs(lm)))
	for i := range ys {
		ys[i] = certUp(ys[i], errs[i])
	}
	l := logSumExpUpper(ys) // >= ln(E - 1)
	if l > 700 {
		return certUp(l, math.Exp(-l))
	}
	v := math.Exp(l) * (1 + 2*certEps)
	return certUp(math.Log1p(v), 2*certEps*math.Log1p(v))
}

// normMomentHalfUpper returns an upper bound on M(a) = E[X^2; z >= a/2],
// X = exp(a z - a^2/2) - 1, z ~ N(0, 1), a > 0 the float given (a rounded
// value of the true shift a*, |a - a*| <= 4 2^-53 a): M(a) = e^(a^2)
// Phi(-(a/2 - 2a)) - 2 Phi(-(a/2 - a)) + Phi(-a/2) = expm1(a^2) - e^(a^2)
// Phi(-3a/2) + 3 Phi(-a/2) - 1. Normal tails from math.Erfc with a relative
// allowance of 1e-12 (as SumTest), the four terms' rounding bounded by
// 8 certEps of their magnitudes, and the shift's rounding by |dM/da| <=
// e^(a^2) (5.5 a + 3) (differentiating under the integral with z = a/2 +
// w: the integrand's derivative is at most phi(a/2+w) (a + 3w) e^(2aw) =
// e^(a^2) phi(w - 3a/2) (a + 3w)) times 8 2^-53 a (a margin of two).
// +Inf where e^(a^2) overflows.
func normMomentHalfUpper(a float64) float64 {
	if !(a > 0) || a > 26 {
		return math.Inf(1)
	}
	tail := func(x float64) float64 { return 0.5 * math.Erfc(x/sqrt2) }
	e := math.Exp(a * a)
	em := math.Expm1(a * a)
	t1 := em * (1 + 2*certEps)
	t2 := e * tail(1.5*a) * (1 - 1e-12) * (1 - 4*certEps)
	t3 := 3 * tail(a/2) * (1 + 1e-12) * (1 + 4*certEps)
	m := t1 - t2 + t3 - 1
	errM := 8 * certEps * (t1 + t2 + t3 + 1)
	errA := e * (1 + 4*certEps) * (5.5*a + 3) * 16 * 0x1p-53 * a
	return certUp(math.Max(m, 0), errM+errA)
}
