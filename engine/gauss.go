package engine

import (
	"fmt"
	"math"
)

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
