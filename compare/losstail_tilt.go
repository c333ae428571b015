package compare

import "math"

// Tilted loss-tail bound: the deep tail of the composed loss.
//
// Chernoff's bound in LossTailLower certifies eps near the mean of the
// composed loss L_r under A^r; where delta lies in its upper tail the
// tight eps is further out. Exponential tilting reaches it: with Lambda(theta)
// = ln E_A[e^(theta L)] = ln E_B[(1+qX)^(1+theta)] and the tilted law
// dA_theta = e^(theta L_r - r Lambda(theta)) dA^r (a probability law),
// for 0 < t1 < t2 and eps < t1,
//
//	delta_{A||B}(eps) = E_A^r[(1 - e^(eps - L_r))^+]
//	  = E_theta[e^(-theta L_r + r Lambda(theta)) (1 - e^(eps - L_r))^+]
//	  >= e^(r Lambda(theta) - theta t2) (1 - e^(eps - t1)) P_theta(t1 < L_r <= t2),
//
// and P_theta(t1 < L_r <= t2) >= 1 - P_theta(L_r <= t1) - P_theta(L_r > t2)
// with Chernoff's bounds under A_theta, for theta' < theta < theta'':
//
//	P_theta(L_r <= t1) <= exp((theta - theta') t1 + r (Lambda(theta') - Lambda(theta))),
//	P_theta(L_r > t2) <= exp(-(theta'' - theta) t2 + r (Lambda(theta'') - Lambda(theta))).
//
// So a lower bound on Lambda(theta) and upper bounds on Lambda(theta'),
// Lambda(theta'') suffice. For theta' = -lambda < 0 the upper bound is
// LossTailLower's logM; Lambda(0) = 0. For theta in (0, 1): Lambda(theta)
// = log1p(E_B[h(qX)]), h(x) = (1+x)^(1+theta) - 1 - (1+theta) x >= 0
// (E_B[X] = 0), evaluated without cancellation as -theta k(x) + (1+x)
// e(-theta log1p(x)) (k, e as in LossTailLower; both terms >= 0). h(qX(z))
// decreases in z below a/2 and increases above, so on each interval of the
// grid its largest value is at the endpoint farther from a/2 and its
// smallest at the nearer one (0 on the interval holding a/2): upper
// bound = the farther endpoints times upper bounds on the masses, plus the
// two tails (z < -14: h <= h(-q) <= (1+theta) q; z > 2a + 14: h <= (1+x)^p
// <= 2^(p-1) (1 + q^p Y^p), p = 1+theta, whose integral is 2^(p-1)
// (Phi(-zHi) + q^p e^((p^2-p) a^2/2) Phi(-(zHi - p a)))); lower bound =
// the nearer endpoints times lower bounds on the masses, tails dropped.
// The rounding is bounded as for logM.
//
// The window (t1, t2) costs theta (t2 - t1) nats, so the bound stays below
// the tight eps by about two standard deviations of L_r times theta; it
// is searched over t1, t2 around the tilted mean r Lambda'(theta) (a
// choice; the claim is the evaluation at the chosen point).

// lossTailThetas returns the tilt parameters theta in (0, 0.9).
func lossTailThetas() []float64 {
	const n = 56
	out := make([]float64, n)
	for i := range out {
		out[i] = 1e-6 * math.Pow(0.9/1e-6, float64(i)/float64(n-1))
	}
	return out
}

// tiltTables fills theta, lamLo, lamUp from the grid of NewLossTailLower.
func (s *LossTailLower) tiltTables(shift, q float64, z, x, dx, l1, kx, mass, massHi []float64) {
	const u = 0x1p-53
	n := len(mass)
	half := shift / 2
	zHi := z[n]
	s.theta = lossTailThetas()
	s.lamLo = make([]float64, len(s.theta))
	s.lamUp = make([]float64, len(s.theta))
	hAt := func(j int, th float64) (lo, hi float64) {
		xj := x[j]
		h := -th*kx[j] + (1+xj)*lossTailE(-th*l1[j])
		// |h'(x)| = (1+th) |(1+x)^th - 1| <= (1+th) th |x| / min(1, 1+x)
		d := math.Min(1, 1+xj)
		e := (1+th)*th*math.Abs(xj)/d*dx[j]*(1+1e-6) + 1e-10*h + 1e-300
		return math.Max(0, h-e), h + e
	}
	for k, th := range s.theta {
		p := 1 + th
		var sumLo, sumUp float64
		for i := 0; i < n; i++ {
			a, b := z[i], z[i+1]
			var near, far int
			switch {
			case b <= half:
				near, far = i+1, i
			case a >= half:
				near, far = i, i+1
			default:
				near = -1
			}
			if near >= 0 {
				lo, _ := hAt(near, th)
				sumLo += lo * mass[i] * (1 - 2*u)
				_, hi := hAt(far, th)
				sumUp += hi * massHi[i] * (1 + 2*u)
			} else {
				_, h1 := hAt(i, th)
				_, h2 := hAt(i+1, th)
				sumUp += math.Max(h1, h2) * massHi[i] * (1 + 2*u)
			}
		}
		// tails of the upper bound
		tail := func(t float64) float64 { return 0.5 * math.Erfc(t/sqrt2) * (1 + 1e-12) }
		lowTail := p * q * tail(14) * (1 + 4*u)
		pw := math.Exp(p*math.Log(q)+(p*p-p)*shift*shift/2) * (1 + 1e-12)
		highTail := math.Pow(2, p-1) * (tail(zHi) + pw*tail(zHi-p*shift)) * (1 + 1e-10)
		sumUp = (sumUp + lowTail + highTail) * (1 + float64(n+8)*u)
		sumLo *= 1 - float64(n+4)*u
		s.lamLo[k] = math.Max(0, math.Log1p(sumLo)*(1-1e-12))
		s.lamUp[k] = math.Log1p(sumUp)*(1+1e-12) + 1e-300
		if math.IsNaN(s.lamUp[k]) || math.IsInf(s.lamUp[k], 0) {
			s.lamUp[k] = math.Inf(1)
		}
	}
}

