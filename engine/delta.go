package engine

import (
	"fmt"
	"math"
	"slices"
)

// This file evaluates Theorem 2 (delta_up and delta_low at eps) on a bucket
// list, soundly at every eps in [0, +Inf] and every privacy loss.
//
// Overflow and underflow. e^eps overflows past eps = 709.78 and e^-L of a
// bucket's loss underflows past L = 745 (the B-mass of such a bucket, about
// its A-mass times e^-L, is then not representable at all). No bound is
// therefore formed from e^eps and e^-L apart:
//
//   - Lemma 6 bounds a bucket's B-mass by its A-mass and its log-ratio
//     interval [lLo, lHi]: P e^-lHi <= Q <= P e^-lLo. The enclosures of Q
//     used below are intersected with these (deltaTable), which keeps them
//     meaningful where the stored Q has underflowed to 0.
//   - Up to eps = epsBig the terms use e^eps (at most e^600 = 3.8e260,
//     whose products with masses stay finite); above it every term is
//     formed as e^(eps - lLo) times Q e^lLo, with Q e^lLo (at most P)
//     precomputed in log space, so nothing overflows at any eps.
//   - The chord of a straddling bucket is written as
//     g1 (P - Q e^lLo) / (1 - e^-(lHi-lLo)), free of e^-lLo and e^-lHi.
//   - Every rounding is directed, including underflow: a product below
//     2^-1022 is off by up to 2^-1075, and the entries' underflow
//     allowance (list.abs) is part of the error bounds.
//
// The log-ratio interval of a bucket is widened by a few units of roundoff
// of its ends (the computed i*lambda differs from the real one), and all
// buckets use one width w (the largest), which keeps the chord's
// denominator one constant: a chord over a wider interval is still an upper
// bound (the chord of a convex function over an interval lies above the
// chord over any subinterval).

// bounds holds the per-bucket error bounds of a list, computed once.
type bounds struct {
	ea, ec []float64
	// table holds three work arrays of length 2n (arbitrary contents)
	// for the list's gridTable, taken from list.spare (nil: gridTable
	// allocates its own)
	table [][]float64
}

// bounds returns the per-bucket error bounds of l. Where l holds spare
// arrays (list.spare) it takes them all: the tilt weights and the error
// bounds are computed into them (the same values as in new arrays: every
// entry is written), and three are kept for the grid table.
func (l *list) bounds() bounds {
	if l.spare == nil {
		ea, ec := l.errBoundsW(newTiltWeights(l.n, l.lambda, l.tau))
		return bounds{ea: ea, ec: ec}
	}
	ar := &arena{m: 2 * l.n, free: l.spare}
	l.spare = nil
	tw := tiltWeightsFrom(l.n, l.lambda, l.tau, ar)
	ea, ec := l.errBoundsInto(tw, ar.get(), ar.get())
	// the weights are free again (an inverse may be another tilt's
	// weights: each array once)
	for _, w := range tw.w {
		ar.put(w)
	}
	for _, v := range tw.inv {
		if !slices.ContainsFunc(tw.w, func(w []float64) bool { return &w[0] == &v[0] }) {
			ar.put(v)
		}
	}
	b := bounds{ea: ea, ec: ec}
	if l.grid {
		b.table = [][]float64{ar.get(), ar.get(), ar.get()}
	}
	return b
}

// tiltWeightsFrom is newTiltWeights (the same values and rel) with its
// arrays from ar.
func tiltWeightsFrom(n int, lambda float64, tau []float64, ar *arena) *tiltWeights {
	tw := &tiltWeights{w: make([][]float64, len(tau)), inv: make([][]float64, len(tau))}
	for m, t := range tau {
		tw.w[m] = ar.get()
		tw.rel = math.Max(tw.rel, weightsInto(tw.w[m], n, lambda, t))
	}
	for m, t := range tau {
		if k := slices.Index(tau, -t); k >= 0 {
			tw.inv[m] = tw.w[k] // t = 0: the weights are exactly 1
			continue
		}
		inv := ar.get()
		for o, v := range tw.w[m] {
			inv[o] = 1 / v
		}
		tw.inv[m] = inv
	}
	// a reciprocal adds at most u to the weights' relative error
	tw.rel += unitRoundoff
	return tw
}

