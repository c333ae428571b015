package engine

import (
	"fmt"
	"math"
)

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
