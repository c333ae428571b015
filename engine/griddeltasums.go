package engine

import "math"

// This file bounds the sums of a grid list's delta (gridDeltaWith) over the
// atoms far from eps in closed form, from the prefix and suffix sums of
// the masses kept in its table (gridSums), so that an evaluation of delta
// walks only the atoms within a block or two of eps, not all 2n.
//
// Over the atoms wholly above eps (every loss l in an atom's window above
// eps), the A||B terms of the upper pair are a (1 - e^(eps - l)) <= a (1 -
// e^(eps - w) e^-L) with w the window and L the grid loss, so their sum is
// at most S_0 - e^(eps - w) S_1 with S_j the sum of a e^(-j L) over those
// atoms (and at least S_0 - e^(eps + w) S_1 for the lower pair with its
// window); over the atoms wholly below -eps the B||A terms a e^-l (1 -
// e^(eps + l)) sum to at most e^w (H_1 - e^(eps - w) H_0) (at least e^-w
// (H_1 - e^(eps + w) H_0)), H_j the sums of a e^(-j L) over those atoms.
// Every closed form is a sum of terms that are positive in exact
// arithmetic (the atoms lie two spacings beyond eps and -eps), so
// bounding each sum from the side that keeps the bound valid is enough:
//
//   - a stored sum S^ of k-term chains of non-negative terms (the block
//     sums of guideBlock terms, then the prefix or suffix over nb blocks)
//     is within gamma_(k+1) S of the exact sum S (Higham, eq. (4.4),
//     with the products a e^-L rounded once: one more u), and the table's
//     e^-L carry a relative error trel (weights), and underflowing
//     products lose at most 2^-1074 each;
//   - e^(eps -+ w) is math.Exp of the computed exponent, within 2u of
//     the exponential of that exponent, which is within u |eps -+ w| of the
//     exact one (expBounds allows 8u + 2u |x|);
//   - the difference of two bounds rounds by at most u times their sum,
//     and each product of bounds by u (allowed for by factors 1 -+ 4u).
//
// The bounds differ from the atom by atom sums by rounding terms only
// (relative gamma_(nb + guideBlock + 4), about 2e-12 at 2^18 points,
// against gamma_(2n + 16) that gridDeltaWith allows for the summation of
// every atom anyway).

// gridSums are the prefix and suffix sums of a grid table's four masses
// (the upper pair's upper ends up and values a, the lower pair's lower
// ends low and values c) and of each times e^-L, at every guideBlock-th
// offset (guideSums).
type gridSums struct {
	up, a, low, c guideSums
	// g bounds the relative error of every stored sum (gamma of its
	// longest chain of roundings, the product included) and tiny the
	// absolute error of the products that may underflow (2^-1074 each)
	g, tiny float64
}

// newGridSums returns the sums of the table t of l, nil where e^-L is not
// a positive finite float64 at every offset or the range is beyond 600
// nats (the closed forms need e^-L and e^eps in range).
func newGridSums(l *list, t *gridTable) *gridSums {
	if l.n == 0 || !(float64(l.n+2)*l.lambda+math.Max(l.wUp, l.wLo) < 600) {
		return nil
	}
	for _, e := range t.t {
		if !(e > 0) || math.IsInf(e, 1) {
			return nil
		}
	}
	m := 2 * l.n
	nb := (m + guideBlock - 1) / guideBlock
	return &gridSums{
		up: newGuideSums(t.up, t.t), a: newGuideSums(l.a, t.t),
		low: newGuideSums(t.low, t.t), c: newGuideSums(l.c, t.t),
		g: gamma(nb + guideBlock + 4), tiny: float64(m) * 0x1p-1074,
	}
}

// expBounds returns bounds lo <= e^x <= hi for the exact x that the
// computed x approximates with a relative error of at most u.
func expBounds(x float64) (lo, hi float64) {
	const u = unitRoundoff
	e := math.Exp(x)
	d := 8*u + 2*u*math.Abs(x)
	return e * (1 - d), e * (1 + d)
}

