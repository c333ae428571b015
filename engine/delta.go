package engine

import (
	"math"
)

// bounds holds the per-bucket error bounds of a list, computed once.
type bounds struct {
	ea, ec []float64
}

func (l *list) bounds() bounds {
	ea, ec := l.errBoundsW(newTiltWeights(l.n, l.lambda, l.tau))
	return bounds{ea, ec}
}

// lowerTerm returns max(0, p - e^eps q) rounded down, for p a lower and q an
// upper bound of a group's masses.
func lowerTerm(p, q, eps float64) float64 {
	return lowerTermE(p, q, math.Exp(eps)*(1+2*unitRoundoff))
}

// lowerTermE is lowerTerm with eE = e^eps (1 + 2u) given.
func lowerTermE(p, q, eE float64) float64 {
	t := p - eE*q
	t -= 4 * unitRoundoff * (p + eE*q)
	return math.Max(t, 0)
}

// chordUpperPre returns an upper bound on sum_x max(0, P(x) - e^eps Q(x)) over a
// group of events with total masses p and q (upper bound p, lower bound q
// given) whose log-ratios ln(P(x)/Q(x)) all lie in [lLo, lHi].
//
// With y = Q(x)/P(x) in [e^-lHi, e^-lLo], the summand is P(x) g(y) with g
// convex, so it is at most the chord through the ends of the interval,
// evaluated at the mean q/p. For groups entirely above eps this is exactly
// p - e^eps q, the error-corrected term of Definition 9; for groups that
// straddle eps it is at most the paper's p (1 - e^eps/f^i) (Definition 9 uses
// the latter for the u buckets above j_eps) and usually much smaller.
//
// The eps-independent factors are given (deltaTable): eLo = exp(-lLo),
// den = exp(-lHi) expm1(lHi - lLo) (1 - 8u), and eE = exp(eps) (1 - 2u).
func chordUpperPre(p, q, lLo, lHi, eLo, den, eps, eE float64) float64 {
	if lHi <= eps || p == 0 {
		return 0
	}
	g1 := -math.Expm1(eps-lHi) * (1 + 4*unitRoundoff)
	cap1 := p * g1
	var v float64
	if lLo >= eps {
		v = p - eE*q
		v += 4 * unitRoundoff * (p + eE*q)
	} else {
		num := p*eLo - q
		num += 4 * unitRoundoff * (p*eLo + q)
		v = g1 * num / den * (1 + 4*unitRoundoff)
	}
	if !(v < cap1) { // also catches NaN
		v = cap1
	}
	return math.Max(v, 0)
}

// deltaTable holds the eps-independent per-offset quantities of delta: the
// enclosures of the masses and the exponentials of the chord bounds of
// both directions. Built once per Result; delta with a table computes
// exactly the same numbers as without (three fewer exponentials per bucket).
type deltaTable struct {
	aHi, aLo, cHi, cLo []float64
	eLoAB, denAB       []float64
	eLoBA, denBA       []float64
}

func (l *list) deltaTable(b bounds) *deltaTable {
	m := 2 * l.n
	t := &deltaTable{
		aHi: make([]float64, m), aLo: make([]float64, m), cHi: make([]float64, m), cLo: make([]float64, m),
		eLoAB: make([]float64, m), denAB: make([]float64, m), eLoBA: make([]float64, m), denBA: make([]float64, m),
	}
	ul := l.u * l.lambda
	for o := 0; o < m; o++ {
		t.aHi[o] = l.a[o] + b.ea[o]
		t.aLo[o] = math.Max(0, l.a[o]-b.ea[o])
		t.cHi[o] = l.c[o] + b.ec[o]
		t.cLo[o] = math.Max(0, l.c[o]-b.ec[o])
		L := l.loss(o)
		lLo, lHi := L-ul, L
		t.eLoAB[o] = math.Exp(-lLo)
		t.denAB[o] = math.Exp(-lHi) * math.Expm1(lHi-lLo) * (1 - 8*unitRoundoff)
		lLo, lHi = -L, ul-L
		t.eLoBA[o] = math.Exp(-lLo)
		t.denBA[o] = math.Exp(-lHi) * math.Expm1(lHi-lLo) * (1 - 8*unitRoundoff)
	}
	return t
}

// delta evaluates Theorem 2 at eps for both directions; t is
// l.deltaTable(b) (built once per Result, see Result.Delta).
func (l *list) delta(eps float64, b bounds, ec bool, t *deltaTable) DeltaBound {
	return l.deltaWith(eps, b, ec, t, true)
}

// sideSums are the partial sums of one direction of delta: the pointwise
// upper and lower terms of all buckets above eps (in offset order, as
// deltaDirect sums them), of the buckets wholly above eps alone, and the
// values p, q of the latter.
type sideSums struct {
	up, lo           float64 // all buckets above eps
	upWhole, loWhole float64 // buckets wholly above eps
	p, q             float64 // their summed values (P-side, Q-side)
}

// wholeL1 returns upper and lower bounds on the contribution of the buckets
// wholly above eps: the better of the pointwise sums and of the bounds from
// the total errors l1P, l1Q of the P- and Q-side (list.l1A). Every event of
// such a bucket has P > e^eps Q, so their contribution is exactly
// sum (P - e^eps Q) = P_tot - e^eps Q_tot, with |P_tot - p| <= l1P and
// |Q_tot - q| <= l1Q.
func (s sideSums) wholeL1(l1P, l1Q, eps float64, n int) (up, lo float64) {
	eUp := math.Exp(eps) * (1 + 2*unitRoundoff)
	eDn := math.Exp(eps) * (1 - 2*unitRoundoff)
	g := gamma(2*n + 16)
	up1 := s.p*(1+g) + l1P*(1+g) - eDn*s.q*(1-g) + eUp*l1Q*(1+g)
	up1 += 4 * unitRoundoff * (s.p + eUp*s.q + l1P + eUp*l1Q)
	lo1 := s.p*(1-g) - l1P*(1+g) - eUp*s.q*(1+g) - eUp*l1Q*(1+g)
	lo1 -= 4 * unitRoundoff * (s.p + eUp*s.q + l1P + eUp*l1Q)
	return math.Min(s.upWhole, math.Max(up1, 0)), math.Max(s.loWhole, lo1)
}

