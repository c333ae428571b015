package engine

import (
	"math"
)

// Reference pairs of the soundness property test for the mechanisms whose
// pairs are continuous with a monotone privacy loss: the subsampled
// Gaussian and Laplace pairs (every Sampling x Relation, DP-SGD) and the
// truncated Gauss and Laplace pairs. Each pair is written down again from
// its definition (the doc comments of SubsampledGauss, SubsampledLaplace,
// Gauss and Laplace and the table at the top of subsampled.go), in log
// space, with its own distribution functions (logQ of reference_test.go,
// math.Erf, math.Exp) and its own privacy-loss formulas; no engine pair
// code is called. From these definitions:
//
//   - delta1: the exact delta of one step in one direction (closed form:
//     P_A(L > eps) - e^eps P_B(L > eps) over the pieces, the threshold by
//     bisection), checked against 60-digit mpmath values
//     (TestPairReferencesAgainstMpmath);
//   - refgrid_test.go: a rigorous bracket of the r-fold delta for small r;
//   - reflarge_test.go: a lower bound (a linear statistic) and an upper
//     bound (Renyi divergences) for any r.

// rpMix is a mixture of shifted standard normals (or standard Laplace
// distributions): weights e^lw[i], shifts s[i].
type rpMix struct {
	lw, s []float64
	lap   bool
}

// lnMass returns ln of the mixture's mass of (t1, t2) and its uncertainty.
// The shifts carry a relative rounding error u (they are sensitivity/scale
// computed in float64), the ends are exact.
func (m *rpMix) lnMass(t1, t2 float64) (float64, float64) {
	if !(t2 > t1) {
		return math.Inf(-1), 0
	}
	s := newLogSumUnc()
	for i := range m.lw {
		if math.IsInf(m.lw[i], -1) {
			continue
		}
		x1, x2 := t1-m.s[i], t2-m.s[i]
		dx := 2 * u64 * (finiteAbs(t1) + finiteAbs(t2) + 2*math.Abs(m.s[i]))
		var v, dv float64
		if m.lap {
			v, dv = lnLapMass(x1, x2, dx)
		} else {
			v, dv = lnNormMass(x1, x2, dx)
		}
		s.add(m.lw[i]+v, dv+4*u64*(1+math.Abs(m.lw[i])))
	}
	return s.get()
}

// lnDens returns ln of the mixture's density at t.
func (m *rpMix) lnDens(t float64) float64 {
	v := math.Inf(-1)
	for i := range m.lw {
		if math.IsInf(m.lw[i], -1) {
			continue
		}
		x := t - m.s[i]
		var l float64
		if m.lap {
			l = -math.Abs(x) - math.Ln2
		} else {
			l = -x*x/2 - 0.5*math.Log(2*math.Pi)
		}
		v = logAddExp(v, m.lw[i]+l)
	}
	return v
}

// finiteAbs returns |x| for finite x, 0 for an infinite one (an infinite
// end of an interval carries no rounding error).
func finiteAbs(x float64) float64 {
	if math.IsInf(x, 0) {
		return 0
	}
	return math.Abs(x)
}

// logQInf is logQ with Q(+Inf) = 0 and Q(-Inf) = 1.
func logQInf(x float64) float64 {
	switch {
	case math.IsInf(x, 1):
		return math.Inf(-1)
	case math.IsInf(x, -1):
		return 0
	}
	return logQ(x)
}

// lnNormMass returns ln P(x1 < Z < x2) for a standard normal Z, the ends
// each given with an absolute error of at most dx, and its uncertainty.
func lnNormMass(x1, x2, dx float64) (float64, float64) {
	if !(x2 > x1) {
		return math.Inf(-1), 0
	}
	if x1 >= 0 || x2 <= 0 {
		if x2 <= 0 { // mirror image
			x1, x2 = -x2, -x1
		}
		a := logQInf(x1)
		da := 8 * u64 * (1 + math.Abs(a))
		if !math.IsInf(x1, 0) {
			da += dx * (math.Abs(x1) + 1 + dx)
		}
		if math.IsInf(x2, 1) {
			return a, da
		}
		b := logQInf(x2)
		db := 8*u64*(1+math.Abs(b)) + dx*(math.Abs(x2)+1+dx)
		l, dl := log1mExpUnc(b-a, da+db)
		return a + l, da + dl
	}
	// straddles 0: (erf(x2/sqrt2) + erf(-x1/sqrt2))/2, two positive terms
	// (math.Erf is accurate to about 1 ulp); an error dx of an end moves
	// the mass by at most dx phi(0) = 0.4 dx.
	m := (math.Erf(x2/math.Sqrt2) + math.Erf(-x1/math.Sqrt2)) / 2
	v := ln(m)
	return v, 8*u64*(1+math.Abs(v)) + 0.8*dx/m
}

