package engine

import (
	"context"
	"math"
	"sort"
	"sync"
)

// countMech is a pair given by events with enclosed masses (the Vuvuzela
// counts): event k has A-mass in pa[k] +- ea[k] and B-mass in pb[k] +- eb[k];
// unknownA and unknownB enclose the total masses of events whose masses are
// not resolved individually (kept in a corner). The events are computed by
// build, once, when the mechanism is first needed.
type countMech struct {
	name  string
	build func(ctx context.Context) error

	once buildOnce

	pa, ea, pb, eb     []float64
	unknownA, unknownB [2]float64
	rel                float64 // largest relative error of an event's masses
	tilts              int     // FFT convolutions used (conversation only)

	moments countMoments // lnMoments (momentbound.go)

	rangeOnce sync.Once
	absLoss   []float64 // |loss| upper bounds, descending
	cumMass   []float64 // cumulative A+B mass along absLoss

	// atom is the exact loss of the pair's largest atoms +-atom (0: none
	// declared): the two geometric sides of a Laplace count have constant
	// losses (the dialing pair: +-2/scale, each side about half the mass).
	atom     float64
	atomOnce sync.Once
	atomHi   float64 // atomLoss
}

// prepare builds the events once; a cancelled build is not remembered, so
// a later call with a live context builds them.
func (m *countMech) prepare(ctx context.Context) error {
	return m.once.do(ctx, func(ctx context.Context) error {
		m.pa, m.ea, m.pb, m.eb = nil, nil, nil, nil
		m.unknownA, m.unknownB, m.rel = [2]float64{}, [2]float64{}, 0
		return m.build(ctx)
	})
}

func (m *countMech) String() string { return m.name }

// addEvent records an event with A-mass pa +- ea and B-mass pb +- eb.
func (m *countMech) addEvent(pa, ea, pb, eb float64) {
	if pa == 0 && pb == 0 && ea == 0 && eb == 0 {
		return
	}
	m.pa = append(m.pa, pa)
	m.ea = append(m.ea, ea)
	m.pb = append(m.pb, pb)
	m.eb = append(m.eb, eb)
}

// addRest records unresolved mass ta (A) and tb (B), each known to a
// relative error rel and an absolute error of a few units of 2^-1074.
func (m *countMech) addRest(ta, tb, rel float64) {
	m.unknownA[0] += math.Max(0, ta*(1-rel)-0x1p-1070)
	m.unknownA[1] += ta * (1 + rel)
	m.unknownB[0] += math.Max(0, tb*(1-rel)-0x1p-1070)
	m.unknownB[1] += tb * (1 + rel)
}

// lossInterval returns an interval holding ln(P_A/P_B) of event k.
func (m *countMech) lossInterval(k int) (lo, hi float64) {
	aLo, aHi := m.pa[k]-m.ea[k], m.pa[k]+m.ea[k]
	bLo, bHi := m.pb[k]-m.eb[k], m.pb[k]+m.eb[k]
	lo = ln(aLo) - ln(bHi)
	hi = ln(aHi) - ln(bLo)
	e := 4*unitRoundoff*(math.Abs(ln(aHi))+math.Abs(ln(bHi))+2) + 1e-300
	return lo - e, hi + e
}

func (m *countMech) embed(b *leafBuilder) error {
	if err := m.prepare(context.Background()); err != nil {
		return err
	}
	known := make([]int, 0, len(m.pa))
	for k := range m.pa {
		switch {
		case m.pb[k]+m.eb[k] == 0 || m.pa[k]+m.ea[k] == 0:
			// Noise counts have full support: a zero mass has underflowed
			// (true mass below 1e-307), so the event is not distinguishing;
			// its loss is unknown.
			b.addUnknown(0, m.pa[k]+m.ea[k]+1e-307, 0, m.pb[k]+m.eb[k]+1e-307)
		case m.pa[k] <= m.ea[k] || m.pb[k] <= m.eb[k]:
			b.addUnknown(0, m.pa[k]+m.ea[k], 0, m.pb[k]+m.eb[k])
		default:
			known = append(known, k)
		}
	}
	// one group per bucket, summed with compensation (countgroup.go)
	embedGrouped(b, known, m.pa, m.pb, m.lossInterval)
	b.addUnknown(m.unknownA[0], m.unknownA[1], m.unknownB[0], m.unknownB[1])
	return nil
}

// relErr is the relative error of the masses given to the leaf builder.
func (m *countMech) relErr() float64 {
	if m.prepare(context.Background()) != nil {
		return 0
	}
	return m.rel*(1+1e-6) + 64*unitRoundoff
}

// lossRange returns the |loss| beyond which the events (excluding the
// unresolved ones, which stay in a corner) have total mass at most p.
func (m *countMech) lossRange(p float64) float64 {
	if m.prepare(context.Background()) != nil {
		return 1e-9
	}
	m.rangeOnce.Do(func() {
		type ev struct{ l, w float64 }
		evs := make([]ev, 0, len(m.pa))
		for k := range m.pa {
			if m.pa[k] > m.ea[k] && m.pb[k] > m.eb[k] {
				lo, hi := m.lossInterval(k)
				evs = append(evs, ev{math.Max(math.Abs(lo), math.Abs(hi)), m.pa[k] + m.ea[k] + m.pb[k] + m.eb[k]})
			}
		}
		sort.Slice(evs, func(i, j int) bool { return evs[i].l > evs[j].l })
		m.absLoss = make([]float64, len(evs))
		m.cumMass = make([]float64, len(evs))
		c := 0.0
		for i, e := range evs {
			c += e.w
			m.absLoss[i], m.cumMass[i] = e.l, c
		}
	})
	// The first index whose cumulative mass exceeds p: its loss is the
	// range (events beyond it weigh at most p).
	i := sort.Search(len(m.cumMass), func(i int) bool { return m.cumMass[i] > p })
	if i >= len(m.absLoss) {
		return 1e-9
	}
	// A margin keeps the event itself below n*lambda through rounding.
	r := math.Max(m.absLoss[i]*(1+1e-9), 1e-12)
	if a := m.atomLoss(); a > 0 && r >= m.atom*(1-1e-6) {
		// the range reaches the atoms: all of their events inside it
		// (the plan puts the atom on a border only when it is inside)
		r = math.Max(r, a)
	}
	return r
}

// atomLoss returns the upper end of the loss intervals of the events
// at the declared atom +-atom (the largest |loss| any of them may have),
// 0 when no atom is declared or the events are not built: the plan puts a
// bucket border and a grid point there (atomic).
func (m *countMech) atomLoss() float64 {
	if m.atom == 0 || m.prepare(context.Background()) != nil {
		return 0
	}
	m.atomOnce.Do(func() {
		hi := 0.0
		for k := range m.pa {
			if !(m.pa[k] > m.ea[k] && m.pb[k] > m.eb[k]) {
				continue
			}
			lo, up := m.lossInterval(k)
			for _, sg := range []float64{1, -1} {
				a := sg * m.atom
				if lo <= a && a <= up {
					hi = math.Max(hi, math.Max(math.Abs(lo), math.Abs(up)))
				}
			}
		}
		m.atomHi = hi
	})
	return m.atomHi
}
