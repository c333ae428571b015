package engine

import (
	"fmt"
	"math"
)

// ---------------------------------------------------------------- Gauss

type gaussMech struct{ sigma, sens, trunc float64 }

// Gauss returns the Gauss mechanism pair A = N(0, sigma^2), B =
// N(sensitivity, sigma^2) (Section 5.2), truncated to [mu-truncate,
// mu+truncate] around each mean when truncate > 0 (the paper truncates at
// +-2500). It is embedded exactly through privacy-loss intervals.
func Gauss(sigma, sensitivity, truncate float64) (Mechanism, error) {
	if err := checkPositive("gauss: sigma", sigma); err != nil {
		return nil, err
	}
	if err := checkPositive("gauss: sensitivity", sensitivity); err != nil {
		return nil, err
	}
	if err := checkNonNegative("gauss: truncate", truncate); err != nil {
		return nil, err
	}
	if truncate > 0 && sensitivity >= 2*truncate {
		return nil, invalidf("gauss: truncate %v must exceed half the sensitivity %v", truncate, sensitivity)
	}
	if err := checkRatio("gauss: sensitivity/sigma", sensitivity/sigma); err != nil {
		return nil, err
	}
	return &gaussMech{sigma, sensitivity, truncate}, nil
}

func (g *gaussMech) String() string {
	s := fmt.Sprintf("gauss(sigma=%s, sensitivity=%s", fmtFloat(g.sigma), fmtFloat(g.sens))
	if g.trunc > 0 {
		s += ", truncate=" + fmtFloat(g.trunc)
	}
	return s + ")"
}

func (g *gaussMech) mu() float64 { return g.sens / g.sigma }

func (g *gaussMech) lossRange(p float64) float64 {
	mu := g.mu()
	t := mu*mu/2 + mu*qInv(p/4)
	if g.trunc > 0 {
		tau := g.trunc / g.sigma
		t = math.Min(t, (mu*tau-mu*mu/2)*(1+1e-9))
	}
	return t
}

func (g *gaussMech) relErr() float64 {
	mu := g.mu()
	tmax := 40 + mu
	if g.trunc > 0 {
		tmax = g.trunc/g.sigma + mu
	}
	return 64*unitRoundoff + 4*unitRoundoff*mu*(tmax+mu)
}

func (g *gaussMech) embed(b *leafBuilder) error {
	mu := g.mu()
	u := unitRoundoff
	z := 1.0
	tMin, tMax := math.Inf(-1), math.Inf(1)
	if g.trunc > 0 {
		tau := g.trunc / g.sigma
		z = 1 - 2*normQ(tau)
		tMin, tMax = mu-tau, tau
		// Distinguishing events: A alone on [-tau, mu-tau), B alone on (tau, mu+tau].
		b.add(normMass(-tau, mu-tau)/z, 0, math.Inf(1), math.Inf(1))
		b.add(0, normMass(tau-mu, tau)/z, math.Inf(-1), math.Inf(-1))
	}
	mp := &monotonePair{
		increasing: false,
		tMin:       tMin, tMax: tMax,
		loss:    func(t float64) float64 { return mu*mu/2 - mu*t },
		lossErr: func(t float64) float64 { return 8*u*(mu*mu/2+math.Abs(mu*t)) + 2*u*mu*(math.Abs(t)+mu) + 1e-300 },
		inv:     func(L float64) float64 { return (mu*mu/2 - L) / mu },
		massA:   func(t1, t2 float64) float64 { return normMass(t1, t2) / z },
		massB:   func(t1, t2 float64) float64 { return normMassShift(t1, t2, mu) / z },
	}
	mp.lossAtMin, mp.lossAtMax = mp.loss(tMin), mp.loss(tMax)
	if math.IsInf(tMin, -1) {
		mp.lossAtMin, mp.lossAtMax = math.Inf(1), math.Inf(-1)
	}
	mp.embed(b)
	return nil
}

