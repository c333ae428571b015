package engine

import (
	"math"
)

// Reference values of delta(eps) for the soundness tests, computed in log
// space so that they stay accurate where delta or e^eps leave the float64
// range (eps in the thousands, delta far below 1e-308). Each returns
// ln delta(eps) (-Inf for delta = 0), accurate to about 1e-12 relative in
// delta (checked against mpmath in TestReferencesAgainstMpmath).

// logQ returns ln P(Z > x) for a standard normal Z.
func logQ(x float64) float64 {
	switch {
	case x < -5:
		// 1 - Q(-x), Q(-x) < 3e-7
		return math.Log1p(-0.5 * math.Erfc(-x/math.Sqrt2))
	case x < 30:
		return math.Log(0.5 * math.Erfc(x/math.Sqrt2))
	}
	// Q(x) = phi(x)/x * (1 - 1/x^2 + 3/x^4 - 15/x^6 + ...) (Laplace's
	// continued fraction, evaluated from the tail: exact to rounding for
	// x >= 30 with 40 terms).
	cf := 0.0
	for k := 60; k >= 1; k-- {
		cf = float64(k) / (x + cf)
	}
	// ln phi(x) = -x^2/2 - ln sqrt(2 pi), with x^2 split exactly
	hi := x * x
	lo := math.FMA(x, x, -hi)
	return -hi/2 - lo/2 - 0.5*math.Log(2*math.Pi) - math.Log(x+cf)
}

// log1mExp returns ln(1 - e^x) for x <= 0 (-Inf at 0).
func log1mExp(x float64) float64 {
	if x > -math.Ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// logAddExp returns ln(e^a + e^b).
func logAddExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// refGauss returns ln delta(eps) of the Gauss pair with mu = sensitivity
// * sqrt(r) / sigma: delta = Q(eps/mu - mu/2) - e^eps Q(eps/mu + mu/2).
func refGauss(mu, eps float64) float64 {
	if math.IsInf(eps, 1) {
		return math.Inf(-1)
	}
	a := logQ(eps/mu - mu/2)
	b := logQ(eps/mu + mu/2)
	d := eps + b - a
	if !(d < 0) {
		return math.Inf(-1)
	}
	return a + log1mExp(d)
}

// lchooseRef returns ln C(n, k).
func lchooseRef(n, k int) float64 {
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	if n < 1000 {
		s := 0.0
		for i := 0; i < k; i++ {
			s += math.Log(float64(n-i)) - math.Log(float64(i+1))
		}
		return s
	}
	return lchoose(n, k)
}

// refRRLog returns ln delta(eps) of r-fold randomized response given by the
// logs of its two probabilities (lp >= lq): the binomial sum of
// C(r,k) p^k q^(r-k) (1 - e^(eps - (2k-r) ln(p/q))) over the k with
// (2k-r) ln(p/q) > eps.
func refRRLog(lp, lq float64, r int, eps float64) float64 {
	if lp < lq {
		lp, lq = lq, lp
	}
	if math.IsInf(eps, 1) {
		return math.Inf(-1)
	}
	lr := lp - lq
	s := math.Inf(-1)
	for k := r; k >= 0; k-- {
		L := float64(2*k-r) * lr
		if !(L > eps) {
			break
		}
		t := lchooseRef(r, k) + float64(k)*lp + float64(r-k)*lq + log1mExp(eps-L)
		s = logAddExp(s, t)
	}
	return s
}

// refRR returns ln delta(eps) of r-fold randomized response with bias p.
func refRR(p float64, r int, eps float64) float64 {
	return refRRLog(math.Log(p), math.Log1p(-p), r, eps)
}

// refEpsDelta returns ln delta(eps) of the r-fold M_{eps0, d}:
// 1 - (1-d)^r + (1-d)^r RR_r(eps) with RR's p = e^eps0/(1+e^eps0).
func refEpsDelta(eps0, d float64, r int, eps float64) float64 {
	l1d := float64(r) * math.Log1p(-d) // ln (1-d)^r
	dist := math.Inf(-1)
	if d > 0 {
		dist = log1mExp(l1d)
	}
	if math.IsInf(eps, 1) {
		return dist
	}
	lp := -math.Log1p(math.Exp(-eps0))
	lq := -eps0 + lp
	rr := math.Inf(-1)
	if eps0 > 0 {
		rr = refRRLog(lp, lq, r, eps)
	}
	return logAddExp(dist, l1d+rr)
}

// gl20 are the 20-point Gauss-Legendre nodes and weights on [-1, 1].
var gl20x, gl20w = gaussLegendre(20)

// gaussLegendre returns the n-point Gauss-Legendre rule (Newton on the
// Legendre polynomial).
func gaussLegendre(n int) ([]float64, []float64) {
	x, w := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		z := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for it := 0; it < 100; it++ {
			p0, p1 := 1.0, z
			for k := 2; k <= n; k++ {
				p0, p1 = p1, ((2*float64(k)-1)*z*p1-(float64(k)-1)*p0)/float64(k)
			}
			dp = float64(n) * (z*p1 - p0) / (z*z - 1)
			dz := p1 / dp
			z -= dz
			if math.Abs(dz) < 1e-16 {
				break
			}
		}
		x[i], w[i] = z, 2/((1-z*z)*dp*dp)
	}
	return x, w
}

