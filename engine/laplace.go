package engine

import (
	"fmt"
	"math"
)

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
