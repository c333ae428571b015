package engine

import "math"

// Laplace pairs of subsampled.go in the standardised variable t (noise
// Lap(0, 1), shift a = sensitivity/scale or twice that).

// lapRemove is R(q, a) for Laplace noise: A = (1-q) Lap(0,1) + q Lap(a,1),
// B = Lap(0,1). With x(t) = |t| - |t-a| = ln(p_Lap(a)/p_Lap(0)) the loss is
// L(t) = ln(1 - q + q e^x(t)): the constant lm = L(-a) for t <= 0 (an atom),
// increasing on (0, a), the constant lp = L(a) for t >= a (an atom).
type lapRemove struct {
	q, a   float64
	lm, em float64 // loss on t <= 0 and its error bound
	lp, ep float64 // loss on t >= a and its error bound
}

func newLapRemove(q, a float64) *lapRemove {
	r := &lapRemove{q: q, a: a}
	// x = -a or a exactly; the error bound is the middle's at t = 0 and
	// t = a (lapXErr), so that the atoms and the pieces next to them end
	// on the same side of a bucket border.
	r.lm, r.em = logMix(q, -a)
	r.lp, r.ep = logMix(q, a)
	r.em += lapXErr(-a, a)
	r.ep += lapXErr(a, a)
	return r
}

// lapXErr bounds the error of x = 2t - a (the doubling is exact) and the
// effect of the rounding of a itself (relative u, dx/da = -1).
func lapXErr(x, a float64) float64 { return 2 * unitRoundoff * (math.Abs(x) + a) }

// middle is the pair on [t1, a] (t1 >= 0) where the loss increases from
// L(t1) to lp.
func (r *lapRemove) middle(t1, lossAt1 float64) *monotonePair {
	q, a := r.q, r.a
	lq := ln(q) // for the inverse at every border
	return &monotonePair{
		increasing: true,
		tMin:       t1, tMax: a,
		loss: func(t float64) float64 {
			L, _ := logMix(q, 2*t-a)
			return L
		},
		lossErr: func(t float64) float64 {
			x := 2*t - a
			_, e := logMix(q, x)
			return e + lapXErr(x, a)
		},
		inv: func(L float64) float64 { return (logMixInv(q, lq, L) + a) / 2 },
		massA: func(t1, t2 float64) float64 {
			return (1-q)*lapMass(t1, t2) + q*lapMassShift(t1, t2, a)
		},
		massB: func(t1, t2 float64) float64 { return lapMass(t1, t2) },
		lossBoth: func(t float64) (float64, float64) {
			x := 2*t - a
			L, e := logMix(q, x)
			return L, e + lapXErr(x, a)
		},
		masses: func(t1, t2 float64) (float64, float64) {
			m := lapMass(t1, t2)
			return (1-q)*m + q*lapMassShift(t1, t2, a), m
		},
		lossAtMin: lossAt1, lossAtMax: r.lp,
	}
}

// rightAtom adds the events t >= a (loss lp).
func (r *lapRemove) rightAtom(b eventSink) {
	ea := math.Exp(-r.a) / 2
	b.add((1-r.q)*ea+r.q/2, ea, r.lp-r.ep, r.lp+r.ep)
}

func (r *lapRemove) embed(b eventSink) {
	ea := math.Exp(-r.a) / 2
	b.add((1-r.q)/2+r.q*ea, 0.5, r.lm-r.em, r.lm+r.em)
	r.middle(0, r.lm).embed(b)
	r.rightAtom(b)
}

// embedSymmetric embeds S(q, a): the events t >= a/2 (loss >= 0; x(a/2) =
// 0 exactly), their mirror image and the atom z = (1-q)(1 - e^(-a/2)) at
// loss 0.
func (r *lapRemove) embedSymmetric(b eventSink) {
	t0 := r.a / 2
	m := mirrorSink{b}
	mid := r.middle(t0, 0)
	mid.bothSides = true
	mid.embed(m)
	r.rightAtom(m)
	z := -(1 - r.q) * math.Expm1(-t0)
	b.add(z, z, 0, 0)
}

