package engine

import (
	"context"
	"math"
	"sort"
)

// This file computes the PMF of the sum of two independent rounded Gaussian
// counts (Vuvuzela's conversation pair with Gauss noise) to a relative error
// of about 1e-13 per entry, far below the tilted FFT's floor (about 1e-10 at
// a tilt's centre, sumTarget = 3e-9 in practice, countsum.go), which at
// r = 65,536 compositions left the bulk bracket 20% wide and the lower
// bounds orders of magnitude low.
//
// The sum of the two unclamped counts. For X ~ N(m, s^2) let
// g(t) = P(t-1 < X <= t), a smooth function of real t; the count ceil(X)
// has P(ceil(X) = j) = g(j), and g is the density of X + U, U ~ U[0, 1).
// For the sum of two independent counts,
//
//	z_k = sum_{j in Z} g1(j) g2(k-j) = sum_{n in Z} h^(n),  h(t) = g1(t) g2(k-t)
//
// (Poisson summation; h decays like a Gaussian). The term n = 0 is
// h^(0) = (g1 * g2)(k), the density at k of S + T with S = X1 + X2 ~
// N(m1+m2, s1^2+s2^2) and T = U1 + U2 triangular on [0, 2]:
//
//	D(k) = int_0^2 tri(v) phi_S(k - v) dv
//	     = phi((k-1-m)/s)/s * I(a, b),   I(a, b) = int_{-1}^{1} (1-|w|) e^(a w - b w^2) dw,
//
// a = (k-1-m)/s^2, b = 1/(2 s^2) (w = v - 1). For n != 0, with
// |g^_i(xi)| <= e^(-2 pi^2 s_i^2 xi^2) (the uniform's transform has modulus
// at most 1), |h^(n)| <= int e^(-2 pi^2 (s1^2 (xi+n)^2 + s2^2 xi^2)) dxi
// = e^(-2 pi^2 n^2 se^2) / sqrt(2 pi (s1^2 + s2^2)), se^2 = s1^2 s2^2 /
// (s1^2 + s2^2). The method is used only when 2 pi^2 se^2 >= 1500
// (se >= 8.72), so the aliasing sum_{n != 0} |h^(n)| < 3 e^(-1500) is far
// below the smallest subnormal 2^-1074, which every error bound adds.
//
// I(a, b) as series. With e^(-b w^2) = sum_j (-b w^2)^j / j! and
// M_p(a) = int (1-|w|) w^p e^(a w) dw = sum_{i >= 0} a^(2i)/(2i)! *
// 2/((2i+p+1)(2i+p+2)) for even p (the odd powers of w integrate to 0),
// I = sum_{j=0}^{J} (-b)^j/j! M_{2j}(a) + R_J, |R_J| <= b^(J+1)/(J+1)! M_0(a)
// (the alternating series of e^(-y), y = b w^2 >= 0, and w^(2J+2) <= 1),
// while I >= e^(-b) M_0(a) and M_0(a) >= 1 (Jensen: the triangle has mean 0
// and e^(a w) is convex). M_p's series has positive terms whose ratio falls
// below 1/2 once (2i+1)(2i+2) >= 2 a^2, so it is cut where a term is below
// 1e-22 of the partial sum past that point, the remainder (at most the last
// term) counted in the error.
//
// The clamp. The count of the model is ceil(max(0, X)): the sum's entries
// k >= 2 made of two counts >= 1 (the bulk; the terms with a count 0 are
// added by addSpikes) are z_k - L_k - R_k with L_k = sum_{j <= 0} g1(j)
// g2(k-j) <= P(X1 <= 0) max_{i >= k} g2(i) and R_k likewise with the roles
// swapped. So the bulk lies in [D - eD - A - Lup - Rup, D + eD + A]; where
// Lup + Rup is not negligible (the left tail of pairs whose counts reach 0
// with a probability above about 1e-20), the entries are summed directly
// (positive terms, relative error of the count masses plus gamma of the
// number of terms), within a work budget; the tilted FFT encloses the rest.

// gaussAliasMin is the smallest 2 pi^2 se^2 for which D(k) is used.
const gaussAliasMin = 1500

