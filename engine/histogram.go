package engine

import (
	"fmt"
	"math"
)

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