// qInv returns t with P(Z > t) = p for a standard normal Z.
func qInv(p float64) float64 {
	if p >= 0.5 {
		return 0
	}
	if p < 1e-300 {
		p = 1e-300
	}
	if p > 1e-10 {
		return math.Sqrt2 * math.Erfcinv(2*p)
	}
	// Newton's method on ln Q(t) = ln p (math.Erfcinv saturates near 0).
	lp := ln(p)
	t := math.Sqrt(-2 * lp)
	for i := 0; i < 50; i++ {
		q := normQ(t)
		f := ln(q) - lp
		d := -phiAccurate(t) / q
		step := f / d
		t -= step
		if math.Abs(step) < 1e-14*t {
			break
		}
	}
	return t
}

// ---------------------------------------------------------------- Laplace

type laplaceMech struct{ scale, sens, trunc float64 }

// Laplace returns the Laplace mechanism pair A = Lap(0, scale), B =
// Lap(sensitivity, scale) (Section 5.1), truncated to [mu-truncate,
// mu+truncate] around each mean when truncate > 0, embedded exactly.
func Laplace(scale, sensitivity, truncate float64) (Mechanism, error) {
	if err := checkPositive("laplace: scale", scale); err != nil {
		return nil, err
	}
	if err := checkPositive("laplace: sensitivity", sensitivity); err != nil {
		return nil, err
	}
	if err := checkNonNegative("laplace: truncate", truncate); err != nil {
		return nil, err
	}
	if truncate > 0 && sensitivity > truncate {
		return nil, invalidf("laplace: truncate %v must be at least the sensitivity %v", truncate, sensitivity)
	}
	if err := checkRatio("laplace: sensitivity/scale", sensitivity/scale); err != nil {
		return nil, err
	}
	return &laplaceMech{scale, sensitivity, truncate}, nil
}

func (l *laplaceMech) String() string {
	s := fmt.Sprintf("laplace(scale=%s, sensitivity=%s", fmtFloat(l.scale), fmtFloat(l.sens))
	if l.trunc > 0 {
		s += ", truncate=" + fmtFloat(l.trunc)
	}
	return s + ")"
}

func (l *laplaceMech) mu() float64               { return l.sens / l.scale }
func (l *laplaceMech) lossRange(float64) float64 { return l.mu() * (1 + 1e-12) }

// atomErr bounds the rounding error of the loss mu of the atom t <= 0 (and
// of the middle's loss at t = 0).
func (l *laplaceMech) atomErr() float64 { return 4 * unitRoundoff * (l.mu() + 1e-300) }

// atomLoss is the upper end of the atom's loss interval: the factor puts a
// bucket border at or above it, so the atom (and the piece next to it) stay
// in one bucket (misplacement about 0 instead of 1).
func (l *laplaceMech) atomLoss() float64 { return l.mu() + l.atomErr() }

// lapMass returns P(t1 < X <= t2) for a standard Laplace X, accurately.
func lapMass(t1, t2 float64) float64 {
	if !(t2 > t1) {
		return 0
	}
	switch {
	case t2 <= 0:
		return math.Exp(t2) * -math.Expm1(t1-t2) / 2
	case t1 >= 0:
		return math.Exp(-t1) * -math.Expm1(t1-t2) / 2
	default:
		return (-math.Expm1(t1) - math.Expm1(-t2)) / 2
	}
}