// gaussDirectAbove: entries whose closed-form enclosure is wider than it
// (relative) are summed directly.
const gaussDirectAbove = 1e-13

// gaussDirectMin: entries whose D is below it are not summed directly
// (they stay unresolved, their upper ends from D, in a corner).
const gaussDirectMin = 1e-45

// gaussDirectBudget bounds the products of the direct sums (per side).
const gaussDirectBudget = 4e9

// gaussSumTarget is the relative error below which an entry of a Gauss
// count sum counts as resolved when the accurate sums cover the pair. The
// leaf's relative error is the largest over the resolved entries: about
// 3e-13 for the paper's pairs, up to 1e-11 for small scales, whose counts'
// far tails (37 standard deviations) are known to a few 1e-12.
const gaussSumTarget = 1e-11

// gaussUnresolvedSlack is the mass the accurate target may leave
// unresolved beyond what sumTarget leaves: r times it is the floor it adds
// to upper bounds (1e-31 at r = 10^6).
const gaussUnresolvedSlack = 1e-37

// gaussSumD returns ln D(k) for the sum of N(m1, s1^2) and N(m2, s2^2)
// rounded up (D as in the file comment) and a bound on the absolute error
// of ln D.
func gaussSumD(k int, m1, s1, m2, s2 float64) (lnD, err float64) {
	u := unitRoundoff
	s2sq := s1*s1 + s2*s2 // rel <= 2.01u
	kf := float64(k - 1)  // exact below 2^53
	t1 := kf - m1
	d := t1 - m2
	dd := 1.01 * u * (math.Abs(t1) + math.Abs(d)) // |error of d|
	e := d * d / (2 * s2sq)
	ee := 4.02*u*e + 1.01*(2*math.Abs(d)*dd+dd*dd)/(2*s2sq)*(1+4*u)
	p := -0.5 * math.Log(2*math.Pi*s2sq)
	ep := 4 * u * (math.Abs(p) + 1)
	a := d / s2sq
	ea := 3.01*u*math.Abs(a) + 1.01*dd/s2sq // |dlnI/da| <= 1
	b := 0.5 / s2sq
	eb := 3.01 * u * b // |dlnI/db| <= 1
	lnI, eI := gaussTriI(a, b)
	lnD = p - e + lnI
	err = ep + ee + ea + eb + eI + 3*u*(math.Abs(p)+e+math.Abs(lnI))
	return lnD, err * (1 + 1e-6)
}

// gaussTriI returns ln I(a, b) and a bound on its absolute error (I as in
// the file comment; b <= 1/578).
func gaussTriI(a, b float64) (float64, float64) {
	u := unitRoundoff
	a2 := a * a
	const J = 6
	var M [J + 1]float64
	relM := 0.0
	for j := 0; j <= J; j++ {
		p := float64(2 * j)
		sum, term := 0.0, 1.0
		var i int
		for i = 0; ; i++ {
			fi := float64(2 * i)
			v := term * 2 / ((fi + p + 1) * (fi + p + 2))
			sum += v
			ratio := a2 / ((fi + 1) * (fi + 2))
			if ratio <= 0.5 && v <= 1e-22*sum {
				break
			}
			term *= ratio
			if i > 4000 {
				return 0, math.Inf(1)
			}
		}
		// each term: about 3u per step of the recurrence, 4u more; the
		// sum of positive terms adds i u; the remainder at most 1e-22.
		relM = math.Max(relM, float64(3*i+8+i)*u+2e-22)
		M[j] = sum
	}
	I, abs, c := 0.0, 0.0, 1.0
	for j := 0; j <= J; j++ {
		t := c * M[j]
		I += t
		abs += math.Abs(t)
		c *= -b / float64(j+1)
	}
	// c now holds (-b)^(J+1)/(J+1)!: the truncation, relative to M_0.
	tr := math.Abs(c) * M[0]
	e := (abs*(relM+float64(2*J+6)*u) + tr) * (1 + 1e-6)
	lo := I - e
	if !(lo > 0) {
		return 0, math.Inf(1)
	}
	lnI := math.Log(I)
	return lnI, -math.Log1p(-e/I)*(1+1e-6) + 2*u*(math.Abs(lnI)+1)
}