// lnLapMass returns ln P(x1 < X < x2) for a standard Laplace X, the ends
// with an absolute error of at most dx, and its uncertainty.
func lnLapMass(x1, x2, dx float64) (float64, float64) {
	if !(x2 > x1) {
		return math.Inf(-1), 0
	}
	if x1 >= 0 || x2 <= 0 {
		if x2 <= 0 {
			x1, x2 = -x2, -x1
		}
		// e^-x1/2 (1 - e^-(x2-x1))
		a := -x1 - math.Ln2
		da := dx + 4*u64*(1+math.Abs(a))
		if math.IsInf(x2, 1) {
			return a, da
		}
		l, dl := log1mExpUnc(x1-x2, 2*dx+2*u64*(math.Abs(x1)+math.Abs(x2)))
		return a + l, da + dl
	}
	m := (-math.Expm1(x1) - math.Expm1(-x2)) / 2
	v := ln(m)
	return v, 8*u64*(1+math.Abs(v)) + dx/m
}

// rpLogMix returns ln(1 - q + q e^x) and a bound on its rounding error, x
// taken as exact (dL/dx is in [0, 1], so an error of x passes through at
// most unchanged). Four forms: q = 1 (x itself), x = -Inf (ln(1-q)),
// log1p(q expm1(x)) while 1 + q expm1(x) >= 1/2, else a sum of two
// positive terms (then 1 - q <= 1/2 is exact) or, for x > 700, ln(q e^x)
// plus a log1p.
func rpLogMix(q, x float64) (float64, float64) {
	if q == 1 {
		return x, 0
	}
	if math.IsInf(x, -1) {
		L := math.Log1p(-q)
		return L, 4 * u64 * math.Abs(L)
	}
	if math.IsInf(x, 1) {
		return math.Inf(1), 0
	}
	if x > 700 {
		lw := x + ln(q)
		e := 4 * u64 * (math.Abs(x) + math.Abs(ln(q)))
		var L float64
		if lw > 0 {
			L = lw + math.Log1p((1-q)*math.Exp(-lw))
		} else {
			L = math.Log1p(math.Exp(lw) - q)
		}
		return L, 3*e + 8*u64*(1+math.Abs(L))
	}
	y := q * math.Expm1(x)
	if 1+y >= 0.5 {
		L := math.Log1p(y)
		return L, 8*u64*math.Abs(y)/(1+y) + 4*u64*math.Abs(L) + 1e-300
	}
	L := ln((1 - q) + q*math.Exp(x))
	return L, 8*u64 + 4*u64*math.Abs(L) + 1e-300
}

// rpPiece is a group of events of a reference pair: an atom (ln masses la,
// lb, privacy loss in [loss - dloss, loss + dloss], +-Inf for a
// distinguishing event) or the events t in (t1, t2) of a standardised
// variable with A and B mixtures and a monotone loss. flip exchanges A
// and B (and negates the loss): the mirror image of the piece.
type rpPiece struct {
	atom             bool
	la, dla, lb, dlb float64
	loss, dloss      float64

	t1, t2 float64
	A, B   *rpMix
	lossf  func(t float64) (float64, float64) // ln(dA/dB)(t) and its error
	inc    bool                               // lossf increasing in t
	flip   bool
}

// masses returns ln A(t1, t2), its uncertainty, ln B(t1, t2), its
// uncertainty for a continuous piece.
func (p *rpPiece) masses(t1, t2 float64) (la, dla, lb, dlb float64) {
	la, dla = p.A.lnMass(t1, t2)
	lb, dlb = p.B.lnMass(t1, t2)
	if p.flip {
		return lb, dlb, la, dla
	}
	return
}

// atomMasses returns an atom's ln masses and uncertainties (flip applied).
func (p *rpPiece) atomMasses() (la, dla, lb, dlb float64) {
	if p.flip {
		return p.lb, p.dlb, p.la, p.dla
	}
	return p.la, p.dla, p.lb, p.dlb
}

