package engine

import (
	"context"
	"math"
	"sync"
)

// Moment (Chernoff) bounds on delta for the far tail.
//
// The buckets cover the privacy loss of a composition only within their
// range; beyond it the corners hold the mass, counted in full, so delta_up
// has a floor near the tail budget (1e-22) however large eps is. For a pair
// whose events are known one by one (the Vuvuzela counts), the moment
// generating functions of the loss L = ln(P_A/P_B),
//
//	M_A(tau) = sum_x P_A(x) e^(tau L(x)),  M_B(tau) = sum_x P_B(x) e^(tau L(x)),
//
// multiply under composition, and for every tau > 0
//
//	delta_{A||B}(eps) = E_A (1 - e^(eps - L))^+ <= C(tau) e^(-tau eps) M_A(tau)^r,
//	delta_{B||A}(eps) = E_B (1 - e^(eps + L))^+ <= C(tau) e^(-tau eps) M_B(-tau)^r,
//
// with C(tau) = max_x>0 (1 - e^-x) e^(-tau x) = (1/(1+tau)) (tau/(1+tau))^tau
// (at e^-x = tau/(1+tau)). Events whose loss is not known (the
// conversation's unresolved entries) are left out of the moments; the
// tuples that contain one weigh at most r times their mass (a union bound)
// and are added in full. The bound is independent of the buckets, and
// Result.Delta takes the smaller of it and the buckets' upper bound in each
// direction: it decides the far tail (delta below about 1e-20), where it is
// within a factor of about e / (tau sd sqrt(2 pi)) (10 to 30 on the paper's
// pairs) of the truth, the buckets the rest. Where the bracket is still
// wider than 2x, the tilted bounds (tiltbounds.go) refine both ends.

// momentMech is implemented by mechanisms that can bound the moments of
// their privacy loss event by event: upper bounds on ln M_A and ln M_B at
// the tilts tailTaus over the events of known loss, and the masses restA,
// restB of the other events.
type momentMech interface {
	lnMoments() (ma, mb []float64, restA, restB float64, ok bool)
}

// momentBound holds the moment bounds of a composition: ln M_A, ln M_B at
// tailTaus summed over its parts, and the union bounds of the events of
// unknown loss.
type momentBound struct {
	ma, mb       []float64
	restA, restB float64
	// at, when not nil, returns an upper bound on ln M_A(tau) (side 0) or
	// ln M_B(-tau) (side 1) of the whole composition at any tau > 0 (a
	// pass over the parts' events): delta refines the grid's best tilt.
	at func(tau float64, side int) float64
	// tilt, when not nil, returns a lower (upper = false) or upper bound
	// on delta_{A||B} (side 0) or delta_{B||A} (side 1) at eps from
	// tilts near tau0 (tiltBound; the upper bound without the rest): for
	// r observations of one pair. lowerOK says whether its lower bounds
	// are the mechanism's (an exact pair).
	tilt    func(eps float64, side int, tau0 float64, upper bool) float64
	lowerOK bool
}

// add returns the bound of the composition of x with count copies of the
// mechanism whose moments are ma, mb (count * ln M, rounded up).
func (x *momentBound) add(ma, mb []float64, restA, restB float64, count int) *momentBound {
	z := &momentBound{ma: make([]float64, len(ma)), mb: make([]float64, len(mb))}
	c := float64(count)
	up := func(v float64) float64 {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return v // -Inf: no events; NaN and +Inf are skipped by delta
		}
		return v + math.Abs(v)*4*unitRoundoff
	}
	for k := range ma {
		a, b := up(c*ma[k]), up(c*mb[k])
		if x != nil {
			a, b = up(a+x.ma[k]), up(b+x.mb[k])
		}
		z.ma[k], z.mb[k] = a, b
	}
	z.restA = up(c * restA)
	z.restB = up(c * restB)
	if x != nil {
		z.restA, z.restB = up(z.restA+x.restA), up(z.restB+x.restB)
	}
	return z
}

