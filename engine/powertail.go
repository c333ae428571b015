package engine

import "math"

// Chernoff bounds for the power path (power.go): the mass of an r-fold
// convolution power beyond a loss, from a coarse copy of the sequence.
//
// For a non-negative sequence v on the grid (entry g at loss g lambda) and
// its r-fold convolution power t, every s >= theta gives
//
//	sum_{g lambda >= E} t_g e^(theta g lambda) <= e^(-(s - theta) E) M(s)^r,
//	M(s) = sum_g v_g e^(s g lambda),
//
// (each term is multiplied by e^((s - theta)(g lambda - E)) >= 1), and every
// s <= theta the same bound for the sum over g lambda <= E. M(s) is bounded
// from above on blocks of consecutive entries, each block's sum at the
// block's end that maximises e^(s L): coarser than the sequence, but an
// upper bound for every s, so that any s gives a valid bound and a search
// over s only makes it tighter.

// tailBlocks is the coarse copy: per block an upper bound of the sum of
// the true entries and the grid indices of its first and last entry.
type tailBlocks struct {
	sum      []float64
	glo, ghi []float64
	lambda   float64
	maxAbsL  float64 // the largest |g lambda| of a block end
}

// powerTailBlocks is the number of blocks newTailBlocks aims at.
const powerTailBlocks = 512

// newTailBlocks returns the blocks of v[lo..hi] (offset o at grid index
// o - n + 1), whose true entries are at most v (1 + rel) + abs; abs > 0
// also puts every offset outside [lo, hi] in a block of its own.
func newTailBlocks(v []float64, lo, hi, n int, lambda, rel, abs float64) tailBlocks {
	tb := tailBlocks{lambda: lambda}
	add := func(o0, o1 int, s float64) {
		if !(s > 0) {
			return
		}
		tb.sum = append(tb.sum, s)
		g0, g1 := float64(o0-n+1), float64(o1-n+1)
		tb.glo = append(tb.glo, g0)
		tb.ghi = append(tb.ghi, g1)
		tb.maxAbsL = math.Max(tb.maxAbsL, math.Max(math.Abs(g0), math.Abs(g1))*lambda)
	}
	if abs > 0 && lo > 0 {
		add(0, lo-1, float64(lo)*abs*(1+2*unitRoundoff))
	}
	if lo <= hi {
		B := max(1, (hi-lo+powerTailBlocks)/powerTailBlocks)
		for o0 := lo; o0 <= hi; o0 += B {
			o1 := min(o0+B-1, hi)
			s := 0.0
			for o := o0; o <= o1; o++ {
				s += v[o]
			}
			s = s*(1+rel)*(1+gamma(B+4)) + float64(o1-o0+1)*abs*(1+2*unitRoundoff)
			add(o0, o1, s)
		}
	}
	if abs > 0 && hi < 2*n-1 {
		add(hi+1, 2*n-1, float64(2*n-1-hi)*abs*(1+2*unitRoundoff))
	}
	return tb
}

// lnM returns an upper bound on ln M(s) (-Inf when the copy is empty).
func (tb *tailBlocks) lnM(s float64) float64 {
	if len(tb.sum) == 0 {
		return math.Inf(-1)
	}
	ends := tb.ghi
	if s < 0 {
		ends = tb.glo
	}
	xmax := math.Inf(-1)
	for i, g := range ends {
		xmax = math.Max(xmax, s*(g*tb.lambda)+ln(tb.sum[i]))
	}
	var sum float64
	for i, g := range ends {
		sum += math.Exp(s*(g*tb.lambda) + ln(tb.sum[i]) - xmax)
	}
	// every exponent carries an absolute error of at most
	// 4u (|s| maxAbsL + |ln sum_i| + |xmax| + 1), exp a relative 2u, the
	// sum gamma(blocks); ln of the sum (>= 1) an absolute 2u ln sum
	X := math.Abs(s)*tb.maxAbsL + math.Abs(xmax) + 760
	e := 8*unitRoundoff*(X+1) + gamma(len(ends)+4) + 4*unitRoundoff*(1+math.Log(sum))
	return xmax + math.Log(sum) + e
}

// chernoffLn returns an upper bound on ln sum t_g e^(theta g lambda) over
// the g with g lambda >= E (hi) or g lambda <= E (!hi), t the r-fold power
// of the blocks' sequence: the smallest bound of a golden-section search
// over s (convex in s), every evaluation a valid bound.
func (tb *tailBlocks) chernoffLn(r int, theta, E float64, hi bool) float64 {
	if len(tb.sum) == 0 {
		return math.Inf(-1)
	}
	fr := float64(r)
	f := func(s float64) float64 {
		lm := tb.lnM(s)
		a := fr * lm
		b := (s - theta) * E
		return a - b + 4*unitRoundoff*(math.Abs(a)+math.Abs(b)+1)
	}
	// s - theta in [0, span] (hi) or [-span, 0]: exponents up to 700
	span := 700 / math.Max(tb.maxAbsL+math.Abs(E), 1e-300)
	span = math.Min(span, 1e6)
	sign := 1.0
	if !hi {
		sign = -1
	}
	at := func(x float64) float64 { return theta + sign*x }
	best := f(at(0))
	lo, hiX := 0.0, span
	g := (math.Sqrt(5) - 1) / 2
	x1, x2 := hiX-g*(hiX-lo), lo+g*(hiX-lo)
	f1, f2 := f(at(x1)), f(at(x2))
	for range 60 {
		best = math.Min(best, math.Min(f1, f2))
		if f1 <= f2 {
			hiX, x2, f2 = x2, x1, f1
			x1 = hiX - g*(hiX-lo)
			f1 = f(at(x1))
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + g*(hiX-lo)
			f2 = f(at(x2))
		}
	}
	best = math.Min(best, math.Min(f1, f2))
	if math.IsNaN(best) {
		return math.Inf(1)
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
