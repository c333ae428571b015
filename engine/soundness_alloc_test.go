package engine

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The seeded soundness property test of random allocation
// (RandomAllocationGauss, allocation.go): random cases over the legal
// input space, each against a reference of the exact pair
// P = (1/t) sum_i N(m e_i, I_t), Q = N(0, I_t) composed over r epochs:
//
//   - t1: one step per epoch, the Gaussian mechanism with mu = m sqrt(r)
//     (refGauss, exact; r up to 2^30, m = sensitivity/sigma from 1e-2 to
//     20, random engine options, eps from 0 to 1e4 and +Inf, delta down
//     to 1e-100) and its trade-off curve TPR = Phi(Phi^-1(fpr) + mu) at
//     fprs down to 1e-10;
//   - quad: t = 2, 3, one epoch, delta of each direction by quadrature
//     (allocQuad: Gauss-Legendre panels over all coordinates but the last,
//     whose expectation is in closed form, split where the remaining
//     threshold reaches 0) with ten times the difference between two
//     resolutions as its error, and the Neyman-Pearson tests' TPR (both
//     directions threshold the sum S of the X_i = e^(m y_i - m^2/2)) by
//     bisection on the threshold, bracketed by the thresholds on both sides
//     of the fpr (at t = 3 with PB_LONG only);
//   - k: k > 1 participations (allocation_k.go), t from 2 to 40, up to 5
//     epochs: at k = t the Gaussian closed form (delta, eps, TPR), else
//     plain Monte Carlo of the exact k-out-of-t pair (allocKMC) with the
//     same 99.9% confidence limits for both bounds;
//   - mc: t from 4 to 10,000 and r epochs with t r <= 10,000,
//     importance-sampling Monte Carlo (proposal tilts chosen by a pilot
//     run) of each direction's delta at the eps the engine reports for
//     delta 1e-2 .. 1e-5 and at random eps: every upper bound must be at
//     least the 99.9% lower confidence limit (estimate - 3.29 standard
//     errors) and every lower bound at most the upper one, when the
//     estimate is reliable (mcEst.reliable: at least 200 non-zero terms,
//     relative standard error at most 0.1, no term above 2% of the sum,
//     estimate below 0.5; lower bounds only against untilted sampling); and the TPR of the likelihood-ratio threshold tests
//     (upper bound at the fpr's upper confidence limit at least the TPR's
//     lower confidence limit; the lower bound against the upper limits).
//
// Every delta and eps query also gets the checks every result must pass
// (checkBracketResult: no NaN, lower <= upper, notes on trivial bounds).
//
// The test can fail: shrinking the pair's m by 1% (allocMech.m0 returning
// 0.99 m) fails it, see the report of the change that added it; run
//
//	go test ./engine -run TestSoundnessAllocation -v
//	go test ./engine -run TestSoundnessAllocation -alloc.cases 200 -v   # long mode
var (
	allocPropCases = flag.Int("alloc.cases", 0, "cases of TestSoundnessAllocation (0: 16, or 8 with -short)")
	allocPropSeed  = flag.Uint64("alloc.seed", 1, "seed of TestSoundnessAllocation")
	allocPropOnly  = flag.Int("alloc.only", -1, "run only this case of TestSoundnessAllocation")
)

// allocPropCase is one random-allocation case.
type allocPropCase struct {
	desc   string
	m      float64 // sensitivity/sigma
	sigma  float64
	sens   float64
	steps  int
	k      int // participations (0: 1)
	epochs int
	opt    Options
	kind   string // t1, quad, mc
	eps    []float64
	deltas []float64
	fprs   []float64
	mcSeed uint64
	ecOn   bool
	quick  bool // fewer eps and delta queries
}

