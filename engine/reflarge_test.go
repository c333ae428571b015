package engine

import (
	"math"
)

// Bounds on the r-fold delta of the subsampled Gaussian pairs for any r
// (up to 2^40), where no exact value exists; independent of the engine.
//
// Lower bound (linLower): post-processing. The sum S = t_1 + ... + t_r of
// the standardised outputs is a statistic of the r-fold pair, so its pair
// of laws (S under A^r, S under B^r) is dominated: delta_r(eps) >= P_A(S >
// s) - e^eps P_B(S > s) for every threshold s (data processing for the
// hockey-stick divergence). For R(q, a), S under B^r is N(0, r) and under
// A^r a mixture over K ~ Binomial(r, q) (the steps drawn from the shifted
// component) of N(a K, r): P_A(S > s) = sum_k Bin(k) Q((s - a k)/sqrt r).
// The sum is bounded below by blocks of consecutive k (the binomial pmf is
// unimodal, so on a block it is at least its smaller end value, and Q(..)
// is increasing in k); terms outside the window are dropped. For the
// antipodal pair P(q, a), B^r's S is the mixture of N(+a K, r) and A^r's
// of N(-a K, r); by its mirror symmetry delta(A||B) = delta(B||A) >= P_B(S
// > s) - e^eps P_A(S > s), with P_A(S > s) bounded above (blocks at their
// largest pmf and Q(..) at the block's start, Chernoff bounds for the
// binomial tails outside the window). The symmetrised pair S(q, a)
// dominates R(q, a) (H_alpha(S) = H_alpha(R) for alpha >= 1 and S is its
// own mirror image, subsampled.go), so R's bound applies to it. With q =
// 1, S is sufficient and the bound is the Gauss pair's exact delta
// (TestLargeRBoundsExact).
//
// Upper bound (rdpUpper): for any alpha > 1, H_{e^eps}(P||Q) = E_Q[(Z -
// e^eps)^+] with Z = dP/dQ, and (z - c)^+ <= z^alpha c^(1-alpha) (alpha -
// 1)^(alpha-1)/alpha^alpha (the maximum of (z - c)/z^alpha is at z =
// alpha c/(alpha - 1)), so delta(eps) <= exp((alpha - 1)(D_alpha - eps))
// (1 - 1/alpha)^(alpha-1)/alpha with D_alpha(P^r||Q^r) = r D_alpha(P||Q)
// (product measures). D_alpha of one step, in each direction, is ln of
// the integral of exp(alpha ln dA + (1-alpha) ln dB) over the pair's
// pieces, by composite 20-point Gauss-Legendre quadrature on panels of
// width at most 1/sqrt(1 + alpha a^2) over every kernel centre
// alpha s_i + (1 - alpha) s_j +- 45 (beyond, the integrand is below
// e^-1000 of the kernels' peaks); constant-loss pieces exactly. It is not
// a certified enclosure: TestLargeRBoundsExact checks it against closed
// forms (the Gauss pair, the remove pair's binomial expansion at integer
// alpha, the Laplace pair) to 1e-12, and rdpUpper adds 1e-11 relative to
// each integral.

// lnBinomPMF returns ln P(K = k) for K ~ Binomial(r, q) and a bound on its
// error (math.Lgamma to a few ulps of its value).
func lnBinomPMF(r, k int, q float64) (float64, float64) {
	if k < 0 || k > r {
		return math.Inf(-1), 0
	}
	if q == 1 {
		if k == r {
			return 0, 0
		}
		return math.Inf(-1), 0
	}
	g := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	a, b, c := g(r), g(k), g(r-k)
	lq, l1q := ln(q), math.Log1p(-q)
	v := a - b - c + float64(k)*lq + float64(r-k)*l1q
	e := 4 * u64 * (math.Abs(a) + math.Abs(b) + math.Abs(c) + math.Abs(float64(k)*lq) + math.Abs(float64(r-k)*l1q) + 8)
	return v, e
}

// binomKL returns r KL(x/r || q), the Chernoff exponent of the binomial
// tail beyond x (x on the far side of the mean r q).
func binomKL(r int, x, q float64) float64 {
	rf := float64(r)
	p := x / rf
	var v float64
	if p > 0 {
		v += p * math.Log(p/q)
	}
	if p < 1 {
		v += (1 - p) * math.Log((1-p)/(1-q))
	}
	return rf * math.Max(0, v)
}

