package engine

import (
	"math"
	"sort"
)

// Membership-inference risk as a trade-off between error rates.
//
// A test that tells the two outputs of a pair apart, with the output drawn
// from B under the null hypothesis ("not a member") and from A under the
// alternative, has a false-positive rate FPR = B(S) and a true-positive
// rate TPR = A(S), S its rejection region. The largest TPR any test
// (randomised or not) reaches at FPR alpha is 1 - T(B, A)(alpha), T the
// trade-off function of Dong, Roth and Su ("Gaussian differential
// privacy", JRSS B 2022, Definition 2.1). It is the convex conjugate of the
// privacy profile (their Proposition 2.12, the duality of f-DP and
// (eps, delta)-DP):
//
//	TPR_AB(alpha) = inf over gamma >= 0 of  gamma alpha + delta_{A||B}(ln gamma),
//
// with the hockey-stick divergence delta_{A||B}(eps) = sup_S A(S) - e^eps
// B(S) (Lemma 1 of the paper) extended to eps < 0 by complements:
//
//	delta_{A||B}(eps) = 1 - e^eps + e^eps delta_{B||A}(-eps).
//
// Every gamma gives an upper bound, so sound upper bounds on delta give a
// sound upper bound on TPR at each gamma. For a lower bound, delta is
// non-increasing in eps and gamma alpha increasing, so on [gamma_j,
// gamma_{j+1}]
//
//	gamma alpha + delta(ln gamma) >= gamma_j alpha + delta(ln gamma_{j+1}),
//
// and beyond the grid the value is at least gamma_N alpha + delta(+Inf)
// or delta(ln gamma_0): the minimum of these staircase values over a grid
// covering the line, with sound lower bounds on delta, is a sound lower
// bound on TPR. delta is also convex in gamma, which gives lines below it
// inside each segment from the bounds at the neighbouring points (see
// tprDirection), so the lower bound approaches its limit like the square of
// the grid's spacing. The engine refines the grid where the lower bound is
// lowest (branch and bound) until what the grid costs is small. A lower bound on delta is a lower bound on a pair the
// mechanism dominates, so the lower TPR is one a real attack reaches; the
// upper TPR bounds every attack on the mechanism.

// TPRBound bounds the largest true-positive rate of a membership-inference
// test at a given false-positive rate.
type TPRBound struct {
	// FPR is the false-positive rate alpha in [0, 1].
	FPR float64
	// Upper is a sound upper bound on the largest TPR at FPR over both
	// directions (null hypothesis B, alternative A, and the reverse):
	// max(UpperAB, UpperBA).
	Upper float64
	// Lower is a TPR that some test provably reaches at FPR in one of the
	// directions (a sound lower bound on the largest TPR): max(LowerAB,
	// LowerBA). It is at least FPR (the test that rejects at random).
	Lower float64
	// UpperAB, LowerAB bound the test with null B and alternative A (it
	// uses delta_{A||B}); UpperBA, LowerBA the reverse.
	UpperAB, UpperBA, LowerAB, LowerBA float64
	// Note says why a bound is trivial; empty otherwise.
	Note string
}

// tprTolerance is the gap, relative to the upper bound, between the
// lower bound and its limit on the grid below which the refinement always
// stops (it also stops when the gap is a hundredth of the width that delta's
// own bracket leaves, tprGapShare of it); tprEvals the most Delta evaluations spent on one
// FPR.
const (
	tprTolerance = 1e-7
	tprGapShare  = 0.5
	tprEvals     = 400
)

// TPR returns bounds on the largest true-positive rate any test
// distinguishing the composed pair's outputs reaches at false-positive
// rate fpr (in [0, 1]), in both directions: the membership-inference risk
// of Carlini et al. ("Membership inference attacks from first
// principles", S&P 2022) certified through the trade-off function (see
// the comment above TPRBound). Outside [0, 1] or NaN, both bounds are NaN.
func (r *Result) TPR(fpr float64) TPRBound {
	if !(fpr >= 0 && fpr <= 1) {
		nan := math.NaN()
		return TPRBound{FPR: fpr, Upper: nan, Lower: nan, UpperAB: nan, UpperBA: nan, LowerAB: nan, LowerBA: nan}
	}
	t := tprSearch{r: r, alpha: fpr, memo: map[float64]DeltaBound{}}
	b := t.run()
	b.FPR = fpr
	return b
}

// tprPoint is one grid point eps with the two directions' delta bounds
// there (eps may be negative: see the complement identity).
type tprPoint struct {
	eps          float64
	upAB, upBA   float64
	lowAB, lowBA float64
	lowNaN       bool
}

type tprSearch struct {
	r     *Result
	alpha float64
	memo  map[float64]DeltaBound
	evals int
}

