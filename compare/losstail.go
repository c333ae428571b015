package compare

import (
	"fmt"
	"math"
)

// LossTailLower is a sound LOWER bound on the privacy curve of r
// observations of the pair
//
//	A = (1-q) N(0, 1) + q N(a, 1),  B = N(0, 1)
//
// (a the shift in units of the noise; DP-SGD's remove pair R(q, a), with a
// = 1/sigma for Poisson sampling and a = 2/sigma for fixed-size sampling,
// engine/subsampled.go), from the likelihood-ratio test and Chernoff's
// bound on the lower tail of the privacy loss. It is a bound on a
// mechanism wherever that pair is attained by an instance of it (or
// dominated by one): then the r-fold composition of the pair is a real
// run, and its hockey-stick divergences are the mechanism's lower bounds.
//
// Why it is a lower bound. Let L_r = ln(A^r/B^r) be the privacy loss of
// the r-fold product, S = {L_r > t} and t > eps. Then B^r(S) = E_A^r[e^-L_r;
// S] <= e^-t A^r(S), so
//
//	delta_{A||B}(eps) >= A^r(S) - e^eps B^r(S) >= (1 - e^(eps-t)) (1 - A^r(L_r <= t)),
//
// and Chernoff's bound with lambda > 0 gives A^r(L_r <= t) <= e^(lambda t)
// E_A[e^(-lambda L)]^r, where E_A[e^(-lambda L)] = E_B[(A/B)^(1-lambda)] =
// E_B[(1+qX)^(1-lambda)] with X = exp(a z - a^2/2) - 1, z ~ N(0, 1). The
// mirror image (S' = {-L_r > t}, Chernoff's bound on the upper tail of L
// under B with theta = 1-lambda: B^r(L_r >= -t) <= e^(theta t)
// E_B[(1+qX)^theta]^r) gives delta_{B||A}(eps) the same way. Every t,
// lambda is valid; the search over them only chooses.
//
// The per-step moments M(s) = E_B[(1+qX)^s], s in (0, 1), are bounded
// above by an upper Riemann sum (no numerical integration whose error is
// unbounded): with g(x) = (1+x)^s - 1 - s x <= 0 (concavity), M(s) = 1 +
// E_B[g(qX)] since E_B[X] = 0; g(qX(z)) increases in z below z = a/2 (where
// X = 0) and decreases above, so on each interval of a grid of z the
// largest value is at the endpoint nearer a/2 (0 for the interval holding
// a/2); multiplying by a lower bound on the interval's normal mass and
// dropping the two tails (where g <= 0) bounds E_B[g] from above. g is
// evaluated without cancellation as lambda k(x) + (1+x) e(lambda log1p(x))
// for lambda = 1-s <= 1/2, and as s m(x) + e(-s log1p(x)) for s < 1/2,
// with k(x) = x - (1+x) log1p(x) <= 0, m(x) = log1p(x) - x <= 0 and e(y) =
// expm1(-y) + y >= 0 (series below 0.1 in absolute value). Rounding: the normal masses
// from math.Erfc with a relative allowance of 1e-12 (as SumTest), each g
// with a relative allowance of 1e-10 plus the propagated error of x, sums
// of same-signed terms grown by their count in ulps, logarithms and
// exponentials moved outward by 1e-12 relative.
//
// This bound is near the mean of the loss: for a given delta it certifies
// about eps = r KL(A||B) minus a few standard deviations scaled by
// sqrt(delta), below the tight eps where delta lies in the upper tail of
// the composed loss. The tilted bound (losstail_tilt.go) reaches into that
// tail, about two standard deviations of the tilted loss short of the
// tight eps; DeltaLower and EpsLower return the better of the two. It is
// meant for large r, where the buckets' own lower bound collapses (small
// per-step losses against the leaf's bucket width): at shift 2/0.5775, q
// 1e-5, r 2^30, delta 1e-5 (mean of the composed loss about 954 nats, sd
// about 59) the untilted bound gives 953.6, the tilted one 1059.4, the
// tight eps being about 1215.
type LossTailLower struct {
	// lambda[k] = 1 - s_k, exact multiples of 2^-53 (so 1 - lambda is
	// exact); logM[k] >= ln E_B[(1+qX)^(1-lambda[k])], <= 0.
	lambda, logM []float64
	// theta[j] in (0, 1) and bounds on Lambda(theta) = ln E_A[e^(theta L)]
	// = ln E_B[(1+qX)^(1+theta)] (losstail_tilt.go)
	theta, lamLo, lamUp []float64
}