// lossAt returns the privacy loss at t (flip applied) and its error bound.
func (p *rpPiece) lossAt(t float64) (float64, float64) {
	L, e := p.lossf(t)
	if p.flip {
		return -L, e
	}
	return L, e
}

// atomLoss returns an atom's loss (flip applied) and its error bound.
func (p *rpPiece) atomLoss() (float64, float64) {
	if p.flip {
		return -p.loss, p.dloss
	}
	return p.loss, p.dloss
}

// increasing reports whether the piece's loss (flip applied) increases in t.
func (p *rpPiece) increasing() bool { return p.inc != p.flip }

// rpPair is a reference pair (A, B) given by its pieces.
type rpPair []rpPiece

// swap returns the pair (B, A).
func (rp rpPair) swap() rpPair {
	out := make(rpPair, len(rp))
	for i, p := range rp {
		p.flip = !p.flip
		out[i] = p
	}
	return out
}

// ---------------------------------------------------------------- pairs

func normMix(w, s []float64) *rpMix {
	m := &rpMix{s: s}
	for _, v := range w {
		m.lw = append(m.lw, ln(v))
	}
	return m
}

// mixLn is a mixture given by ln weights.
func mixLn(lw, s []float64, lap bool) *rpMix { return &rpMix{lw: lw, s: s, lap: lap} }

// xErr bounds the error of x = a t - a^2/2 in float64 with a itself
// rounded (relative u): products, the difference, and dx/da = t - a.
func xErr(a, t float64) float64 {
	return 2 * u64 * (math.Abs(a*t) + a*a + a*(math.Abs(t)+a))
}

// rpRemove is R(q, a) = ((1-q) N(0,1) + q N(a,1), N(0,1)): the loss is
// ln(1 - q + q e^(a t - a^2/2)), increasing.
func rpRemove(q, a float64) rpPiece {
	A := mixLn([]float64{math.Log1p(-q), ln(q)}, []float64{0, a}, false)
	return rpPiece{t1: math.Inf(-1), t2: math.Inf(1), inc: true,
		A: A, B: normMix([]float64{1}, []float64{0}),
		lossf: func(t float64) (float64, float64) {
			x := a*t - a*a/2
			if math.IsInf(t, 0) {
				x = t
			}
			L, e := rpLogMix(q, x)
			if math.IsInf(t, 0) {
				return L, e
			}
			return L, e + xErr(a, t)
		}}
}

// rpAntipodal is P(q, a) = ((1-q) N(0) + q N(-a), (1-q) N(0) + q N(a)):
// the loss ln(1-q+q e^(-a t - a^2/2)) - ln(1-q+q e^(a t - a^2/2)) is
// decreasing.
func rpAntipodal(q, a float64) rpPiece {
	lw := []float64{math.Log1p(-q), ln(q)}
	return rpPiece{t1: math.Inf(-1), t2: math.Inf(1), inc: false,
		A: mixLn(lw, []float64{0, -a}, false), B: mixLn(lw, []float64{0, a}, false),
		lossf: func(t float64) (float64, float64) {
			if math.IsInf(t, 0) {
				if t > 0 {
					return math.Inf(-1), 0
				}
				return math.Inf(1), 0
			}
			L1, e1 := rpLogMix(q, -a*t-a*a/2)
			L2, e2 := rpLogMix(q, a*t-a*a/2)
			L := L1 - L2
			return L, e1 + e2 + 2*xErr(a, t) + 2*u64*math.Abs(L)
		}}
}

// rpGaussPair returns the subsampled Gaussian pair of a step with sampling
// rate q and largest contribution m (sensitivity/sigma), from the table of
// SubsampledGauss's doc comment:
//
//	poisson,    add_remove:  (1-q) N(0) + q N(m) vs N(0)
//	poisson,    replace_one: (1-q) N(0) + q N(-m) vs (1-q) N(0) + q N(m)
//	fixed_size, add_remove:  (1-q) N(0) + q N(2m) vs N(0)
//	fixed_size, replace_one: the symmetrised fixed_size add_remove pair
func rpGaussPair(s Sampling, rel Relation, q, m float64) rpPair {
	switch {
	case s == Poisson && rel == AddRemove:
		return rpPair{rpRemove(q, m)}
	case s == Poisson && rel == ReplaceOne:
		return rpPair{rpAntipodal(q, m)}
	case s == FixedSize && rel == AddRemove:
		return rpPair{rpRemove(q, 2*m)}
	}
	return rpSymmetrise(rpPair{rpRemove(q, 2*m)}, q, 2*m, false)
}

