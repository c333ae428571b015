package engine

import (
	"context"
	"math"
	"testing"
)

// TestDeltaTableIdentical checks that delta with the precomputed table
// gives bitwise the same pointwise bounds as the direct evaluation.
func TestDeltaTableIdentical(t *testing.T) {
	t.Parallel()
	g, _ := Gauss(30, 1, 0)
	rr, _ := RandomizedResponse(0.55)
	sgd, _ := SGD(2, 0.05)
	lap, _ := Laplace(10, 1, 60)
	for _, m := range []Mechanism{g, rr, sgd, lap} {
		for _, ec := range []bool{true, false} {
			res, err := Compose(context.Background(), m, 300, Options{Buckets: 8000, DisableErrorCorrection: !ec})
			if err != nil {
				t.Fatal(err)
			}
			tab := res.l.deltaTable(res.b)
			for i := 0; i <= 200; i++ {
				eps := float64(i) * 0.02
				a := res.l.deltaDirect(eps, res.b, res.ec)
				b := res.l.deltaWith(eps, res.b, res.ec, tab, errPointwise)
				same := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
				if !same(a.Upper, b.Upper) || !same(a.Lower, b.Lower) || !same(a.UpperAB, b.UpperAB) || !same(a.UpperBA, b.UpperBA) || !same(a.LowerAB, b.LowerAB) || !same(a.LowerBA, b.LowerBA) {
					t.Fatalf("%v ec=%v eps=%v: table %+v, direct %+v", m, ec, eps, b, a)
				}
			}
		}
	}
}

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
	// side sums one direction: P and Q its stored masses and error bounds
	side := func(p, q, ep, eq []float64, hi, lo func(int) float64) (up, low, sumP float64) {
		for o := 0; o < 2*n; o++ {
			pLo, pHi := math.Max(0, p[o]-ep[o]), p[o]+ep[o]
			qLo, qHi := math.Max(0, q[o]-eq[o]), q[o]+eq[o]
			if lHi := hi(o); lHi > eps {
				u, lw := term(pLo, pHi, qLo, qHi, lHi, lo(o))
				up += u
				low += lw
				sumP += pHi
			}
		}
		return up, low, sumP
	}
	upAB, loAB, sumPAB := side(l.a, l.c, b.ea, b.ec, l.hiAB, l.loAB)
	upBA, loBA, sumPBA := side(l.c, l.a, b.ec, b.ea, l.hiBA, l.loBA)
	g := 1 + gamma(2*n+16)
	sumP := sumPAB + sumPBA
	res.UpperAB = (upAB+l.distA.upper()+l.hiA.upper()+l.loA.upper())*g + 8*unitRoundoff*sumP
	res.UpperBA = (upBA+l.distB.upper()+l.loC.upper()+l.hiC.upper())*g + 8*unitRoundoff*sumP
	res.LowerAB = (loAB + l.distA.lower() + lowerTerm(l.hiA.lower(), l.hiC.upper(), eps) + lowerTerm(l.loA.lower(), l.loC.upper(), eps)) / g
	res.LowerBA = (loBA + l.distB.lower() + lowerTerm(l.loC.lower(), l.loA.upper(), eps) + lowerTerm(l.hiC.lower(), l.hiA.upper(), eps)) / g
	finishDelta(&res, ec, l.cornerValue())
	return res
}
