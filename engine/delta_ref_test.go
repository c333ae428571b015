package engine

import "math"

// deltaDirect evaluates the pointwise bounds of list.delta without the
// per-Result table, computing every bucket's enclosures where it is used:
// the reference that the table must reproduce bitwise.
func (l *list) deltaDirect(eps float64, b bounds, ec bool) DeltaBound {
	res := DeltaBound{Eps: eps, Corners: l.corners()}
	n := l.n
	w, d := l.window()
	if math.IsInf(eps, 1) {
		res.UpperAB, res.UpperBA = l.distA.upper(), l.distB.upper()
		res.LowerAB, res.LowerBA = l.distA.lower(), l.distB.lower()
		finishDelta(&res, ec, l.cornerValue())
		return res
	}
	eEup := math.Exp(eps) * (1 - 2*unitRoundoff)
	eElo := math.Exp(eps) * (1 + 2*unitRoundoff)
	term := func(pLo, pHi, qLo, qHi, lHi, lLo float64) (up, lo float64) {
		if !(lHi > eps) {
			return 0, 0
		}
		qLo, qHi, qsLo, qsHi := qEnclosure(pLo, pHi, qLo, qHi, lHi, w)
		if ec {
			up = chordUpperPre(pHi, qLo, qsLo, lHi, lLo, w, d, eps, eEup)
		} else if pHi > 0 {
			up = pHi*-math.Expm1(eps-lHi)*(1+8*unitRoundoff) + tinyDir
		}
		if eps <= epsBig {
			lo = lowerTermE(pLo, qHi, eElo)
		} else if pLo > 0 {
			a := eps - (lHi - w)
			if qsHi > 0 {
				x := math.Exp(a) * (1 + 4*unitRoundoff*(2+math.Abs(a)))
				if v := pLo - x*qsHi - (4*unitRoundoff*(pLo+x*qsHi) + tinyDir); v > 0 {
					lo = v
				}
			} else {
				lo = pLo
			}
		}
		return up, lo
	}
	var upAB, loAB, upBA, loBA, sumPAB, sumPBA float64
	for o := 0; o < 2*n; o++ {
		aLo, aHi := math.Max(0, l.a[o]-b.ea[o]), l.a[o]+b.ea[o]
		cLo, cHi := math.Max(0, l.c[o]-b.ec[o]), l.c[o]+b.ec[o]
		if lHi := l.hiAB(o); lHi > eps {
			u, lw := term(aLo, aHi, cLo, cHi, lHi, l.loAB(o))
			upAB += u
			loAB += lw
			sumPAB += aHi
		}
	}
	for o := 0; o < 2*n; o++ {
		aLo, aHi := math.Max(0, l.a[o]-b.ea[o]), l.a[o]+b.ea[o]
		cLo, cHi := math.Max(0, l.c[o]-b.ec[o]), l.c[o]+b.ec[o]
		if lHi := l.hiBA(o); lHi > eps {
			u, lw := term(cLo, cHi, aLo, aHi, lHi, l.loBA(o))
			upBA += u
			loBA += lw
			sumPBA += cHi
		}
	}
	g := 1 + gamma(2*n+16)
	sumP := sumPAB + sumPBA
	res.UpperAB = (upAB+l.distA.upper()+l.hiA.upper()+l.loA.upper())*g + 8*unitRoundoff*sumP
	res.UpperBA = (upBA+l.distB.upper()+l.loC.upper()+l.hiC.upper())*g + 8*unitRoundoff*sumP
	res.LowerAB = (loAB + l.distA.lower() + lowerTerm(l.hiA.lower(), l.hiC.upper(), eps) + lowerTerm(l.loA.lower(), l.loC.upper(), eps)) / g
	res.LowerBA = (loBA + l.distB.lower() + lowerTerm(l.loC.lower(), l.loA.upper(), eps) + lowerTerm(l.hiC.lower(), l.hiA.upper(), eps)) / g
	finishDelta(&res, ec, l.cornerValue())
	return res
}