// rpSymmetrise returns S of a remove pair R(q, a) (subsampled.go): the
// events t >= a/2 (loss >= 0), their mirror image, and an atom z at loss
// 0 holding the rest of both masses, z = 1 - R_A(t >= a/2) - R_B(t >=
// a/2). For the Gaussian R_A(t >= a/2) = (1-q) Q(a/2) + q (1 - Q(a/2)),
// R_B = Q(a/2): z = (1-q)(1 - 2 Q(a/2)) = (1-q) erf(a/(2 sqrt2)). For the
// Laplace pair R_A(t >= a/2) =
// (1-q) e^(-a/2)/2 + q (1 - e^(-a/2)/2), R_B = e^(-a/2)/2: z = (1-q)(1 -
// e^(-a/2)).
func rpSymmetrise(r rpPair, q, a float64, lap bool) rpPair {
	t0 := a / 2
	var out rpPair
	for _, p := range r {
		p.t1 = math.Max(p.t1, t0)
		if !(p.t2 > p.t1) {
			continue
		}
		out = append(out, p)
		m := p
		m.flip = true
		out = append(out, m)
	}
	var lz float64
	if lap {
		lz = math.Log1p(-q) + log1mExp(-t0)
	} else {
		lz = math.Log1p(-q) + ln(math.Erf(t0/math.Sqrt2))
	}
	if !math.IsInf(lz, -1) {
		dz := 8 * u64 * (1 + math.Abs(lz))
		out = append(out, rpPiece{atom: true, la: lz, lb: lz, dla: dz, dlb: dz})
	}
	return out
}

// rpLapRemove is R(q, a) for Laplace noise: A = (1-q) Lap(0) + q Lap(a), B
// = Lap(0). x(t) = |t| - |t - a| is -a on t <= 0, 2t - a on (0, a) and a
// on t >= a; the loss is ln(1 - q + q e^x). The outer parts are pieces of
// constant loss (atoms of the privacy-loss distribution) given by their
// mixtures, so that lnDiff groups their components too (the right one's
// A - B = q (1 - e^-a)/2 at eps = 0).
func rpLapRemove(q, a float64) rpPair {
	A := mixLn([]float64{math.Log1p(-q), ln(q)}, []float64{0, a}, true)
	B := mixLn([]float64{0}, []float64{0}, true)
	constant := func(t1, t2, x float64) rpPiece {
		L, e := rpLogMix(q, x)
		e += 2 * u64 * a
		return rpPiece{t1: t1, t2: t2, inc: true, A: A, B: B,
			lossf: func(float64) (float64, float64) { return L, e }}
	}
	mid := rpPiece{t1: 0, t2: a, inc: true, A: A, B: B,
		lossf: func(t float64) (float64, float64) {
			L, e := rpLogMix(q, 2*t-a)
			return L, e + 2*u64*(math.Abs(2*t-a)+2*a)
		}}
	return rpPair{constant(math.Inf(-1), 0, -a), mid, constant(a, math.Inf(1), a)}
}

// rpLaplacePair returns the subsampled Laplace pair from the table of
// SubsampledLaplace's doc comment:
//
//	poisson,    add_remove:  (1-q) Lap(0) + q Lap(m) vs Lap(0)
//	poisson,    replace_one: the symmetrised pair of (1-q) Lap(0) + q Lap(2m) vs Lap(0)
//	fixed_size, add_remove:  (1-q) Lap(0) + q Lap(2m) vs Lap(0)
//	fixed_size, replace_one: the symmetrised fixed_size add_remove pair
func rpLaplacePair(s Sampling, rel Relation, q, m float64) rpPair {
	switch {
	case s == Poisson && rel == AddRemove:
		return rpLapRemove(q, m)
	case s == FixedSize && rel == AddRemove:
		return rpLapRemove(q, 2*m)
	}
	return rpSymmetrise(rpLapRemove(q, 2*m), q, 2*m, true)
}