func (l *laplaceMech) embed(b *leafBuilder) error {
	mu := l.mu()
	e := l.atomErr()
	z := 1.0
	lo, hi := math.Inf(-1), math.Inf(1)
	if l.trunc > 0 {
		tau := l.trunc / l.scale
		z = -math.Expm1(-tau)
		lo, hi = mu-tau, tau
		b.add(lapMass(-tau, mu-tau)/z, 0, math.Inf(1), math.Inf(1))
		b.add(0, lapMass(tau-mu, tau)/z, math.Inf(-1), math.Inf(-1))
	}
	// t <= 0: loss exactly mu.
	b.add(lapMass(lo, 0)/z, lapMass(lo-mu, -mu)/z, mu-e, mu+e)
	// t >= mu: loss exactly -mu.
	b.add(lapMass(mu, hi)/z, lapMass(0, hi-mu)/z, -mu-e, -mu+e)
	// 0 < t < mu: loss mu - 2t.
	mp := &monotonePair{
		increasing: false,
		tMin:       0, tMax: mu,
		loss:      func(t float64) float64 { return mu - 2*t },
		lossErr:   func(t float64) float64 { return 4 * unitRoundoff * (mu + 2*math.Abs(t)) },
		inv:       func(L float64) float64 { return (mu - L) / 2 },
		massA:     func(t1, t2 float64) float64 { return lapMass(t1, t2) / z },
		massB:     func(t1, t2 float64) float64 { return lapMassShift(t1, t2, mu) / z },
		lossAtMin: mu, lossAtMax: -mu,
	}
	mp.embed(b)
	return nil
}

// ---------------------------------------------------------------- DP-SGD

// SGD returns the worst-case pair of DP-SGD with Poisson sampling rate q and
// noise multiplier sigma under add/remove neighbours (Section 5.4, Abadi et
// al.): A = (1-q) N(0, sigma^2) + q N(1, sigma^2), B = N(0, sigma^2),
// embedded exactly; A||B is the removal of a record, B||A its addition. It
// is SubsampledGauss(sigma, 1, q, Poisson, AddRemove).
func SGD(sigma, q float64) (Mechanism, error) {
	return SubsampledGauss(sigma, 1, q, Poisson, AddRemove)
}

// ---------------------------------------------------------------- histograms

// histMech is a pair of probability mass functions over a finite universe.
type histMech struct {
	name string
	a, b []float64
}

// HistogramTolerance is how far from 1 the sum of a probability mass
// function given to Histogram may be; within it the PMFs are renormalised.
const HistogramTolerance = 1e-9

// Histogram returns the pair of probability mass functions a and b over the
// universe 0..len(a)-1 (Definition 4's leaf built from atomic events). Both
// must have the same length, finite non-negative entries and sum to 1 within
// HistogramTolerance.
func Histogram(a, b []float64) (Mechanism, error) {
	if len(a) != len(b) {
		return nil, invalidf("histogram: a has %d entries, b has %d", len(a), len(b))
	}
	if len(a) == 0 {
		return nil, invalidf("histogram: empty")
	}
	na, err := normalise("a", a)
	if err != nil {
		return nil, err
	}
	nb, err := normalise("b", b)
	if err != nil {
		return nil, err
	}
	return &histMech{name: fmt.Sprintf("histogram(%d outcomes, %016x)", len(a), hashFloats(na, nb)), a: na, b: nb}, nil
}

func normalise(name string, p []float64) ([]float64, error) {
	s := 0.0
	for i, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, invalidf("histogram: %s[%d] = %v is not a probability", name, i, v)
		}
		s += v
	}
	if math.Abs(s-1) > HistogramTolerance {
		return nil, invalidf("histogram: %s sums to %.17g, not 1 (tolerance %g)", name, s, HistogramTolerance)
	}
	out := make([]float64, len(p))
	for i, v := range p {
		out[i] = v / s
	}
	return out, nil
}

func hashFloats(xs ...[]float64) uint64 {
	h := uint64(1469598103934665603)
	for _, x := range xs {
		for _, v := range x {
			bits := math.Float64bits(v)
			for k := 0; k < 8; k++ {
				h ^= (bits >> (8 * k)) & 0xff
				h *= 1099511628211
			}
		}
		h ^= 0xff
		h *= 1099511628211
	}
	return h
}

func (h *histMech) String() string { return h.name }

// exactMasses: the PMFs are the pair itself, exact as stored.
func (h *histMech) exactMasses() bool { return true }

