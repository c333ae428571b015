package engine

import (
	"math"
)

// Reference values of delta(eps) for the soundness tests, computed in log
// space so that they stay accurate where delta or e^eps leave the float64
// range (eps in the thousands, delta far below 1e-308). Each returns
// ln delta(eps) (-Inf for delta = 0) and a bound unc on its error, from the
// conditioning of the formula: 1 - e^(eps - L) for eps within 1e-9 of an
// atom L = 480 is known only to about u 480 / 1e-9 = 5e-5 relatively in
// float64 (checked against mpmath in TestReferencesAgainstMpmath).

// refFn is a reference: ln delta(eps) and its uncertainty (absolute, in
// ln delta, i.e. relative in delta).
type refFn func(eps float64) (ln, unc float64)

// val returns the reference's ln delta alone.
func (f refFn) val(eps float64) float64 {
	v, _ := f(eps)
	return v
}

// u64 is the unit roundoff of float64.
const u64 = 0x1p-53

// log1mExpUnc returns ln(1 - e^d) for d < 0 given with an absolute error
// of at most dd, and the resulting uncertainty (d/dd ln(1 - e^d) =
// -e^d/(1 - e^d)); +Inf uncertainty when dd may reach 0.
func log1mExpUnc(d, dd float64) (float64, float64) {
	v := log1mExp(d)
	if dd >= -d {
		return v, math.Inf(1)
	}
	// the derivative is largest at d + dd
	x := d + dd
	return v, dd*math.Exp(x)/(-math.Expm1(x)) + 4*u64*(1+math.Abs(v))
}

// logSumUnc accumulates ln sum e^(t_k) with uncertainties: the result's
// uncertainty is the weighted mean of the terms'.
type logSumUnc struct{ s, w float64 } // s = ln sum, w = sum e^(t_k - s) unc_k

func newLogSumUnc() logSumUnc { return logSumUnc{s: math.Inf(-1)} }

func (l *logSumUnc) add(t, unc float64) {
	if math.IsInf(t, -1) {
		return
	}
	if math.IsInf(l.s, -1) {
		l.s, l.w = t, unc
		return
	}
	ns := logAddExp(l.s, t)
	l.w = l.w*math.Exp(l.s-ns) + unc*math.Exp(t-ns)
	l.s = ns
}

// addHockey adds the term (P - e^eps Q)^+ of an event with ln masses lp,
// lq (uncertainties dp, dq): P in full where Q = 0 (at every eps, +Inf
// included), nothing where P = 0.
func (l *logSumUnc) addHockey(lp, dp, lq, dq, eps float64) {
	switch {
	case math.IsInf(lp, -1):
	case math.IsInf(lq, -1):
		l.add(lp, dp)
	case math.IsInf(eps, 1):
	default:
		if d := eps + lq - lp; d < 0 {
			v, dv := log1mExpUnc(d, dp+dq+2*u64*(eps+math.Abs(lp)+math.Abs(lq)))
			l.add(lp+v, dp+dv)
		}
	}
}

// get returns ln sum (at most 0: the sums are probabilities of delta <= 1)
// and its uncertainty.
func (l logSumUnc) get() (float64, float64) {
	if math.IsInf(l.s, -1) {
		return l.s, 0
	}
	return math.Min(l.s, 0), l.w + 4*u64*(1+math.Abs(l.s))
}