// rpLapAntipodal is P(q, a) for Laplace noise: A = (1-q) Lap(0) + q
// Lap(-a), B = (1-q) Lap(0) + q Lap(a), the worst-case instance of Poisson
// replace-one (the lower pair of that case, lowerpair.go). With x1 = |t| -
// |t+a| and x2 = |t| - |t-a| the loss is ln(1-q+q e^x1) - ln(1-q+q e^x2):
// the constant ln(1-q+q e^a) - ln(1-q+q e^-a) on t <= -a, then
// decreasing (x1 = -2t - a, x2 = -a on (-a, 0); x1 = -a, x2 = 2t - a on
// (0, a)), the negated constant on t >= a.
func rpLapAntipodal(q, a float64) rpPair {
	lw := []float64{math.Log1p(-q), ln(q)}
	A := mixLn(lw, []float64{0, -a}, true)
	B := mixLn(lw, []float64{0, a}, true)
	lossOf := func(x1, x2 float64) (float64, float64) {
		L1, e1 := rpLogMix(q, x1)
		L2, e2 := rpLogMix(q, x2)
		L := L1 - L2
		return L, e1 + e2 + 2*u64*(math.Abs(x1)+math.Abs(x2)+4*a) + 2*u64*math.Abs(L)
	}
	constant := func(t1, t2, x1, x2 float64) rpPiece {
		L, e := lossOf(x1, x2)
		return rpPiece{t1: t1, t2: t2, inc: false, A: A, B: B,
			lossf: func(float64) (float64, float64) { return L, e }}
	}
	left := rpPiece{t1: -a, t2: 0, inc: false, A: A, B: B,
		lossf: func(t float64) (float64, float64) { return lossOf(-2*t-a, -a) }}
	right := rpPiece{t1: 0, t2: a, inc: false, A: A, B: B,
		lossf: func(t float64) (float64, float64) { return lossOf(-a, 2*t-a) }}
	return rpPair{constant(math.Inf(-1), -a, a, -a), left, right, constant(a, math.Inf(1), -a, a)}
}

// rpLowerPair returns the reference of the pair whose lower bounds the
// engine reports for a subsampled mechanism (the table of lowerpair.go),
// and whether it differs from the mechanism's pair:
//
//	poisson,    replace_one, Laplace: P(q, m)
//	fixed_size, both relations:       R(q', 2m), q' the float below q
//
// (fixed-size add/remove with q = 1 has none: ok false).
func rpLowerPair(lap bool, s Sampling, rel Relation, q, m float64) (rp rpPair, distinct, ok bool) {
	switch {
	case s == Poisson && (rel == AddRemove || !lap):
		return nil, false, true
	case s == Poisson:
		return rpLapAntipodal(q, m), true, true
	case rel == AddRemove && q == 1:
		return nil, true, false
	}
	ql := math.Nextafter(q, 0)
	if lap {
		return rpLapRemove(ql, 2*m), true, true
	}
	return rpPair{rpRemove(ql, 2*m)}, true, true
}

// rpGaussTrunc is the Gauss pair of mechanisms.go with mu = sensitivity/
// sigma, truncated at tau = truncate/sigma around each mean (tau = +Inf:
// untruncated): A = N(0) on [-tau, tau] and B = N(mu) on [mu-tau, mu+tau],
// each divided by z = 1 - 2 Q(tau). A alone on [-tau, mu-tau) (loss +Inf),
// B alone on (tau, mu+tau] (loss -Inf), and between the loss mu^2/2 - mu t
// (decreasing).
func rpGaussTrunc(mu, tau float64) rpPair {
	lz := 0.0
	if !math.IsInf(tau, 1) {
		lz = math.Log1p(-math.Erfc(tau / math.Sqrt2))
	}
	var out rpPair
	dz := 8*u64 + 2*u64*tau*math.Exp(-tau*tau/2)
	if !math.IsInf(tau, 1) {
		dx := 2 * u64 * (tau + mu)
		la, dla := lnNormMass(-tau, mu-tau, dx)
		out = append(out, rpPiece{atom: true, la: la - lz, dla: dla + dz, lb: math.Inf(-1), loss: math.Inf(1)})
		lb, dlb := lnNormMass(tau-mu, tau, dx)
		out = append(out, rpPiece{atom: true, lb: lb - lz, dlb: dlb + dz, la: math.Inf(-1), loss: math.Inf(-1)})
	}
	out = append(out, rpPiece{t1: mu - tau, t2: tau, inc: false,
		A: mixLn([]float64{-lz}, []float64{0}, false), B: mixLn([]float64{-lz}, []float64{mu}, false),
		lossf: func(t float64) (float64, float64) {
			if math.IsInf(t, 0) {
				return -t, 0
			}
			L := mu*mu/2 - mu*t
			return L, 4 * u64 * (mu*mu + 2*math.Abs(mu*t) + math.Abs(L))
		}})
	return out
}