// irwinHall returns the density of the sum of j uniforms on (0, 1) at t,
// evaluated from the nearer end (its terms cancel least there).
func irwinHall(j int, t float64) float64 {
	if t <= 0 || t >= float64(j) {
		return 0
	}
	if t > float64(j)/2 {
		t = float64(j) - t
	}
	s := 0.0
	fact := 1.0
	for k := 2; k < j; k++ {
		fact *= float64(k)
	}
	for k := 0; float64(k) < t; k++ {
		c := math.Exp(lchooseRef(j, k))
		term := c * math.Pow(t-float64(k), float64(j-1))
		if k%2 == 1 {
			term = -term
		}
		s += term
	}
	return s / fact
}

// refLaplace returns ln delta(eps) of the r-fold Laplace pair with
// mu = sensitivity/scale (A = Lap(0, 1), B = Lap(mu, 1) in units of the
// scale), for r <= 8. Each observation's privacy loss under A is mu with
// probability 1/2, -mu with probability e^-mu/2 and has density
// e^((y-mu)/2)/4 on (-mu, mu) otherwise; the r-fold loss is split by the
// numbers a, b of observations at +mu and -mu, and the j = r-a-b others sum
// to -j mu + 2 mu T with T of density e^(mu T)-tilted Irwin-Hall: delta =
// E_A[(1 - e^(eps - L))^+] is integrated by Gauss-Legendre on pieces where
// the integrand is a polynomial times an exponential that changes by at
// most e^2. By the reflection t -> mu - t, both directions are equal.
func refLaplace(mu float64, r int, eps float64) float64 {
	if math.IsInf(eps, 1) {
		return math.Inf(-1)
	}
	total := math.Inf(-1)
	for a := 0; a <= r; a++ {
		for b := 0; a+b <= r; b++ {
			j := r - a - b
			// ln of multinomial r!/(a! b! j!) (1/2)^a (e^-mu/2)^b
			lw := lchooseRef(r, a) + lchooseRef(r-a, b) - float64(a+b)*math.Ln2 - float64(b)*mu
			c := eps - float64(a-b)*mu // need continuous sum s > c
			if j == 0 {
				if 0 > c {
					total = logAddExp(total, lw+log1mExp(c))
				}
				continue
			}
			// s = -j mu + 2 mu t, t in (0, j); contribution
			// (mu/2)^j e^(-j mu) int e^(mu t) g_j(t) (1 - e^(c + j mu - 2 mu t)) dt
			t0 := (c + float64(j)*mu) / (2 * mu)
			if t0 >= float64(j) {
				continue
			}
			lo := math.Max(0, t0)
			// pieces: unit intervals of t (g_j is a polynomial on each),
			// each cut so that mu * width <= 2
			cuts := []float64{lo}
			for k := int(math.Floor(lo)) + 1; k < j; k++ {
				cuts = append(cuts, float64(k))
			}
			cuts = append(cuts, float64(j))
			// integrand in log space relative to e^(mu j)
			var sum float64
			for p := 0; p+1 < len(cuts); p++ {
				x0, x1 := cuts[p], cuts[p+1]
				m := int(math.Ceil(mu * (x1 - x0) / 2))
				if m < 1 {
					m = 1
				}
				h := (x1 - x0) / float64(m)
				for q := 0; q < m; q++ {
					s0 := x0 + float64(q)*h
					for k := range gl20x {
						t := s0 + h*(1+gl20x[k])/2
						f := math.Exp(mu*(t-float64(j))) * irwinHall(j, t) * -math.Expm1(c+float64(j)*mu-2*mu*t)
						sum += gl20w[k] * h / 2 * f
					}
				}
			}
			if sum > 0 {
				l := lw + float64(j)*math.Log(mu/2) + math.Log(sum) // e^(-j mu) e^(mu j) cancel
				total = logAddExp(total, l)
			}
		}
	}
	return total
}

