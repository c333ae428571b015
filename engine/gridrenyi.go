package engine

import "math"

// gridRenyi returns bounds on D_alpha from a grid list: an atom of A-mass a
// at loss l adds a e^((alpha-1) l) in direction A||B and a e^(-alpha l) in
// B||A (its B-mass is a e^-l). The upper pair dominates the mechanism and
// the lower pair is dominated by it, and D_alpha only shrinks under
// garbling and grows with added atoms, so the upper pair's sum (upper ends
// of the masses, worst ends of the windows) bounds it from above and the
// lower pair's from below. Everything is summed in log space; each
// exponent is rounded outwards by a few units of roundoff of its parts.
func (l *list) gridRenyi(alpha float64, b bounds) (lower, upper float64) {
	u := unitRoundoff
	a1 := alpha - 1
	var upAB, upBA, loAB, loBA logSum
	for o := 0; o < 2*l.n; o++ {
		L := l.loss(o)
		if v := l.a[o] + b.ea[o]; v > 0 {
			lv := ln(v)
			s := 8 * u * (math.Abs(lv) + alpha*(math.Abs(L)+l.wUp) + 4)
			upAB.add(lv + a1*(L+l.wUp) + s)
			upBA.add(lv - alpha*(L-l.wUp) + s)
		}
		if v := l.c[o] - b.ec[o]; v > 0 {
			lv := ln(v)
			s := 8 * u * (math.Abs(lv) + alpha*(math.Abs(L)+l.wLo) + 4)
			loAB.add(lv + a1*(L-l.wLo) - s)
			loBA.add(lv - alpha*(L+l.wLo) - s)
		}
	}
	// Corners: events beyond the top have unbounded ratios in A||B (and
	// the distinguishing ones infinite); those below the bottom add at most
	// their mass times e^(-(alpha-1) n lambda). Likewise for B||A with the
	// B-masses of the other corners.
	nl := float64(l.n) * l.lambda
	far := func(m val) float64 {
		if m.upper() <= 0 {
			return math.Inf(-1)
		}
		return ln(m.upper()) - a1*nl + 8*u*(a1*nl+40)
	}
	upAB.add(far(l.loA))
	upBA.add(far(l.hiC))
	abInf := l.hiA.upper() > 0 || l.distA.upper() > 0
	baInf := l.loC.upper() > 0 || l.distB.upper() > 0
	// the sums: at most 2n+2 terms, each added with a relative rounding
	g := math.Log1p(gamma(4*l.n + 16))
	hiAB, hiBA := upAB.value()+g, upBA.value()+g
	if abInf {
		hiAB = math.Inf(1)
	}
	if baInf {
		hiBA = math.Inf(1)
	}
	lo := math.Max(loAB.value()-g, loBA.value()-g)
	hi := math.Max(hiAB, hiBA)
	// ln and the division round to an ulp: round outwards twice
	lower = lo / a1
	upper = hi / a1
	lower = math.Nextafter(math.Nextafter(lower, math.Inf(-1)), math.Inf(-1))
	upper = math.Nextafter(math.Nextafter(upper, math.Inf(1)), math.Inf(1))
	if math.IsNaN(lower) || math.IsInf(lower, -1) {
		lower = 0
	}
	if math.IsNaN(upper) {
		upper = math.Inf(1)
	}
	return math.Max(lower, 0), upper
}

// gridRenyiEstimate is RenyiEstimate from the grid list's upper pair.
func (l *list) gridRenyiEstimate(alpha float64) float64 {
	var ab, ba logSum
	for o := l.lo; o <= l.hi; o++ {
		if v := l.a[o]; v > 0 {
			L := l.loss(o)
			ab.add(ln(v) + (alpha-1)*L)
			ba.add(ln(v) - alpha*L)
		}
	}
	return math.Max(ab.value(), ba.value()) / (alpha - 1)
}
