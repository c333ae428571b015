package engine

import (
	"context"
	"math"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

// This file computes the PMF of the sum of two independent integer counts,
// for the A side and the B side of a pair at once (Vuvuzela's conversation
// protocol, Section 7.1 as corrected in NOTES.md), with a rigorous bound on
// the error of every entry.
//
// The sums have millions of entries, so the convolution is done by FFT; a
// plain FFT's absolute error (about 1e-16 of the largest entry) would swamp
// the tails, whose ratios decide small deltas. As for bucket lists
// (convolve.go), the sequences are tilted: x_j e^{tau j} * y_m e^{tau m} =
// z_k e^{tau k}, so an FFT error bound E in the tilted domain becomes
// E e^{-tau k} after untilting, which is tiny relative to z_k near the point
// the tilt moves the mass to. Tilts are added until every entry of the sums
// is known to a relative error of sumTarget, or its mass is negligible; the
// rest is reported as an interval of total mass, which the mechanism keeps
// in a corner (counted in full in upper bounds).

// sumTarget is the relative error below which an entry of a sum counts as
// resolved: its privacy-loss interval is then narrower than 3e-10.
const sumTarget = 3e-9

// sumIgnore: unresolved entries whose upper bound is below it do not call
// for another tilt.
const sumIgnore = 1e-40

// sumMaxTilts bounds the number of tilted FFT convolutions.
const sumMaxTilts = 24

// countSum is the PMF of a sum of two counts on lo..lo+len(a)-1 for both
// sides: the true A-mass of entry k lies in [a[k]-ea[k], a[k]+ea[k]], the
// B-mass in [b[k]-eb[k], b[k]+eb[k]]. Entries with rel[k] > sumTarget are
// unresolved; restLoA..restHiB enclose the total mass of the sums outside
// the stored range.
type countSum struct {
	lo                 int
	a, ea, b, eb, rel  []float64
	restA, restB       float64 // upper bounds of the mass outside the range
	tilts              int
	lbA, ubA, lbB, ubB []float64
}

// sumCounts returns the distribution of C1 + C2 with C1 ~ x (xa on the A
// side, xb on the B side) and C2 ~ y, independent.
func sumCounts(ctx context.Context, xa, xb, ya, yb countDist) (*countSum, error) {
	s, err := sumCountsBulk(ctx, xa, xb, ya, yb)
	if err != nil {
		return nil, err
	}
	finishSum(s, xa, xb, ya, yb, min(xa.lo, xb.lo), min(ya.lo, yb.lo))
	return s, nil
}

// sumCountsBulk is sumCounts without the terms that involve a count of 0:
// the tilted FFT convolutions of the counts >= 1.
func sumCountsBulk(ctx context.Context, xa, xb, ya, yb countDist) (*countSum, error) {
	lx, hx := min(xa.lo, xb.lo), max(xa.hi(), xb.hi())
	ly, hy := min(ya.lo, yb.lo), max(ya.hi(), yb.hi())
	n1, n2 := hx-lx+1, hy-ly+1
	nz := n1 + n2 - 1
	N := nextPow2(nz)
	// The logs of the bulk (counts >= 1); count 0 is added by addSpikes.
	logs := func(d countDist, lo, n int) []float64 {
		v := make([]float64, n)
		for j := range v {
			if lo+j == 0 {
				v[j] = math.Inf(-1)
				continue
			}
			v[j] = ln(d.at(lo + j)) // -Inf for 0
		}
		return v
	}
	lxa, lxb := logs(xa, lx, n1), logs(xb, lx, n1)
	lya, lyb := logs(ya, ly, n2), logs(yb, ly, n2)
	relX := math.Max(xa.rel, xb.rel)
	relY := math.Max(ya.rel, yb.rel)
	relMax := math.Max(relX, relY)
	// Pairs with a count outside its stored range: their total mass.
	g := (1 + relMax) * (1 + 8*unitRoundoff)
	s := &countSum{
		lo:    lx + ly,
		a:     make([]float64, nz),
		ea:    make([]float64, nz),
		b:     make([]float64, nz),
		eb:    make([]float64, nz),
		rel:   make([]float64, nz),
		restA: (xa.left + xa.right + ya.left + ya.right) * g,
		restB: (xb.left + xb.right + yb.left + yb.right) * g,
		lbA:   make([]float64, nz),
		ubA:   make([]float64, nz),
		lbB:   make([]float64, nz),
		ubB:   make([]float64, nz),
	}
	for k := range s.rel {
		s.rel[k] = math.Inf(1)
		s.ubA[k] = math.Inf(1)
		s.ubB[k] = math.Inf(1)
	}
	fp := fft.NewPlan(N)
	var sc convScratch
	sc.buffers(N)

	// peak returns the index maximising max(la, lb)[j] + tau*j.
	peak := func(la, lb []float64, tau float64) (int, float64) {
		best, arg := math.Inf(-1), 0
		for j := range la {
			v := math.Max(la[j], lb[j]) + tau*float64(j)
			if v > best {
				best, arg = v, j
			}
		}
		return arg, best
	}
	// load fills re/im with the tilted A and B sequences normalised by
	// their largest entry and returns norms, the normaliser and the
	// relative error of the entries.
	load := func(re, im, la, lb []float64, tau float64) (seqNorms, float64, float64) {
		_, M := peak(la, lb, tau)
		var nr seqNorms
		S := 0.0
		for j := range re {
			re[j], im[j] = 0, 0
		}
		for j := range la {
			tj := tau * float64(j)
			if !math.IsInf(la[j], -1) {
				re[j] = math.Exp(la[j] + tj - M)
				S = math.Max(S, math.Abs(la[j])+math.Abs(tj)+math.Abs(M))
			}
			if !math.IsInf(lb[j], -1) {
				im[j] = math.Exp(lb[j] + tj - M)
				S = math.Max(S, math.Abs(lb[j])+math.Abs(tj)+math.Abs(M))
			}
			nr.l1a += re[j]
			nr.l2a += re[j] * re[j]
			nr.l1c += im[j]
			nr.l2c += im[j] * im[j]
		}
		finishNorms(&nr)
		// log: 1u of |la|, tau*j: 1u, two subtractions: 1u of S each;
		// exp: 1u. Underflowed entries: absolute 2^-1074 each.
		return nr, M, unitRoundoff * (3.01*S + 2)
	}
	apply := func(tau float64) {
		nx, Mx, wx := load(sc.reX, sc.imX, lxa, lxb, tau)
		ny, My, wy := load(sc.reY, sc.imY, lya, lyb, tau)
		fp.ForwardBitReversed(sc.reX, sc.imX)
		fp.ForwardBitReversed(sc.reY, sc.imY)
		spectralProduct(&sc, N, false)
		fp.InverseBitReversed(sc.reX, sc.imX)
		E := convErrBound(fp.Kappa(), N, nx, ny) + float64(N)*0x1p-1070
		rx := (1+relX)*(1+wx) - 1
		ry := (1+relY)*(1+wy) - 1
		rho := (1+rx)*(1+ry) - 1
		if !(rho < 0.5) || math.IsNaN(E) {
			// The tilted entries are not known to better than a factor
			// of 1.5 (a steep tilt tau j, or a count's relative error):
			// no enclosure from this tilt (its error bound divides by
			// 1 - rho, and was negative from rho = 1 on: counts of scale
			// 1e-8 had enclosures [2, -7e-5] and delta_up 5.6e-17 where
			// the exact is 1).
			s.tilts++
			return
		}
		invN := 1 / float64(N)
		u := unitRoundoff
		for k := 0; k < nz; k++ {
			arg := Mx + My - tau*float64(k)
			if arg > 700 {
				continue
			}
			F := math.Exp(arg)
			rF := u * (3.01*(math.Abs(Mx)+math.Abs(My)+math.Abs(tau*float64(k))) + 2)
			one := func(t float64) (v, e float64) {
				errT := E + rho*(math.Abs(t)+E)/(1-rho)
				v = t * F
				e = (F*(1+rF)*errT + math.Abs(t)*F*rF + 2*u*math.Abs(v)) * (1 + 4*u)
				return v, e
			}
			va, ea := one(sc.reX[k] * invN)
			vb, eb := one(sc.imX[k] * invN)
			// The pairs outside the stored ranges add between 0 and rest.
			va, ea = va+s.restA/2, (ea+s.restA/2)*(1+2*u)
			vb, eb = vb+s.restB/2, (eb+s.restB/2)*(1+2*u)
			// Intersect the enclosures (each tilt's is valid).
			s.ubA[k] = math.Min(s.ubA[k], va+ea)
			s.lbA[k] = math.Max(s.lbA[k], va-ea)
			s.ubB[k] = math.Min(s.ubB[k], vb+eb)
			s.lbB[k] = math.Max(s.lbB[k], vb-eb)
			r := math.Inf(1)
			if va > 0 && vb > 0 {
				r = math.Max(ea/va, eb/vb)
			}
			if r < s.rel[k] || s.tilts == 0 {
				s.a[k], s.ea[k], s.b[k], s.eb[k], s.rel[k] = va, ea, vb, eb, r
			}
		}
		s.tilts++
	}

	// Tilts: 0 first, then outwards on each side of the mode, each aimed
	// by the slope of ln z just inside the frontier of resolved entries
	// (the bulk sums are log-concave, so the slope is monotone).
	apply(0)
	lastTau := [2]float64{0, 0} // right, left
	reach := [2]float64{0.8, 0.8}
	prevFront := [2]int{-1, -1}
	lastSide := -1
	for s.tilts < sumMaxTilts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		mode := -1
		for k := range s.a {
			if s.rel[k] <= sumTarget && (mode < 0 || s.a[k] > s.a[mode]) {
				mode = k
			}
		}
		if mode < 0 {
			break // nothing resolved: the bounds are useless; give up
		}
		front := [2]int{-1, -1}
		weight := [2]float64{}
		for k := range s.a {
			if s.rel[k] <= sumTarget {
				continue
			}
			ub := math.Max(s.ubA[k], s.ubB[k])
			if !(ub > sumIgnore) {
				continue
			}
			side := 0
			if k < mode {
				side = 1
			}
			weight[side] += ub
			if side == 0 && front[0] < 0 {
				front[0] = k
			}
			if side == 1 {
				front[1] = k
			}
		}
		for sd := 0; sd < 2; sd++ {
			// Only the side tilted last can have failed to move.
			if sd == lastSide && front[sd] >= 0 && front[sd] == prevFront[sd] {
				// The last tilt on this side did not move the frontier:
				// aim closer (reach 0 centres the tilt on the frontier).
				switch {
				case reach[sd] > 0.5:
					reach[sd] = 0.3
				case reach[sd] > 0:
					reach[sd] = 0
				default:
					reach[sd] = -1
				}
			}
		}
		side := -1
		for sd := 0; sd < 2; sd++ {
			if front[sd] >= 0 && reach[sd] >= 0 && (side < 0 || weight[sd] > weight[side]) {
				side = sd
			}
		}
		if side < 0 {
			break
		}
		prevFront[side] = front[side]
		lastSide = side
		// Slope of ln z over the resolved entries next to the frontier.
		f := front[side]
		in, out := f-1, f-1-16 // right side: inside is left of the frontier
		if side == 1 {
			in, out = f+1, f+1+16
		}
		out = max(min(out, len(s.a)-1), 0)
		for out != in && !(s.rel[out] <= sumTarget) {
			if out < in {
				out++
			} else {
				out--
			}
		}
		if out == in || !(s.rel[in] <= sumTarget) {
			reach[side] = -1
			continue
		}
		slope := (ln(s.a[in]) - ln(s.a[out])) / float64(in-out)
		tauF := -slope
		tau := tauF + reach[side]*(tauF-lastTau[side])
		apply(tau)
		lastTau[side] = tau
	}
	return s, nil
}