// rpLaplaceTrunc is the Laplace pair of mechanisms.go (mu = sensitivity/
// scale) truncated at tau = truncate/scale >= mu around each mean (tau =
// +Inf: untruncated): A = Lap(0) on [-tau, tau], B = Lap(mu) on [mu-tau,
// mu+tau], each divided by z = 1 - e^-tau. A alone on [-tau, mu-tau), B
// alone on (tau, mu+tau]; between, the loss |t - mu| - |t| is mu on
// [mu-tau, 0], mu - 2t on (0, mu) and -mu on [mu, tau].
func rpLaplaceTrunc(mu, tau float64) rpPair {
	lz := 0.0
	if !math.IsInf(tau, 1) {
		lz = log1mExp(-tau)
	}
	dz := 8 * u64
	dx := 2 * u64 * mu
	if !math.IsInf(tau, 1) {
		dx += 2 * u64 * tau
	}
	var out rpPair
	if !math.IsInf(tau, 1) {
		la, dla := lnLapMass(-tau, mu-tau, dx)
		out = append(out, rpPiece{atom: true, la: la - lz, dla: dla + dz, lb: math.Inf(-1), loss: math.Inf(1)})
		lb, dlb := lnLapMass(tau-mu, tau, dx)
		out = append(out, rpPiece{atom: true, lb: lb - lz, dlb: dlb + dz, la: math.Inf(-1), loss: math.Inf(-1)})
	}
	dl := 2 * u64 * mu
	if la, dla := lnLapMass(mu-tau, 0, dx); !math.IsInf(la, -1) {
		lb, dlb := lnLapMass(-tau, -mu, dx)
		out = append(out, rpPiece{atom: true, la: la - lz, dla: dla + dz, lb: lb - lz, dlb: dlb + dz, loss: mu, dloss: dl})
	}
	if la, dla := lnLapMass(mu, tau, dx); !math.IsInf(la, -1) {
		lb, dlb := lnLapMass(0, tau-mu, dx)
		out = append(out, rpPiece{atom: true, la: la - lz, dla: dla + dz, lb: lb - lz, dlb: dlb + dz, loss: -mu, dloss: dl})
	}
	out = append(out, rpPiece{t1: 0, t2: mu, inc: false,
		A: mixLn([]float64{-lz}, []float64{0}, true), B: mixLn([]float64{-lz}, []float64{mu}, true),
		lossf: func(t float64) (float64, float64) {
			L := mu - 2*t
			return L, 4 * u64 * (mu + 2*math.Abs(t) + math.Abs(L))
		}})
	return out
}

// ---------------------------------------------------------------- one step

// lossRange returns the loss (flip applied) at the piece's ends: the
// infimum and the supremum over (t1, t2).
func (p *rpPiece) lossRange() (lo, hi float64) {
	a, _ := p.lossAt(p.t1)
	b, _ := p.lossAt(p.t2)
	if a > b {
		a, b = b, a
	}
	return a, b
}

// threshold returns t* in [t1, t2] where the piece's loss crosses eps
// (computed losses: L(t) <= eps on one side of the returned bracket
// [lo, hi], > eps on the other; hi - lo at most a few ulps or the
// bisection's 300 halvings), for lossRange lo < eps < hi.
func (p *rpPiece) threshold(eps float64) (lo, hi float64) {
	inc := p.increasing()
	// above(t): the computed loss at t exceeds eps
	above := func(t float64) bool {
		L, _ := p.lossAt(t)
		return L > eps
	}
	// finite bracket [x, y] with above(x) != inc... i.e. below at the
	// low-loss end and above at the high-loss end
	x, y := p.t1, p.t2
	if math.IsInf(x, -1) {
		x = math.Min(-1, y-1)
		for k := 0; k < 2100 && above(x) == inc; k++ {
			x *= 2
		}
	}
	if math.IsInf(y, 1) {
		y = math.Max(1, x+1)
		for k := 0; k < 2100 && above(y) != inc; k++ {
			y *= 2
		}
	}
	for i := 0; i < 300; i++ {
		m := x + (y-x)/2
		if m <= x || m >= y {
			break
		}
		if above(m) == inc {
			y = m
		} else {
			x = m
		}
	}
	return x, y
}