// epsBig is the eps above which the terms of delta are formed bucket by
// bucket as e^(eps - lLo) instead of with e^eps (see above).
const epsBig = 600

// lowerTerm returns max(0, p - e^eps q) rounded down, for p a lower and q an
// upper bound of a group's masses, at any eps >= 0 (no overflow).
func lowerTerm(p, q, eps float64) float64 {
	if !(p > 0) {
		return 0
	}
	if q == 0 {
		return p
	}
	if eps <= epsBig {
		return lowerTermE(p, q, math.Exp(eps)*(1+2*unitRoundoff))
	}
	// e^eps q = e^(eps + ln q), rounded up
	t := p - mulExp(q, eps, 2*unitRoundoff*eps, true)
	t -= 4*unitRoundoff*p + tinyDir
	if !(t > 0) {
		return 0
	}
	return t
}

// lowerTermE is lowerTerm with eE >= e^eps given (eps <= epsBig).
func lowerTermE(p, q, eE float64) float64 {
	t := p - eE*q
	t -= 4*unitRoundoff*(p+eE*q) + tinyDir
	if !(t > 0) {
		return 0
	}
	return t
}

// chordUpperPre returns an upper bound on sum_x max(0, P(x) - e^eps Q(x)) over a
// group of events with total masses P <= p and Q >= q whose log-ratios
// ln(P(x)/Q(x)) all lie in [lLo, lHi] = [lHi - w, lHi], lHi > eps.
//
// With y = Q(x)/P(x) in [e^-lHi, e^-lLo], the summand is P(x) g(y) with g
// convex, so it is at most the chord through the ends of the interval,
// evaluated at the mean q/p. For groups entirely above eps this is exactly
// p - e^eps q, the error-corrected term of Definition 9; for groups that
// straddle eps it is at most the paper's p (1 - e^eps/f^i) (Definition 9 uses
// the latter for the u buckets above j_eps) and usually much smaller.
//
// Given (deltaTable, eps-independent): qLo <= Q, qsLo <= Q e^lLo, and d <=
// 1 - e^-w; eE <= e^eps when eps <= epsBig (else unused). lLoOwn >=
// lHi - w is the group's own lower end: the group lies wholly above eps
// when lLoOwn >= eps.
func chordUpperPre(p, qLo, qsLo, lHi, lLoOwn, w, d, eps, eE float64) float64 {
	if !(lHi > eps) || p == 0 {
		return 0
	}
	// g1 = 1 - e^(eps - lHi) >= the summand's factor for every event; the
	// argument's rounding moves it by at most 0.4u absolutely (or 2u
	// relatively for arguments in (-1, 0)).
	g1 := -math.Expm1(eps-lHi) * (1 + 8*unitRoundoff)
	cap1 := p * g1
	var v float64
	if lLoOwn >= eps {
		if eps <= epsBig {
			v = p - eE*qLo
			v += 4*unitRoundoff*(p+eE*qLo) + tinyDir
		} else {
			// e^eps Q = e^(eps - lLo) (Q e^lLo) with the common lLo =
			// lHi - w of qsLo; e^(eps-lLo) <= e^w
			lLo := lHi - w
			x := math.Exp(eps-lLo) * (1 - 4*unitRoundoff*(2+math.Abs(eps-lLo)))
			v = p - x*qsLo
			v += 4*unitRoundoff*(p+x*qsLo) + tinyDir
		}
	} else {
		// chord g1 (p y2 - q)/(y2 - y1) with y1 = e^-lHi, y2 = e^-lLo,
		// multiplied through by e^lLo
		num := p - qsLo
		num += 4*unitRoundoff*(p+qsLo) + tinyDir
		v = g1 * num / d * (1 + 4*unitRoundoff)
	}
	if !(v < cap1) { // also catches NaN
		v = cap1
	}
	if !(v > 0) {
		return 0
	}
	return v + tinyDir // the product p*g1 may have underflowed
}