// sumBounds returns bounds on the exact sums S_0 (of m) and S_1 (of m
// e^-L) that the stored s0, s1 approximate.
func (gs *gridSums) sumBounds(s0, s1, trel float64) (lo0, hi0, lo1, hi1 float64) {
	const u = unitRoundoff
	g := gs.g
	lo0 = s0 * (1 - 2*g)
	hi0 = s0 * (1 + 2*g)
	lo1 = (s1*(1-2*g) - gs.tiny) * (1 - trel) * (1 - 4*u)
	hi1 = (s1*(1+2*g) + gs.tiny) * (1 + 2*trel) * (1 + 4*u)
	return lo0, hi0, lo1, hi1
}

// diffUp returns an upper bound on x - y for x, y >= 0 (themselves the
// upper and the lower bound of what is subtracted), diffLow a lower bound
// on x - y (x a lower, y an upper bound).
func diffUp(x, y float64) float64  { return (x - y) + 4*unitRoundoff*(x+y) }
func diffLow(x, y float64) float64 { return (x - y) - 4*unitRoundoff*(x+y) }

// closedAB returns, for the atoms at offsets o >= k (k a multiple of
// guideBlock, every atom wholly above eps + the windows), an upper bound
// on the A||B sums of the upper pair's upper ends (up) and values (upv)
// with the window wU, and a lower bound on those of the lower pair's lower
// ends (low) and values (lowv) with the window wL.
func (gs *gridSums) closedAB(k int, eps, wU, wL, trel float64) (up, upv, low, lowv float64) {
	b := k / guideBlock
	eUlo, _ := expBounds(eps - wU)
	_, eLhi := expBounds(eps + wL)
	bound := func(s *guideSums, upper bool) float64 {
		lo0, hi0, lo1, hi1 := gs.sumBounds(s.tail[b], s.tailT[b], trel)
		if upper {
			return math.Max(0, diffUp(hi0, eUlo*lo1*(1-4*unitRoundoff)))
		}
		return diffLow(lo0, eLhi*hi1*(1+4*unitRoundoff))
	}
	return bound(&gs.up, true), bound(&gs.a, true), bound(&gs.low, false), bound(&gs.c, false)
}

// closedBA returns the same for the B||A sums over the atoms at offsets
// o < k (k a multiple of guideBlock, every atom wholly below -eps - the
// windows): upper bounds e^wU (H_1 - e^(eps - wU) H_0), lower bounds
// e^-wL (H_1 - e^(eps + wL) H_0).
func (gs *gridSums) closedBA(k int, eps, wU, wL, trel float64) (up, upv, low, lowv float64) {
	const u = unitRoundoff
	b := k / guideBlock
	eUlo, _ := expBounds(eps - wU)
	_, eLhi := expBounds(eps + wL)
	_, ewU := expBounds(wU)
	ewL, _ := expBounds(-wL)
	bound := func(s *guideSums, upper bool) float64 {
		lo0, hi0, lo1, hi1 := gs.sumBounds(s.head[b], s.headT[b], trel)
		if upper {
			return math.Max(0, diffUp(hi1, eUlo*lo0*(1-4*u))) * ewU * (1 + 4*u)
		}
		return diffLow(lo1, eLhi*hi0*(1+4*u)) * ewL * (1 - 4*u)
	}
	return bound(&gs.up, true), bound(&gs.a, true), bound(&gs.low, false), bound(&gs.c, false)
}

// firstAboveLoss returns the first offset whose (computed) loss exceeds x
// (2n: none).
func (l *list) firstAboveLoss(x float64) int {
	m := 2 * l.n
	k := x/l.lambda + float64(l.n)
	if !(k > 0) {
		return 0
	}
	if k >= float64(m) {
		return m
	}
	o := int(k)
	for o < m && !(l.loss(o) > x) {
		o++
	}
	for o > 0 && l.loss(o-1) > x {
		o--
	}
	return o
}
