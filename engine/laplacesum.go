package engine

import (
	"math"
)

// This file computes the PMF of the sum of two independent Laplace counts
// (Vuvuzela's conversation pair with Laplace noise) in closed form, to a
// relative error of about 1e-13 per entry instead of the tilted FFT's
// sumTarget (countsum.go). At r = 2^19 compositions a leaf's relative error
// adds up (the grouped list's l1 error is about r times it), so the FFT's
// 3e-9 left Figure 20's claim undecided.
//
// A Laplace count C = ceil(max(0, mu + b Z)) has, for k >= 1, the mass
// P(C = k) = P(k-1 < X <= k), which is geometric on each side of mu:
// P(C = k) = P(C = kR) e^{-(k-kR)/b} for k >= kR = ceil(mu)+1 (k-1 >= mu) and
// P(C = k) = P(C = kL) e^{-(kL-k)/b} for 1 <= k <= kL = floor(mu) (k <= mu),
// with one straddling count ceil(mu) between them when mu is not an
// integer. So the sum over j of x_j y_{k-j} (j >= 1, k-j >= 1; the terms with
// a count of 0 are added by addSpikes) is a sum of at most 9 geometric
// series, one per pair of pieces, each summed in closed form.

// geoPiece is a piece of a count's PMF on [lo, hi]: mass c e^{sg (j - at) w}.
type geoPiece struct {
	lo, hi, at int
	c, rel     float64 // mass at `at` and its relative error
	sg         float64 // +1 (left piece, rising), -1 (right piece), 0 (single)
}

// laplacePieces returns the pieces of the PMF of ceil(max(0, mu + b Z)) on
// the counts >= 1.
func laplacePieces(mu, b float64) []geoPiece {
	var ps []geoPiece
	kL := int(math.Floor(mu))
	kR := int(math.Ceil(mu)) + 1
	if kL >= 1 {
		c, r := countMass(NoiseLaplace, kL, mu, b)
		ps = append(ps, geoPiece{lo: 1, hi: kL, at: kL, c: c, rel: r, sg: 1})
	}
	if kR-kL == 2 && kL+1 >= 1 { // the straddling count
		c, r := countMass(NoiseLaplace, kL+1, mu, b)
		ps = append(ps, geoPiece{lo: kL + 1, hi: kL + 1, at: kL + 1, c: c, rel: r})
	}
	k0 := max(kR, 1)
	c, r := countMass(NoiseLaplace, k0, mu, b)
	ps = append(ps, geoPiece{lo: k0, hi: math.MaxInt32, at: k0, c: c, rel: r, sg: -1})
	return ps
}

// laplaceSumBulk returns, for k = lo .. lo+n-1, the mass of C1 + C2 = k
// with C1, C2 >= 1 (C1 Laplace(mu1, b1), C2 Laplace(mu2, b2) counts), and a
// bound on the relative error of each entry; ok is false if some series'
// ratio is too close to 1 to be summed with a small error bound (not the
// case for the conversation pair, whose ratios are e^{-1/b} and e^{-3/b}).
func laplaceSumBulk(mu1, b1, mu2, b2 float64, lo, n int) (z, rel []float64, ok bool) {
	u := unitRoundoff
	px, py := laplacePieces(mu1, b1), laplacePieces(mu2, b2)
	w1, w2 := 1/b1, 1/b2 // 1u each
	z = make([]float64, n)
	rel = make([]float64, n)
	for i := range z {
		k := lo + i
		sum, maxRel := 0.0, 0.0
		for _, p := range px {
			for _, q := range py {
				// j in p, k-j in q.
				j0 := max(p.lo, k-q.hi)
				j1 := min(p.hi, k-q.lo)
				if j0 > j1 {
					continue
				}
				nn := float64(j1 - j0 + 1)
				// term(j) = p.c q.c e^{E(j)}, E(j) = p.sg (j - p.at) w1 +
				// q.sg (k - j - q.at) w2, slope s = p.sg w1 - q.sg w2.
				s := p.sg*w1 - q.sg*w2
				js := j0
				if s > 0 {
					js = j1 // the largest term
				}
				t1 := p.sg * float64(js-p.at) * w1
				t2 := q.sg * float64(k-js-q.at) * w2
				E := t1 + t2
				// |error of E| <= 3u(|t1|+|t2|) (w's 1u, products 1u, sum).
				eE := 3.01 * u * (math.Abs(t1) + math.Abs(t2))
				G, eG := nn, 0.0
				if j1 > j0 {
					a := math.Abs(s)
					// a's relative error: 1u of w1, w2 each and 1u of
					// the difference; ln G has a log-derivative in a
					// of at most 1 in magnitude.
					ea := u*(w1+w2)/a*(1+2*u) + u
					if !(a > 0) || ea > 1e-6 {
						return nil, nil, false
					}
					G = math.Expm1(-a*nn) / math.Expm1(-a)
					eG = ea*(1+2*ea) + 8*u
				}
				v := p.c * q.c * math.Exp(E) * G
				// Relative error: the two masses, e^E, G, three products.
				r := (1+p.rel)*(1+q.rel)*math.Exp(eE)*(1+2*u)*(1+eG)*(1+4*u) - 1
				r = r*(1+1e-6) + 4*u
				sum += v
				maxRel = math.Max(maxRel, r)
			}
		}
		z[i] = sum
		// Up to 9 positive terms added: 9u more.
		rel[i] = (maxRel + 10*u) * (1 + 1e-6)
	}
	return z, rel, true
}