// deltaWith is delta; useL1 = false gives the pointwise bounds only (the
// reference evaluation deltaDirect reproduces them bitwise).
func (l *list) deltaWith(eps float64, b bounds, ec bool, t *deltaTable, useL1 bool) DeltaBound {
	res := DeltaBound{Eps: eps, Corners: l.corners()}
	n := l.n
	ul := l.u * l.lambda
	if math.IsInf(eps, 1) {
		res.UpperAB, res.UpperBA = l.distA.upper(), l.distB.upper()
		res.LowerAB, res.LowerBA = l.distA.lower(), l.distB.lower()
	} else {
		var ab, ba sideSums
		var upStrAB, loStrAB, upStrBA, loStrBA float64 // straddling buckets
		var sumP float64
		// A||B: buckets with L(o) > eps. Every offset counts, also outside
		// the support [lo, hi]: a zero value there may still hide mass up to
		// its error bound (e.g. entries zeroed as rounding noise).
		start := max(0, int(math.Floor(eps/l.lambda))+n-2)
		eEup := math.Exp(eps) * (1 - 2*unitRoundoff)
		eElo := math.Exp(eps) * (1 + 2*unitRoundoff)
		for o := start; o < 2*n; o++ {
			L := l.loss(o)
			if L <= eps {
				continue
			}
			pHi := t.aHi[o]
			var up float64
			if ec {
				up = chordUpperPre(pHi, t.cLo[o], L-ul, L, t.eLoAB[o], t.denAB[o], eps, eEup)
			} else {
				up = pHi * -math.Expm1(eps-L) * (1 + 4*unitRoundoff)
			}
			lo := lowerTermE(t.aLo[o], t.cHi[o], eElo)
			ab.up += up
			ab.lo += lo
			if ec && L-ul >= eps {
				ab.upWhole += up
				ab.loWhole += lo
				ab.p += l.a[o]
				ab.q += l.c[o]
			} else {
				upStrAB += up
				loStrAB += lo
			}
			sumP += pHi
		}
		// B||A: ratio P_B/P_A in [e^-L, e^(u lambda - L)]; buckets with
		// u lambda - L(o) > eps.
		end := min(2*n-1, int(math.Ceil((ul-eps)/l.lambda))+n+1)
		for o := 0; o <= end; o++ {
			L := l.loss(o)
			if ul-L <= eps {
				continue
			}
			pHi := t.cHi[o]
			var up float64
			if ec {
				up = chordUpperPre(pHi, t.aLo[o], -L, ul-L, t.eLoBA[o], t.denBA[o], eps, eEup)
			} else {
				up = pHi * -math.Expm1(eps-(ul-L)) * (1 + 4*unitRoundoff)
			}
			lo := lowerTermE(t.cLo[o], t.aHi[o], eElo)
			ba.up += up
			ba.lo += lo
			if ec && -L >= eps {
				ba.upWhole += up
				ba.loWhole += lo
				ba.p += l.c[o]
				ba.q += l.a[o]
			} else {
				upStrBA += up
				loStrBA += lo
			}
			sumP += pHi
		}
		upAB, loAB, upBA, loBA := ab.up, ab.lo, ba.up, ba.lo
		if useL1 && ec {
			// The straddling buckets keep their pointwise terms; the
			// split sums are in another order than the totals, which the
			// factor g below covers (sums of at most 2n+16 terms >= 0).
			u, lw := ab.wholeL1(l.l1A, l.l1C, eps, n)
			upAB, loAB = math.Min(upAB, upStrAB+u), math.Max(loAB, loStrAB+lw)
			u, lw = ba.wholeL1(l.l1C, l.l1A, eps, n)
			upBA, loBA = math.Min(upBA, upStrBA+u), math.Max(loBA, loStrBA+lw)
		}
		g := 1 + gamma(2*n+16)
		res.UpperAB = (upAB+l.distA.upper()+l.hiA.upper()+l.loA.upper())*g + 8*unitRoundoff*sumP
		res.UpperBA = (upBA+l.distB.upper()+l.loC.upper()+l.hiC.upper())*g + 8*unitRoundoff*sumP
		res.LowerAB = (loAB + l.distA.lower() + lowerTerm(l.hiA.lower(), l.hiC.upper(), eps) + lowerTerm(l.loA.lower(), l.loC.upper(), eps)) / g
		res.LowerBA = (loBA + l.distB.lower() + lowerTerm(l.loC.lower(), l.loA.upper(), eps) + lowerTerm(l.hiC.lower(), l.hiA.upper(), eps)) / g
	}
	res.UpperAB = math.Min(res.UpperAB, 1)
	res.UpperBA = math.Min(res.UpperBA, 1)
	res.Upper = math.Max(res.UpperAB, res.UpperBA)
	res.Lower = math.Max(res.LowerAB, res.LowerBA)
	if !ec {
		res.Lower, res.LowerAB, res.LowerBA = math.NaN(), math.NaN(), math.NaN()
	}
	return res
}
