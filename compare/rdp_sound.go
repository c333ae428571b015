package compare

import (
	"fmt"
	"math"
	"sync"
)

// Certified Renyi curves: upper bounds on max(D_alpha(A||B), D_alpha(B||A))
// whose floating-point evaluation error is bounded and added, so that they
// are upper bounds on the true divergence, not approximations of it. They
// feed RDP with RDPOptions.Outward (the buckets method's RDP cap).
//
// Rounding model. Every basic operation (+, -, *, /) rounds to nearest
// (relative error <= 2^-53), and math.Exp, Log, Log1p, Expm1 have an
// error below 1 ulp (2^-52 of the result), as documented in the comments
// of Go's portable implementations (from FreeBSD's msun). On amd64
// math.Exp and math.Log are assembly (Exp after Shibata's SLEEF) without a
// documented bound; TestLibmErrorModel measures all four against math/big
// within 2 ulps. The error bounds below charge certEps = 2^-50 (4 ulps)
// per operation and per library call, which also absorbs the rounding of
// the error bounds' own evaluation. Values are then moved up by certUp.
// The certification rests on this model.

// certEps is the relative error charged per operation (above).
const certEps = 0x1p-50

// certUp returns a float64 >= x + err (err >= 0 an absolute error bound):
// x + err + certEps*|x + err| rounds to nearest at worst 1/2 ulp down, far
// less than the added certEps*|x+err| (4 ulps), and the smallest subnormal
// covers x + err = 0.
func certUp(x, err float64) float64 {
	if math.IsNaN(x) || math.IsNaN(err) {
		return math.NaN()
	}
	if math.IsInf(x, 0) || math.IsInf(err, 1) {
		return x + err
	}
	y := x + err
	return y + certEps*math.Abs(y) + math.SmallestNonzeroFloat64
}

// certMaxIntOrder is the largest integer order at which
// SampledGaussianRenyiUpper sums the binomial series (alpha + 1 terms);
// above it, and for orders between it and the next integer, it returns the
// closed-form upper bound max(alpha/(2 sigma^2), ln(1/(1-q))).
const certMaxIntOrder = 1 << 14