// deltaTable holds the eps-independent per-offset quantities of delta:
// the enclosures of the masses (error bounds and underflow allowances
// included) and, per direction, the enclosures of the Q-side intersected
// with Lemma 6 and their products with e^lLo. Built once per Result.
type deltaTable struct {
	aHi, aLo, cHi, cLo []float64
	// A||B: P = A-mass, Q = B-mass, log-ratios in [lHi - w, lHi] with
	// lHi = hiAB(o); B||A: P = B-mass, Q = A-mass, lHi = hiBA(o).
	qLoAB, qHiAB, qsLoAB, qsHiAB []float64
	qLoBA, qHiBA, qsLoBA, qsHiBA []float64
	// w is the common width of the (widened) log-ratio intervals and
	// d <= 1 - e^-w.
	w, d float64
}

// widen returns the relative widening of a log-ratio end against the
// rounding of i*lambda and u*lambda.
const widen = 4 * unitRoundoff

// hiAB returns the (widened) upper end of the log-ratios in direction
// A||B of offset o: every event there has ln(P_A/P_B) <= hiAB(o).
func (l *list) hiAB(o int) float64 {
	L := l.loss(o)
	return L + widen*math.Abs(L)
}

// hiBA returns the (widened) upper end of ln(P_B/P_A) of offset o:
// u lambda - L.
func (l *list) hiBA(o int) float64 {
	L := l.loss(o)
	ul := l.u * l.lambda
	return ul - L + widen*(math.Abs(L)+ul)
}

// loAB and loBA return the (widened) lower ends of the log-ratios of
// offset o in each direction: L - u lambda and -L. They are at least
// hiAB(o) - w and hiBA(o) - w (window).
func (l *list) loAB(o int) float64 {
	L := l.loss(o)
	ul := l.u * l.lambda
	return L - ul - widen*(math.Abs(L)+ul)
}

func (l *list) loBA(o int) float64 {
	L := l.loss(o)
	return -L - widen*math.Abs(L)
}

// window returns the common width w of the widened log-ratio intervals
// (u lambda plus the widening of both ends at the largest loss) and
// d <= 1 - e^-w.
func (l *list) window() (w, d float64) {
	ul := l.u * l.lambda
	big := float64(l.n+1)*l.lambda + ul
	w = (ul + 3*widen*big) * (1 + 4*unitRoundoff)
	d = -math.Expm1(-w) * (1 - 8*unitRoundoff)
	return w, d
}

// qEnclosure returns the enclosures of a group's Q (qLo, qHi) and of
// Q e^lLo (qsLo, qsHi), lLo = lHi - w, from the stored enclosures of P and
// Q and from Lemma 6: P e^-lHi <= Q <= P e^-lLo.
func qEnclosure(pLo, pHi, qLo, qHi, lHi, w float64) (qLo2, qHi2, qsLo, qsHi float64) {
	return qEnclosureE(pLo, pHi, qLo, qHi, lHi, w, math.Exp(-w))
}

// qEnclosureE is qEnclosure with eNegW = math.Exp(-w) given (one
// exponential per table instead of one per group); each exponential is
// formed once, so the values are those of mulExp term by term.
func qEnclosureE(pLo, pHi, qLo, qHi, lHi, w, eNegW float64) (qLo2, qHi2, qsLo, qsHi float64) {
	lLo := lHi - w
	eArg := 2 * unitRoundoff * (math.Abs(lHi) + w) // the exponents' rounding
	qLo2 = math.Max(qLo, mulExp(pLo, -lHi, eArg, false))
	qHi2 = math.Min(qHi, mulExp(pHi, -lLo, eArg, true))
	eLo := math.NaN() // e^lLo, formed once for both of its products
	if (qLo != 0 || qHi != 0) && lLo > -700 && lLo < 700 {
		eLo = math.Exp(lLo)
	}
	qsLo = math.Max(mulExpGiven(qLo, lLo, eLo, eArg, false), mulExpGiven(pLo, -w, eNegW, eArg, false))
	qsHi = math.Min(mulExpGiven(qHi, lLo, eLo, eArg, true), pHi)
	return qLo2, qHi2, qsLo, qsHi
}