// delta returns Delta at |eps| (memoised: eps and -eps share it).
func (t *tprSearch) delta(eps float64) DeltaBound {
	e := math.Abs(eps)
	if d, ok := t.memo[e]; ok {
		return d
	}
	t.evals++
	d := t.r.Delta(e)
	t.memo[e] = d
	return d
}

// point evaluates both directions' delta bounds at eps, using the
// complement identity for eps < 0.
func (t *tprSearch) point(eps float64) tprPoint {
	d := t.delta(eps)
	p := tprPoint{eps: eps, lowNaN: math.IsNaN(d.LowerAB) || math.IsNaN(d.LowerBA)}
	if eps >= 0 {
		p.upAB, p.upBA = d.UpperAB, d.UpperBA
		p.lowAB, p.lowBA = d.LowerAB, d.LowerBA
		return p
	}
	g := math.Exp(eps)
	c := -math.Expm1(eps) // 1 - e^eps, accurate near 0
	// delta_{A||B}(eps) = 1 - e^eps + e^eps delta_{B||A}(-eps), and the
	// reverse; every term is non-negative, so relative rounding of each
	// term bounds that of the sum (padded once at the end).
	p.upAB = math.Min(1, c+g*d.UpperBA)
	p.upBA = math.Min(1, c+g*d.UpperAB)
	p.lowAB = c + g*d.LowerBA
	p.lowBA = c + g*d.LowerAB
	return p
}

// run performs the branch-and-bound refinement for both directions at
// once and returns the bounds.
func (t *tprSearch) run() TPRBound {
	a := t.alpha
	if a == 0 {
		// gamma -> infinity: the distinguishing mass delta(+Inf).
		d := t.delta(math.Inf(1))
		b := TPRBound{UpperAB: d.UpperAB, UpperBA: d.UpperBA, LowerAB: d.LowerAB, LowerBA: d.LowerBA}
		return finishTPR(b, a, math.IsNaN(d.LowerAB) || math.IsNaN(d.LowerBA))
	}
	// The grid covers [-E, E] with E beyond every bucket's loss (delta is
	// constant there up to the corners), extended by doubling to eps =
	// -40, where delta >= 1 - e^-40 leaves nothing below, and to eps =
	// -ln alpha, where gamma alpha reaches 1.
	E := math.Max(t.r.epsMax(), 1)
	if math.IsInf(E, 0) || math.IsNaN(E) {
		E = 1e6
	}
	var pts []tprPoint
	const coarse = 16
	for i := 0; i <= coarse; i++ {
		pts = append(pts, t.point(-E+2*E*float64(i)/coarse))
	}
	for e := 2 * E; ; e *= 2 {
		pts = append([]tprPoint{t.point(-math.Min(e, math.Max(E, 40)))}, pts...)
		if e >= 40 {
			break
		}
	}
	for e, top := 2*E, math.Max(E, -math.Log(a)+1); ; e *= 2 {
		pts = append(pts, t.point(math.Min(e, top)))
		if e >= top {
			break
		}
	}
	for {
		b, gaps := tprBounds(pts, a)
		seg := -1
		// refine the direction whose staircase is furthest from its limit
		if gaps[0].gap >= gaps[1].gap {
			seg = gaps[0].seg
		} else {
			seg = gaps[1].seg
		}
		// Stop when the grid costs little next to the width it cannot
		// remove, or nearly nothing at all.
		done := true
		for _, gp := range gaps {
			if gp.gap > math.Max(tprTolerance*math.Max(b.UpperAB, b.UpperBA), tprGapShare*gp.width) {
				done = false
			}
		}
		if done || t.evals >= tprEvals || seg < 0 {
			return finishTPR(b, a, anyLowNaN(pts))
		}
		mid := (pts[seg].eps + pts[seg+1].eps) / 2
		if !(mid > pts[seg].eps && mid < pts[seg+1].eps) {
			return finishTPR(b, a, anyLowNaN(pts)) // grid exhausted in float64
		}
		pts = append(pts, t.point(mid))
		sort.Slice(pts, func(i, j int) bool { return pts[i].eps < pts[j].eps })
	}
}

func anyLowNaN(pts []tprPoint) bool {
	for _, p := range pts {
		if p.lowNaN {
			return true
		}
	}
	return false
}

// tprSlopeReach is how many grid points back (or ahead) the secant slopes
// of tprDirection look: every one gives a valid bound on the slope, the
// near ones with less curvature and the far ones with less noise from
// delta's bracket, and the best of them is used.
const tprSlopeReach = 8