// laplaceSumCounts is sumCounts for Laplace noise (the masses of xa, xb,
// ya, yb are those of laplace counts with the given means and scales), by
// the closed form; nil if the closed form does not apply.
func laplaceSumCounts(xa, xb, ya, yb countDist, muXA, muXB, bX, muYA, muYB, bY float64) *countSum {
	lx, hx := min(xa.lo, xb.lo), max(xa.hi(), xb.hi())
	ly, hy := min(ya.lo, yb.lo), max(ya.hi(), yb.hi())
	n1, n2 := hx-lx+1, hy-ly+1
	nz := n1 + n2 - 1
	lo := lx + ly
	za, ra, okA := laplaceSumBulk(muXA, bX, muYA, bY, lo, nz)
	zb, rb, okB := laplaceSumBulk(muXB, bX, muYB, bY, lo, nz)
	if !okA || !okB {
		return nil
	}
	relMax := math.Max(math.Max(xa.rel, xb.rel), math.Max(ya.rel, yb.rel))
	g := (1 + relMax) * (1 + 8*unitRoundoff)
	s := &countSum{
		lo:    lo,
		a:     za,
		ea:    make([]float64, nz),
		b:     zb,
		eb:    make([]float64, nz),
		rel:   make([]float64, nz),
		restA: (xa.left + xa.right + ya.left + ya.right) * g,
		restB: (xb.left + xb.right + yb.left + yb.right) * g,
		lbA:   make([]float64, nz),
		ubA:   make([]float64, nz),
		lbB:   make([]float64, nz),
		ubB:   make([]float64, nz),
	}
	u := unitRoundoff
	for k := range za {
		// relative errors, and an absolute allowance for products and
		// sums below 2^-1022 (a few units of 2^-1074 each; such an entry
		// is unresolved, its mass kept in the corner)
		s.ea[k] = za[k]*ra[k]*(1+2*u) + 0x1p-1068
		s.eb[k] = zb[k]*rb[k]*(1+2*u) + 0x1p-1068
		s.lbA[k], s.ubA[k] = za[k]-s.ea[k], za[k]+s.ea[k]
		s.lbB[k], s.ubB[k] = zb[k]-s.eb[k], zb[k]+s.eb[k]
		r := math.Inf(1)
		if za[k] > 0 && zb[k] > 0 {
			r = math.Max(s.ea[k]/za[k], s.eb[k]/zb[k])
		}
		s.rel[k] = r
	}
	laplaceSpikes(s, muXA, muXB, bX, muYA, muYB, bY)
	return s
}

// laplaceSpikes adds to s the terms of the sums with a count of 0, with
// every mass in closed form (countMass), not from the truncated countDists:
// a count 0 or a partner count beyond a stored range (mass below convTail)
// would leave its term out of an entry whose other terms are kept, which
// splits the outcome into the entry and an unknown rest. The split pair
// dominates the pair (upper bounds stay sound) but is not dominated by it
// (lower bounds from it would not be), and the entry's loss is off: at mu
// 0.3, scale 0.005 the sum 1 had B-mass 5.1e-314 instead of 3.7e-227, and
// delta_up A||B stayed at 8.8e-27 from e^eps = e^461 to e^661, where the
// exact is below 1.9e-53.
func laplaceSpikes(s *countSum, muXA, muXB, bX, muYA, muYB, bY float64) {
	mass := func(k int, mu, b float64) (float64, float64) { return countMass(NoiseLaplace, k, mu, b) }
	x0a, rx0a := mass(0, muXA, bX)
	x0b, rx0b := mass(0, muXB, bX)
	y0a, ry0a := mass(0, muYA, bY)
	y0b, ry0b := mass(0, muYB, bY)
	for k := range s.a {
		c := s.lo + k
		if c < 0 {
			continue
		}
		var ta, tb, relP float64
		if c == 0 {
			ta, tb = x0a*y0a, x0b*y0b
			relP = math.Max(rx0a+ry0a, rx0b+ry0b)
		} else {
			yA, ryA := mass(c, muYA, bY)
			xA, rxA := mass(c, muXA, bX)
			yB, ryB := mass(c, muYB, bY)
			xB, rxB := mass(c, muXB, bX)
			ta = x0a*yA + y0a*xA
			tb = x0b*yB + y0b*xB
			relP = math.Max(math.Max(rx0a+ryA, ry0a+rxA), math.Max(rx0b+ryB, ry0b+rxB))
		}
		if ta == 0 && tb == 0 {
			continue
		}
		s.addTerm(k, ta, tb, relP, 0x1p-1070)
	}
}