// lnC returns an upper bound on ln C(tau) = -ln(1+tau) - tau ln(1+1/tau).
func lnC(tau float64) float64 {
	v := -math.Log1p(tau) - tau*math.Log1p(1/tau)
	return v + math.Abs(v)*16*unitRoundoff + 1e-15
}

// delta returns upper bounds on delta_{A||B}(eps) and delta_{B||A}(eps)
// (eps >= 0 finite).
func (x *momentBound) delta(eps float64) (ab, ba float64) {
	return x.deltaBelow(eps, math.Inf(1), math.Inf(1))
}

// deltaBelow is delta, with the grid's tilts refined (refine) only on a
// side whose grid bound is below momentRefineWithin times the given bound
// (the buckets' upper bound): elsewhere refining could not win.
func (x *momentBound) deltaBelow(eps, capAB, capBA float64) (ab, ba float64) {
	ab, ba = math.Inf(1), math.Inf(1)
	for k, tau := range tailTaus {
		if tau <= 0 {
			continue
		}
		// the B||A bound uses M_B at -tau: the entry k+1 (tailTaus
		// alternates +t, -t)
		for side, m := range []float64{x.ma[k], x.mb[k+1]} {
			if math.IsNaN(m) || math.IsInf(m, 1) {
				continue
			}
			e := m - tau*eps + lnC(tau)
			e += 8 * unitRoundoff * (math.Abs(m) + math.Abs(tau*eps) + 1)
			v := math.Exp(e) * (1 + 4*unitRoundoff)
			if side == 0 {
				ab = math.Min(ab, v)
			} else {
				ba = math.Min(ba, v)
			}
		}
	}
	if x.at != nil {
		ab, ba = x.refine(eps, ab, ba, ab < momentRefineWithin*capAB, ba < momentRefineWithin*capBA)
	}
	g := 1 + 4*unitRoundoff
	return (ab + x.restA) * g, (ba + x.restB) * g
}

// momentRefineSteps is the number of golden-section steps of refine (each
// a pass over the events per side); they shrink the bracket of the tilt,
// two grid steps wide (a factor 2), to about 3% of the tilt (which keeps
// all but e^((0.03 tau sd)^2/2), about 5% at tau sd = 10, of the bound).
const momentRefineSteps = 8

// momentRefineWithin: refine runs on a side whose grid bound is below this
// multiple of the bound it competes with.
const momentRefineWithin = 10

// refine returns the smaller of ab, ba and the Chernoff bounds at tilts
// found by golden-section search between the grid's neighbours of its best
// tilt for each side. The grid's spacing of 2^(1/2) costs up to
// e^((dtau sd)^2/2) of the bound (4.5x at GS(150k, 10.3k), r = 65,536,
// e^eps = 2); every tilt gives a valid bound, so the search only needs to
// find a good one.
func (x *momentBound) refine(eps, ab, ba float64, doAB, doBA bool) (float64, float64) {
	bound := func(m, tau float64) float64 {
		if math.IsNaN(m) || math.IsInf(m, 1) {
			return math.Inf(1)
		}
		e := m - tau*eps + lnC(tau)
		e += 8 * unitRoundoff * (math.Abs(m) + math.Abs(tau*eps) + 1)
		return math.Exp(e) * (1 + 4*unitRoundoff)
	}
	for side := 0; side < 2; side++ {
		if (side == 0 && !doAB) || (side == 1 && !doBA) {
			continue
		}
		// the best positive grid tilt of this side
		best, bk := math.Inf(1), -1
		for k, tau := range tailTaus {
			if tau <= 0 {
				continue
			}
			m := x.ma[k]
			if side == 1 {
				m = x.mb[k+1]
			}
			if v := bound(m, tau); v < best {
				best, bk = v, k
			}
		}
		if bk < 0 || !(best > 0) {
			continue
		}
		// the positive neighbours (the grid alternates +t, -t)
		lo, hi := tailTaus[bk], tailTaus[bk]
		if bk >= 2 {
			lo = tailTaus[bk-2]
		}
		if bk+2 < len(tailTaus) {
			hi = tailTaus[bk+2]
		}
		f := func(tau float64) float64 { return bound(x.at(tau, side), tau) }
		// golden section on ln tau
		const g = 0.6180339887498949
		a, b := math.Log(lo), math.Log(hi)
		c, d := b-g*(b-a), a+g*(b-a)
		fc, fd := f(math.Exp(c)), f(math.Exp(d))
		best = math.Min(best, math.Min(fc, fd))
		for i := 0; i < momentRefineSteps; i++ {
			if fc < fd {
				b, d, fd = d, c, fc
				c = b - g*(b-a)
				fc = f(math.Exp(c))
				best = math.Min(best, fc)
			} else {
				a, c, fc = c, d, fd
				d = a + g*(b-a)
				fd = f(math.Exp(d))
				best = math.Min(best, fd)
			}
		}
		if side == 0 {
			ab = math.Min(ab, best)
		} else {
			ba = math.Min(ba, best)
		}
	}
	return ab, ba
}