// genAllocCase draws case i's parameters.
func genAllocCase(rng *rand.Rand, i int) allocPropCase {
	var c allocPropCase
	c.sens = 1
	if rng.IntN(3) == 0 {
		c.sens = logUniform(rng, 0.2, 5)
	}
	switch i % 4 {
	case 0, 1:
		c.kind = "t1"
		c.m = logUniform(rng, 1e-2, 20)
		c.steps = 1
		c.epochs = randR(rng, 1<<30)
		c.opt, _ = randOptions(rng, false)
	case 2:
		c.kind = "quad"
		c.m = logUniform(rng, 0.3, 3)
		c.steps = 2 + rng.IntN(2)
		c.epochs = 1
		c.opt = Options{Buckets: 4 * int(logUniform(rng, 500, 10000))}
		c.quick = c.steps == 3 // t = 3 costs a double integral per eps
	case 3 + 4*((i/4)%2):
		c.kind = "mc"
		c.m = logUniform(rng, 0.3, 2.5)
		c.steps = int(logUniform(rng, 4, 10000))
		maxR := math.Min(50, 10000/float64(c.steps))
		c.epochs = int(logUniform(rng, 1, maxR+1))
		if maxR < 1 {
			c.epochs = 1
		}
		c.mcSeed = rng.Uint64()
	default:
		// k > 1: the reduction's bracket against plain Monte Carlo of
		// the exact k-out-of-t pair (the Gaussian closed form at k = t)
		c.kind = "k"
		c.m = logUniform(rng, 0.3, 2)
		c.steps = int(logUniform(rng, 2, 41))
		c.k = 2 + rng.IntN(c.steps-1)
		if rng.IntN(4) == 0 {
			c.k = c.steps
		}
		c.epochs = 1 + rng.IntN(5)
		c.mcSeed = rng.Uint64()
	}
	c.sigma = c.sens / c.m
	c.ecOn = !c.opt.DisableErrorCorrection
	if c.k == 0 {
		c.k = 1
	}
	c.desc = fmt.Sprintf("%s sigma=%.6g sens=%.4g t=%d k=%d epochs=%d (m=%.4g) buckets=%d lists=%d noEC=%v",
		c.kind, c.sigma, c.sens, c.steps, c.k, c.epochs, c.m, c.opt.Buckets, c.opt.Lists, c.opt.DisableErrorCorrection)
	c.eps = []float64{0, 1e-3, 0.1, 0.5, 1, 2, 3, 5, 10, 100, 1e4, math.Inf(1)}
	for j := 0; j < 3; j++ {
		c.eps = append(c.eps, logUniform(rng, 1e-3, 30))
	}
	all := []float64{0.5, 1e-2, 1e-6, 1e-12, 1e-30, 1e-100}
	for len(c.deltas) < 3 {
		c.deltas = append(c.deltas, all[rng.IntN(len(all))])
	}
	for j := 0; j < 3; j++ {
		c.fprs = append(c.fprs, math.Pow(10, -10*rng.Float64()))
	}
	if c.quick {
		c.eps = append([]float64{0, 0.1, 1, 3, 10, math.Inf(1)}, c.eps[len(c.eps)-1])
		c.deltas = c.deltas[:2]
	}
	return c
}

// sumQuad computes expectations under Q of functions of S_j = X_1 +
// ... + X_j (X = e^(m y - m^2/2), y ~ N(0, 1)) by integrating over one
// coordinate and recursing, the last coordinate in closed form. The
// integrand over y has a feature on the log scale of K - x(y) where the
// remaining threshold K - x(y) reaches 0 (the lognormal's mass near 0), so
// the line is split at y* = x^-1(K): below y* - ln 2/m by Gauss-Legendre
// panels in y, from there to y* in v = ln(K - x(y)) (panels over 40
// nats), above y* in closed form. res scales the panel widths (the error
// estimate compares res 1 and 1/2).
type sumQuad struct {
	m, res float64
}

// Kinds of expectation: (S - K)+, (K - S)+, Q(S > K), E[S; S > K],
// Q(S < K), E[S; S < K].
const (
	sqCall = iota
	sqPut
	sqTailP
	sqTailS
	sqHeadP
	sqHeadS
)

var allocGLx, allocGLw = gaussLegendre(10)

// panels integrates f over [a, b] by Gauss-Legendre panels of width at
// most w.
func panels(a, b, w float64, f func(float64) float64) float64 {
	if !(b > a) {
		return 0
	}
	n := int(math.Ceil((b - a) / w))
	h := (b - a) / float64(n)
	s := 0.0
	for p := 0; p < n; p++ {
		c := a + (float64(p)+0.5)*h
		for i, x := range allocGLx {
			s += allocGLw[i] * f(c+x*h/2)
		}
	}
	return s * h / 2
}