// tiltAt returns a lower bound on delta_{A||B}(eps) at tilt index j and
// window (t1, t2), 0 < t1 < t2, eps < t1 (else 0), with r steps; and the
// largest eps for which the window's bound reaches delta (-Inf if none)
// when delta > 0.
func (s *LossTailLower) tiltAt(r float64, j int, t1, t2, eps, delta float64) (dLow, epsLow float64) {
	const g = 1e-12
	th, ll := s.theta[j], s.lamLo[j]
	epsLow = math.Inf(-1)
	if !(t1 > 0 && t2 > t1) || math.IsInf(s.lamUp[j], 1) {
		return 0, epsLow
	}
	rll := r * ll
	// C1: lower tail under A_theta, theta' < theta
	c1 := 1.0
	try1 := func(thp, lup float64) {
		lam := (th - thp) * (1 + 4*u53)
		e := lam*t1 + r*lup - rll
		e += g * (math.Abs(lam*t1) + math.Abs(r*lup) + math.Abs(rll) + 1)
		c1 = math.Min(c1, math.Exp(e)*(1+g))
	}
	try1(0, 0)
	for k, l := range s.lambda {
		try1(-l, s.logM[k])
	}
	for i := 0; i < j; i++ {
		try1(s.theta[i], s.lamUp[i])
	}
	// C2: upper tail under A_theta, theta'' > theta
	c2 := 1.0
	for i := j + 1; i < len(s.theta); i++ {
		if math.IsInf(s.lamUp[i], 1) {
			break
		}
		mu := (s.theta[i] - th) * (1 - 4*u53)
		e := -mu*t2 + r*s.lamUp[i] - rll
		e += g * (math.Abs(mu*t2) + math.Abs(r*s.lamUp[i]) + math.Abs(rll) + 1)
		c2 = math.Min(c2, math.Exp(e)*(1+g))
	}
	w := (1 - c1 - c2) * (1 - g)
	if !(w > 0) {
		return 0, epsLow
	}
	main := rll*(1-g) - th*t2*(1+g) - g
	if eps < t1 {
		dLow = math.Exp(main) * (1 - g) * w * -math.Expm1(eps-t1) * (1 - g)
	}
	if delta > 0 {
		rho := delta * (1 + g) / (math.Exp(main) * (1 - g) * w)
		if rho < 1 {
			epsLow = t1 + math.Log1p(-rho)*(1+g) - g*(math.Abs(t1)+1)
		}
	}
	return math.Max(dLow, 0), epsLow
}

// u53 is the unit roundoff 2^-53.
const u53 = 0x1p-53

// tiltWindows calls f with each tilt index and the windows (t1, t2)
// searched around the tilted mean r Lambda'(theta) and standard deviation
// sqrt(r Lambda”(theta)), estimated from the tables (a choice).
func (s *LossTailLower) tiltWindows(r float64, f func(j int, t1, t2 float64)) {
	nt := len(s.theta)
	mid := func(j int) float64 { return (s.lamLo[j] + s.lamUp[j]) / 2 }
	for j := 1; j < nt-1; j++ {
		if math.IsInf(s.lamUp[j+1], 1) {
			break
		}
		h1, h2 := s.theta[j]-s.theta[j-1], s.theta[j+1]-s.theta[j]
		d1 := (mid(j) - mid(j-1)) / h1
		d2 := (mid(j+1) - mid(j)) / h2
		m := r * (d1*h2 + d2*h1) / (h1 + h2)
		v := r * 2 * (d2 - d1) / (h1 + h2)
		if !(m > 0) || !(v > 0) {
			continue
		}
		sd := math.Sqrt(v)
		for a1 := -1.0; a1 <= 4; a1 += 0.25 {
			for a2 := 0.25; a2 <= 5; a2 += 0.25 {
				f(j, m-a1*sd, m+a2*sd)
			}
		}
	}
}