// lossTailGrid is the number of intervals of the Riemann sum (width w =
// (a + 28)/lossTailGrid): the upper sum's overshoot shrinks with w; at a =
// 3.46, q = 1e-5, r = 2^30 EpsLower(1e-5) measured 948.94, 952.70,
// 953.64, 953.88 with 2^14, 2^16, 2^18, 2^20 intervals.
const lossTailGrid = 1 << 17

// lossTailLambdas returns the Chernoff parameters lambda in (0, 1): a
// geometric sequence from 1e-10 to 1/2 and its mirror 1 - lambda (for the
// B||A direction), each a multiple of 2^-53.
func lossTailLambdas() []float64 {
	const n = 32
	var out []float64
	for i := 0; i < n; i++ {
		l := 1e-10 * math.Pow(0.5/1e-10, float64(i)/float64(n-1))
		l = math.Round(l*0x1p53) / 0x1p53
		out = append(out, l)
	}
	for i := n - 2; i >= 0; i-- {
		out = append(out, 1-out[i]) // exact: out[i] is a multiple of 2^-53 in (0, 1/2)
	}
	return out
}

// NewLossTailLower returns the bound for the pair ((1-q) N(0,1) + q N(shift,
// 1), N(0,1)), 0 < q < 1, shift > 0 finite (at most 100). Its cost is one
// pass over a grid of 2^17 points per Chernoff parameter (63 of them) and
// two per tilt (56), 1.5 s measured on a loaded core; the result serves
// every r; a query costs about 70 ms (EpsLower) to 300 ms (DeltaLower).
func NewLossTailLower(shift, q float64) (*LossTailLower, error) {
	if !(shift > 0 && shift <= 100) {
		return nil, fmt.Errorf("compare: NewLossTailLower: shift must be in (0, 100], got %v", shift)
	}
	if !(q > 0 && q < 1) {
		return nil, fmt.Errorf("compare: NewLossTailLower: q must be in (0, 1), got %v", q)
	}
	const u = 0x1p-53
	zLo, zHi := -14.0, 2*shift+14
	n := lossTailGrid
	w := (zHi - zLo) / float64(n)
	half := shift / 2 // exact
	s2 := shift * shift / 2
	// Per grid point: x = q X(z), its error bound dx, log1p(x), k(x).
	z := make([]float64, n+1)
	x := make([]float64, n+1)
	dx := make([]float64, n+1)
	l1 := make([]float64, n+1)
	kx := make([]float64, n+1)
	mx := make([]float64, n+1)
	for i := range z {
		zi := zLo + float64(i)*w
		if i == n {
			zi = zHi
		}
		z[i] = zi
		arg := shift*zi - s2
		xi := q * math.Expm1(arg)
		x[i] = xi
		// |error of arg| <= 4u (|shift z| + s2); exp(arg) = 1 + xi/q, so
		// the error of q expm1(arg) is at most (q + xi) that error (times
		// a little more), plus a few ulps of xi.
		ea := 4 * u * (math.Abs(shift*zi) + s2)
		dx[i] = (q+xi)*ea*(1+1e-6) + 8*u*math.Abs(xi)
		l1[i] = math.Log1p(xi)
		kx[i] = lossTailK(xi)
		mx[i] = lossTailM(xi)
	}
	// Lower and upper bounds on the N(0,1) masses of [z_i, z_i+1].
	mass := make([]float64, n)
	massHi := make([]float64, n)
	tailUp := func(t float64) (lo, hi float64) { // P(Z > t), t >= 0
		v := 0.5 * math.Erfc(t/sqrt2)
		return v * (1 - 1e-12), v * (1 + 1e-12)
	}
	cdf := func(t float64) (lo, hi float64) { // P(Z < t), t <= 0
		v := 0.5 * math.Erfc(-t/sqrt2)
		return v * (1 - 1e-12), v * (1 + 1e-12)
	}
	for i := 0; i < n; i++ {
		a, b := z[i], z[i+1]
		var m, mh float64
		switch {
		case a >= 0:
			alo, ahi := tailUp(a)
			blo, bhi := tailUp(b)
			m, mh = alo-bhi, ahi-blo
		case b <= 0:
			blo, bhi := cdf(b)
			alo, ahi := cdf(a)
			m, mh = blo-ahi, bhi-alo
		default:
			alo, ahi := cdf(a)
			blo, bhi := tailUp(b)
			m, mh = 1-ahi-bhi, 1-alo-blo
		}
		mass[i] = math.Max(0, m*(1-2*u))
		massHi[i] = mh * (1 + 2*u)
	}
	lt := &LossTailLower{lambda: lossTailLambdas()}
	lt.logM = make([]float64, len(lt.lambda))
	for k, lam := range lt.lambda {
		sum := 0.0
		for i := 0; i < n; i++ {
			var j int
			switch {
			case z[i+1] <= half:
				j = i + 1
			case z[i] >= half:
				j = i
			default:
				continue // the interval holding a/2: g <= g(0) = 0
			}
			xj := x[j]
			var g float64
			if lam <= 0.5 {
				g = lam*kx[j]*(1-1e-10) + (1+xj)*lossTailE(lam*l1[j])*(1+1e-10)
			} else {
				sj := 1 - lam // exact
				g = sj*mx[j]*(1-1e-10) + lossTailE(-sj*l1[j])*(1+1e-10)
			}
			// the error of x: |g'(x)| = (1-lam) |(1+x)^-lam - 1| <=
			// (1-lam) lam |x| / min(1, 1+x)^2 for x > -1, lam in (0, 1).
			d := math.Min(1, 1+xj)
			g += (1 - lam) * lam * math.Abs(xj) / (d * d) * dx[j] * (1 + 1e-6)
			g += 1e-300 // covers the rounding of tiny products
			if g >= 0 {
				continue
			}
			sum += g * mass[i] * (1 - 2*u)
		}
		// n same-signed additions: |error| <= n u |sum|.
		sum *= 1 - float64(n+4)*u
		if !(sum > -1) {
			lt.logM[k] = 0 // no information (M >= 0 always; ln M <= 0)
			continue
		}
		lt.logM[k] = math.Min(0, math.Log1p(sum)*(1-1e-12))
	}
	lt.tiltTables(shift, q, z, x, dx, l1, kx, mass, massHi)
	return lt, nil
}