// momentUseBelow: the moment bound is computed (once per result) and
// used only where the buckets' upper bound is below it; in the bulk it is
// far above the buckets' bound and not worth its cost (a pass over the
// pair's events per tilt).
const momentUseBelow = 1e-9

// tiltWithin: withMoments computes the tilted bounds (tiltbounds.go) on a
// side whose bracket (the buckets' lower bound, the smaller upper bound)
// is wider than this factor.
const tiltWithin = 2

// moments returns the moment bound of r (nil when none), computing it on
// first use.
func (r *Result) moments() *momentBound {
	r.momOnce.Do(func() {
		if r.momFn != nil {
			r.mom = r.momFn()
		}
	})
	return r.mom
}

// withMoments caps the upper bounds of d by the moment bound of r, if any.
func (r *Result) withMoments(d DeltaBound) DeltaBound {
	if r.momFn == nil || math.IsInf(d.Eps, 1) || math.IsNaN(d.Eps) || !(d.Upper < momentUseBelow) {
		return d
	}
	mom := r.moments()
	if mom == nil {
		return d
	}
	ab, ba := mom.deltaBelow(d.Eps, d.UpperAB, d.UpperBA)
	m := d
	m.UpperAB, m.UpperBA = ab, ba
	m.LowerAB, m.LowerBA = math.NaN(), math.NaN()
	if mom.tilt != nil {
		// the tilted bounds on a side whose bracket is wider than
		// tiltWithin
		lows := []float64{d.LowerAB, d.LowerBA}
		ups := []float64{math.Min(ab, d.UpperAB), math.Min(ba, d.UpperBA)}
		rests := []float64{mom.restA, mom.restB}
		for side := 0; side < 2; side++ {
			if lows[side]*tiltWithin >= ups[side] {
				continue
			}
			tau0 := mom.bestTilt(d.Eps, side)
			up := (mom.tilt(d.Eps, side, tau0, true) + rests[side]) * (1 + 4*unitRoundoff)
			lo := math.NaN()
			if mom.lowerOK && !math.IsNaN(lows[side]) {
				lo = mom.tilt(d.Eps, side, tau0, false)
			}
			if side == 0 {
				m.UpperAB, m.LowerAB = math.Min(m.UpperAB, up), lo
			} else {
				m.UpperBA, m.LowerBA = math.Min(m.UpperBA, up), lo
			}
		}
	}
	z := combineDelta(d, m)
	z.UpperAB, z.UpperBA = math.Min(z.UpperAB, 1), math.Min(z.UpperBA, 1)
	z.Upper = math.Max(z.UpperAB, z.UpperBA)
	if math.IsNaN(m.LowerAB) && math.IsNaN(m.LowerBA) {
		z.Lower = d.Lower
	}
	return z
}