// SampledGaussianRenyiUpper returns a certified upper bound on the Renyi
// divergence of the sampled Gaussian mechanism of SampledGaussianRenyi
// (Poisson sampling, add/remove: P = (1-q) N(0, s^2) + q N(1, s^2),
// Q = N(0, s^2), s = sigma), maximised over both directions, for every
// order alpha > 1.
//
// At integer orders 2 <= alpha <= certMaxIntOrder:
//
//   - D_alpha(P||Q) = ln(A_alpha)/(alpha-1) with Mironov, Talwar and Zhang's
//     finite sum (2019, Section 3.3) A_alpha = sum_k C(alpha,k) (1-q)^(alpha-k)
//     q^k exp((k^2-k)/(2 s^2)) (E_Q[Y^k] = exp((k^2-k)/(2 s^2)) for the ratio
//     Y = N(1,s^2)/N(0,s^2), and P/Q = 1 - q + q Y). Its positive terms are
//     summed in log space; each term's exponent carries a bound on its
//     absolute error (the log-binomials are built as sums of logs of
//     integers, no lgamma), and the sum and logarithm are rounded up.
//   - D_alpha(Q||P) = ln(B_alpha)/(alpha-1), B_alpha = E_Q[(1+qX)^-(alpha-1)]
//     with X = Y - 1, is bounded by the smallest of three rigorous bounds
//     (sgmLogBUpper): Taylor's theorem with Lagrange remainder,
//     (1-q)^-(alpha-1) (P/Q >= 1-q) and the convexity bound
//     q alpha (alpha-1)/(2 s^2).
//
// Between integer orders, and for 1 < alpha < 2, it returns the chord of
// (alpha-1) D_alpha through the bounds at the neighbouring integers (at
// alpha = 1 the value is 0): alpha -> (alpha-1) D_alpha = ln E[(P/Q)^alpha]
// is convex in each direction (Hoelder), so the chord of upper bounds is an
// upper bound. It takes the smaller of the chord and direct bounds at
// alpha: for D_alpha(P||Q) Taylor-Lagrange below alpha = 7.5
// (sgmLogAFracUpper) and Newton's forward interpolation from the integer
// orders above 2 (sgmLogANewtonUpper), for D_alpha(Q||P) sgmLogBUpper.
// They are tight where D_alpha is smooth in alpha (small q, sigma >= 1);
// where it rises steeply between two integers (the sampled Gaussian's
// largest binomial terms taking over, e.g. sigma 4, q 0.01 near alpha
// 147) the chord is used and can exceed D_alpha by a few percent.
//
// Above certMaxIntOrder it returns max(alpha/(2 sigma^2), ln(1/(1-q))),
// rounded up: D_alpha(P||Q) <= alpha/(2 sigma^2) by
// convexity of exp((alpha-1) D_alpha) in the first argument and
// D_alpha(Q||P) <= ln(1/(1-q)) since Q/P <= 1/(1-q).
//
// The values at integer orders are kept (safe for concurrent use).
func SampledGaussianRenyiUpper(sigma, q float64) (RenyiFunc, error) {
	if err := positive("SampledGaussianRenyiUpper", "sigma", sigma); err != nil {
		return nil, err
	}
	if !(q >= 0 && q <= 1) {
		return nil, fmt.Errorf("compare: SampledGaussianRenyiUpper: sampling rate q must be in [0, 1], got %v", q)
	}
	// cLo <= 1/(2 sigma^2) <= inv2s2: three roundings.
	c0 := 1 / (2 * sigma * sigma)
	inv2s2, cLo := certUp(c0, 0), c0*(1-certEps)
	var mu sync.Mutex
	memo := map[int]float64{}
	atInt := func(a int) float64 {
		mu.Lock()
		v, ok := memo[a]
		mu.Unlock()
		if ok {
			return v
		}
		la := sgmLogAUpper(a, inv2s2, q)
		lb := sgmLogBUpper(float64(a), sigma, cLo, inv2s2, q)
		v = certUp(math.Max(la, lb)/float64(a-1), 0)
		mu.Lock()
		memo[a] = v
		mu.Unlock()
		return v
	}
	return func(a float64) float64 {
		if !(a > 1) {
			return math.NaN()
		}
		if q == 0 {
			return 0
		}
		if math.IsInf(a, 1) {
			return math.Inf(1)
		}
		if q == 1 {
			return certUp(a*inv2s2, 0)
		}
		if a > certMaxIntOrder {
			return math.Max(certUp(a*inv2s2, 0), certUp(-math.Log1p(-q), 0))
		}
		if a == math.Trunc(a) {
			return atInt(int(a))
		}
		hi := int(math.Ceil(a))
		if hi > certMaxIntOrder {
			return math.Max(certUp(a*inv2s2, 0), certUp(-math.Log1p(-q), 0))
		}
		uh := atInt(hi) // D_alpha <= D_hi: D is nondecreasing in the order (van Erven and Harremoes 2014, Thm 3)
		chord := uh     // hi == 2: chord through (1, 0) and (2, U_2), D_alpha <= U_2
		if hi > 2 {
			lo := hi - 1
			ul := atInt(lo)
			// ((hi-a)(lo-1) U_lo + (a-lo)(hi-1) U_hi) / (a-1), all terms
			// >= 0: a few roundings, relative error below 8 certEps.
			t := a - float64(lo) // exact (Sterbenz: lo <= a <= 2 lo)
			c := ((1-t)*float64(lo-1)*ul + t*float64(hi-1)*uh) / (a - 1)
			chord = math.Min(uh, certUp(c, 8*certEps*c))
		}
		// direct bounds at a: D_alpha(P||Q) by Taylor-Lagrange below
		// alpha = 7.5 and by Newton's forward interpolation from the
		// integer orders above 2; D_alpha(Q||P) by sgmLogBUpper.
		la := math.Inf(1)
		if a < certMaxTaylorOrder {
			la = sgmLogAFracUpper(a, cLo, inv2s2, q)
		}
		if a > 2 {
			la = math.Min(la, sgmLogANewtonUpper(a, cLo, inv2s2, q))
		}
		if !math.IsInf(la, 1) {
			lb := sgmLogBUpper(a, sigma, cLo, inv2s2, q)
			if d := certUp(math.Max(la, lb)/(a-1), 0); d < chord {
				return d
			}
		}
		return chord
	}, nil
}

