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
// adds z to both E_alpha and 1). The first bracket is >= 0 for every x >
// -1, so its integral is at most the one over the whole line, A_alpha - 1
// (A_alpha = E_alpha(R_A||R_B), Mironov, Talwar, Zhang 2019, summed as in
// SampledGaussianRenyiUpper); the second is at most C(alpha,2) x^2 for x
// >= 0 (Taylor with Lagrange remainder: the second derivative of (1+x)^-b
// is at most b(b+1) there), and its integral over the half line at most
// C(alpha,2) q^2 E[X^2] = C(alpha,2) q^2 expm1(1/s^2). So at integer
// orders
//
//	D_alpha(S) <= ln(A_alpha + C(alpha,2) q^2 expm1(1/s^2)) / (alpha-1),
//
// at most ln 2/(alpha-1) above D_alpha(R_A||R_B) (the extra term is R's
// own k = 2 term without the factor (1-q)^(alpha-2)). For small q and
// sigma below 1, where half of E[X^2] comes from t >= t0, it is the
// leading term of the exact value: about twice R's divergence, as replace-
// one is about an addition and a removal. It is summed in log space with
// its absolute error bounded, like SampledGaussianRenyiUpper's integer
// orders. Between integers (and 1 < alpha < 2) it is the chord of
// (alpha-1) D_alpha through the neighbouring integers (convex in alpha),
// capped by the bound at the next integer (D_alpha is nondecreasing);
// above certMaxIntOrder it is alpha/(2 s^2) + ln 2/(alpha-1), from E_alpha(S)
// <= E_alpha(R_A||R_B) + 1 <= 2 exp((alpha-1) alpha/(2 s^2)). At q = 1, S
// is the Gaussian pair: alpha/(2 s^2).
func SymmetrisedGaussianRenyiUpper(sigma, q float64) (RenyiFunc, error) {
	if err := positive("SymmetrisedGaussianRenyiUpper", "sigma", sigma); err != nil {
		return nil, err
	}
	if !(q >= 0 && q <= 1) {
		return nil, fmt.Errorf("compare: SymmetrisedGaussianRenyiUpper: sampling rate q must be in [0, 1], got %v", q)
	}
	c0 := 1 / (2 * sigma * sigma)
	inv2s2 := certUp(c0, 0)
	var mu sync.Mutex
	memo := map[int]float64{}
	atInt := func(a int) float64 {
		mu.Lock()
		v, ok := memo[a]
		mu.Unlock()
		if ok {
			return v
		}
		v = certUp(symLogEUpper(a, inv2s2, q)/float64(a-1), 0)
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
			return uh
		}
		lo := hi - 1
		ul := atInt(lo)
		t := a - float64(lo) // exact
		c := ((1-t)*float64(lo-1)*ul + t*float64(hi-1)*uh) / (a - 1)
		return math.Min(uh, certUp(c, 8*certEps*c))
	}, nil
}

// symLogEUpper returns an upper bound on ln(A_a + C(a,2) q^2 expm1(2c))
// (SymmetrisedGaussianRenyiUpper) for integer a >= 2, 0 < q < 1, given c >=
// 1/(2 s^2): the terms of A_a - 1 (sgmLogATerms) and the extra term, each
// with its absolute error, summed in log space and rounded up; then
// log1p.
func symLogEUpper(a int, c, q float64) float64 {
	ys, errs := sgmLogATerms(a, c, q)
	af := float64(a)
	// ln C(a,2) = ln a + ln(a-1) - ln 2 (a, a-1 exact), 2 ln q, ln expm1(2c)
	l1, l2, lq := math.Log(af), math.Log(af-1), math.Log(q)
	lc := l1 + l2 - math.Ln2
	elc := certEps * (math.Abs(l1) + math.Abs(l2) + math.Ln2 + 2*math.Abs(lc))
	x := 2 * c // exact
	var t3, e3 float64
	if x < 1 {
		t3 = math.Log(math.Expm1(x))
		e3 = certEps * (2 + x + math.Abs(t3))
	} else {
		t3 = x + math.Log1p(-math.Exp(-x))
		e3 = certEps * (2 + 2*x)
	}
	t2 := 2 * lq
	y := lc + t2 + t3
	ys = append(ys, y)
	errs = append(errs, elc+e3+2*certEps*math.Abs(t2)+3*certEps*(math.Abs(lc)+math.Abs(t2)+math.Abs(t3)))
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