// delta1 returns ln delta_{A||B}(eps) of one step, sum over the pieces of
// (A(E) - e^eps B(E))^+ with E the piece's events of loss above eps, and
// its uncertainty. For a continuous piece E = {t: L(t) > eps} is an
// interval cut at the threshold t*, found by bisection on the computed
// loss; its error only costs the mass between t* and the computed cut
// times |1 - e^(eps - L)| there, a second-order term bounded from a
// bracket [ta, tb] of the true t* (where the loss error bounds decide)
// and added to the uncertainty.
func (rp rpPair) delta1(eps float64) (float64, float64) {
	s := newLogSumUnc()
	for i := range rp {
		p := &rp[i]
		if p.atom {
			la, dla, lb, dlb := p.atomMasses()
			s.addHockey(la, dla, lb, dlb, eps)
			continue
		}
		if math.IsInf(eps, 1) {
			continue
		}
		lo, hi := p.lossRange()
		if eps >= hi {
			continue
		}
		if eps < lo {
			s.add(p.lnDiff(p.t1, p.t2, eps))
			continue
		}
		x, y := p.threshold(eps)
		tc := x + (y-x)/2
		r1, r2 := tc, p.t2
		if !p.increasing() {
			r1, r2 = p.t1, tc
		}
		v, dv := p.lnDiff(r1, r2, eps)
		// the second-order term
		ta, tb := p.fuzzBracket(eps, x, y)
		extra := p.fuzzMass(eps, ta, tb)
		if extra > 0 {
			if math.IsInf(v, -1) {
				// only the fuzz: the value is somewhere in [0, extra]
				s.add(ln(extra)-math.Ln2, 1)
				continue
			}
			dv += math.Exp(ln(extra) - v)
		}
		s.add(v, dv)
	}
	return s.get()
}

// lnDiff returns ln(A(t1, t2) - e^eps B(t1, t2)) (-Inf when it is not
// positive) and its uncertainty, grouping the mixtures' components by
// shift: sum over the shifts s of (w_A(s) - e^eps w_B(s)) N_s(t1, t2). The
// coefficients are formed in log space (w_A(s) - e^eps w_B(s) = e^x (1 -
// e^(y-x)) with x = ln w_A(s), y = eps + ln w_B(s)), which keeps them
// accurate where they nearly cancel (the remove pair's 1 - q - e^eps at
// eps = 0: -q), so the difference of the masses is not lost in the masses'
// rounding for small q.
func (p *rpPiece) lnDiff(t1, t2, eps float64) (float64, float64) {
	A, B := p.A, p.B
	if p.flip {
		A, B = B, A
	}
	pos, neg := newLogSumUnc(), newLogSumUnc()
	term := func(lwa, lwb, s float64) {
		x, y := lwa, eps+lwb
		dxy := 4 * u64 * (finiteAbs(lwa) + finiteAbs(lwb) + eps)
		var lc, dlc float64
		sign := 1.0
		switch {
		case math.IsInf(y, -1):
			lc, dlc = x, dxy
		case math.IsInf(x, -1):
			lc, dlc, sign = y, dxy, -1
		default:
			if y > x {
				x, y, sign = y, x, -1
			}
			if y == x {
				return
			}
			l, dl := log1mExpUnc(y-x, dxy)
			lc, dlc = x+l, dxy+dl
		}
		m := &rpMix{lw: []float64{0}, s: []float64{s}, lap: A.lap}
		lm, dlm := m.lnMass(t1, t2)
		if math.IsInf(lm, -1) {
			return
		}
		if sign > 0 {
			pos.add(lc+lm, dlc+dlm)
		} else {
			neg.add(lc+lm, dlc+dlm)
		}
	}
	done := make([]bool, len(B.s))
	for i, s := range A.s {
		lwb := math.Inf(-1)
		for j, sb := range B.s {
			if sb == s && !done[j] {
				lwb, done[j] = B.lw[j], true
				break
			}
		}
		if math.IsInf(A.lw[i], -1) && math.IsInf(lwb, -1) {
			continue
		}
		term(A.lw[i], lwb, s)
	}
	for j, s := range B.s {
		if !done[j] && !math.IsInf(B.lw[j], -1) {
			term(math.Inf(-1), B.lw[j], s)
		}
	}
	// not get(): N may exceed 1 (e^eps B)
	P, dP := pos.s, pos.w+4*u64*(1+math.Abs(pos.s))
	N, dN := neg.s, neg.w+4*u64*(1+math.Abs(neg.s))
	if math.IsInf(P, -1) {
		return P, 0
	}
	if math.IsInf(N, -1) {
		return P, dP
	}
	if !(N < P) {
		return math.Inf(-1), 0
	}
	l, dl := log1mExpUnc(N-P, dP+dN)
	return P + l, dP + dl
}