// momentsFn returns a function computing the moment bound of the
// composition of parts, or nil when a mechanism has none.
func momentsFn(parts []Part) func() *momentBound {
	for _, p := range parts {
		if _, ok := p.Mechanism.(momentMech); !ok {
			return nil
		}
	}
	return func() *momentBound {
		var x *momentBound
		for _, p := range parts {
			ma, mb, ra, rb, ok := p.Mechanism.(momentMech).lnMoments()
			if !ok {
				return nil
			}
			x = x.add(ma, mb, ra, rb, p.Count)
		}
		if x == nil {
			return nil
		}
		if tl, ok := parts[0].Mechanism.(tiltMech); ok && len(parts) == 1 {
			r := parts[0].Count
			x.lowerOK = exactPair(parts[0].Mechanism)
			x.tilt = func(eps float64, side int, tau0 float64, upper bool) float64 {
				lnW, v, ok := tl.tiltEvents(side, upper)
				if !ok {
					if upper {
						return math.Inf(1)
					}
					return 0
				}
				return tiltBound(lnW, v, r, eps, tau0, upper)
			}
		}
		for _, p := range parts {
			if _, ok := p.Mechanism.(momentAtMech); !ok {
				return x
			}
		}
		up := func(v float64) float64 { return v + math.Abs(v)*4*unitRoundoff }
		x.at = func(tau float64, side int) float64 {
			m := 0.0
			for _, p := range parts {
				a := p.Mechanism.(momentAtMech).lnMomentAt(tau, side)
				m = up(m + up(float64(p.Count)*a))
			}
			return m
		}
		return x
	}
}

// exactPair reports whether m's pair is its own lower pair (no distinct
// lower pair: a lower bound on the pair's delta is one on m's).
func exactPair(m Mechanism) bool {
	_, distinct, _ := lowerOf(m)
	return !distinct
}

// momentAtMech is implemented by mechanisms that bound the moments of
// their loss at any tilt: an upper bound on ln M_A(tau) (side 0) or
// ln M_B(-tau) (side 1), tau > 0, over the events of known loss
// (lnMoments' rest excluded).
type momentAtMech interface {
	lnMomentAt(tau float64, side int) float64
}

// countMoments caches a countMech's moment bounds.
type countMoments struct {
	once         sync.Once
	ma, mb       []float64
	restA, restB float64
	ok           bool
	// the events of known loss: log-masses (upper ends), loss intervals
	lnA, lnB, lo, hi []float64
	// their log-masses' lower ends and -hi, for the tilted lower bound
	// (tiltbounds.go)
	lnAlo, lnBlo, negHi, negLo []float64
}

// lnMoments bounds the moments of the count pair from its events: each
// mass at its upper end, each loss at the end of its interval that
// maximises tau L; the unresolved events and those embedded as unknown
// (countMech.embed) are the rest.
func (m *countMech) lnMoments() (ma, mb []float64, restA, restB float64, ok bool) {
	if m.prepare(context.Background()) != nil {
		return nil, nil, 0, 0, false
	}
	c := &m.moments
	c.once.Do(func() {
		var lnA, lnB, lo, hi, lnAlo, lnBlo, negHi []float64
		restA, restB := m.unknownA[1], m.unknownB[1]
		for k := range m.pa {
			switch {
			case m.pb[k]+m.eb[k] == 0 || m.pa[k]+m.ea[k] == 0:
				restA += m.pa[k] + m.ea[k] + 1e-307
				restB += m.pb[k] + m.eb[k] + 1e-307
			case m.pa[k] <= m.ea[k] || m.pb[k] <= m.eb[k]:
				restA += m.pa[k] + m.ea[k]
				restB += m.pb[k] + m.eb[k]
			default:
				l, h := m.lossInterval(k)
				lo, hi = append(lo, l), append(hi, h)
				lnA = append(lnA, lnUp((m.pa[k]+m.ea[k])*(1+4*unitRoundoff)))
				lnB = append(lnB, lnUp((m.pb[k]+m.eb[k])*(1+4*unitRoundoff)))
				lnAlo = append(lnAlo, lnDown((m.pa[k]-m.ea[k])*(1-4*unitRoundoff)))
				lnBlo = append(lnBlo, lnDown((m.pb[k]-m.eb[k])*(1-4*unitRoundoff)))
				negHi = append(negHi, -h)
			}
		}
		c.ma = make([]float64, len(tailTaus))
		c.mb = make([]float64, len(tailTaus))
		for k, tau := range tailTaus {
			c.ma[k] = lnMomentEvents(lnA, lo, hi, tau)
			c.mb[k] = lnMomentEvents(lnB, lo, hi, tau)
		}
		c.restA = restA * (1 + 1e-12)
		c.restB = restB * (1 + 1e-12)
		c.lnA, c.lnB, c.lo, c.hi = lnA, lnB, lo, hi
		c.lnAlo, c.lnBlo, c.negHi = lnAlo, lnBlo, negHi
		c.negLo = make([]float64, len(lo))
		for k, l := range lo {
			c.negLo[k] = -l
		}
		c.ok = true
	})
	return c.ma, c.mb, c.restA, c.restB, c.ok
}

