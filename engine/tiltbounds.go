package engine

import "math"

// Tilted bounds on delta beyond the buckets' reach, for a pair whose
// events are known one by one (the Vuvuzela counts): lower bounds (exact
// pairs only) and upper bounds.
//
// Where the composed loss leaves the bucket range, or the tail budget
// sends its mass to the corners, the buckets' lower bound is 0 and the
// upper bound the moment bound's, 10-30x above the truth. For r
// observations of a pair with events x of A-mass at least w_x and loss at
// least v_x, restricting the r-fold sum to tuples of such events gives
//
//	delta_{A||B}(eps) >= T(eps) = sum over tuples of prod w (1 - e^(eps - S))^+,  S = the sum of the v,
//
// since (P_A - e^eps P_B)^+ = P_A (1 - e^(eps - L))^+ grows with P_A and L
// (B||A: the B-masses and -L). Tilting by tau > 0, with W(tau) = sum_x
// w_x e^(tau v_x) and q_x = w_x e^(tau v_x)/W(tau) a probability,
//
//	T(eps) = W(tau)^r E_q[h(S)],  h(s) = e^(-tau s) (1 - e^(eps - s))^+,
//
// S now a sum of r i.i.d. draws of v under q. h is unimodal with maximum
// hmax = C(tau) e^(-tau eps) (momentbound.go) and total variation 2 hmax,
// so integrating by parts against the normal law G with the mean and
// variance of S,
//
//	E_q[h(S)] >= integral of h dG - 2 hmax sup|F_S - G|,
//
// and by the Berry-Esseen theorem sup|F_S - G| <= 0.4748 rho/(sigma^3
// sqrt(r)) (Shevtsova 2011, i.i.d. summands; rho = E_q|v - m|^3). The
// normal integral has a closed form. With the events' upper masses and
// upper losses the same steps give an upper bound (+ 2 hmax times the
// Berry-Esseen term), to which the moment bound's rest (the events of
// unknown loss, a union bound) is added. The lower bound is alive where the
// normal integral, about hmax/(z sqrt(2 pi)) at z standard deviations of
// the tilted sum, exceeds the Berry-Esseen term: from about r = 2^14 on
// for deltas near 1e-30 on the paper's pairs (not at r = 1,024).

// berryEsseenC is the constant of the Berry-Esseen inequality for sums of
// i.i.d. variables with finite third moment (Shevtsova, "On the absolute
// constants in the Berry-Esseen type inequalities for identically
// distributed summands", arXiv:1111.6554, 2011).
const berryEsseenC = 0.4748

// tiltMech is implemented by pairs with events known one by one: for
// the lower bound (upper = false) the lower ends of the log-masses (A on
// side 0, B on side 1) and of the losses (L on side 0, -L on side 1) of
// the events of known loss, for the upper bound their upper ends (the
// other events are the moment bound's rest).
type tiltMech interface {
	tiltEvents(side int, upper bool) (lnW, v []float64, ok bool)
}

// tiltEvents implements tiltMech from the moment bound's events.
func (m *countMech) tiltEvents(side int, upper bool) (lnW, v []float64, ok bool) {
	if _, _, _, _, ok := m.lnMoments(); !ok {
		return nil, nil, false
	}
	c := &m.moments
	switch {
	case side == 0 && upper:
		return c.lnA, c.hi, true
	case side == 0:
		return c.lnAlo, c.lo, true
	case upper:
		return c.lnB, c.negLo, true
	}
	return c.lnBlo, c.negHi, true
}

// tiltStats holds, for one tilt, ln W(tau) (rounded down, or up for an
// upper bound) and the mean,
// variance and third absolute central moment of v under q.
type tiltStats struct {
	lnW, mean, variance, rho float64
	// dropped bounds the share of q left out (upper bounds only)
	dropped float64
}

// tiltAt returns the tilt statistics of the events (lnW, v) at tau.
func tiltAt(lnW, v []float64, tau float64, upper bool) (tiltStats, bool) {
	mx, big := math.Inf(-1), 0.0
	for k := range lnW {
		if x := lnW[k] + tau*v[k]; x > mx {
			mx = x
		}
		big = math.Max(big, math.Abs(lnW[k])+math.Abs(tau*v[k]))
	}
	if math.IsInf(mx, 0) || math.IsNaN(mx) {
		return tiltStats{}, false
	}
	// events below e^-tailSkip of the largest tilted weight are left
	// out: for a lower bound a sub-measure (sound as it is), for an upper
	// bound their weight is added to W and their share of q (dropped) to
	// the distance between the laws
	var s, sv float64
	w := make([]float64, len(lnW))
	skipped := 0
	for k := range lnW {
		x := lnW[k] + tau*v[k] - mx
		if x < -tailSkip {
			skipped++
			continue
		}
		e := math.Exp(x)
		w[k] = e
		s += e
		sv += e * v[k]
	}
	mean := sv / s
	kept := s
	dropped := 0.0
	if upper && skipped > 0 {
		dropped = float64(skipped) * math.Exp(-tailSkip+1)
		s += dropped
		dropped /= s
	}
	var s2, s3 float64
	for k, e := range w {
		d := v[k] - mean
		s2 += e * d * d
		s3 += e * math.Abs(d*d*d)
	}
	// ln W rounded outwards: the exponents' and the sum's rounding
	lw := mx + math.Log(s)
	slack := 8*unitRoundoff*(math.Abs(mx)+big+1) + gamma(len(lnW)+8) + 1e-12
	if upper {
		lw += slack
	} else {
		lw -= slack
	}
	return tiltStats{lnW: lw, mean: mean, variance: s2 / kept, rho: s3 / kept, dropped: dropped}, s2 > 0
}