// mulExpGiven is mulExp(x, a, errA, up) with ea = math.Exp(a) given where
// -700 < a < 700 (the same operations, so the same value).
func mulExpGiven(x, a, ea, errA float64, up bool) float64 {
	if x == 0 || math.IsInf(a, -1) {
		return 0
	}
	if !(a > -700 && a < 700) {
		return mulExp(x, a, errA, up)
	}
	return roundRel(x*ea, 4*unitRoundoff+2*errA, up)
}

func (l *list) deltaTable(b bounds) *deltaTable {
	m := 2 * l.n
	mk := func() []float64 { return make([]float64, m) }
	t := &deltaTable{
		aHi: mk(), aLo: mk(), cHi: mk(), cLo: mk(),
		qLoAB: mk(), qHiAB: mk(), qsLoAB: mk(), qsHiAB: mk(),
		qLoBA: mk(), qHiBA: mk(), qsLoBA: mk(), qsHiBA: mk(),
	}
	t.w, t.d = l.window()
	eNegW := math.Exp(-t.w)
	for o := 0; o < m; o++ {
		t.aHi[o] = l.a[o] + b.ea[o]
		t.aLo[o] = math.Max(0, l.a[o]-b.ea[o])
		t.cHi[o] = l.c[o] + b.ec[o]
		t.cLo[o] = math.Max(0, l.c[o]-b.ec[o])
		t.qLoAB[o], t.qHiAB[o], t.qsLoAB[o], t.qsHiAB[o] = qEnclosureE(t.aLo[o], t.aHi[o], t.cLo[o], t.cHi[o], l.hiAB(o), t.w, eNegW)
		t.qLoBA[o], t.qHiBA[o], t.qsLoBA[o], t.qsHiBA[o] = qEnclosureE(t.cLo[o], t.cHi[o], t.aLo[o], t.aHi[o], l.hiBA(o), t.w, eNegW)
	}
	return t
}

// delta evaluates Theorem 2 at eps for both directions; t is
// l.deltaTable(b) (built once per Result, see Result.Delta).
func (l *list) delta(eps float64, b bounds, ec bool, t *deltaTable) DeltaBound {
	return l.deltaWith(eps, b, ec, t, errAll)
}

// errMode selects the error bounds delta uses for the buckets on one side
// of eps: errAll takes the tightest of the pointwise, total (l1) and
// tilted total (tl1) bounds; the others are for tests and diagnostics.
type errMode int

const (
	errAll       errMode = iota
	errPointwise         // the pointwise bounds only
	errTilted            // the tilted total errors only (no l1, no pointwise) where they apply
)

// sideSums are the partial sums of one direction of delta: the pointwise
// upper and lower terms of all buckets above eps (in offset order, as
// deltaDirect sums them), of the buckets wholly above eps alone, and the
// values p, q of the latter.
type sideSums struct {
	up, lo           float64 // all buckets above eps
	upWhole, loWhole float64 // buckets wholly above eps
	p, q             float64 // their summed values (P-side, Q-side)
	sumP             float64 // the upper bounds of P summed (for rounding)
	count            int     // buckets with a term
	oMin, oMax       int     // first and last offset wholly above eps (-1: none)
}

// wholeL1 returns upper and lower bounds on the contribution of the buckets
// wholly above eps: the better of the pointwise sums and of the bounds from
// the total errors l1P, l1Q of the P- and Q-side (list.l1A). Every event of
// such a bucket has P > e^eps Q, so their contribution is exactly
// sum (P - e^eps Q) = P_tot - e^eps Q_tot, with |P_tot - p| <= l1P and
// |Q_tot - q| <= l1Q. Only for eps <= epsBig (e^eps finite).
func (s sideSums) wholeL1(l1P, l1Q, eps float64, n int) (up, lo float64) {
	up1, lo1 := s.wholeL1Raw(l1P, l1Q, eps, n)
	return math.Min(s.upWhole, up1), math.Max(s.loWhole, lo1)
}