// gaussSumAccurate encloses the bulk of the sum of two rounded Gauss
// counts (counts >= 1 only) entry by entry for one side: x and y are the
// counts' PMFs (with their means and deviations m1, s1, m2, s2), the
// entries are k = lo .. lo+len(a)-1. It returns the enclosures and their
// relative widths; rel[k] = +Inf where nothing better than the FFT was
// found.
func gaussSumAccurate(ctx context.Context, x, y countDist, m1, s1, m2, s2 float64, lo, n int) (lb, ub, rel []float64, err error) {
	u := unitRoundoff
	lb, ub, rel = make([]float64, n), make([]float64, n), make([]float64, n)
	for k := range rel {
		rel[k], ub[k] = math.Inf(1), math.Inf(1)
	}
	se2 := s1 * s1 * s2 * s2 / (s1*s1 + s2*s2)
	poisson := 2*math.Pi*math.Pi*se2*(1-4*u) >= gaussAliasMin
	// P(X <= 0) upper bounds and the peak bound of g: g(i) <= phi(dist)/s.
	p1 := upperTail(NoiseGauss, m1/s1) * (1 + tailRel(NoiseGauss, m1/s1)) * (1 + 1e-9)
	p2 := upperTail(NoiseGauss, m2/s2) * (1 + tailRel(NoiseGauss, m2/s2)) * (1 + 1e-9)
	// ln max_{i >= k} g(i) <= -ln(s sqrt(2 pi)) - max(0, k-1-m)^2/(2 s^2)
	lnGmax := func(k int, m, s float64) float64 {
		d := math.Max(0, float64(k-1)-m)
		v := -math.Log(s*math.Sqrt(2*math.Pi)) - d*d/(2*s*s)*(1-1e-9)
		return v + 1e-9*(math.Abs(v)+1)
	}
	need := make([]bool, n)
	est := make([]float64, n) // D, to order the direct sums
	for i := 0; i < n; i++ {
		k := lo + i
		if k < 2 {
			lb[i], ub[i], rel[i] = 0, 0, 0 // no bulk below 2
			continue
		}
		if poisson {
			lnD, eD := gaussSumD(k, m1, s1, m2, s2)
			D := math.Exp(lnD)
			est[i] = D
			if D > 1e-300 && eD < 1e-3 {
				up := D * math.Exp(eD) * (1 + 2*u)
				dn := D * math.Exp(-eD) * (1 - 2*u)
				corr := 0.0
				if p1 > 0 {
					corr += p1 * math.Exp(lnGmax(k, m2, s2))
				}
				if p2 > 0 {
					corr += p2 * math.Exp(lnGmax(k, m1, s1))
				}
				corr = corr*(1+1e-9) + 0x1p-1074
				dn -= corr
				up += 0x1p-1074
				// The upper end holds whatever the clamp's share.
				lb[i], ub[i] = math.Max(dn, 0), up
				if dn > 0 {
					rel[i] = (up - dn) / (up + dn) * (1 + 4*u)
				}
				// Direct sums help where the clamp's share, not D's own
				// error, widens the enclosure.
				need[i] = rel[i] > gaussDirectAbove && corr > D*eD
				continue
			}
		}
		need[i] = !(rel[i] <= gaussDirectAbove)
	}
	// Direct sums where D is not tight enough, the largest entries first
	// (by D, or by the counts' peak product where D is not used), within
	// the budget.
	type job struct {
		i    int
		size float64
	}
	var jobs []job
	for i, nd := range need {
		if nd && (!poisson || est[i] >= gaussDirectMin) {
			sz := est[i]
			if !poisson {
				sz = math.Inf(1)
			}
			jobs = append(jobs, job{i, sz})
		}
	}
	sort.Slice(jobs, func(p, q int) bool { return jobs[p].size > jobs[q].size })
	// The pairs of entry k with a count outside the stored ranges weigh at
	// most the masses of the tails they need (a count j >= 1 with
	// k-j >= 1: the left tail below lo > 1, the right tail only if k-1
	// exceeds the last stored count).
	restK := func(k int) float64 {
		r := 0.0
		if x.lo > 1 {
			r += x.left
		}
		if k-1 > x.hi() {
			r += x.right
		}
		if y.lo > 1 {
			r += y.left
		}
		if k-1 > y.hi() {
			r += y.right
		}
		return r * (1 + math.Max(x.rel, y.rel)) * (1 + 8*u)
	}
	cost := 0.0
	for c, jb := range jobs {
		if c%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, err
			}
		}
		i := jb.i
		k := lo + i
		j0, j1 := max(1, x.lo, k-y.hi()), min(k-1, x.hi(), k-max(1, y.lo))
		if j1 < j0 {
			continue
		}
		cost += float64(j1 - j0 + 1)
		if cost > gaussDirectBudget {
			break
		}
		sum, errSum, nb := blockedDot(x, y, j0, j1, k)
		if !(sum > 0) {
			continue
		}
		// errSum bounds sum_j x_j y_(k-j) (rx_j + ry_(k-j) + rx_j ry_(k-j)
		// + u) over the blocks (the factors' bounds over each block's
		// range); the blocked sums of positive terms add gamma(dotBlock)
		// within a block and gamma(nb+1) across.
		// Factors and products below 2^-1022 carry an absolute error of a
		// few units of 2^-1074 each (of the factor, times a partner <= 1).
		g := (1+gamma(dotBlock))*(1+gamma(nb+1)) - 1
		e := (errSum*(1+g)+sum*g)*(1+1e-6) + float64(j1-j0+1)*0x1p-1068
		dn := sum - e
		up := (sum+e)*(1+2*u) + restK(k) + 0x1p-1074
		w := (up - dn) / (up + dn) * (1 + 4*u)
		if w < rel[i] {
			lb[i], ub[i], rel[i] = dn, up, w
		}
	}
	return lb, ub, rel, nil
}