func gaussPDF(y float64) float64 { return math.Exp(-y*y/2) / math.Sqrt(2*math.Pi) }

// e returns the expectation of kind for j coordinates at threshold K.
func (q sumQuad) e(kind, j int, K float64) float64 {
	m := q.m
	jf := float64(j)
	if K <= 0 {
		switch kind {
		case sqCall:
			return jf - K
		case sqTailP:
			return 1
		case sqTailS:
			return jf
		}
		return 0
	}
	z := (math.Log(K) + m*m/2) / m
	if j == 1 {
		switch kind {
		case sqCall:
			return phiC(m-z) - K*phiC(-z)
		case sqPut:
			return K*phiC(z) - phiC(z-m)
		case sqTailP:
			return phiC(-z)
		case sqTailS:
			return phiC(m - z)
		case sqHeadP:
			return phiC(z)
		default:
			return phiC(z - m)
		}
	}
	// the remaining j - 1 coordinates at threshold kp = K - x
	inner := func(x, kp float64) float64 {
		switch kind {
		case sqTailS:
			return x*q.e(sqTailP, j-1, kp) + q.e(sqTailS, j-1, kp)
		case sqHeadS:
			return x*q.e(sqHeadP, j-1, kp) + q.e(sqHeadS, j-1, kp)
		}
		return q.e(kind, j-1, kp)
	}
	// above y*: kp < 0, closed form
	var tot float64
	switch kind {
	case sqCall:
		tot = (jf-1-K)*phiC(-z) + phiC(m-z)
	case sqTailP:
		tot = phiC(-z)
	case sqTailS:
		tot = phiC(m-z) + (jf-1)*phiC(-z)
	}
	lo, top := -12.0, 12+m
	a := z - math.Ln2/m
	vhi := math.Log(K / 2)
	if a > lo {
		tot += panels(lo, math.Min(a, top), 0.5*q.res, func(y float64) float64 {
			x := math.Exp(m*y - m*m/2)
			return gaussPDF(y) * inner(x, K-x)
		})
	} else {
		vhi = math.Log(K - math.Exp(m*lo-m*m/2))
	}
	if a < top {
		tot += panels(vhi-40, vhi, 2*q.res, func(v float64) float64 {
			kp := math.Exp(v)
			x := K - kp
			y := (math.Log(x) + m*m/2) / m
			return gaussPDF(y) * inner(x, kp) * kp / (x * m)
		})
	}
	return tot
}

// allocQuadDirs returns delta_{P||Q}(eps) and delta_{Q||P}(eps) of the
// one-epoch pair with t steps: E_Q[(S/t - e^eps)+] and e^eps E_Q[(e^-eps
// - S/t)+].
func (q sumQuad) dirs(t int, eps float64) (ab, ba float64) {
	if math.IsInf(eps, 1) {
		return 0, 0
	}
	tf := float64(t)
	ee := math.Exp(eps)
	if c := tf * ee; !math.IsInf(c, 1) {
		ab = q.e(sqCall, t, c) / tf
	}
	if p := q.e(sqPut, t, tf/ee); p > 0 {
		ba = ee / tf * p
	}
	return ab, ba
}

// roc returns, for the threshold c on S, the rejection rates of the
// Neyman-Pearson tests: with ab (null Q, alternative P, reject S > c) fpr
// = Q(S > c), tpr = P(S > c) = E_Q[S/t; S > c]; else (null P, alternative
// Q, reject S < c) fpr = P(S < c), tpr = Q(S < c).
func (q sumQuad) roc(t int, c float64, ab bool) (fpr, tpr float64) {
	tf := float64(t)
	if ab {
		return q.fpr(t, c, ab), q.e(sqTailS, t, c) / tf
	}
	return q.fpr(t, c, ab), q.e(sqHeadP, t, c)
}

