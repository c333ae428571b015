package engine

import (
	"math"
	"slices"
)

// Chernoff bounds for the power path (power.go): the mass of an r-fold
// convolution power beyond a loss.
//
// For a non-negative sequence v on the grid (entry g at loss g lambda) and
// its r-fold convolution power t, every s >= theta gives
//
//	sum_{g lambda >= E} t_g e^(theta g lambda) <= e^(-(s - theta) E) M(s)^r,
//	M(s) = sum_g v_g e^(s g lambda),
//
// (each term is multiplied by e^((s - theta)(g lambda - E)) >= 1, and the
// sum over all g of t_g e^(s g lambda) is M(s)^r), and every s <= theta
// the same bound for the sum over g lambda <= E. M is bounded from above
// exactly on the sequence (tiltedSums) at a grid of s, and every bound is
// the smallest over the grid points on the right side of theta: any s
// gives a valid bound, the grid only decides how tight.

// mgfGrid holds upper bounds on ln M(s) of the upper pair's (a) and the
// lower pair's (c) stored masses at the points s.
type mgfGrid struct {
	s        []float64
	lnA, lnC []float64
}

// newMGFGrid evaluates ln M of l's a and c at s (sorted ascending).
func newMGFGrid(l *list, s []float64) mgfGrid {
	g := mgfGrid{s: s, lnA: make([]float64, len(s)), lnC: make([]float64, len(s))}
	for i0 := 0; i0 < len(s); i0 += 8 {
		i1 := min(i0+8, len(s))
		sa, sc := tiltedSums(l.a, l.c, l.lo, l.hi, l.n, l.lambda, s[i0:i1])
		for k := range sa {
			g.lnA[i0+k] = lnUp0(sa[k])
			g.lnC[i0+k] = lnUp0(sc[k])
		}
	}
	return g
}

// lnUp0 returns an upper bound on ln x (x >= 0; -Inf for 0; subnormals too).
func lnUp0(x float64) float64 {
	if !(x > 0) {
		return math.Inf(-1)
	}
	v := ln(x)
	return v + 2*unitRoundoff*math.Abs(v) + 0x1p-1000
}

// powerSGrid returns the points s of the Chernoff bounds for the tilts tau
// and a composed loss with standard deviation sd on the range R: steps of
// a quarter of the largest tilt out to six times it on both sides, the
// tilts and -1 themselves, and nothing with |s| R beyond 700.
func powerSGrid(tau []float64, sd, R float64) []float64 {
	T := 0.0
	for _, t := range tau {
		T = math.Max(T, math.Abs(t))
	}
	if !(T > 0) {
		T = 3.5 / sd
	}
	if !(T > 0) || math.IsInf(T, 0) {
		T = 1
	}
	h := T / 4
	lim := 700 / R
	var s []float64
	for k := -26; k <= 26; k++ {
		s = append(s, float64(k)*h)
	}
	s = append(s, tau...)
	s = append(s, -1, 1)
	out := s[:0]
	for _, v := range s {
		if math.Abs(v) <= lim {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// chernoffLn returns an upper bound on ln sum t_g e^(theta g lambda) over
// g lambda >= E (hi) or g lambda <= E (!hi) for the r-fold power t of a
// sequence whose ln M at the points s is at most lnM[i] + shift: the
// smallest bound over the points on the right side of theta (+Inf if
// none).
func chernoffLn(s, lnM []float64, shift float64, r int, theta, E float64, hi bool) float64 {
	fr := float64(r)
	best := math.Inf(1)
	for i, si := range s {
		if hi && si < theta || !hi && si > theta {
			continue
		}
		l := lnM[i] + shift
		if math.IsInf(l, 1) || math.IsNaN(l) {
			continue
		}
		a := fr * l
		b := (si - theta) * E
		f := a - b + 4*unitRoundoff*(math.Abs(a)+math.Abs(b)+1)
		best = math.Min(best, f)
	}
	return best
}

// expUp returns an upper bound on e^x (x itself an upper bound).
func expUp(x float64) float64 {
	if math.IsInf(x, -1) {
		return 0
	}
	return math.Exp(x) * (1 + 4*unitRoundoff)
}

// powDiffUp returns an upper bound on (R + C)^r - R^r for R, C >= 0 (upper
// bounds themselves): R^r ((1 + C/R)^r - 1), formed in log space.
func powDiffUp(R, C float64, r int) float64 {
	if !(C > 0) {
		return 0
	}
	fr := float64(r)
	if !(R > 0) {
		return expUp(fr*math.Log(C)*(1+1e-12) + 1e-12)
	}
	x := fr * math.Log1p(C/R) * (1 + 1e-12)
	lnR := math.Log(R)
	return math.Expm1(x) * (1 + 1e-12) * expUp(fr*lnR+1e-12*(1+fr*math.Abs(lnR)))
}