// embedAntipodal embeds P(q, a) for Laplace noise: A = (1-q) Lap(0,1) +
// q Lap(-a,1), B = (1-q) Lap(0,1) + q Lap(a,1), the worst-case instance of
// Poisson replace-one (the replaced record contributes -a, its replacement
// +a, the others 0) that serves as the lower pair of that case
// (subsampled.go). Dividing both densities by e^-|t|, the loss is L(t) =
// ln(1-q+q e^x1) - ln(1-q+q e^x2) with x1 = |t| - |t+a| and x2 = |t| -
// |t-a|. For t >= 0, x1 = -a and x2 = 2t - a (t <= a) or a (t >= a): L falls
// from 0 at t = 0 to lm - lp at t = a and is constant beyond (an atom).
// B(t) = A(-t), so the events t <= 0 are the mirror image (mirrorSink) of
// those with t >= 0. The largest loss is lp - lm = ln((1-q+q e^a)/(1-q+q
// e^-a)).
func (r *lapRemove) embedAntipodal(b eventSink) {
	q, a := r.q, r.a
	m := mirrorSink{b}
	r.antipodalMiddle().embed(m)
	// the atom t >= a: A-mass (1-q) e^-a/2 + q e^-2a/2, B-mass (1-q) e^-a/2 + q/2
	ea := math.Exp(-a) / 2
	L := r.lm - r.lp
	e := r.em + r.ep + 2*unitRoundoff*math.Abs(L)
	m.add((1-q)*ea+q*math.Exp(-2*a)/2, (1-q)*ea+q/2, L-e, L+e)
}

// antipodalMiddle is the part 0 <= t <= a of P(q, a) (embedAntipodal),
// where the loss falls from 0 to lm - lp.
func (r *lapRemove) antipodalMiddle() *monotonePair {
	q, a := r.q, r.a
	lq := ln(q) // for the inverse at every border
	lm, em := r.lm, r.em
	return &monotonePair{
		increasing: false,
		tMin:       0, tMax: a,
		loss: func(t float64) float64 {
			L, _ := logMix(q, 2*t-a)
			return lm - L
		},
		lossErr: func(t float64) float64 {
			x := 2*t - a
			L, e := logMix(q, x)
			return em + e + lapXErr(x, a) + 2*unitRoundoff*math.Abs(lm-L)
		},
		inv: func(L float64) float64 { return (logMixInv(q, lq, lm-L) + a) / 2 },
		massA: func(t1, t2 float64) float64 {
			return (1-q)*lapMass(t1, t2) + q*lapMassShift(t1, t2, -a)
		},
		massB: func(t1, t2 float64) float64 {
			return (1-q)*lapMass(t1, t2) + q*lapMassShift(t1, t2, a)
		},
		lossBoth: func(t float64) (float64, float64) {
			x := 2*t - a
			L, e := logMix(q, x)
			return lm - L, em + e + lapXErr(x, a) + 2*unitRoundoff*math.Abs(lm-L)
		},
		masses: func(t1, t2 float64) (float64, float64) {
			m := lapMass(t1, t2)
			return (1-q)*m + q*lapMassShift(t1, t2, -a), (1-q)*m + q*lapMassShift(t1, t2, a)
		},
		lossAtMin: 0, lossAtMax: lm - r.lp,
		bothSides: true,
	}
}

// antipodalAtom is the upper end of the loss interval of the largest atom
// of P(q, a) (embedAntipodal): lp - lm plus its error bound.
func (r *lapRemove) antipodalAtom() float64 {
	L := r.lp - r.lm
	return L + r.em + r.ep + 2*unitRoundoff*math.Abs(L)
}

// lapMassShift returns P(t1 < X + a <= t2) for a standard Laplace X: the
// mass of [t1, t2] under Lap(a, 1), with the shifted ends taken exactly
// (twoSum, first order in the low part) and the width from the unshifted
// ends, so that narrow intervals keep their relative accuracy.
func lapMassShift(t1, t2, a float64) float64 {
	if !(t2 > t1) {
		return 0
	}
	h1, l1 := twoSum(t1, -a)
	h2, l2 := twoSum(t2, -a)
	if math.IsInf(t1, -1) {
		h1, l1 = math.Inf(-1), 0
	}
	if math.IsInf(t2, 1) {
		h2, l2 = math.Inf(1), 0
	}
	w := t2 - t1
	switch {
	case h2 <= 0: // e^s2 (1 - e^-w) / 2
		return math.Exp(h2) * (1 + l2) * -math.Expm1(-w) / 2
	case h1 >= 0: // e^-s1 (1 - e^-w) / 2
		return math.Exp(-h1) * (1 - l1) * -math.Expm1(-w) / 2
	default:
		// Straddles 0: both terms are non-negative and each end's high
		// part has a relative error of at most u, which moves -expm1 by
		// at most u relative.
		return (-math.Expm1(h1) - math.Expm1(-h2)) / 2
	}
}