// finishSum sets the bulk below the smallest sum of two counts >= 1 of
// the stored ranges (0 there, but for pairs with a count in a left tail
// below a range starting above 1: at most that tail's mass times the
// partner's largest) and adds the terms with a count of 0 (addSpikes).
func finishSum(s *countSum, xa, xb, ya, yb countDist, lx, ly int) {
	u := unitRoundoff
	// the pairs with a count >= 1 in a left tail the bulk leaves out: at
	// most that tail's mass times the partner's largest mass
	peak := func(d countDist) float64 {
		v := math.Max(d.left, d.right)
		for _, p := range d.p {
			v = math.Max(v, p)
		}
		return v
	}
	leftOut := func(x, y countDist) float64 {
		v := 0.0
		if x.lo > 1 {
			v += x.left * peak(y)
		}
		if y.lo > 1 {
			v += y.left * peak(x)
		}
		return v * (1 + 2*math.Max(x.rel, y.rel)) * (1 + 8*u)
	}
	outA, outB := leftOut(xa, ya), leftOut(xb, yb)
	for k := 0; k < len(s.a) && s.lo+k < max(lx, 1)+max(ly, 1); k++ {
		s.a[k], s.ea[k], s.b[k], s.eb[k] = outA/2, outA/2*(1+4*u), outB/2, outB/2*(1+4*u)
		s.lbA[k], s.ubA[k], s.lbB[k], s.ubB[k] = 0, outA, 0, outB
		s.rel[k] = math.Inf(1)
	}
	addSpikes(s, xa, xb, ya, yb)
}