// leftSlope returns a lower bound on the left slope of delta at g[j]: the
// largest of (low[j] - up[k]) / (g[j] - g[k]) over the tprSlopeReach
// points k before j, each at most the slope of a secant ending at g[j]
// (rounding pushed down); false if there is none.
func leftSlope(g, up, low []float64, j int) (float64, bool) {
	best, ok := math.Inf(-1), false
	for k := j - 1; k >= 0 && k >= j-tprSlopeReach; k-- {
		d := g[j] - g[k]
		if !(d > 0) {
			continue
		}
		s := (low[j] - up[k]) / d
		s -= 8 * unitRoundoff * (math.Abs(low[j]) + math.Abs(up[k])) / d
		if s > best {
			best, ok = s, true
		}
	}
	return best, ok
}

// rightSlope returns an upper bound on the right slope of delta at g[j]:
// the smallest of (up[k] - low[j]) / (g[k] - g[j]) over the tprSlopeReach
// points k after j (rounding pushed up); false if there is none.
func rightSlope(g, up, low []float64, j int) (float64, bool) {
	best, ok := math.Inf(1), false
	for k := j + 1; k < len(g) && k <= j+tprSlopeReach; k++ {
		d := g[k] - g[j]
		if !(d > 0) {
			continue
		}
		s := (up[k] - low[j]) / d
		s += 8 * unitRoundoff * (math.Abs(up[k]) + math.Abs(low[j])) / d
		if s < best {
			best, ok = s, true
		}
	}
	return best, ok
}

// tprGap is how far one direction's lower bound lies below the smallest
// value of gamma alpha + delta_low(ln gamma) at the grid points (the limit
// the lower bound reaches as the grid is refined), the width the grid
// cannot remove (that limit's distance to the upper bound), and the
// segment that sets the lower bound (-1: an end term).
type tprGap struct {
	gap, width float64
	seg        int
}

// tprBounds returns the bounds of both directions from the grid pts
// (sorted by eps) and, per direction, the gap and the segment to refine.
func tprBounds(pts []tprPoint, a float64) (TPRBound, [2]tprGap) {
	n := len(pts)
	g := make([]float64, n)
	for i, p := range pts {
		g[i] = math.Exp(p.eps)
	}
	upAB, upBA := make([]float64, n), make([]float64, n)
	lowAB, lowBA := make([]float64, n), make([]float64, n)
	for i, p := range pts {
		upAB[i], upBA[i] = p.upAB, p.upBA
		lowAB[i], lowBA[i] = p.lowAB, p.lowBA
	}
	var b TPRBound
	var gaps [2]tprGap
	b.UpperAB, b.LowerAB, gaps[0] = tprDirection(g, upAB, lowAB, a)
	b.UpperBA, b.LowerBA, gaps[1] = tprDirection(g, upBA, lowBA, a)
	return b, gaps
}