// fpr is roc's false-positive rate alone (the bisection's only need).
func (q sumQuad) fpr(t int, c float64, ab bool) float64 {
	if ab {
		return q.e(sqTailP, t, c)
	}
	return q.e(sqHeadS, t, c) / float64(t)
}

// allocQuadTPR brackets the largest TPR at fpr alpha of the one-epoch
// pair (t = 2, 3) in direction ab: the thresholds c1 < c2 around the one
// of rate alpha (bisection on ln c), the TPRs of both at resolutions 1 and
// 1/2, widened by ten times their difference.
func allocQuadTPR(m float64, t int, alpha float64, ab bool) (lo, hi float64) {
	q, q2 := sumQuad{m, 1}, sumQuad{m, 0.5}
	// fpr is decreasing in c for ab, increasing otherwise
	a, b := math.Log(float64(t))-60, math.Log(float64(t))+60
	for i := 0; i < 44; i++ {
		mid := (a + b) / 2
		if f := q.fpr(t, math.Exp(mid), ab); (f > alpha) == ab {
			a = mid
		} else {
			b = mid
		}
	}
	// ab: fpr(c_a) >= alpha >= fpr(c_b); the exact TPR at alpha lies
	// between the tests' TPRs (the ROC is increasing); else reversed
	cl, ch := math.Exp(a), math.Exp(b)
	_, t1 := q.roc(t, cl, ab)
	_, t2 := q.roc(t, ch, ab)
	_, t1h := q2.roc(t, cl, ab)
	_, t2h := q2.roc(t, ch, ab)
	e := 10*math.Max(math.Abs(t1-t1h), math.Abs(t2-t2h)) + 1e-13
	return math.Min(t1h, t2h) - e, math.Max(t1h, t2h) + e
}

// allocMCSample draws one sample of the r-epoch pair's privacy loss L
// under a proposal, with the log weight: p = true draws from a tilt of P^r
// (every coordinate N(tau, 1), one uniform coordinate per epoch shifted by
// m + theta more), weight dP^r/dproposal; p = false from a tilt of Q^r
// (every coordinate N(tau, 1)), weight dQ^r/dproposal.
func allocMCSample(rng *rand.Rand, m float64, t, r int, theta, tau float64, p bool, y []float64) (L, lw float64) {
	tf := float64(t)
	c := m + theta
	for e := 0; e < r; e++ {
		var sy float64
		for k := range y {
			y[k] = tau + rng.NormFloat64()
		}
		if p {
			y[rng.IntN(t)] += c
		}
		var S, D float64
		for _, v := range y {
			S += math.Exp(m*v - m*m/2)
			if p {
				D += math.Exp(c*(v-tau) - c*c/2)
			}
			sy += v
		}
		L += math.Log(S / tf)
		lw += -tau*sy + tf*tau*tau/2
		if p {
			lw += math.Log(S) - math.Log(D)
		}
	}
	return L, lw
}

// mcEst is an importance-sampling estimate: mean, standard error and the
// number of non-zero terms.
type mcEst struct {
	mean, se float64
	hits     int
	maxTerm  float64 // the largest term over their sum (heavy weights)
}

// reliable reports whether the normal confidence interval of e can be
// trusted: enough non-zero terms, a small relative error, no term
// dominating the sum, and an estimate below 0.5 (near 1 the error is that
// of the rare complement, which the count of non-zero terms misses).
func (e mcEst) reliable() bool {
	return e.hits >= 200 && e.mean > 0 && e.mean < 0.5 && e.se <= 0.1*e.mean && e.maxTerm <= 0.02
}

// allocMCDelta estimates delta_{P||Q}(eps) (ab) or delta_{Q||P}(eps) of
// the r-epoch pair with n samples of the proposal (theta, tau).
func allocMCDelta(rng *rand.Rand, m float64, t, r int, eps float64, ab bool, theta, tau float64, n int) mcEst {
	y := make([]float64, t)
	var s1, s2, big float64
	hits := 0
	for i := 0; i < n; i++ {
		L, lw := allocMCSample(rng, m, t, r, theta, tau, ab, y)
		var f float64
		if ab {
			f = -math.Expm1(eps - L)
		} else {
			f = -math.Expm1(eps + L)
		}
		if f <= 0 {
			continue
		}
		f *= math.Exp(lw)
		s1 += f
		s2 += f * f
		big = math.Max(big, f)
		hits++
	}
	nf := float64(n)
	mean := s1 / nf
	return mcEst{mean, math.Sqrt(math.Max(0, s2/nf-mean*mean) / nf), hits, big / s1}
}