// mixTail bounds ln sum_k Bin(k; r, q) Q((s - c k)/sqrt r), c > 0 (terms
// increasing in k) or c < 0 (decreasing), from below (upper = false: the
// window's blocks at their smaller pmf and Q(..) at the block's smaller
// end, the rest dropped) or from above (the blocks at their largest pmf
// and Q(..) at the block's larger end, plus Chernoff bounds for the
// binomial tails outside the window).
func mixTail(r int, q, c, s float64, upper bool) float64 {
	sr := math.Sqrt(float64(r))
	lq := func(k float64) float64 { // ln Q((s - c k)/sqrt r) and its bound
		x := (s - c*k) / sr
		v, dv := logQUnc(x, 4*u64*(math.Abs(s)+math.Abs(c*k))/sr)
		if upper {
			return v + dv
		}
		return v - dv
	}
	pmf := func(k int) float64 {
		v, e := lnBinomPMF(r, k, q)
		if upper {
			return v + e
		}
		return v - e
	}
	if q == 1 {
		return lq(float64(r))
	}
	// the largest term: f(k) = ln pmf + ln Q is concave in k
	f := func(k int) float64 { return pmf(k) + lq(float64(k)) }
	lo, hi := 0, r
	for hi-lo > 2 {
		m1 := lo + (hi-lo)/3
		m2 := hi - (hi-lo)/3
		if f(m1) < f(m2) {
			lo = m1
		} else {
			hi = m2
		}
	}
	kStar := lo
	for k := lo + 1; k <= hi; k++ {
		if f(k) > f(kStar) {
			kStar = k
		}
	}
	// the window: where f is within 80 of its maximum, by doubling
	top := f(kStar)
	w1 := 1
	for kStar-w1 > 0 && f(kStar-w1) > top-80 {
		w1 *= 2
	}
	w2 := 1
	for kStar+w2 < r && f(kStar+w2) > top-80 {
		w2 *= 2
	}
	k1, k2 := max(0, kStar-w1), min(r, kStar+w2)
	mode := int(math.Floor(float64(r+1) * q))
	nb := 200
	bs := (k2 - k1 + nb) / nb
	sum := newLogSumUnc()
	for b0 := k1; b0 <= k2; b0 += bs {
		b1 := min(k2, b0+bs-1)
		n := float64(b1 - b0 + 1)
		p0, p1 := pmf(b0), pmf(b1)
		var lp float64
		var kq float64 // where Q(..) is taken
		if upper {
			lp = math.Max(p0, p1)
			if mode >= b0 && mode <= b1 {
				lp = pmf(mode)
			}
			kq = float64(b0) // Q decreasing in k for c < 0; for c > 0 the end
			if c > 0 {
				kq = float64(b1)
			}
		} else {
			lp = math.Min(p0, p1)
			kq = float64(b1)
			if c > 0 {
				kq = float64(b0)
			}
		}
		sum.add(ln(n)+lp+lq(kq), 0)
	}
	v := sum.s
	if upper {
		// outside the window: P(K < k1) Q at k = 0 side, P(K > k2) Q at
		// the other side, each Q at most its value at the window's end
		// toward the tail (monotone) or 1
		mean := float64(r) * q
		if k1 > 0 {
			lt := 0.0
			if float64(k1) < mean {
				lt = -binomKL(r, float64(k1), q)
			}
			qEnd := 0.0 // Q at k < k1: at most Q at k = 0 (c < 0) or at k1 (c > 0)
			if c > 0 {
				qEnd = lq(float64(k1))
			} else {
				qEnd = lq(0)
			}
			v = logAddExp(v, lt+qEnd)
		}
		if k2 < r {
			lt := 0.0
			if float64(k2) > mean {
				lt = -binomKL(r, float64(k2), q)
			}
			qEnd := 0.0
			if c > 0 {
				qEnd = lq(float64(r))
			} else {
				qEnd = lq(float64(k2))
			}
			v = logAddExp(v, lt+qEnd)
		}
		v += 1e-9 // the sum's own rounding
	} else {
		v -= 1e-9
	}
	return math.Min(v, 0)
}

// largeShape is the subsampled Gaussian pair of a case, for the large-r
// bounds: R(q, a) (remove), P(q, a) (antipodal) or S(q, a) (symmetric);
// shapeLaplace marks a subsampled Laplace pair (no lower bound).
type largeShape struct {
	shape shape
	q, a  float64
}

// shapeLaplace is a subsampled Laplace pair for largeShape: the Renyi
// bound only.
const shapeLaplace shape = -1