// certMaxTaylorOrder bounds the fractional orders at which
// SampledGaussianRenyiUpper tries sgmLogAFracUpper (which needs 2n > alpha
// for n <= 4).
const certMaxTaylorOrder = 7.5

// sgmLogAFracUpper returns an upper bound on ln A_a = ln E_Q[(1 + qX)^a]
// for real 1 < a < 8 (X as in sgmLogBUpper), 0 < q < 1, given cLo <= c =
// 1/(2 s^2) <= cHi, or +Inf where it has none. Taylor's theorem for
// h(x) = x^a at x = 1 with Lagrange remainder, for x = 1 + qX >= 1-q and
// 2n > a: h(x) = sum_{j<2n} C(a,j) (x-1)^j + C(a,2n) xi^(a-2n) (x-1)^(2n),
// xi between 1 and x, so xi^(a-2n) <= (1-q)^(a-2n); the remainder is
// dropped where C(a,2n) < 0. Taking E_Q (E[X] = 0, E[X^j] >= 0 bounded by
// momentXBounds): A_a <= 1 + sum_{2<=j<2n} C(a,j) q^j E[X^j]
// + max(0, C(a,2n)) (1-q)^(a-2n) q^(2n) E[X^(2n)], with upper bounds on
// the moments where C(a,j) > 0 and lower bounds where it is negative; the
// smallest over n = floor(a/2)+1 .. 4.
func sgmLogAFracUpper(a, cLo, cHi, q float64) float64 {
	l1q := math.Log1p(-q)
	var lo, hi [9]float64
	for j := 2; j <= 8; j++ {
		lo[j], hi[j] = momentXBounds(j, cLo, cHi)
	}
	// binomUp returns an upper bound on C(a, j) (factors a-i with at most
	// one rounding each, products and quotients: relative (3j+1) 2^-53;
	// the sign is exact).
	binomUp := func(j int) float64 {
		v := 1.0
		for i := 0; i < j; i++ {
			v = v * (a - float64(i)) / float64(i+1)
		}
		g := float64(3*j+1) * certEps
		if v >= 0 {
			return v * (1 + g)
		}
		return v * (1 - g)
	}
	best := math.Inf(1)
	for n := int(a/2) + 1; n <= 4; n++ {
		pos, neg := 0.0, 0.0
		for j := 2; j <= 2*n; j++ {
			ch := binomUp(j)
			var t float64
			switch {
			case ch > 0 && j < 2*n:
				t = ch * powUpper(q, j) * hi[j]
			case ch > 0: // the remainder
				e := (float64(2*n) - a) * -l1q // (1-q)^(a-2n) = exp(-(2n-a) l1q)
				rem := math.Exp(certUp(e, 3*certEps*math.Abs(e))) * (1 + 2*certEps)
				t = ch * rem * powUpper(q, j) * hi[j]
			case j < 2*n: // C(a,j) <= ch < 0: its term is at most ch q^j E[X^j]_lo
				neg += -ch * powLower(q, j) * lo[j]
			}
			pos += t
		}
		pos *= 1 + 16*certEps
		neg *= 1 - 16*certEps
		if math.IsNaN(pos) || math.IsInf(pos, 0) || math.IsNaN(neg) {
			continue
		}
		s := math.Max(0, certUp(pos-neg, certEps*(pos+neg))) // A_a - 1 <= s
		best = math.Min(best, certUp(math.Log1p(s), 2*certEps*math.Log1p(s)))
	}
	return best
}

// sgmLogAUpper returns an upper bound on ln A_a (above) for integer a >= 2,
// 0 < q < 1, given c >= 1/(2 sigma^2) (A_a is nondecreasing in it).
// Since sum_k C(a,k) (1-q)^(a-k) q^k = 1, A_a - 1 = sum_{k>=2} C(a,k)
// (1-q)^(a-k) q^k expm1(c (k^2-k)), a sum of positive terms: it is summed
// in log space (each term's exponent with a bound on its absolute error)
// and ln A_a = log1p(A_a - 1), so that ln A_a keeps its relative precision
// when it is tiny (large sigma, small q), where summing A_a itself would
// leave an absolute error of a few ulps of 1.
func sgmLogAUpper(a int, c, q float64) float64 {
	ys, errs := sgmLogATerms(a, c, q)
	for i := range ys {
		ys[i] = certUp(ys[i], errs[i])
	}
	l := logSumExpUpper(ys) // >= ln(A_a - 1)
	if l > 700 {
		// ln A_a = l + log1p(exp(-l)) <= l + exp(-l)
		return certUp(l, math.Exp(-l))
	}
	y := math.Exp(l) * (1 + 2*certEps)
	return certUp(math.Log1p(y), 2*certEps*math.Log1p(y))
}

