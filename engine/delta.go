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
	res := DeltaBound{Eps: eps, Corners: l.corners()}
	n := l.n
	ul := l.u * l.lambda
	if math.IsInf(eps, 1) {
		res.UpperAB, res.UpperBA = l.distA.upper(), l.distB.upper()
		res.LowerAB, res.LowerBA = l.distA.lower(), l.distB.lower()
	} else {
		var upAB, loAB, upBA, loBA, sumP float64
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
			if ec {
				upAB += chordUpperPre(pHi, t.cLo[o], L-ul, L, t.eLoAB[o], t.denAB[o], eps, eEup)
			} else {
				upAB += pHi * -math.Expm1(eps-L) * (1 + 4*unitRoundoff)
			}
			loAB += lowerTermE(t.aLo[o], t.cHi[o], eElo)
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
			if ec {
				upBA += chordUpperPre(pHi, t.aLo[o], -L, ul-L, t.eLoBA[o], t.denBA[o], eps, eEup)
			} else {
				upBA += pHi * -math.Expm1(eps-(ul-L)) * (1 + 4*unitRoundoff)
			}
			loBA += lowerTermE(t.cLo[o], t.aHi[o], eElo)
			sumP += pHi
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