// fuzzBracket widens the bisection bracket [x, y] to [ta, tb] on which the
// true loss certainly crosses eps: the computed loss plus (minus) its
// error bound is below (above) eps at the low-loss (high-loss) end.
func (p *rpPiece) fuzzBracket(eps, x, y float64) (float64, float64) {
	okLow := func(t float64) bool { L, e := p.lossAt(t); return L+e < eps }
	okHigh := func(t float64) bool { L, e := p.lossAt(t); return L-e > eps }
	// the low-loss side is below x when the loss increases, above y else
	lowEnd, highEnd, lowDir := x, y, -1.0
	lowLimit, highLimit := p.t1, p.t2
	if !p.increasing() {
		lowEnd, highEnd, lowDir = y, x, 1
		lowLimit, highLimit = p.t2, p.t1
	}
	a := expandTo(okLow, lowEnd, lowDir, lowLimit)
	b := expandTo(okHigh, highEnd, -lowDir, highLimit)
	if a > b {
		a, b = b, a
	}
	return a, b
}

// expandTo returns the first point t from start in direction dir (+1 or
// -1) with ok(t), found by doubling steps and bisection (limit, the end of
// the piece, if there is none before it).
func expandTo(ok func(float64) bool, start, dir, limit float64) float64 {
	if ok(start) {
		return start
	}
	prev := start
	step := 4 * u64 * math.Max(math.Abs(start), 1e-300)
	for k := 0; k < 2200; k++ {
		t := start + dir*step
		if dir*(t-limit) >= 0 || math.IsInf(t, 0) {
			return limit
		}
		if ok(t) {
			lo, hi := prev, t
			for i := 0; i < 100; i++ {
				m := lo + (hi-lo)/2
				if m == lo || m == hi {
					break
				}
				if ok(m) {
					hi = m
				} else {
					lo = m
				}
			}
			return hi
		}
		prev = t
		step *= 2
	}
	return limit
}

// fuzzMass bounds the A-mass of (ta, tb) times max |1 - e^(eps - L)| on
// it, the most the cut's position can change the piece's delta. The mass
// of the narrow interval is bounded by the smaller of the two tails
// around it (well conditioned), or by its own value where that is
// accurate.
func (p *rpPiece) fuzzMass(eps, ta, tb float64) float64 {
	if !(tb > ta) {
		return 0
	}
	La, ea := p.lossAt(ta)
	Lb, eb := p.lossAt(tb)
	span := math.Max(math.Abs(La-eps)+ea, math.Abs(Lb-eps)+eb)
	f := math.Expm1(span)
	if !(f < math.Inf(1)) {
		f = math.Inf(1)
	}
	lm, dlm, _, _ := p.masses(ta, tb)
	var m float64
	if dlm < 0.1 {
		m = math.Exp(lm + dlm)
	} else {
		l1, d1, _, _ := p.masses(ta, p.t2)
		l2, d2, _, _ := p.masses(p.t1, tb)
		m = math.Min(math.Exp(l1+d1), math.Exp(l2+d2))
	}
	if m == 0 {
		return 0
	}
	return m * f
}

// rpRef1 returns the exact delta of one step of rp, the larger of the two
// directions (as the engine's Delta), as a refFn: the midpoint and
// half-width of [max of the lower ends, max of the upper ends].
func rpRef1(rp rpPair) refFn {
	sw := rp.swap()
	return func(eps float64) (float64, float64) {
		ab, dab := rp.delta1(eps)
		ba, dba := sw.delta1(eps)
		return maxUnc(ab, dab, ba, dba)
	}
}

// maxUnc returns the midpoint and half-width of the range of max(x, y)
// for x in [a - da, a + da], y in [b - db, b + db] (ln values; -Inf
// exact).
func maxUnc(a, da, b, db float64) (float64, float64) {
	if math.IsInf(a, -1) {
		return b, db
	}
	if math.IsInf(b, -1) {
		return a, da
	}
	lo := math.Max(a-da, b-db)
	hi := math.Max(a+da, b+db)
	if math.IsInf(hi, 1) {
		return math.Max(a, b), math.Inf(1)
	}
	return lo + (hi-lo)/2, (hi - lo) / 2
}