// dotBlock is the block length of blockedDot.
const dotBlock = 128

// blockedDot returns sum_j x_j y_(k-j) over j = j0..j1 (all terms
// non-negative), summed in blocks of dotBlock terms, a bound on the error
// the factors' own errors carry into it (each block's sum times the
// largest relative error of its x and y entries, their valley envelopes'
// ends), and the number of blocks.
func blockedDot(x, y countDist, j0, j1, k int) (sum, errSum float64, nb int) {
	u := unitRoundoff
	xs := x.p[j0-x.lo : j1-x.lo+1]
	top := k - j0 - y.lo
	for b0 := 0; b0 < len(xs); b0 += dotBlock {
		b1 := min(b0+dotBlock, len(xs))
		part := 0.0
		base := top - b1 + 1
		yy := y.p[base : top-b0+1]
		for j := b0; j < b1; j++ {
			part += xs[j] * yy[top-j-base]
		}
		rx := x.relOver(j0+b0, j0+b1-1)
		ry := y.relOver(k-j0-b1+1, k-j0-b0)
		sum += part
		errSum += part * (rx + ry + rx*ry + u)
		nb++
	}
	return sum, errSum * (1 + 4*u), nb
}

// gaussTargets are the candidate resolution targets of the accurate Gauss
// sums, tightest first.
var gaussTargets = [...]float64{3e-13, 1e-12, 3e-12, gaussSumTarget}