// sgmLogALower is sgmLogAUpper rounded the other way: a lower bound on
// ln A_a given c <= 1/(2 sigma^2).
func sgmLogALower(a int, c, q float64) float64 {
	ys, errs := sgmLogATerms(a, c, q)
	for i := range ys {
		ys[i] = certDown(ys[i], errs[i])
	}
	l := logSumExpLower(ys) // <= ln(A_a - 1)
	if l > 700 {
		return certDown(l, 0) // ln A_a >= ln(A_a - 1)
	}
	y := math.Exp(l) * (1 - 2*certEps)
	return certDown(math.Log1p(y), 2*certEps*math.Log1p(y))
}

// certDown returns a float64 <= x - err (err >= 0).
func certDown(x, err float64) float64 { return -certUp(-x, err) }

// sgmLogATerms returns the logarithms of the terms k = 2..a of A_a - 1
// (sgmLogAUpper) as computed and bounds on their absolute errors.
func sgmLogATerms(a int, c, q float64) (ys, errs []float64) {
	lq, l1q := math.Log(q), math.Log1p(-q)
	// |error| of lq, l1q <= certEps |.| (one library call each).
	af := float64(a)
	ys, errs = make([]float64, 0, a-1), make([]float64, 0, a-1)
	lc, elc := 0.0, 0.0 // ln C(a, k) and a bound on its absolute error
	for k := 1; k <= a; k++ {
		kf := float64(k)
		// C(a,k) = C(a,k-1) (a-k+1)/k; logs of exact integers.
		l1, l2 := math.Log(af-kf+1), math.Log(kf)
		lc = lc + l1 - l2
		elc += certEps * (math.Abs(l1) + math.Abs(l2) + 2*math.Abs(lc) + math.Abs(l1-l2))
		if k < 2 {
			continue
		}
		t1 := (af - kf) * l1q // af-kf exact; one library call, one product
		t2 := kf * lq
		x := (kf*kf - kf) * c // kf*kf exact for a <= 2^26; one rounding
		// t3 = ln expm1(x) with its absolute error: expm1 <= 1 ulp and the
		// rounding of x (relative 2^-53, so expm1 relative (1+x) 2^-53).
		var t3, e3 float64
		if x < 1 {
			t3 = math.Log(math.Expm1(x))
			e3 = certEps * (2 + x + math.Abs(t3))
		} else {
			t3 = x + math.Log1p(-math.Exp(-x))
			e3 = certEps * (2 + 2*x)
		}
		ys = append(ys, lc+t1+t2+t3)
		errs = append(errs, elc+e3+2*certEps*(math.Abs(t1)+math.Abs(t2))+
			3*certEps*(math.Abs(lc)+math.Abs(t1)+math.Abs(t2)+math.Abs(t3)))
	}
	return ys, errs
}