// lossTailK returns k(x) = x - (1+x) log1p(x) <= 0 for x > -1, by its
// series -sum_{j>=2} (-x)^j/(j(j-1)) for |x| < 0.1 (30 terms, remainder
// below 1e-30 relative).
func lossTailK(x float64) float64 {
	if math.Abs(x) >= 0.1 {
		return math.Min(0, x-(1+x)*math.Log1p(x))
	}
	s, p := 0.0, x
	for j := 2; j <= 30; j++ {
		p *= -x // (-1)^(j+1) x^j ... sign tracked below
		s += p / float64(j*(j-1))
	}
	// p_j = x (-x)^(j-1) = -(-x)^j, so s = -sum (-x)^j/(j(j-1)) = k(x).
	return math.Min(0, s)
}

// lossTailM returns m(x) = log1p(x) - x <= 0 for x > -1, by its series
// sum_{j>=2} -(-x)^j/j for |x| < 0.1 (30 terms).
func lossTailM(x float64) float64 {
	if math.Abs(x) >= 0.1 {
		return math.Min(0, math.Log1p(x)-x)
	}
	s, p := 0.0, x
	for j := 2; j <= 30; j++ {
		p *= -x // p = -(-x)^j
		s += p / float64(j)
	}
	return math.Min(0, s)
}