// tprDirection bounds inf over gamma of gamma a + delta(gamma) for one
// direction from upper and lower bounds up, low on delta at the grid
// points g (increasing). Between two grid points the lower bound uses
// what is known of delta: it is non-increasing (delta >= low[j+1] on
// [g[j], g[j+1]]), at least 1 - gamma (take S the whole space), and
// convex in gamma (a supremum of affine functions), so it lies above the
// extensions of its secants over the neighbouring segments, whose slopes
// the bounds at the grid points bound: (low[j] - up[j-1]) / (g[j] - g[j-1])
// is at most the secant's slope on [g[j-1], g[j]], itself at most the
// slope at g[j], and (up[j+2] - low[j+1]) / (g[j+2] - g[j+1]) at least the
// slope at g[j+1]. gamma a plus the largest of these lines is convex and
// piecewise linear, so its minimum over the segment lies at an end or
// where two lines cross.
func tprDirection(g, up, low []float64, a float64) (upper, lower float64, gap tprGap) {
	n := len(g)
	upper, lim := 1.0, math.Inf(1)
	for i := range g {
		upper = math.Min(upper, g[i]*a+up[i])
		lim = math.Min(lim, g[i]*a+low[i])
	}
	// End terms: gamma >= g[n-1] gives at least g[n-1] a (delta >= 0);
	// gamma <= g[0] gives at least low[0] (delta non-increasing).
	lower = math.Min(g[n-1]*a, low[0])
	seg := -1
	type line struct{ c, s float64 } // y = c + s (gamma - g0)
	for j := 0; j+1 < n; j++ {
		g0, g1 := g[j], g[j+1]
		// The grid points are exp(eps) rounded, a relative u off the gamma
		// at which delta was evaluated; a line of slope s through them is
		// then off by about |s| u gamma, so each line is lowered by
		// 16 u |s| times the largest gamma it rests on.
		gTop := g[min(j+1+tprSlopeReach, n-1)]
		pad := func(s float64) float64 { return 16 * unitRoundoff * math.Abs(s) * gTop }
		lines := []line{{low[j+1], 0}, {1 - g0 - pad(1), -1}}
		if s, ok := leftSlope(g, up, low, j); ok {
			lines = append(lines, line{low[j] - pad(s), s})
		}
		if s, ok := rightSlope(g, up, low, j+1); ok {
			// y = low[j+1] + s (gamma - g1) = low[j+1] - s (g1 - g0) + s (gamma - g0)
			lines = append(lines, line{low[j+1] - s*(g1-g0) - pad(s), s})
		}
		// h is gamma a plus the largest line, lowered by what rounding can
		// add to it: x is a rounded crossing point, off by a few units of
		// roundoff of x, and h has slope at most a + sMax, so h(x) may lie
		// 8 u (a + sMax) x above the minimum; each line's value carries
		// another 4 u (|c| + |s| (g1 - g0)).
		sMax, cMax := 0.0, 0.0
		for _, l := range lines {
			sMax = math.Max(sMax, math.Abs(l.s))
			cMax = math.Max(cMax, math.Abs(l.c)+math.Abs(l.s)*(g1-g0))
		}
		h := func(x float64) float64 {
			m := math.Inf(-1)
			for _, l := range lines {
				m = math.Max(m, l.c+l.s*(x-g0))
			}
			return a*x + m - 8*unitRoundoff*(a+sMax)*x - 4*unitRoundoff*cMax
		}
		v := math.Min(h(g0), h(g1))
		for p := 0; p < len(lines); p++ {
			for q := p + 1; q < len(lines); q++ {
				if ds := lines[p].s - lines[q].s; ds != 0 {
					x := g0 + (lines[q].c-lines[p].c)/ds
					if x > g0 && x < g1 {
						v = math.Min(v, h(x))
					}
				}
			}
		}
		// The staircase alone is a bound too, with no rounding allowance
		// that grows with a line's slope: the lines may only raise it
		// (steep secants through nearby points would otherwise sink it).
		v = math.Max(v, g0*a+low[j+1])
		if v < lower {
			lower, seg = v, j
		}
	}
	gap = tprGap{gap: lim - lower, width: upper - lim, seg: seg}
	if !(gap.gap > 0) { // NaN lower bounds: nothing to refine
		gap.gap = 0
	}
	return upper, lower, gap
}

// finishTPR pads the bounds outward for the rounding of exp and the sums
// (each a few units of roundoff relative, every term non-negative), clamps
// them to [alpha, 1] (the random test reaches TPR = alpha; no test beats
// 1) and takes the max over directions.
func finishTPR(b TPRBound, a float64, lowNaN bool) TPRBound {
	const pad = 64 * unitRoundoff
	up := func(v float64) float64 { return math.Max(a, math.Min(1, v*(1+pad))) }
	lo := func(v float64) float64 {
		if lowNaN || math.IsNaN(v) {
			return a
		}
		return math.Min(1, math.Max(a, v*(1-pad)))
	}
	b.UpperAB, b.UpperBA = up(b.UpperAB), up(b.UpperBA)
	b.LowerAB, b.LowerBA = lo(b.LowerAB), lo(b.LowerBA)
	b.Upper = math.Max(b.UpperAB, b.UpperBA)
	b.Lower = math.Max(b.LowerAB, b.LowerBA)
	if lowNaN {
		b.Note = "no lower bounds on delta (error correction disabled): the lower TPR is the trivial FPR"
	}
	return b
}

// GaussianTradeoffMu returns the mu of the mu-GDP trade-off curve (Dong,
// Roth, Su 2022, Definition 2.6: TPR = Phi(Phi^-1(FPR) + mu)) through the
// point (fpr, tpr): Phi^-1(tpr) - Phi^-1(fpr). The largest value over a
// set of points of an upper TPR curve is the mu of the tightest GDP curve
// above those points, a summary of the curve, not a bound on it between
// the points. +Inf when tpr is 1 or fpr 0 (with tpr > 0), NaN outside
// [0, 1].
func GaussianTradeoffMu(fpr, tpr float64) float64 {
	if !(fpr >= 0 && fpr <= 1 && tpr >= 0 && tpr <= 1) {
		return math.NaN()
	}
	return normalQuantile(tpr) - normalQuantile(fpr)
}

// normalQuantile returns Phi^-1(p) for p in [0, 1] (-Inf at 0, +Inf at 1).
func normalQuantile(p float64) float64 {
	switch p {
	case 0:
		return math.Inf(-1)
	case 1:
		return math.Inf(1)
	}
	return -math.Sqrt2 * math.Erfcinv(2*p)
}