// linLower returns a lower bound on ln delta_r(eps) (the larger
// direction) from the linear statistic S, maximised over the threshold s
// by a scan and golden-section refinement (any s gives a valid bound).
func (ls largeShape) linLower(r int, eps float64) float64 {
	if math.IsInf(eps, 1) || ls.shape == shapeLaplace {
		return math.Inf(-1)
	}
	sr := math.Sqrt(float64(r))
	q, a := ls.q, ls.a
	// lb(s) = ln(P(S > s) - e^eps P'(S > s)) for the direction bounded
	lb := func(s float64) float64 {
		var la, lb float64
		if ls.shape == shapeAntipodal {
			la = mixTail(r, q, a, s, false) // B^r: N(+a K, r)
			lb = mixTail(r, q, -a, s, true) // A^r: N(-a K, r)
		} else {
			la = mixTail(r, q, a, s, false)
			x := s / sr
			v, dv := logQUnc(x, 4*u64*math.Abs(x))
			lb = v + dv
		}
		d := eps + lb - la
		if !(d < 0) || math.IsInf(la, -1) {
			return math.Inf(-1)
		}
		return la + log1mExp(d)
	}
	// scan s/sqrt(r) from -2 to the mean of the shifted side plus 40,
	// then golden-section search around the best point
	zMax := a*float64(r)*q/sr + 40
	best, bestZ := math.Inf(-1), 0.0
	const n = 32
	step := (zMax + 2) / n
	for i := 0; i <= n; i++ {
		z := -2 + float64(i)*step
		if v := lb(z * sr); v > best {
			best, bestZ = v, z
		}
	}
	if math.IsInf(best, -1) {
		return best
	}
	const g = 0.6180339887498949
	x, y := bestZ-step, bestZ+step
	m1, m2 := y-g*(y-x), x+g*(y-x)
	f1, f2 := lb(m1*sr), lb(m2*sr)
	for i := 0; i < 30; i++ {
		if f1 > f2 {
			y, m2, f2 = m2, m1, f1
			m1 = y - g*(y-x)
			f1 = lb(m1 * sr)
		} else {
			x, m1, f1 = m1, m2, f2
			m2 = x + g*(y-x)
			f2 = lb(m2 * sr)
		}
	}
	return math.Max(best, math.Max(f1, f2))
}

// glx20, glw20: the 20-point Gauss-Legendre rule (reference_test.go).
var glx20, glw20 = gl20x, gl20w

// lnRenyiIntegral returns ln of the integral of exp(alpha ln dA + (1 -
// alpha) ln dB) over the pieces of rp (one step, direction A||B; +Inf when
// an event has A-mass but no B-mass).
func lnRenyiIntegral(rp rpPair, alpha float64) float64 {
	s := math.Inf(-1)
	for i := range rp {
		p := &rp[i]
		if p.atom {
			la, _, lb, _ := p.atomMasses()
			if math.IsInf(la, -1) {
				continue
			}
			if math.IsInf(lb, -1) {
				return math.Inf(1)
			}
			s = logAddExp(s, alpha*la+(1-alpha)*lb)
			continue
		}
		A, B := p.A, p.B
		if p.flip {
			A, B = B, A
		}
		if lo, hi := p.lossRange(); lo == hi {
			// constant loss L: the integral is B(piece) e^(alpha L)
			_, _, lb, _ := p.masses(p.t1, p.t2)
			L, _ := p.lossAt(p.t1)
			s = logAddExp(s, lb+alpha*L)
			continue
		}
		cMin, cMax, aMax := math.Inf(1), math.Inf(-1), 0.0
		for ia, sa := range A.s {
			if math.IsInf(A.lw[ia], -1) {
				continue
			}
			for ib, sb := range B.s {
				if math.IsInf(B.lw[ib], -1) {
					continue
				}
				c := alpha*sa + (1-alpha)*sb
				cMin, cMax = math.Min(cMin, c), math.Max(cMax, c)
				aMax = math.Max(aMax, math.Abs(sa-sb))
			}
		}
		W := 45.0
		if A.lap {
			W = 1000
		}
		t1, t2 := math.Max(p.t1, cMin-W), math.Min(p.t2, cMax+W)
		if !(t2 > t1) {
			continue
		}
		width := 1 / math.Sqrt(1+alpha*aMax*aMax)
		n := int(math.Ceil((t2 - t1) / width))
		hp := (t2 - t1) / float64(n)
		f := func(t float64) float64 { return alpha*A.lnDens(t) + (1-alpha)*B.lnDens(t) }
		for j := 0; j < n; j++ {
			x0 := t1 + float64(j)*hp
			// the panel's sum, in log space
			m := math.Inf(-1)
			var vals [20]float64
			for k := range glx20 {
				vals[k] = f(x0 + hp*(1+glx20[k])/2)
				m = math.Max(m, vals[k])
			}
			if math.IsInf(m, -1) {
				continue
			}
			ps := 0.0
			for k := range glx20 {
				ps += glw20[k] * math.Exp(vals[k]-m)
			}
			s = logAddExp(s, m+ln(ps*hp/2))
		}
	}
	return s
}