// allocMCTilt picks the proposal with the smallest relative standard
// error in a pilot run of n samples per candidate.
func allocMCTilt(rng *rand.Rand, m float64, t, r int, eps float64, ab bool, n int) (theta, tau float64) {
	best := math.Inf(1)
	// the sum's mean moves by about m tau per coordinate and epoch: tilt
	// all coordinates by up to eps/(r m) (B||A: towards -eps)
	base := math.Max(eps, 0.1) / (float64(r) * m)
	thetas := []float64{0}
	taus := []float64{0, -0.25 * base, -0.5 * base, -base}
	if ab {
		thetas = []float64{0, 0.5, 1, 2}
		taus = []float64{0, 0.25 * base, 0.5 * base}
	}
	for _, th := range thetas {
		for _, ta := range taus {
			e := allocMCDelta(rng, m, t, r, eps, ab, th, ta, n)
			if e.hits < 10 || e.mean <= 0 {
				continue
			}
			if rs := e.se / e.mean; rs < best {
				best, theta, tau = rs, th, ta
			}
		}
	}
	return theta, tau
}

// allocMCROC estimates, for the test that rejects L > c (ab: null Q,
// alternative P) or L < c (null P, alternative Q), its fpr and tpr by
// plain sampling of the alternative: fpr = E_alt[e^(-L) 1{L > c}] (ab) or
// E_alt[e^(L) 1{L < c}], tpr = the alternative's rate.
func allocMCROC(rng *rand.Rand, m float64, t, r int, c float64, ab bool, n int) (fpr, tpr mcEst) {
	y := make([]float64, t)
	var f1, f2, t1, big float64
	for i := 0; i < n; i++ {
		L, _ := allocMCSample(rng, m, t, r, 0, 0, ab, y)
		if ab && L > c {
			w := math.Exp(-L)
			big = math.Max(big, w)
			f1 += w
			f2 += w * w
			t1++
			fpr.hits++
		}
		if !ab && L < c {
			w := math.Exp(L)
			big = math.Max(big, w)
			f1 += w
			f2 += w * w
			t1++
			fpr.hits++
		}
	}
	nf := float64(n)
	fpr.mean = f1 / nf
	fpr.se = math.Sqrt(math.Max(0, f2/nf-fpr.mean*fpr.mean) / nf)
	if f1 > 0 {
		fpr.maxTerm = big / f1
	}
	tpr.mean = t1 / nf
	tpr.se = math.Sqrt(tpr.mean * (1 - tpr.mean) / nf)
	tpr.hits = fpr.hits
	return fpr, tpr
}

// checkTPRShape checks what every TPR bracket must satisfy.
func checkTPRShape(b TPRBound, ec bool) []string {
	if math.IsNaN(b.Upper) || b.Upper > 1 || b.Upper < b.FPR*(1-1e-12) {
		return []string{fmt.Sprintf("fpr=%v: upper TPR %v", b.FPR, b.Upper)}
	}
	if ec && (math.IsNaN(b.Lower) || b.Lower > b.Upper || b.Lower < b.FPR*(1-1e-12)) {
		return []string{fmt.Sprintf("fpr=%v: lower TPR %v (upper %v)", b.FPR, b.Lower, b.Upper)}
	}
	return nil
}

// checkTPRDirs checks a TPR bracket's directions against brackets of the
// exact values (NaN ends: not checked).
func checkTPRDirs(b TPRBound, ec bool, abLo, abHi, baLo, baHi float64) []string {
	fails := checkTPRShape(b, ec)
	chk := func(name string, up, low, lo, hi float64) {
		if up < lo-1e-12*lo {
			fails = append(fails, fmt.Sprintf("fpr=%v: upper TPR %s %.12g below the exact's lower end %.12g", b.FPR, name, up, lo))
		}
		if ec && !math.IsNaN(low) && low > hi+1e-12*hi {
			fails = append(fails, fmt.Sprintf("fpr=%v: lower TPR %s %.12g above the exact's upper end %.12g", b.FPR, name, low, hi))
		}
	}
	chk("AB", b.UpperAB, b.LowerAB, abLo, abHi)
	chk("BA", b.UpperBA, b.LowerBA, baLo, baHi)
	return fails
}