// eventLoss returns an interval holding ln(pa/pb) (+-Inf for
// distinguishing events: pb = 0 or pa = 0).
func eventLoss(pa, pb float64) (lo, hi float64) {
	if pb == 0 {
		return math.Inf(1), math.Inf(1)
	}
	if pa == 0 {
		return math.Inf(-1), math.Inf(-1)
	}
	la, lb := ln(pa), ln(pb)
	L := la - lb
	e := 4*unitRoundoff*(math.Abs(la)+math.Abs(lb)+1) + 1e-300
	return L - e, L + e
}

func (h *histMech) embed(b *leafBuilder) error {
	for i := range h.a {
		lo, hi := eventLoss(h.a[i], h.b[i])
		b.add(h.a[i], h.b[i], lo, hi)
	}
	return nil
}

func (h *histMech) maxLoss() float64 {
	t := 0.0
	for i := range h.a {
		if h.a[i] > 0 && h.b[i] > 0 {
			_, hi := eventLoss(h.a[i], h.b[i])
			lo, _ := eventLoss(h.a[i], h.b[i])
			t = math.Max(t, math.Max(math.Abs(hi), math.Abs(lo)))
		}
	}
	return t
}

func (h *histMech) lossRange(float64) float64 {
	t := h.maxLoss()
	if t == 0 {
		return 1e-9
	}
	return t
}

func (h *histMech) atomLoss() float64 { return h.maxLoss() }

// RandomizedResponse returns the randomized response pair of Section 5.5:
// A = (p, 1-p), B = (1-p, p), for p in (0, 1).
func RandomizedResponse(p float64) (Mechanism, error) {
	if !(p > 0 && p < 1) {
		return nil, paramError("randomized_response: p", "must be in (0, 1), got %v", p)
	}
	return &histMech{name: "randomized_response(p=" + fmtFloat(p) + ")", a: []float64{p, 1 - p}, b: []float64{1 - p, p}}, nil
}

// EpsDelta returns the worst-case pair M_{eps,delta} of Kairouz et al.
// (Section 2.1): every (eps, delta)-DP mechanism is a post-processing of it,
// so its r-fold bounds hold for any r-fold adaptive composition of
// (eps, delta)-DP mechanisms. Its four events are A = (delta,
// (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0) and B the reverse;
// their privacy losses are +Inf, eps, -eps and -Inf exactly, which the
// embedding uses as given (for eps beyond about 745 the smaller masses
// underflow to 0, but the events are not distinguishing).
func EpsDelta(eps, delta float64) (Mechanism, error) {
	if err := checkNonNegative("eps_delta: eps", eps); err != nil {
		return nil, err
	}
	if !(delta >= 0 && delta < 1) {
		return nil, paramError("eps_delta: delta", "must be in [0, 1), got %v", delta)
	}
	return &epsDeltaMech{eps: eps, delta: delta}, nil
}

type epsDeltaMech struct{ eps, delta float64 }

func (m *epsDeltaMech) String() string {
	return fmt.Sprintf("eps_delta(eps=%s, delta=%s)", fmtFloat(m.eps), fmtFloat(m.delta))
}

// masses returns (1-delta) e^eps/(1+e^eps) and (1-delta)/(1+e^eps), formed
// with e^-eps (no overflow).
func (m *epsDeltaMech) masses() (hiP, loP float64) {
	e := math.Exp(-m.eps)
	hiP = (1 - m.delta) / (1 + e)
	loP = (1 - m.delta) * e / (1 + e)
	return hiP, loP
}

func (m *epsDeltaMech) embed(b *leafBuilder) error {
	hiP, loP := m.masses()
	b.add(m.delta, 0, math.Inf(1), math.Inf(1))
	b.add(hiP, loP, m.eps, m.eps)
	b.add(loP, hiP, -m.eps, -m.eps)
	b.add(0, m.delta, math.Inf(-1), math.Inf(-1))
	return nil
}

func (m *epsDeltaMech) lossRange(float64) float64 {
	if m.eps == 0 {
		return 1e-9
	}
	return m.eps
}

func (m *epsDeltaMech) atomLoss() float64 { return m.eps }