// lnMomentAt bounds ln M_A(tau) (side 0) or ln M_B(-tau) (side 1) over
// the events of known loss (as lnMoments does on the grid); +Inf when they
// are not known.
func (m *countMech) lnMomentAt(tau float64, side int) float64 {
	if _, _, _, _, ok := m.lnMoments(); !ok {
		return math.Inf(1)
	}
	c := &m.moments
	if side == 0 {
		return lnMomentEvents(c.lnA, c.lo, c.hi, tau)
	}
	return lnMomentEvents(c.lnB, c.lo, c.hi, -tau)
}

// lnMomentEvents returns an upper bound on ln sum_k e^(lnV[k] + tau L_k),
// L_k in [lo[k], hi[k]].
func lnMomentEvents(lnV, lo, hi []float64, tau float64) float64 {
	x := func(k int) float64 {
		if tau > 0 {
			return lnV[k] + tau*hi[k]
		}
		return lnV[k] + tau*lo[k]
	}
	mx := math.Inf(-1)
	bigV, bigL := 0.0, 0.0
	for k := range lnV {
		if v := x(k); v > mx {
			mx = v
		}
		if v := math.Abs(lnV[k]); v > bigV {
			bigV = v
		}
		if v := math.Abs(lo[k]); v > bigL {
			bigL = v
		}
		if v := math.Abs(hi[k]); v > bigL {
			bigL = v
		}
	}
	if math.IsNaN(mx) {
		return math.Inf(1)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	big := bigV + math.Abs(tau)*bigL
	var s float64
	skipped := 0
	for k := range lnV {
		d := x(k) - mx
		if d < -tailSkip {
			skipped++
			continue
		}
		s += math.Exp(d)
	}
	s += float64(skipped) * math.Exp(-tailSkip+1)
	// (s >= 1: the largest term is 1) the exponents' rounding, exp's and
	// the sum's, and the logarithm's
	e := 8*unitRoundoff*(math.Abs(mx)+big+1) + gamma(len(lnV)+8) + 1e-12
	return mx + math.Log(s)*(1+8*unitRoundoff) + e
}

// lnDown returns a lower bound on ln v (v > 0).
func lnDown(v float64) float64 {
	l := math.Log(v)
	return l - math.Abs(l)*4*unitRoundoff - 1e-300
}

// lnUp returns an upper bound on ln v (v > 0).
func lnUp(v float64) float64 {
	l := math.Log(v)
	return l + math.Abs(l)*4*unitRoundoff + 1e-300
}

// momentFromWire returns the moment bound of an encoded result (nil when
// absent or of another length).
func momentFromWire(w *resultWire) *momentBound {
	if len(w.MomA) != len(tailTaus) || len(w.MomB) != len(tailTaus) {
		return nil
	}
	return &momentBound{ma: w.MomA, mb: w.MomB, restA: w.MomRest[0], restB: w.MomRest[1]}
}

// setMoments sets the moment bound of a decoded result (nil: none).
func (r *Result) setMoments(m *momentBound) {
	if m != nil {
		r.momFn = func() *momentBound { return m }
	}
}