// lnBracket returns ln of [v - e, v + e] (lower end -Inf when empty).
func lnBracket(v, e float64) (float64, float64) {
	return ln(math.Max(0, v-e)), ln(v + e)
}

// runAllocCase composes case c and checks it; it returns the failures.
func runAllocCase(c allocPropCase, st *propStats) []string {
	m, err := RandomAllocationGauss(c.sigma, c.sens, c.steps, c.k, AddRemove)
	if err != nil {
		return []string{fmt.Sprintf("RandomAllocationGauss: %v", err)}
	}
	res, err := Compose(context.Background(), m, c.epochs, c.opt)
	if err != nil {
		return []string{fmt.Sprintf("compose: %v", err)}
	}
	switch c.kind {
	case "t1":
		mu := c.m * math.Sqrt(float64(c.epochs))
		ref := func(eps float64) (float64, float64) { return refGauss(mu, eps) }
		fails := checkRefResult(res, ref, symDirs(ref), c.eps, c.deltas, c.ecOn, c.desc, st)
		for _, a := range c.fprs {
			x := gaussTPR(a, mu)
			e := 1e-12*x + 1e-300
			fails = append(fails, checkTPRDirs(res.TPR(a), c.ecOn, x-e, x+e, x-e, x+e)...)
		}
		return fails
	case "quad":
		type qv struct{ ab, ba, e float64 }
		memo := map[float64]qv{}
		q := func(eps float64) qv {
			if v, ok := memo[eps]; ok {
				return v
			}
			ab1, ba1 := sumQuad{c.m, 1}.dirs(c.steps, eps)
			ab, ba := sumQuad{c.m, 0.5}.dirs(c.steps, eps)
			// the truncation of the coordinates at -12 and 12 + m costs
			// below 1e-30
			e := 10*math.Max(math.Abs(ab-ab1), math.Abs(ba-ba1)) + 1e-13*math.Max(ab, ba) + 1e-30
			v := qv{ab, ba, e}
			memo[eps] = v
			return v
		}
		br := func(eps float64) (float64, float64) {
			v := q(eps)
			return lnBracket(math.Max(v.ab, v.ba), v.e)
		}
		dirs := func(eps float64) (float64, float64, float64, float64) {
			v := q(eps)
			a, b := lnBracket(v.ab, v.e)
			x, y := lnBracket(v.ba, v.e)
			return a, b, x, y
		}
		fails := checkBracketResult(res, br, dirs, c.eps, c.deltas, c.ecOn, c.desc, st)
		// at t = 3 each TPR costs a bisection of double integrals (60%
		// of such a case): one fpr with PB_LONG, none by default (t = 2
		// checks the TPR against the quadrature in every run)
		fprs := c.fprs
		if c.steps == 3 {
			fprs = fprs[:0]
			if longTests() {
				fprs = c.fprs[:1]
			}
		}
		for _, a := range fprs {
			abLo, abHi := allocQuadTPR(c.m, c.steps, a, true)
			baLo, baHi := allocQuadTPR(c.m, c.steps, a, false)
			fails = append(fails, checkTPRDirs(res.TPR(a), c.ecOn, abLo, abHi, baLo, baHi)...)
		}
		return fails
	}
	if c.kind == "k" {
		return checkAllocK(res, c, st)
	}
	// mc
	var fails []string
	fails = append(fails, checkResultBasics(res, st)...)
	rng := rand.New(rand.NewPCG(c.mcSeed, 7))
	work := c.steps * c.epochs
	n := min(100000, max(1000, 5000000/work))
	pilot := max(200, n/20)
	const z = 3.2905 // 99.9% two-sided
	var epsList []float64
	for _, d := range []float64{1e-2, 1e-3, 1e-5} {
		if e := res.Eps(d).Upper; e > 0 && !math.IsInf(e, 1) {
			epsList = append(epsList, e)
		}
	}
	epsList = append(epsList, logUniform(rng, 0.05, 3))
	for _, eps := range epsList {
		d := res.Delta(eps)
		shape, ok := deltaShapeFails(d, eps, c.ecOn)
		fails = append(fails, shape...)
		if !ok {
			continue
		}
		for _, dir := range []struct {
			name    string
			ab      bool
			up, low float64
		}{{"A||B", true, d.UpperAB, d.LowerAB}, {"B||A", false, d.UpperBA, d.LowerBA}} {
			th, ta := allocMCTilt(rng, c.m, c.steps, c.epochs, eps, dir.ab, pilot)
			e := allocMCDelta(rng, c.m, c.steps, c.epochs, eps, dir.ab, th, ta, n)
			if !e.reliable() {
				continue
			}
			st.bracketChecks++
			if dir.up < e.mean-z*e.se {
				fails = append(fails, fmt.Sprintf("eps=%v: upper %s %.8g below the 99.9%% lower confidence limit %.8g (MC %.8g +- %.2g, %d hits, tilt %v %v)", eps, dir.name, dir.up, e.mean-z*e.se, e.mean, e.se, e.hits, th, ta))
			}
			// a tilted proposal that misses part of the event
			// underestimates (which only makes the upper check easier):
			// the lower bound is checked against plain sampling only
			if c.ecOn && th == 0 && ta == 0 && dir.low > e.mean+z*e.se {
				fails = append(fails, fmt.Sprintf("eps=%v: lower %s %.8g above the 99.9%% upper confidence limit %.8g (MC %.8g +- %.2g)", eps, dir.name, dir.low, e.mean+z*e.se, e.mean, e.se))
			}
			if m := math.Log(dir.up / (e.mean - z*e.se)); e.mean > z*e.se && m < st.bracketUp {
				st.bracketUp, st.bracketUpDesc = m, fmt.Sprintf("eps=%v %s upper %.6g, MC %.6g +- %.2g: %s", eps, dir.name, dir.up, e.mean, e.se, c.desc)
			}
		}
	}
	// TPR of the threshold tests at the losses where delta is 1e-2 and
	// 1e-3 (their fpr is about that small)
	for _, cut := range epsList[:min(2, len(epsList))] {
		for _, ab := range []bool{true, false} {
			thr := cut
			if !ab {
				thr = -cut
			}
			f, tp := allocMCROC(rng, c.m, c.steps, c.epochs, thr, ab, n)
			if !f.reliable() || tp.mean >= 0.5 {
				continue
			}
			fUp, tLo := f.mean+z*f.se, tp.mean-z*tp.se
			b := res.TPR(math.Min(1, fUp))
			fails = append(fails, checkTPRShape(b, c.ecOn)...)
			up := b.UpperAB
			if !ab {
				up = b.UpperBA
			}
			st.bracketChecks++
			if up < tLo {
				fails = append(fails, fmt.Sprintf("threshold %v (ab %v): upper TPR %.8g at fpr %.6g (the test's fpr's upper confidence limit) below the test's TPR's lower confidence limit %.8g", thr, ab, up, fUp, tLo))
			}
		}
	}
	return fails
}