// rdpUpper returns an upper bound on ln delta_r(eps) in the direction
// A||B of rp from Renyi divergences at the orders alphas (see the top of
// the file); lnE[i] = lnRenyiIntegral(rp, alphas[i]), plus the margin.
func rdpUpper(alphas, lnE []float64, r int, eps float64) float64 {
	best := 0.0
	for i, al := range alphas {
		if math.IsInf(lnE[i], 1) || math.IsNaN(lnE[i]) {
			continue
		}
		// ln E^r e^(-(alpha-1) eps) (1-1/alpha)^(alpha-1)/alpha
		v := float64(r)*(lnE[i]+1e-11) - (al-1)*eps + (al-1)*math.Log1p(-1/al) - math.Log(al)
		if math.IsInf(eps, 1) {
			v = math.Inf(-1)
		}
		best = math.Min(best, v)
	}
	return best
}

// rdpAlphas are the orders tried by the Renyi bound.
var rdpAlphas = []float64{1.1, 1.25, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512, 1024}

// largeBracket is the bracket of r steps of a subsampled Gaussian pair
// at large r: [linLower, max over directions of rdpUpper].
type largeBracket struct {
	ls         largeShape
	alphas     []float64
	lnEab      []float64
	lnEba      []float64
	sameDirs   bool
	lowerShape largeShape
}

// newLargeBracket prepares the Renyi integrals of the pair rp of shape ls
// at the orders whose quadrature stays cheap (alpha a <= 200).
func newLargeBracket(ls largeShape, rp rpPair) *largeBracket {
	lb := &largeBracket{ls: ls, lowerShape: ls}
	if ls.shape == shapeSymmetric {
		lb.lowerShape = largeShape{shapeRemove, ls.q, ls.a}
	}
	// mirror-symmetric pairs (antipodal, symmetrised): one direction; the
	// Laplace pairs are computed in both (their remove pairs are not)
	lb.sameDirs = ls.shape == shapeAntipodal || ls.shape == shapeSymmetric
	sw := rp.swap()
	for _, al := range rdpAlphas {
		if al*ls.a > 200 && ls.shape != shapeLaplace {
			break
		}
		lb.alphas = append(lb.alphas, al)
		lb.lnEab = append(lb.lnEab, lnRenyiIntegral(rp, al))
		if !lb.sameDirs {
			lb.lnEba = append(lb.lnEba, lnRenyiIntegral(sw, al))
		}
	}
	return lb
}

// dirs returns ln of lower and upper bounds of each direction's delta for
// r steps: the linear statistic bounds A||B (and both directions of the
// mirror-symmetric antipodal and symmetrised pairs; S(q, a) dominates
// R(q, a) and is symmetric), the Renyi bound each direction.
func (lb *largeBracket) dirs(r int, eps float64) (float64, float64, float64, float64) {
	abHi := rdpUpper(lb.alphas, lb.lnEab, r, eps)
	baHi := abHi
	if !lb.sameDirs {
		baHi = rdpUpper(lb.alphas, lb.lnEba, r, eps)
	}
	lo := lb.lowerShape.linLower(r, eps)
	baLo := lo
	if !lb.sameDirs {
		baLo = math.Inf(-1)
	}
	return lo, abHi, baLo, baHi
}

// bracket returns ln of a lower and an upper bound of the engine's delta
// for r steps.
func (lb *largeBracket) bracket(r int, eps float64) (float64, float64) {
	hi := rdpUpper(lb.alphas, lb.lnEab, r, eps)
	if !lb.sameDirs {
		hi = math.Max(hi, rdpUpper(lb.alphas, lb.lnEba, r, eps))
	}
	lo := lb.lowerShape.linLower(r, eps)
	return lo, hi
}