// addSpikes adds the terms of the sum that involve a count of 0 (the mass
// P(X <= 0) clamped by max(0, .), which breaks log-concavity and is left
// out of the FFT and the closed forms) and recomputes the relative errors.
// Every factor is taken from the counts' tables where stored and computed
// directly where not (countDist.massAt): a count 0 below a range starting
// above 0, or a partner count beyond a range, whose term the tables would
// leave out of an entry whose other terms are kept. The entry would split
// into itself and a rest of another loss, a pair the true pair does not
// dominate: lower bounds from it are not sound (laplaceSpikes explains the
// case that showed it for Laplace counts).
func addSpikes(s *countSum, xa, xb, ya, yb countDist) {
	x0a, rx0a := xa.massAt(0)
	x0b, rx0b := xb.massAt(0)
	y0a, ry0a := ya.massAt(0)
	y0b, ry0b := yb.massAt(0)
	// term returns x0 y_c + y0 x_c for c >= 1 (x0 y0 for c = 0) and the
	// largest sum of its factors' relative errors.
	term := func(c int, x0, rx0, y0, ry0 float64, x, y countDist) (float64, float64) {
		if c == 0 {
			return x0 * y0, rx0 + ry0
		}
		var t, r float64
		if x0 > 0 {
			yc, ryc := y.massAt(c)
			t, r = x0*yc, rx0+ryc
		}
		if y0 > 0 {
			xc, rxc := x.massAt(c)
			t += y0 * xc
			r = math.Max(r, ry0+rxc)
		}
		return t, r
	}
	for k := range s.a {
		c := s.lo + k
		if c < 0 {
			continue
		}
		ta, ra := term(c, x0a, rx0a, y0a, ry0a, xa, ya)
		tb, rb := term(c, x0b, rx0b, y0b, ry0b, xb, yb)
		if ta == 0 && tb == 0 {
			continue
		}
		// an absolute allowance for factors and products below 2^-1022
		s.addTerm(k, ta, tb, math.Max(ra, rb), 0x1p-1068)
	}
}

// addTerm adds to entry k the A- and B-masses ta, tb of a sum's term (a
// sum of two products of factors with relative errors at most relF), with
// their error: the factors' (first order, with a margin for the products
// of two relative errors), two products and a sum, plus the absolute
// allowance abs (factors and products below 2^-1022); and updates the
// entry's relative error.
func (s *countSum) addTerm(k int, ta, tb, relF, abs float64) {
	u := unitRoundoff
	relP := (relF + 4*u) * (1 + 1e-6)
	ta, tb = ta*(1+2*u), tb*(1+2*u)
	s.a[k] += ta
	s.ea[k] += ta*relP + abs
	s.b[k] += tb
	s.eb[k] += tb*relP + abs
	s.lbA[k] += ta*(1-relP) - abs
	s.ubA[k] += ta*(1+relP) + abs
	s.lbB[k] += tb*(1-relP) - abs
	s.ubB[k] += tb*(1+relP) + abs
	r := math.Inf(1)
	if s.a[k] > 0 && s.b[k] > 0 {
		r = math.Max(s.ea[k]/s.a[k], s.eb[k]/s.b[k])
	}
	s.rel[k] = r
}