// logQ returns ln P(Z > x) for a standard normal Z.
func logQ(x float64) float64 {
	switch {
	case x < -5:
		// 1 - Q(-x), Q(-x) < 3e-7
		return math.Log1p(-0.5 * math.Erfc(-x/math.Sqrt2))
	case x < 30:
		return ln(0.5 * math.Erfc(x/math.Sqrt2))
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
	return -hi/2 - lo/2 - 0.5*ln(2*math.Pi) - ln(x+cf)
}

// log1mExp returns ln(1 - e^x) for x <= 0 (-Inf at 0).
func log1mExp(x float64) float64 {
	if x > -math.Ln2 {
		return ln(-math.Expm1(x))
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

// logQUnc returns logQ(x) for an x carrying an absolute error of at most
// dx, and its uncertainty (|d/dx ln Q| <= |x| + 1).
func logQUnc(x, dx float64) (float64, float64) {
	v := logQ(x)
	return v, dx*(math.Abs(x)+1+dx) + 8*u64*(1+math.Abs(v))
}

// refGauss returns ln delta(eps) of the Gauss pair with mu = sensitivity
// * sqrt(r) / sigma: delta = Q(eps/mu - mu/2) - e^eps Q(eps/mu + mu/2).
func refGauss(mu, eps float64) (float64, float64) {
	if math.IsInf(eps, 1) {
		return math.Inf(-1), 0
	}
	dx := 4 * u64 * (eps/mu + mu/2)
	a, da := logQUnc(eps/mu-mu/2, dx)
	b, db := logQUnc(eps/mu+mu/2, dx)
	d := eps + b - a
	if !(d < 0) {
		return math.Inf(-1), 0
	}
	dd := da + db + 4*u64*(eps+math.Abs(a)+math.Abs(b))
	l, dl := log1mExpUnc(d, dd)
	return a + l, da + dl
}

// lchooseRef returns ln C(n, k).
func lchooseRef(n, k int) float64 {
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	if n < 1000 {
		s := 0.0
		for i := 0; i < k; i++ {
			s += ln(float64(n-i)) - ln(float64(i+1))
		}
		return s
	}
	return lchoose(n, k)
}

// refRRLog returns ln delta(eps) of r-fold randomized response given by the
// logs of its two probabilities (lp >= lq, each with an absolute error of
// at most dlp): the binomial sum of C(r,k) p^k q^(r-k)
// (1 - e^(eps - (2k-r) ln(p/q))) over the k with (2k-r) ln(p/q) > eps.
func refRRLog(lp, lq, dlp float64, r int, eps float64) (float64, float64) {
	if lp < lq {
		lp, lq = lq, lp
	}
	if math.IsInf(eps, 1) {
		return math.Inf(-1), 0
	}
	lr := lp - lq
	dlr := 2*dlp + u64*lr
	s := newLogSumUnc()
	lc := 0.0 // ln C(r, k), from k = r down: C(r,k) = C(r,k+1) (k+1)/(r-k)
	for k := r; k >= 0; k-- {
		if k < r {
			lc += ln(float64(k+1)) - ln(float64(r-k))
		}
		L := float64(2*k-r) * lr
		if !(L > eps) {
			break
		}
		// ln C(r, k) as a sum of 2(r-k) logs: its error is a few units of
		// roundoff of the terms, r ln r at most
		dlc := 4 * u64 * (float64(r) + 1) * ln(float64(r)+1)
		dL := math.Abs(float64(2*k-r))*dlr + u64*L
		l, dl := log1mExpUnc(eps-L, dL+u64*(eps+L))
		t := lc + float64(k)*lp + float64(r-k)*lq + l
		dt := dlc + float64(r)*dlp + dl + 8*u64*(1+math.Abs(t))
		s.add(t, dt)
	}
	return s.get()
}

// refRR returns ln delta(eps) of r-fold randomized response with bias p.
func refRR(p float64, r int, eps float64) (float64, float64) {
	lp, lq := ln(p), math.Log1p(-p)
	return refRRLog(lp, lq, 2*u64*(1+math.Abs(lq)), r, eps)
}

// refEpsDelta returns ln delta(eps) of the r-fold M_{eps0, d}:
// 1 - (1-d)^r + (1-d)^r RR_r(eps) with RR's p = e^eps0/(1+e^eps0).
func refEpsDelta(eps0, d float64, r int, eps float64) (float64, float64) {
	l1d := float64(r) * math.Log1p(-d) // ln (1-d)^r
	dl1d := 4 * u64 * math.Abs(l1d)
	dist := math.Inf(-1)
	if d > 0 {
		dist = log1mExp(l1d)
	}
	s := newLogSumUnc()
	s.add(dist, 8*u64)
	if !math.IsInf(eps, 1) && eps0 > 0 {
		lp := -math.Log1p(math.Exp(-eps0))
		lq := -eps0 + lp
		rr, drr := refRRLog(lp, lq, 4*u64*(1+eps0), r, eps)
		s.add(l1d+rr, dl1d+drr)
	}
	return s.get()
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
func refLaplace(mu float64, r int, eps float64) (float64, float64) {
	if math.IsInf(eps, 1) {
		return math.Inf(-1), 0
	}
	total := newLogSumUnc()
	for a := 0; a <= r; a++ {
		for b := 0; a+b <= r; b++ {
			j := r - a - b
			// ln of multinomial r!/(a! b! j!) (1/2)^a (e^-mu/2)^b
			lw := lchooseRef(r, a) + lchooseRef(r-a, b) - float64(a+b)*math.Ln2 - float64(b)*mu
			dlw := 8 * u64 * (1 + math.Abs(lw))
			c := eps - float64(a-b)*mu // need continuous sum s > c
			if j == 0 {
				if 0 > c {
					l, dl := log1mExpUnc(c, 4*u64*(eps+float64(r)*mu))
					total.add(lw+l, dlw+dl)
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
				// e^(-j mu) e^(mu j) cancel; quadrature and Irwin-Hall
				// cancellation about 1e-12
				l := lw + float64(j)*ln(mu/2) + ln(sum)
				total.add(l, dlw+1e-11)
			}
		}
	}
	return total.get()
}

// refEnumerate returns ln delta(eps) of the product of the pairs (as[k],
// bs[k]) by enumeration of every product event in log space, maximised
// over both directions (Lemma 1).
func refEnumerate(as, bs [][]float64, eps float64) (float64, float64) {
	ab, dab, ba, dba := refEnumerateDirs(as, bs, eps)
	if ab >= ba {
		return ab, dab
	}
	return ba, dba
}

// refEnumerateDirs is refEnumerate per direction: ln delta_{A||B}(eps) and
// ln delta_{B||A}(eps), each with its uncertainty.
func refEnumerateDirs(as, bs [][]float64, eps float64) (ab, dab, ba, dba float64) {
	// Each event's masses are products of at most a few factors: in float64
	// (8u relative) while they stay normal, else as sums of logs.
	type ev struct{ pa, pb, la, lb, da, db float64 }
	evs := []ev{{1, 1, 0, 0, 0, 0}}
	for k := range as {
		var next []ev
		for _, e := range evs {
			for i := range as[k] {
				if as[k][i] == 0 && bs[k][i] == 0 {
					continue
				}
				la, lb := ln(as[k][i]), ln(bs[k][i])
				next = append(next, ev{e.pa * as[k][i], e.pb * bs[k][i], e.la + la, e.lb + lb,
					e.da + 2*u64*(1+math.Abs(la)+math.Abs(e.la+la)), e.db + 2*u64*(1+math.Abs(lb)+math.Abs(e.lb+lb))})
			}
		}
		evs = next
	}
	for i, e := range evs {
		if e.pa > 1e-290 {
			evs[i].la, evs[i].da = ln(e.pa), 2*u64*(8+math.Abs(ln(e.pa)))
		}
		if e.pb > 1e-290 {
			evs[i].lb, evs[i].db = ln(e.pb), 2*u64*(8+math.Abs(ln(e.pb)))
		}
	}
	dir := func(aSide bool) (float64, float64) {
		s := newLogSumUnc()
		for _, e := range evs {
			if aSide {
				s.addHockey(e.la, e.da, e.lb, e.db, eps)
			} else {
				s.addHockey(e.lb, e.db, e.la, e.da, eps)
			}
		}
		return s.get()
	}
	ab, dab = dir(true)
	ba, dba = dir(false)
	return ab, dab, ba, dba
}

// refEps returns the tight eps for delta of a mechanism with ln delta(eps)
// = ref(eps): inf{eps >= 0: delta(eps) <= delta} (+Inf when delta(+Inf) >
// delta), by bisection to a relative precision of 1e-14.
func refEps(ref refFn, delta float64) float64 {
	ld := ln(delta)
	if ref.val(0) <= ld {
		return 0
	}
	if ref.val(math.Inf(1)) > ld {
		return math.Inf(1)
	}
	lo, hi := 0.0, 1.0
	for ref.val(hi) > ld {
		lo, hi = hi, hi*2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for i := 0; i < 200 && hi-lo > 1e-14*hi; i++ {
		m := lo + (hi-lo)/2
		if ref.val(m) > ld {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}