// checkAllocK checks a k > 1 case: at k = t against the Gaussian
// mechanism with mu = m sqrt(t E) (delta, eps and TPR queries), else
// against plain Monte Carlo of the exact k-out-of-t pair (allocKMC).
func checkAllocK(res *Result, c allocPropCase, st *propStats) []string {
	if c.k == c.steps {
		mu := c.m * math.Sqrt(float64(c.steps*c.epochs))
		ref := func(eps float64) (float64, float64) { return refGauss(mu, eps) }
		fails := checkRefResult(res, ref, symDirs(ref), c.eps, c.deltas, c.ecOn, c.desc, st)
		for _, a := range c.fprs {
			x := gaussTPR(a, mu)
			e := 1e-12*x + 1e-300
			fails = append(fails, checkTPRDirs(res.TPR(a), c.ecOn, x-e, x+e, x-e, x+e)...)
		}
		return fails
	}
	fails := checkResultBasics(res, st)
	rng := rand.New(rand.NewPCG(c.mcSeed, 9))
	const z = 3.2905
	var eps []float64
	for _, d := range []float64{0.1, 1e-2, 1e-3} {
		if e := res.Eps(d).Upper; e > 0 && !math.IsInf(e, 1) {
			eps = append(eps, e)
		}
	}
	eps = append(eps, logUniform(rng, 0.01, 3))
	n := max(4000, 40000000/(c.steps*c.k*c.epochs))
	n = min(n, 40000)
	for _, ab := range []bool{true, false} {
		est := allocKMC(rng, c.m, c.steps, c.k, c.epochs, eps, ab, n)
		for q, e := range est {
			d := res.Delta(eps[q])
			shape, ok := deltaShapeFails(d, eps[q], c.ecOn)
			fails = append(fails, shape...)
			if !ok {
				continue
			}
			up, low, name := d.UpperAB, d.LowerAB, "A||B"
			if !ab {
				up, low, name = d.UpperBA, d.LowerBA, "B||A"
			}
			if e.hits < 200 || e.mean >= 0.5 || e.se > 0.1*e.mean {
				continue
			}
			st.bracketChecks++
			if up < e.mean-z*e.se {
				fails = append(fails, fmt.Sprintf("eps=%v: upper %s %.8g below the 99.9%% lower confidence limit %.8g (MC %.8g +- %.2g)", eps[q], name, up, e.mean-z*e.se, e.mean, e.se))
			}
			if c.ecOn && low > e.mean+z*e.se {
				fails = append(fails, fmt.Sprintf("eps=%v: lower %s %.8g above the 99.9%% upper confidence limit %.8g (MC %.8g +- %.2g)", eps[q], name, low, e.mean+z*e.se, e.mean, e.se))
			}
		}
	}
	for _, a := range c.fprs {
		fails = append(fails, checkTPRShape(res.TPR(a), c.ecOn)...)
	}
	return fails
}