// wholeL1Raw is wholeL1 from l1P and l1Q alone.
func (s sideSums) wholeL1Raw(l1P, l1Q, eps float64, n int) (up, lo float64) {
	eUp := math.Exp(eps) * (1 + 2*unitRoundoff)
	eDn := math.Exp(eps) * (1 - 2*unitRoundoff)
	g := gamma(2*n + 16)
	up1 := s.p*(1+g) + l1P*(1+g) - eDn*s.q*(1-g) + eUp*l1Q*(1+g)
	up1 += 4*unitRoundoff*(s.p+eUp*s.q+l1P+eUp*l1Q) + tinyDir
	lo1 := s.p*(1-g) - l1P*(1+g) - eUp*s.q*(1+g) - eUp*l1Q*(1+g)
	lo1 -= 4*unitRoundoff*(s.p+eUp*s.q+l1P+eUp*l1Q) + tinyDir
	if math.IsNaN(up1) {
		up1 = math.Inf(1)
	}
	if math.IsNaN(lo1) {
		lo1 = 0
	}
	return math.Max(up1, 0), lo1
}

// side sums the terms of one direction over the offsets [o0, o1]: P and Q
// are the stored values of that direction (a and c for A||B), pHi, pLo
// their P-enclosures, qLo, qHi, qsLo, qsHi the Q-enclosures of deltaTable,
// hi the upper end of the log-ratios of an offset. t supplies w and d.
func sideTerms(eps float64, ec bool, o0, o1 int, hi, lo func(o int) float64, P, Q, pHi, pLo, qLo, qHi, qsLo, qsHi []float64, t *deltaTable) (s sideSums, upStr, loStr float64) {
	s.oMin, s.oMax = -1, -1
	eEup := math.Exp(eps) * (1 - 2*unitRoundoff) // lower bound on e^eps (for upper terms)
	eElo := math.Exp(eps) * (1 + 2*unitRoundoff) // upper bound (for lower terms)
	big := eps > epsBig
	for o := o0; o <= o1; o++ {
		lHi := hi(o)
		if !(lHi > eps) {
			continue
		}
		lLo := lo(o)
		ph := pHi[o]
		var up float64
		if ec {
			up = chordUpperPre(ph, qLo[o], qsLo[o], lHi, lLo, t.w, t.d, eps, eEup)
		} else if ph > 0 {
			up = ph*-math.Expm1(eps-lHi)*(1+8*unitRoundoff) + tinyDir
		}
		var low float64
		if !big {
			low = lowerTermE(pLo[o], qHi[o], eElo)
		} else if pl := pLo[o]; pl > 0 {
			// p - e^(eps-lLo) (Q e^lLo); e^(eps-lLo) may exceed 1 (up to
			// e^w) for straddling buckets
			a := eps - (lHi - t.w)
			if qs := qsHi[o]; qs > 0 {
				x := math.Exp(a) * (1 + 4*unitRoundoff*(2+math.Abs(a)))
				v := pl - x*qs - (4*unitRoundoff*(pl+x*qs) + tinyDir)
				if v > 0 { // false for -Inf and NaN
					low = v
				}
			} else {
				low = pl
			}
		}
		s.up += up
		s.lo += low
		if ec && lLo >= eps {
			s.upWhole += up
			s.loWhole += low
			s.p += P[o]
			s.q += Q[o]
			if s.oMin < 0 {
				s.oMin = o
			}
			s.oMax = o
		} else {
			upStr += up
			loStr += low
		}
		s.sumP += ph
		s.count++
	}
	return s, upStr, loStr
}