// gaussSumCounts is sumCounts for Gauss noise: the accurate enclosures of
// gaussSumAccurate, intersected with the tilted FFT's where some entry is
// left without one or a non-negligible mass stays unresolved. It also
// returns the relative error below which the caller should take an entry
// as resolved: the tightest of gaussTargets that leaves at most
// gaussUnresolvedSlack more mass unresolved than sumTarget does (the
// leaf's relative error is the largest over the resolved entries, the
// unresolved ones go to a corner), else sumTarget.
func gaussSumCounts(ctx context.Context, xa, xb, ya, yb countDist, m1a, m1b, s1, m2a, m2b, s2 float64) (*countSum, float64, error) {
	lx, hx := min(xa.lo, xb.lo), max(xa.hi(), xb.hi())
	ly, hy := min(ya.lo, yb.lo), max(ya.hi(), yb.hi())
	nz := (hx - lx + 1) + (hy - ly + 1) - 1
	lo := lx + ly
	// The two sides on two goroutines (each result depends on its side
	// alone: the same bits as one after the other).
	var lbB, ubB, rB []float64
	var errB error
	done := make(chan struct{})
	go func() {
		defer close(done)
		lbB, ubB, rB, errB = gaussSumAccurate(ctx, xb, yb, m1b, s1, m2b, s2, lo, nz)
	}()
	lbA, ubA, rA, err := gaussSumAccurate(ctx, xa, ya, m1a, s1, m2a, s2, lo, nz)
	<-done
	if err != nil {
		return nil, 0, err
	}
	if errB != nil {
		return nil, 0, errB
	}
	needFFT, open := false, 0.0
	for k := range rA {
		if !(ubA[k] < math.Inf(1)) || !(ubB[k] < math.Inf(1)) {
			needFFT = true
			break
		}
		if math.Max(rA[k], rB[k]) > gaussSumTarget {
			open += math.Max(ubA[k], ubB[k])
		}
	}
	var s *countSum
	if needFFT || open > gaussUnresolvedSlack {
		if s, err = sumCountsBulk(ctx, xa, xb, ya, yb); err != nil {
			return nil, 0, err
		}
	} else {
		s = newCountSum(xa, xb, ya, yb, lo, nz)
	}
	u := unitRoundoff
	for k := range s.a {
		// Intersect each side's enclosures (both are valid).
		s.lbA[k] = math.Max(s.lbA[k], lbA[k])
		s.ubA[k] = math.Min(s.ubA[k], ubA[k])
		s.lbB[k] = math.Max(s.lbB[k], lbB[k])
		s.ubB[k] = math.Min(s.ubB[k], ubB[k])
		if !(s.ubA[k] < math.Inf(1) && s.ubB[k] < math.Inf(1)) {
			continue
		}
		a := (s.lbA[k] + s.ubA[k]) / 2
		b := (s.lbB[k] + s.ubB[k]) / 2
		ea := (s.ubA[k] - s.lbA[k]) / 2 * (1 + 4*u)
		eb := (s.ubB[k] - s.lbB[k]) / 2 * (1 + 4*u)
		r := math.Inf(1)
		if a > 0 && b > 0 {
			r = math.Max(ea/a, eb/b)
		}
		if r < s.rel[k] || math.IsInf(s.rel[k], 1) {
			s.a[k], s.ea[k], s.b[k], s.eb[k], s.rel[k] = a, ea, b, eb, r
		}
	}
	finishSum(s, xa, xb, ya, yb, lx, ly)
	unresolved := func(t float64) float64 {
		v := 0.0
		for k := range s.a {
			if !(s.rel[k] <= t) {
				v += math.Max(s.ubA[k], s.ubB[k])
			}
		}
		return v
	}
	base := unresolved(sumTarget)
	for _, t := range gaussTargets {
		if unresolved(t) <= base+gaussUnresolvedSlack {
			return s, t, nil
		}
	}
	return s, sumTarget, nil
}

// newCountSum returns an empty sum of lo..lo+n-1 for the counts given
// (every entry unresolved: rel +Inf, enclosure [0, +Inf]).
func newCountSum(xa, xb, ya, yb countDist, lo, n int) *countSum {
	relMax := math.Max(math.Max(xa.rel, xb.rel), math.Max(ya.rel, yb.rel))
	g := (1 + relMax) * (1 + 8*unitRoundoff)
	s := &countSum{
		lo:    lo,
		a:     make([]float64, n),
		ea:    make([]float64, n),
		b:     make([]float64, n),
		eb:    make([]float64, n),
		rel:   make([]float64, n),
		restA: (xa.left + xa.right + ya.left + ya.right) * g,
		restB: (xb.left + xb.right + yb.left + yb.right) * g,
		lbA:   make([]float64, n),
		ubA:   make([]float64, n),
		lbB:   make([]float64, n),
		ubB:   make([]float64, n),
	}
	for k := range s.rel {
		s.rel[k], s.ubA[k], s.ubB[k] = math.Inf(1), math.Inf(1), math.Inf(1)
	}
	return s
}