// TestSoundnessAllocation runs the random-allocation cases (see
// allocPropCases).
func TestSoundnessAllocation(t *testing.T) {
	t.Parallel()
	n := *allocPropCases
	if n == 0 {
		n = 16
		if testing.Short() {
			n = 8
		}
	}
	rng := rand.New(rand.NewPCG(*allocPropSeed, 0xa11c))
	st := newPropStats()
	failed := 0
	start := time.Now()
	// the cases in order from the generator, then run concurrently
	cases := make([]allocPropCase, n)
	for i := range cases {
		cases[i] = genAllocCase(rng, i)
	}
	type outcome struct {
		run   bool
		fails []string
		st    propStats
		dt    time.Duration
	}
	out := make([]outcome, n)
	runConcurrently(n, func(i int) {
		if *allocPropOnly >= 0 && i != *allocPropOnly {
			return
		}
		o := outcome{run: true, st: newPropStats()}
		t0 := time.Now()
		o.fails = runAllocCase(cases[i], &o.st)
		o.dt = time.Since(t0)
		out[i] = o
	})
	for i, o := range out {
		if !o.run {
			continue
		}
		c := cases[i]
		st.kinds[c.kind]++
		st.merge(o.st)
		if o.dt > 10*time.Second {
			t.Logf("case %d took %v: %s", i, o.dt, c.desc)
		}
		if len(o.fails) > 0 {
			failed++
			if failed <= 10 {
				t.Errorf("case %d (%s):\n  %s", i, c.desc, strings.Join(o.fails, "\n  "))
			}
		}
	}
	t.Logf("%d cases (%v) in %v, %d failed; %d exact checks, %d bracket/MC checks, %d per-direction checks",
		n, st.kinds, time.Since(start).Round(time.Millisecond), failed, st.checks, st.bracketChecks, st.dirChecks)
	t.Logf("worst upper margin against an exact value ln(upper/exact) = %.3g (%s)", st.worstUp, st.worstUpDesc)
	t.Logf("closest upper to a bracket's or MC limit's lower end: ln = %.3g (%s)", st.bracketUp, st.bracketUpDesc)
}