// logSumExpLower returns a lower bound on ln(sum_i exp(y_i)) (the y_i
// exact), as logSumExpUpper rounded down.
func logSumExpLower(ys []float64) float64 {
	m := math.Inf(-1)
	for _, y := range ys {
		m = math.Max(m, y)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, y := range ys {
		d := y - m
		d = certDown(d, certEps*math.Abs(d))
		s += math.Exp(d) * (1 - 2*certEps)
	}
	s *= 1 - (float64(len(ys))+2)*certEps
	l := math.Log(s)
	return certDown(m+l, certEps*(math.Abs(m)+2*math.Abs(l)))
}

// sgmLogANewtonUpper returns an upper bound on ln A_a for real a with
// k = floor(a) >= 2, f = a - k in (0, 1), from the integer orders
// k..k+3: for f in (0, 1) and u > -1, (1+u)^f <= sum_{j<=3} C(f,j) u^j
// (Taylor-Lagrange; the remainder C(f,4) xi^(f-4) u^4 is <= 0 since
// C(f,4) < 0), so with u = qX and the factor (1+u)^k >= 0, A_a <=
// sum_{j<=3} C(f,j) E[(1+u)^k u^j] = sum_{j<=3} C(f,j) Delta^j A_k (u =
// (1+u) - 1): Newton's forward interpolation of A at k+f, which is thus an
// upper bound. The weights of A_k..A_k+3 have both signs; each A_k+i is
// taken from its interval [sgmLogALower, sgmLogAUpper].
func sgmLogANewtonUpper(a float64, cLo, cHi, q float64) float64 {
	k := int(math.Floor(a))
	f := a - float64(k) // exact (Sterbenz, or a < 2^52 with k = floor(a))
	if k < 2 || !(f > 0) || k+3 > certMaxIntOrder {
		return math.Inf(1)
	}
	var lo, hi [4]float64
	for i := 0; i < 4; i++ {
		lo[i], hi[i] = sgmLogALower(k+i, cLo, q), sgmLogAUpper(k+i, cHi, q)
		if math.IsInf(hi[i], 0) || math.IsNaN(hi[i]) || math.IsNaN(lo[i]) {
			return math.Inf(1)
		}
	}
	// C(f, j), j = 0..3, and the weights w_i = sum_{j>=i} C(f,j) C(j,i)
	// (-1)^(j-i); each with absolute error below 16 certEps (|C(f,j)| <= 1).
	cf := [4]float64{1, f, f * (f - 1) / 2, f * (f - 1) * (f - 2) / 6}
	binom := [4][4]float64{{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}}
	m := hi[0] // the scale: A_k+i / e^m
	sum, mag := 0.0, 0.0
	for i := 0; i < 4; i++ {
		w := 0.0
		for j := i; j < 4; j++ {
			t := cf[j] * binom[j][i]
			if (j-i)%2 == 1 {
				t = -t
			}
			w += t
		}
		ew := 16 * certEps
		rl := math.Exp(certDown(lo[i]-m, certEps*(math.Abs(lo[i])+math.Abs(m)))) * (1 - 2*certEps)
		rh := math.Exp(certUp(hi[i]-m, certEps*(math.Abs(hi[i])+math.Abs(m)))) * (1 + 2*certEps)
		t := math.Max(math.Max((w-ew)*rl, (w-ew)*rh), math.Max((w+ew)*rl, (w+ew)*rh))
		sum += t
		mag += math.Abs(t)
	}
	sum = certUp(sum, 8*certEps*mag) // A_a / e^m <= sum
	if !(sum > 0) || math.IsInf(sum, 0) {
		return math.Inf(1)
	}
	l := math.Log(sum)
	return certUp(m+l, certEps*(math.Abs(m)+2*math.Abs(l)))
}

// logSumExpUpper returns an upper bound on ln(sum_i exp(y_i)) (the y_i
// exact): each exp(y_i - m) is bounded above including the rounding of the
// difference, the sum of the positive terms and the logarithm are rounded
// up.
func logSumExpUpper(ys []float64) float64 {
	m := math.Inf(-1)
	for _, y := range ys {
		m = math.Max(m, y)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, y := range ys {
		d := y - m
		d = certUp(d, certEps*math.Abs(d)) // >= the exact difference
		s += math.Exp(d) * (1 + 2*certEps)
	}
	n := float64(len(ys))
	s *= 1 + (n+2)*certEps // the n additions (positive terms)
	l := math.Log(s)
	return certUp(m+l, certEps*(math.Abs(m)+2*math.Abs(l)))
}

// sgmLogBUpper returns an upper bound on ln B_a, B_a = E_Q[(Q/P)^(a-1)] =
// E_Q[(1 + qX)^-b] (b = a-1, X = Y - 1 >= -1, Y as above), for real
// a > 1 and 0 < q < 1, given cLo <= c = 1/(2 s^2) <= cHi. The smallest of:
//
//  1. Taylor's theorem for h(x) = x^-b at x = 1 with Lagrange remainder, for
//     x = 1 + qX >= 1-q: h(x) = sum_{j<2n} (-1)^j C(b+j-1,j) (x-1)^j +
//     C(b+2n-1,2n) xi^(-b-2n) (x-1)^(2n) with xi between 1 and x, so
//     xi^(-b-2n) <= (1-q)^(-b-2n). Taking E_Q (E[X] = 0):
//     B_a <= 1 + sum_{2<=j<2n} (-1)^j C(b+j-1,j) q^j E[X^j]
//     + C(b+2n-1,2n) q^(2n) R, for n = 1..4, with upper bounds on the even
//     moments and lower bounds on the odd ones. R bounds
//     E[xi^(-b-2n) X^(2n)]: for t in (0, 1], where X >= -t, xi >= 1-qt;
//     where X < -t, |X| <= 1 and xi >= 1-q; so R = (1-qt)^(-b-2n)
//     E[X^(2n)] + (1-q)^(-b-2n) P(X < -t), the smallest over a few t
//     (t = 1: the second term is 0). P(X < -t) = P(z < s^2 (ln(1-t) + c))
//     = Phi(x0), x0 = s ln(1-t) + 1/(2s), is bounded by min(1/2,
//     1/(|x0| sqrt(2 pi))) exp(-x0^2/2) for x0 < 0 (Chernoff; Mills ratio).
//     E[X^j] = sum_i C(j,i) (-1)^(j-i) E[Y^i] = Delta^j g(0), the j-th
//     forward difference of g(i) = exp(c i(i-1)); expanding g in powers of
//     c, each (i(i-1))^m = (i^(2 falling))^m is a sum of falling factorials
//     with nonnegative coefficients, whose forward differences at 0 are
//     >= 0; so E[X^j] = sum_m c^m D_m/m! with D_m >= 0: E[X^j] >= 0 and it
//     is nondecreasing in c (momentXBounds).
//  2. (1-q)^-b: Q/P <= 1/(1-q).
//  3. q a b c: ln E_Q[(Q/P)^b] = ln int Q^a P^-b is convex in P (by
//     AM-GM, ((1-q)Q + qR)^-b <= Q^(-b(1-q)) R^(-bq), then Hoelder), so
//     with P = (1-q) Q + q N(1, s^2) it is at most (1-q) ln 1 + q ln
//     int Q^a N(1,s^2)^-b = q a b c.
func sgmLogBUpper(a, sigma, cLo, cHi, q float64) float64 {
	b := a - 1
	l1q := math.Log1p(-q)
	best := certUp(-b*l1q, 3*certEps*math.Abs(b*l1q)) // 2.
	best = math.Min(best, certUp(q*a*b*cHi, 0))       // 3. (4 roundings < certEps)
	var lo, hi [9]float64                             // bounds on E[X^j]
	for j := 2; j <= 8; j++ {
		lo[j], hi[j] = momentXBounds(j, cLo, cHi)
	}
	for n := 1; n <= 4; n++ {
		pos, neg := 0.0, 0.0
		for j := 2; j < 2*n; j++ {
			if j%2 == 0 {
				pos += binomRealUpper(b+float64(j)-1, j) * powUpper(q, j) * hi[j]
			} else {
				neg += binomRealLower(b+float64(j)-1, j) * powLower(q, j) * lo[j]
			}
		}
		// remainder: (1-qt)^(-b-2n) = exp(-(b+2n) log1p(-qt))
		powm := func(t float64) float64 {
			e := -(b + float64(2*n)) * math.Log1p(-q*t) // q*t: one rounding
			return math.Exp(certUp(e, 4*certEps*math.Abs(e))) * (1 + 2*certEps)
		}
		full := powm(1)
		r := full * hi[2*n]
		for _, t := range []float64{0.5, 0.2, 0.1, 0.05, 0.02, 0.01} {
			r = math.Min(r, powm(t)*hi[2*n]*(1+2*certEps)+full*gaussTailUpper(sigma, t)*(1+2*certEps))
		}
		pos += binomRealUpper(b+float64(2*n)-1, 2*n) * r * powUpper(q, 2*n)
		pos *= 1 + 16*certEps // products and sums of positive terms
		neg *= 1 - 16*certEps
		if math.IsNaN(pos) || math.IsInf(pos, 0) || math.IsNaN(neg) {
			continue
		}
		s := math.Max(0, certUp(pos-neg, certEps*(pos+neg))) // B_a - 1 <= s
		best = math.Min(best, certUp(math.Log1p(s), 2*certEps*math.Log1p(s)))
	}
	return best
}

// gaussTailUpper returns an upper bound on P(X < -t) = Phi(x0), x0 =
// sigma ln(1-t) + 1/(2 sigma) (sgmLogBUpper), t in (0, 1).
func gaussTailUpper(sigma, t float64) float64 {
	l := math.Log1p(-t)
	x0 := sigma*l + 0.5/sigma
	x0 = certUp(x0, 4*certEps*(math.Abs(sigma*l)+0.5/sigma)) // >= the exact x0
	if !(x0 < 0) {
		return 1
	}
	v := x0 * x0 / 2 * (1 - 4*certEps) // <= x0^2/2
	e := math.Exp(-v) * (1 + 2*certEps)
	m := math.Min(0.5, 1/(-x0*math.Sqrt(2*math.Pi)*(1-4*certEps)))
	return math.Min(1, e*m*(1+2*certEps))
}

// momentXBounds returns lower and upper bounds on E_Q[X^j] = sum_i C(j,i)
// (-1)^(j-i) exp(c i(i-1)) (j >= 2) given cLo <= c <= cHi (E[X^j] >= 0 is
// nondecreasing in c, sgmLogBUpper): the alternating sum evaluated in
// floating point at cLo and cHi, minus and plus a bound on its absolute
// error; for j = 2 it is expm1(2c), bounded relatively.
func momentXBounds(j int, cLo, cHi float64) (lo, hi float64) {
	if j == 2 {
		// expm1 <= 1 ulp; 2c exact.
		return math.Expm1(2*cLo) * (1 - 2*certEps), certUp(math.Expm1(2*cHi), 2*certEps*math.Expm1(2*cHi))
	}
	sum := func(c float64) (s, mag float64) {
		coef := 1.0
		for i := 0; i <= j; i++ {
			if i > 0 {
				coef = coef * float64(j-i+1) / float64(i) // exact: small integers
			}
			arg := c * float64(i*(i-1))
			t := coef * math.Exp(arg)
			if (j-i)%2 == 1 {
				s -= t
			} else {
				s += t
			}
			mag += t * (1 + arg)
		}
		return s, mag
	}
	// Each exp carries relative error <= certEps (1 + arg) (its argument's
	// rounding and the call), the product one rounding; the j+1 additions
	// at most (j+1) 2^-53 of the magnitudes.
	s, mag := sum(cHi)
	if math.IsInf(mag, 0) || math.IsNaN(s) {
		hi = math.Inf(1)
	} else {
		hi = certUp(math.Max(s, 0), float64(j+4)*certEps*mag)
	}
	s, mag = sum(cLo)
	if math.IsInf(mag, 0) || math.IsNaN(s) {
		return 0, hi
	}
	lo = math.Max(0, s-float64(j+4)*certEps*mag*(1+certEps))
	return lo, hi
}

// binomRealUpper returns an upper bound on C(x, j) = x (x-1) ... (x-j+1)/j!
// for real x >= j-1 >= 0 (all factors >= 0).
func binomRealUpper(x float64, j int) float64 {
	v := 1.0
	for i := 0; i < j; i++ {
		v = v * (x - float64(i)) / float64(i+1)
	}
	return v * (1 + float64(3*j+1)*certEps)
}

// binomRealLower returns a lower bound on C(x, j) for real x >= j-1 >= 0.
func binomRealLower(x float64, j int) float64 {
	v := 1.0
	for i := 0; i < j; i++ {
		v = v * (x - float64(i)) / float64(i+1)
	}
	return v * (1 - float64(3*j+1)*certEps)
}

// powLower returns a lower bound on q^j (q in (0, 1), small j).
func powLower(q float64, j int) float64 {
	v := 1.0
	for i := 0; i < j; i++ {
		v *= q
	}
	return v * (1 - float64(j+1)*certEps)
}

// powUpper returns an upper bound on q^j (q in (0, 1), small j).
func powUpper(q float64, j int) float64 {
	v := 1.0
	for i := 0; i < j; i++ {
		v *= q
	}
	return v*(1+float64(j+1)*certEps) + math.SmallestNonzeroFloat64
}

// GaussRenyiUpper returns GaussRenyi rounded up: alpha sens^2/(2 sigma^2)
// (Mironov 2017, Prop. 7) with its five roundings bounded.
func GaussRenyiUpper(sigma, sens float64) (RenyiFunc, error) {
	if _, err := GaussRenyi(sigma, sens); err != nil {
		return nil, err
	}
	c := certUp(sens*sens/(2*sigma*sigma), 0)
	return func(a float64) float64 {
		if !(a > 1) {
			return math.NaN()
		}
		return certUp(a*c, 0)
	}, nil
}

// LaplaceRenyiUpper returns LaplaceRenyi (Mironov 2017, Prop. 6) with a
// bound on its absolute error added: l = ln(a/(2a-1) e^((a-1) e0) +
// (a-1)/(2a-1) e^(-a e0)) may cancel to near 0, so its error is bounded by
// the magnitudes of the exponents, not relatively; the result is also at
// most e0 (pure DP, D_alpha <= D_infinity = e0).
func LaplaceRenyiUpper(scale, sens float64) (RenyiFunc, error) {
	if _, err := LaplaceRenyi(scale, sens); err != nil {
		return nil, err
	}
	e0 := certUp(sens/scale, 0)
	return func(a float64) float64 {
		if !(a > 1) {
			return math.NaN()
		}
		if math.IsInf(a, 1) {
			return e0
		}
		x1 := math.Log(a/(2*a-1)) + (a-1)*e0
		x2 := math.Log((a-1)/(2*a-1)) - a*e0
		l := logAddExp(x1, x2)
		err := 16 * certEps * (math.Abs(x1) + math.Abs(x2) + math.Abs(l) + math.Log(2*a) + a*e0 + 1)
		u := certUp(l, err)
		return math.Min(e0, math.Max(0, certUp(u/(a-1), 0)))
	}, nil
}

// RRRenyiUpper returns RRRenyi with a bound on its absolute error added
// (as LaplaceRenyiUpper: the logarithm may cancel to near 0), capped by
// eps0 = ln(p/(1-p)) rounded up.
func RRRenyiUpper(p float64) (RenyiFunc, error) {
	hi, lo, e0, err := rrEps0("RRRenyiUpper", p)
	if err != nil {
		return nil, err
	}
	lh, ll := math.Log(hi), math.Log(lo)
	// Absolute error of lh and ll: the call, and for p < 1/2 the rounding
	// of hi = 1-p (relative 2^-53, so at most 2^-52 in its log); lo is
	// exact (p itself, or 1-p for p >= 1/2 by Sterbenz's lemma).
	el := certEps*(math.Abs(lh)+math.Abs(ll)) + 0x1p-52
	e0u := certUp(e0, certEps*math.Abs(e0)+2*el)
	return func(a float64) float64 {
		if !(a > 1) {
			return math.NaN()
		}
		if math.IsInf(a, 1) {
			return e0u
		}
		x1 := a*lh + (1-a)*ll
		x2 := a*ll + (1-a)*lh
		l := logAddExp(x1, x2)
		e := 16*certEps*(a*(math.Abs(lh)+math.Abs(ll))+math.Abs(l)+1) + 2*a*el
		u := certUp(l, e)
		return math.Min(e0u, math.Max(0, certUp(u/(a-1), 0)))
	}, nil
}

// ComposeRenyiUpper is ComposeRenyi rounded up: alpha -> sum_j counts[j]
// curves[j](alpha), each product and partial sum moved up (Renyi
// divergences add under composition; Mironov 2017, Prop. 1).
func ComposeRenyiUpper(curves []RenyiFunc, counts []int) (RenyiFunc, error) {
	if _, err := ComposeRenyi(curves, counts); err != nil {
		return nil, err
	}
	cs := append([]RenyiFunc(nil), curves...)
	ns := append([]int(nil), counts...)
	return func(a float64) float64 {
		s := 0.0
		for j, c := range cs {
			if ns[j] > 0 {
				s = certUp(s+certUp(float64(ns[j])*c(a), 0), 0)
			}
		}
		return s
	}, nil
}