// deltaWith is delta with the error bounds of mode.
func (l *list) deltaWith(eps float64, b bounds, ec bool, t *deltaTable, mode errMode) DeltaBound {
	res := DeltaBound{Eps: eps, Corners: l.corners()}
	n := l.n
	if math.IsInf(eps, 1) {
		res.UpperAB, res.UpperBA = l.distA.upper(), l.distB.upper()
		res.LowerAB, res.LowerBA = l.distA.lower(), l.distB.lower()
	} else {
		// A||B: offsets whose log-ratios reach above eps (lHi = L(o)
		// widened). Every offset counts, also outside the support
		// [lo, hi]: a zero value there may still hide mass up to its
		// error bound (e.g. entries zeroed as rounding noise).
		start := 0
		if k := eps / l.lambda; k > float64(n+2) {
			start = 2 * n
		} else {
			start = max(0, int(math.Floor(k))+n-2)
		}
		ab, upStrAB, loStrAB := sideTerms(eps, ec, start, 2*n-1, l.hiAB, l.loAB, l.a, l.c, t.aHi, t.aLo, t.qLoAB, t.qHiAB, t.qsLoAB, t.qsHiAB, t)
		// B||A: ratio P_B/P_A in [e^-L, e^(u lambda - L)]; offsets with
		// u lambda - L(o) > eps.
		end := 2*n - 1
		if k := (l.u*l.lambda - eps) / l.lambda; k < float64(-n-2) {
			end = -1
		} else if k < float64(n) {
			end = min(2*n-1, int(math.Ceil(k))+n+1)
		}
		ba, upStrBA, loStrBA := sideTerms(eps, ec, 0, end, l.hiBA, l.loBA, l.c, l.a, t.cHi, t.cLo, t.qLoBA, t.qHiBA, t.qsLoBA, t.qsHiBA, t)
		upAB, loAB, upBA, loBA := ab.up, ab.lo, ba.up, ba.lo
		if mode != errPointwise && ec && eps <= epsBig {
			// The straddling buckets keep their pointwise terms; the
			// split sums are in another order than the totals, which the
			// factor g below covers (sums of at most 2n+16 terms >= 0).
			// The buckets wholly above eps form a suffix of the offsets
			// in A||B (from ab.oMin on: losses >= L(ab.oMin)) and a
			// prefix in B||A (up to ba.oMax): their summed errors are
			// bounded by l1 and by the tilted bounds (tailTL1).
			l1A, l1C := l.l1A, l.l1C
			if mode == errTilted {
				l1A, l1C = math.Inf(1), math.Inf(1)
			}
			// The entries zeroed as noise (list.tl1ZA) hold a true mass
			// >= their stored 0: they can raise P and Q above the stored
			// sums, never lower them, so their values zA, zC count where
			// a side may be larger than stored (P for the upper bound, Q
			// for the lower) and not otherwise.
			whole := func(s sideSums, l1P, l1Q, l1Pz, l1Qz float64) (float64, float64) {
				if mode == errTilted {
					up, _ := s.wholeL1Raw(l1Pz, l1Q, eps, n)
					_, lo := s.wholeL1Raw(l1P, l1Qz, eps, n)
					return up, lo
				}
				up, _ := s.wholeL1(l1Pz, l1Q, eps, n)
				_, lo := s.wholeL1(l1P, l1Qz, eps, n)
				return up, lo
			}
			u, lw := whole(ab, l.tailTL1(l1A, l.tl1A, 0, ab.oMin, 1), l.tailTL1(l1C, l.tl1C, 0, ab.oMin, 1),
				l.tailTL1(l1A, l.tl1A, l.zA, ab.oMin, 1), l.tailTL1(l1C, l.tl1C, l.zC, ab.oMin, 1))
			upAB, loAB = math.Min(upAB, upStrAB+u), math.Max(loAB, loStrAB+lw)
			if mode == errTilted {
				upAB, loAB = upStrAB+u, loStrAB+lw
			}
			u, lw = whole(ba, l.tailTL1(l1C, l.tl1C, 0, ba.oMax, -1), l.tailTL1(l1A, l.tl1A, 0, ba.oMax, -1),
				l.tailTL1(l1C, l.tl1C, l.zC, ba.oMax, -1), l.tailTL1(l1A, l.tl1A, l.zA, ba.oMax, -1))
			upBA, loBA = math.Min(upBA, upStrBA+u), math.Max(loBA, loStrBA+lw)
			if mode == errTilted {
				upBA, loBA = upStrBA+u, loStrBA+lw
			}
		}
		g := 1 + gamma(2*n+16)
		sumP := ab.sumP + ba.sumP
		// every term was rounded up by tinyDir; the sums of terms below
		// 2^-1022 are exact
		res.UpperAB = (upAB+l.distA.upper()+l.hiA.upper()+l.loA.upper())*g + 8*unitRoundoff*sumP
		res.UpperBA = (upBA+l.distB.upper()+l.loC.upper()+l.hiC.upper())*g + 8*unitRoundoff*sumP
		res.LowerAB = (loAB + l.distA.lower() + lowerTerm(l.hiA.lower(), l.hiC.upper(), eps) + lowerTerm(l.loA.lower(), l.loC.upper(), eps)) / g
		res.LowerBA = (loBA + l.distB.lower() + lowerTerm(l.loC.lower(), l.loA.upper(), eps) + lowerTerm(l.hiC.lower(), l.hiA.upper(), eps)) / g
		finishDelta(&res, ec, l.cornerValue())
		if res.Note != "" && math.Max(upStrAB, upStrBA) >= 0.25 && l.cornerValue() < 0.25 {
			res.Note = fmt.Sprintf("delta_up is the trivial bound 1: the buckets' window u ln f = %.3g (the privacy loss of a bucket's events is known only within it) is too wide; more buckets or fewer compositions would narrow it", l.u*l.lambda)
		}
		return res
	}
	finishDelta(&res, ec, l.cornerValue())
	return res
}