// lnNormQ returns ln P(Z > x) for a standard normal Z (relative error of
// the result's exponent below 1e-12 for the x used here).
func lnNormQ(x float64) float64 {
	if x < 30 {
		return math.Log(normQ(x))
	}
	// Q(x) = phi(x)/x (1 - 1/x^2 + 3/x^4 - ...), the series' error below
	// its first omitted term (15/x^6 < 2e-8 at x = 30)
	x2 := x * x
	return -x2/2 - math.Log(x*math.Sqrt(2*math.Pi)) + math.Log1p(-1/x2+3/(x2*x2)-15/(x2*x2*x2))
}

// tiltBoundAt returns a lower bound on T(eps) at tilt tau (0 when the
// Berry-Esseen term exceeds the normal integral), or with upper an upper
// bound on it from the events' upper ends (+Inf when none). For the lower
// bound, score orders the tilts for the search: the bound where it is
// positive, else the normal integral's margin over the Berry-Esseen term
// minus 1 (negative).
func tiltBoundAt(lnW, v []float64, r int, eps, tau float64, upper bool) (bound, score float64) {
	fail, failScore := 0.0, math.Inf(-1)
	if upper {
		fail, failScore = math.Inf(1), math.Inf(1)
	}
	st, ok := tiltAt(lnW, v, tau, upper)
	if !ok || !(tau > 0) {
		return fail, failScore
	}
	fr := float64(r)
	mu, V := fr*st.mean, fr*st.variance
	sd := math.Sqrt(V)
	// ln hmax rounded up
	lnH := -tau*eps + lnC(tau)
	lnH += 8 * unitRoundoff * (math.Abs(tau*eps) + 1)
	// ln of E[e^(-t S) 1{S > eps}] under N(mu, V), relative to hmax
	lnI := func(t float64) float64 {
		return -t*mu + t*t*V/2 + lnNormQ((eps-mu+t*V)/sd) - lnH
	}
	a, b := lnI(tau), eps+lnI(tau+1)
	if math.IsNaN(a) || math.IsNaN(b) || a > 700 {
		return fail, failScore
	}
	// the exponents' rounding (|tau mu|, |tau eps| and t^2 V of a few
	// hundred at most) and lnNormQ's: relative 1e-9 on each term;
	// Berry-Esseen, and an allowance for the normal law's mean and
	// variance computed in floating point (their relative errors, about
	// n u, move G by far less than 1e-6)
	// the events left out move the law of S by at most r dropped in
	// total variation
	be := berryEsseenC*st.rho*(1+1e-9)/(math.Pow(st.variance*(1-1e-9), 1.5)*math.Sqrt(fr)) + 1e-6 + fr*st.dropped
	lnSlack := 8*unitRoundoff*(math.Abs(fr*st.lnW)+math.Abs(lnH)+1) + fr*gamma(len(lnW)+8)
	if upper {
		j := math.Exp(a)*(1+1e-9) - math.Exp(b)*(1-1e-9)
		rest := math.Max(j, 0) + 2*be
		u := math.Exp(fr*st.lnW+lnH+math.Log(rest)+lnSlack) * (1 + 1e-9)
		return u, u
	}
	j := math.Exp(a)*(1-1e-9) - math.Exp(b)*(1+1e-9)
	rest := j - 2*be
	if !(rest > 0) {
		if math.IsNaN(rest) {
			return 0, math.Inf(-1)
		}
		return 0, rest - 1
	}
	l := math.Exp(fr*st.lnW+lnH+math.Log(rest)-lnSlack) * (1 - 1e-9)
	if l == 0 {
		return 0, -1
	}
	return l, l
}

// tiltSteps is the number of golden-section steps of tiltBound (each
// two passes over the events).
const tiltSteps = 8

// tiltBound returns a lower (or with upper an upper) bound on T(eps) of r
// observations of the pair from its events (lnW, v) of one side: the best
// of tiltBoundAt over tilts found by golden section on ln tau between
// tau0/2 and 2 tau0 (tau0: the moment bound's best tilt of the side, near
// the saddle point).
func tiltBound(lnW, v []float64, r int, eps, tau0 float64, upper bool) float64 {
	if len(lnW) == 0 || !(tau0 > 0) {
		if upper {
			return math.Inf(1)
		}
		return 0
	}
	// golden section for the largest score: the lower bound's, or minus
	// the upper bound
	best := 0.0
	if upper {
		best = math.Inf(1)
	}
	f := func(lt float64) float64 {
		b, sc := tiltBoundAt(lnW, v, r, eps, math.Exp(lt), upper)
		if upper {
			best = math.Min(best, b)
			return -sc
		}
		best = math.Max(best, b)
		return sc
	}
	const g = 0.6180339887498949
	a, b := math.Log(tau0)-math.Ln2, math.Log(tau0)+math.Ln2
	c, d := b-g*(b-a), a+g*(b-a)
	fc, fd := f(c), f(d)
	for i := 0; i < tiltSteps; i++ {
		if fc > fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = f(d)
		}
	}
	return best
}

// bestTilt returns the positive tilt of tailTaus with the smallest moment
// bound of the side at eps (0 when none is finite).
func (x *momentBound) bestTilt(eps float64, side int) float64 {
	best, bt := math.Inf(1), 0.0
	for k, tau := range tailTaus {
		if tau <= 0 {
			continue
		}
		m := x.ma[k]
		if side == 1 {
			m = x.mb[k+1]
		}
		if math.IsNaN(m) || math.IsInf(m, 1) {
			continue
		}
		if e := m - tau*eps + lnC(tau); e < best {
			best, bt = e, tau
		}
	}
	return bt
}