// refEnumerate returns ln delta(eps) of the product of the pairs (as[k],
// bs[k]) by enumeration of every product event in log space, maximised
// over both directions (Lemma 1).
func refEnumerate(as, bs [][]float64, eps float64) float64 {
	// Each event's masses are products of at most a few factors: in float64
	// (8u relative) while they stay normal, else as sums of logs.
	type ev struct{ pa, pb, la, lb float64 }
	evs := []ev{{1, 1, 0, 0}}
	for k := range as {
		var next []ev
		for _, e := range evs {
			for i := range as[k] {
				if as[k][i] == 0 && bs[k][i] == 0 {
					continue
				}
				next = append(next, ev{e.pa * as[k][i], e.pb * bs[k][i], e.la + math.Log(as[k][i]), e.lb + math.Log(bs[k][i])})
			}
		}
		evs = next
	}
	for i, e := range evs {
		if e.pa > 1e-290 {
			evs[i].la = math.Log(e.pa)
		}
		if e.pb > 1e-290 {
			evs[i].lb = math.Log(e.pb)
		}
	}
	dir := func(p, q func(ev) float64) float64 {
		s := math.Inf(-1)
		for _, e := range evs {
			lp, lq := p(e), q(e)
			if math.IsInf(lp, -1) {
				continue
			}
			if math.IsInf(lq, -1) {
				s = logAddExp(s, lp)
				continue
			}
			if math.IsInf(eps, 1) {
				continue
			}
			if d := eps + lq - lp; d < 0 {
				s = logAddExp(s, lp+log1mExp(d))
			}
		}
		return s
	}
	ab := dir(func(e ev) float64 { return e.la }, func(e ev) float64 { return e.lb })
	ba := dir(func(e ev) float64 { return e.lb }, func(e ev) float64 { return e.la })
	return math.Max(ab, ba)
}

// refEps returns the tight eps for delta of a mechanism with ln delta(eps)
// = ref(eps): inf{eps >= 0: delta(eps) <= delta} (+Inf when delta(+Inf) >
// delta), by bisection to a relative precision of 1e-14.
func refEps(ref func(float64) float64, delta float64) float64 {
	ld := math.Log(delta)
	if ref(0) <= ld {
		return 0
	}
	if ref(math.Inf(1)) > ld {
		return math.Inf(1)
	}
	lo, hi := 0.0, 1.0
	for ref(hi) > ld {
		lo, hi = hi, hi*2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for i := 0; i < 200 && hi-lo > 1e-14*hi; i++ {
		m := lo + (hi-lo)/2
		if ref(m) > ld {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}