// finishDelta clamps the bounds of res to [0, 1] (NaN, which sound
// arithmetic does not produce, becomes the trivial bound), sets Upper and
// Lower and explains a trivial upper bound in res.Note.
//
// cornerVal is the corners' computed mass (without error bounds): corners
// whose upper bound is large only through their error bounds are a
// rounding-error problem, not a range problem.
func finishDelta(res *DeltaBound, ec bool, cornerVal float64) {
	clampUp := func(v float64) float64 {
		if !(v < 1) { // also NaN
			return 1
		}
		return math.Max(v, 0)
	}
	clampLo := func(v float64) float64 {
		if !(v > 0) {
			return 0
		}
		return math.Min(v, 1)
	}
	rawAB, rawBA := res.UpperAB, res.UpperBA
	res.UpperAB, res.UpperBA = clampUp(res.UpperAB), clampUp(res.UpperBA)
	res.LowerAB, res.LowerBA = clampLo(res.LowerAB), clampLo(res.LowerBA)
	res.Upper = math.Max(res.UpperAB, res.UpperBA)
	res.Lower = math.Max(res.LowerAB, res.LowerBA)
	if !ec {
		res.Lower, res.LowerAB, res.LowerBA = math.NaN(), math.NaN(), math.NaN()
	}
	if res.Upper == 1 && !(res.Lower >= 0.5) {
		// delta_up = 1 is the truth only for (nearly) distinguishable
		// pairs; otherwise say what made the bound trivial.
		switch {
		case math.IsNaN(rawAB) || math.IsNaN(rawBA):
			res.Note = "delta_up is the trivial bound 1: the bound evaluated to NaN"
		case cornerVal >= 0.25:
			res.Note = fmt.Sprintf("delta_up is the trivial bound 1: the corner buckets (privacy loss beyond the bucket range) hold mass %.3g", cornerVal)
		default:
			res.Note = "delta_up is the trivial bound 1: the rounding-error bounds of the composed buckets exceed their masses"
		}
	}
}
