package engine

import "math"

// deltaDirect is list.delta as it was before the per-Result table: the
// reference that the table must reproduce bitwise.
func (l *list) deltaDirect(eps float64, b bounds, ec bool) DeltaBound {
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
		for o := start; o < 2*n; o++ {
			L := l.loss(o)
			if L <= eps {
				continue
			}
			pHi := l.a[o] + b.ea[o]
			qLo := math.Max(0, l.c[o]-b.ec[o])
			if ec {
				upAB += chordUpper(pHi, qLo, L-ul, L, eps)
			} else {
				upAB += pHi * -math.Expm1(eps-L) * (1 + 4*unitRoundoff)
			}
			loAB += lowerTerm(math.Max(0, l.a[o]-b.ea[o]), l.c[o]+b.ec[o], eps)
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
			pHi := l.c[o] + b.ec[o]
			qLo := math.Max(0, l.a[o]-b.ea[o])
			if ec {
				upBA += chordUpper(pHi, qLo, -L, ul-L, eps)
			} else {
				upBA += pHi * -math.Expm1(eps-(ul-L)) * (1 + 4*unitRoundoff)
			}
			loBA += lowerTerm(math.Max(0, l.c[o]-b.ec[o]), l.a[o]+b.ea[o], eps)
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

// chordUpper is chordUpperPre computing every factor itself (the
// reference of deltaDirect). It returns an upper bound on sum_x max(0, P(x) - e^eps Q(x)) over a
// group of events with total masses p and q (upper bound p, lower bound q
// given) whose log-ratios ln(P(x)/Q(x)) all lie in [lLo, lHi].
//
// With y = Q(x)/P(x) in [e^-lHi, e^-lLo], the summand is P(x) g(y) with g
// convex, so it is at most the chord through the ends of the interval,
// evaluated at the mean q/p. For groups entirely above eps this is exactly
// p - e^eps q, the error-corrected term of Definition 9; for groups that
// straddle eps it is at most the paper's p (1 - e^eps/f^i) (Definition 9 uses
// the latter for the u buckets above j_eps) and usually much smaller.
func chordUpper(p, q, lLo, lHi, eps float64) float64 {
	if lHi <= eps || p == 0 {
		return 0
	}
	g1 := -math.Expm1(eps-lHi) * (1 + 4*unitRoundoff)
	cap1 := p * g1
	eE := math.Exp(eps) * (1 - 2*unitRoundoff)
	var v float64
	if lLo >= eps {
		v = p - eE*q
		v += 4 * unitRoundoff * (p + eE*q)
	} else {
		d := lHi - lLo
		num := p*math.Exp(-lLo) - q
		num += 4 * unitRoundoff * (p*math.Exp(-lLo) + q)
		den := math.Exp(-lHi) * math.Expm1(d) * (1 - 8*unitRoundoff)
		v = g1 * num / den * (1 + 4*unitRoundoff)
	}
	if !(v < cap1) { // also catches NaN
		v = cap1
	}
	return math.Max(v, 0)
}