// lossTailE returns e(y) = expm1(-y) + y >= 0, by its series sum_{j>=2}
// (-y)^j/j! for |y| < 0.1.
func lossTailE(y float64) float64 {
	if math.Abs(y) >= 0.1 {
		return math.Max(0, math.Expm1(-y)+y)
	}
	s, p := 0.0, 1.0
	for j := 1; j <= 20; j++ {
		p *= -y / float64(j)
		if j >= 2 {
			s += p
		}
	}
	return math.Max(0, s)
}

// lossTailUs are the margins u = t - eps tried by the searches.
var lossTailUs = func() []float64 {
	var us []float64
	for i := 0; i <= 240; i++ {
		us = append(us, 1e-8*math.Pow(1e10, float64(i)/240))
	}
	return us
}()

// params returns the Chernoff parameter and the bound on the per-step log
// moment of entry k for direction ab (A||B: lambda, B||A: 1 - lambda).
func (s *LossTailLower) params(k int, ab bool) (p, logM float64) {
	if ab {
		return s.lambda[k], s.logM[k]
	}
	return 1 - s.lambda[k], s.logM[k]
}

// DeltaLower returns a lower bound on the tight delta(eps) of the r-fold
// pair (the larger of both directions, and of the untilted and tilted
// bounds), 0 where it proves nothing.
func (s *LossTailLower) DeltaLower(r int, eps float64) float64 {
	if r < 1 || math.IsNaN(eps) {
		return 0
	}
	eps = math.Max(eps, 0)
	rf := float64(r)
	best := 0.0
	s.tiltWindows(rf, func(j int, t1, t2 float64) {
		for _, t := range [...]float64{t1, math.Max(t1, eps+1e-3), math.Max(t1, eps+0.1), math.Max(t1, eps+1)} {
			if d, _ := s.tiltAt(rf, j, t, t2, eps, 0); d > best {
				best = d
			}
		}
	})
	for _, ab := range []bool{true, false} {
		for k := range s.lambda {
			p, lm := s.params(k, ab)
			rl := rf * lm // <= 0
			for _, u := range lossTailUs {
				// A^r(L_r <= t) <= exp(p t + r logM), t = eps + u
				e := p*(eps+u) + rl
				e += 1e-12 * (math.Abs(p*(eps+u)) + math.Abs(rl) + 1)
				if !(e < 0) {
					break // larger u only raises it
				}
				d := -math.Expm1(e) * (1 - 1e-12) * -math.Expm1(-u) * (1 - 1e-12)
				if d > best {
					best = d
				}
			}
		}
	}
	return math.Min(best, 1)
}

// EpsLower returns a lower bound on the tight eps(delta) of the r-fold pair
// (0 if it proves none), the larger of the tilted bound's (tiltAt) and the
// untilted one's: for each t = eps + u and parameter, (1 - e^-u)
// (1 - exp(p (eps+u) + r logM)) >= delta holds for every eps up to (ln(1 -
// delta/(1-e^-u)) - r logM)/p - u, evaluated rounded down.
func (s *LossTailLower) EpsLower(r int, delta float64) float64 {
	if r < 1 || !(delta > 0 && delta < 1) {
		return 0
	}
	rf := float64(r)
	best := 0.0
	s.tiltWindows(rf, func(j int, t1, t2 float64) {
		if _, e := s.tiltAt(rf, j, t1, t2, 0, delta); e > best {
			best = e
		}
	})
	for _, ab := range []bool{true, false} {
		for k := range s.lambda {
			p, lm := s.params(k, ab)
			rl := -rf * lm * (1 - 1e-12) // >= 0, rounded down
			for _, u := range lossTailUs {
				a := delta / -math.Expm1(-u) * (1 + 1e-12)
				if !(a < 1) {
					continue
				}
				l := math.Log1p(-a) * (1 + 1e-12) // <= 0, rounded down
				v := (l + rl) / p
				e := v - u - 1e-12*(math.Abs(v)+u+1)
				if e > best {
					best = e
				}
			}
		}
	}
	return best
}
