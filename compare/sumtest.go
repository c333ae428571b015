package compare

import (
	"fmt"
	"math"
)

// SumTest is a sound LOWER bound on the privacy curve of r observations of
// the sampled Gaussian mechanism of DP-SGD (Poisson sampling at rate q,
// add/remove, sensitivity 1, noise multiplier sigma: the pair P = (1-q)
// N(0, sigma^2) + q N(1, sigma^2), Q = N(0, sigma^2), as in
// SampledGaussianRenyi), from the sum of the r outputs.
//
// Why it is a lower bound: the sum S = x_1 + ... + x_r is a post-processing
// of the r-step output, so the hockey-stick divergence of its two laws is at
// most the mechanism's in each direction (data processing). Under P^r, S =
// K + sigma sqrt(r) Z with K ~ Bin(r, q) independent of Z ~ N(0, 1); under
// Q^r, S = sigma sqrt(r) Z. For any threshold t the event {S > t} gives
//
//	delta_{P||Q}(eps) >= P(S > t) - e^eps Q(S > t),
//
// and {S < t} gives delta_{Q||P}(eps) >= Q(S < t) - e^eps P(S < t); the
// likelihood ratio of S is increasing (each term of the mixture is), so
// the best t of each direction is where it equals e^eps, but every t is a
// valid bound: the search for t only chooses, the evaluation at the chosen t
// is what is claimed, and it is rounded toward the safe side:
//
//   - binomial probabilities from logDbinom (Loader's method, a few ulps)
//     with an allowance of 1e-10 (1 + |log|) in the log, far above its
//     rounding; the terms are summed per block of consecutive k, the
//     block's normal tail taken at its first k, where it is smallest for
//     P(S > t) and largest for P(S < t), so the grouping errs safely;
//   - the k outside [m - 30 sd - 30, m + 30 sd + 30] (m = rq, sd^2 = rq(1-q))
//     are dropped from lower bounds and bounded in upper bounds by
//     Bernstein's inequality, P(|K - m| >= a) <= exp(-a^2 / (2 (sd^2 +
//     a/3))) per side;
//   - normal tails from math.Erfc with a relative allowance of 1e-12 (its
//     error is about one ulp), and, where erfc underflows, the Mills-ratio
//     bound Phi(-z) <= phi(z) (1/z - 1/z^3 + 3/z^5) in log space for upper
//     bounds (0 for lower ones);
//   - sums of n positive terms shrunk (or grown) by (n+4) 2^-52, e^x
//     evaluated at x + 1e-12 (1 + |x|) (upper) or x - ... (lower).
//
// The bound is near the tight value where the privacy loss is nearly linear
// in the output, i.e. for small q sigma^-2 e^(1/(2 sigma^2)); it is far
// below it otherwise (small sigma), and 0 where no threshold beats delta.
type SumTest struct {
	q, v  float64 // sampling rate, standard deviation of the noise of S
	m, sd float64 // mean and standard deviation of K
	// blocks of consecutive k: first k and lower / upper bounds on the
	// block's binomial mass
	k0         []float64
	bLow, bUp  []float64
	logBUp     []float64 // log bUp, for the choice of thresholds
	outLogTail float64   // log of the bound on the mass of K outside the blocks
}

// maxSumTestBlocks bounds the number of blocks (and so the cost of one
// evaluation): beyond it consecutive k are grouped.
const maxSumTestBlocks = 4000

// NewSumTest returns the sum-of-outputs lower bound for r observations of
// the sampled Gaussian with noise multiplier sigma and sampling rate q.
func NewSumTest(sigma, q float64, r int) (*SumTest, error) {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("compare: NewSumTest: sigma must be > 0 and finite, got %v", sigma)
	}
	if !(q > 0 && q <= 1) {
		return nil, fmt.Errorf("compare: NewSumTest: q must be in (0, 1], got %v", q)
	}
	if r < 1 || r > 1<<40 {
		return nil, fmt.Errorf("compare: NewSumTest: r must be in [1, 2^40], got %d", r)
	}
	rf := float64(r)
	s := &SumTest{q: q, v: sigma * math.Sqrt(rf), m: rf * q, sd: math.Sqrt(rf * q * (1 - q))}
	lo := math.Max(0, math.Floor(s.m-30*s.sd-30))
	hi := math.Min(rf, math.Ceil(s.m+30*s.sd+30))
	n := int(hi-lo) + 1
	w := (n + maxSumTestBlocks - 1) / maxSumTestBlocks
	for b := 0; b*w < n; b++ {
		var sl, su float64
		cnt := 0
		for j := b * w; j < min(n, (b+1)*w); j++ {
			k := int(lo) + j
			l := logDbinom(k, r, q, 1-q)
			if math.IsInf(l, -1) {
				continue
			}
			a := 1e-10 * (1 + math.Abs(l))
			sl += math.Exp(l - a)
			su += math.Exp(l + a)
			cnt++
		}
		g := float64(cnt+4) * 0x1p-52
		s.k0 = append(s.k0, lo+float64(b*w))
		s.bLow = append(s.bLow, sl*(1-g))
		s.bUp = append(s.bUp, math.Min(1, su*(1+g)))
		s.logBUp = append(s.logBUp, math.Log(s.bUp[len(s.bUp)-1]))
	}
	// Bernstein for the k outside [lo, hi] (a >= 30 sd + 30 on each side
	// that was cut; a side not cut contributes nothing)
	s.outLogTail = math.Inf(-1)
	for _, cut := range []bool{lo > 0, hi < rf} {
		if !cut {
			continue
		}
		a := 30*s.sd + 30
		l := -a * a / (2 * (s.sd*s.sd + a/3))
		s.outLogTail = logAddExp(s.outLogTail, l*(1-1e-12))
	}
	return s, nil
}

// tailLow and tailUp bound Phi(-z) = P(Z > z) from below and above.
func tailLow(z float64) float64 {
	return 0.5 * math.Erfc(z/sqrt2) * (1 - 1e-12)
}

func logTailUp(z float64) float64 {
	e := 0.5 * math.Erfc(z/sqrt2)
	if e > 1e-300 {
		return math.Log(e*(1+1e-12)) + 1e-12
	}
	if z > 1e150 {
		return math.Inf(-1)
	}
	// z > 37: Phi(-z) <= phi(z) (1/z - 1/z^3 + 3/z^5) (an even partial
	// sum of the Mills ratio's alternating asymptotic series)
	w := 1 / (z * z)
	x := -0.5*z*z - 0.5*ln2Pi - math.Log(z) + math.Log1p(-w+3*w*w)
	return x + 1e-12*(1+math.Abs(x))
}

// expUp bounds e^x from above through rounding.
func expUp(x float64) float64 { return math.Exp(x + 1e-12*(1+math.Abs(x))) }

// pAbove returns a lower bound on P(S > t) under P^r (K + v Z).
func (s *SumTest) pAbove(t float64) float64 {
	var sum float64
	for j, k := range s.k0 {
		sum += s.bLow[j] * tailLow((t-k)/s.v)
	}
	return sum * (1 - float64(len(s.k0)+4)*0x1p-52)
}

// logPBelowUp returns an upper bound on log P(S < t) under P^r.
func (s *SumTest) logPBelowUp(t float64) float64 {
	var sum float64
	for j, k := range s.k0 {
		// P(v Z < t - k) = Phi(-(k - t)/v)
		sum += s.bUp[j] * math.Exp(logTailUp((k-t)/s.v))
	}
	sum *= 1 + float64(len(s.k0)+4)*0x1p-52
	return logAddExp(math.Log(sum)+1e-12, s.outLogTail)
}

// deltaAt returns the two directions' lower bounds at threshold t.
func (s *SumTest) deltaAt(eps, t float64) (pq, qp float64) {
	// P||Q: P(S > t) - e^eps Q(S > t)
	pq = s.pAbove(t) - expUp(eps+logTailUp(t/s.v))
	// Q||P: Q(S < t) - e^eps P(S < t)
	qp = tailLow(-t/s.v) - expUp(eps+s.logPBelowUp(t))
	return math.Max(0, pq), math.Max(0, qp)
}

// threshold returns the t where the likelihood ratio of S, sum_k b_k
// exp((k t - k^2/2)/v^2), equals e^eps (a choice, not a claim); ok is
// false when no t within 2^60 v of the mean does.
func (s *SumTest) threshold(eps float64) (t float64, ok bool) {
	terms := make([]float64, len(s.k0))
	logRatio := func(t float64) float64 {
		mx := math.Inf(-1)
		for j, k := range s.k0 {
			terms[j] = s.logBUp[j] + (k*t-k*k/2)/(s.v*s.v)
			mx = math.Max(mx, terms[j])
		}
		if math.IsInf(mx, -1) {
			return mx
		}
		var sum float64
		for _, x := range terms {
			sum += math.Exp(x - mx)
		}
		return mx + math.Log(sum)
	}
	lo, hi := -s.v, s.m+s.v
	for i := 0; logRatio(lo) > eps; i++ {
		if i == 60 {
			return 0, false
		}
		lo = 2*lo - hi
	}
	for i := 0; logRatio(hi) < eps; i++ {
		if i == 60 {
			return 0, false
		}
		hi = 2*hi - lo
	}
	for it := 0; it < 100 && hi-lo > 1e-7*s.v; it++ {
		mid := lo + (hi-lo)/2
		if logRatio(mid) < eps {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2, true
}

// DeltaLower returns a lower bound on the tight delta(eps) of the r-fold
// mechanism (the larger of both directions), 0 where the test proves
// nothing.
func (s *SumTest) DeltaLower(eps float64) float64 {
	if math.IsNaN(eps) {
		return math.NaN()
	}
	eps = math.Max(eps, 0)
	var pq, qp float64
	if t, ok := s.threshold(eps); ok {
		pq, _ = s.deltaAt(eps, t)
	}
	if t, ok := s.threshold(-eps); ok {
		_, qp = s.deltaAt(eps, t)
	}
	d := math.Max(pq, qp)
	if !(d >= 0) { // NaN: no claim
		return 0
	}
	return math.Min(d, 1)
}

// EpsLower returns a lower bound on the tight eps(delta) of the r-fold
// mechanism, 0 if the test proves none. For a threshold t, P(S > t) -
// e^eps Q(S > t) > delta for every eps below eps_t = ln((P(S > t) -
// delta) / Q(S > t)) (and likewise for {S < t} in Q||P), so the tight
// eps(delta) is at least eps_t for every t, evaluated with the same safe
// rounding as DeltaLower (less 1e-12 (1 + |terms|)); t is chosen by a
// scan over [-40 v, m + 40 v] and a golden-section refinement (a choice,
// not a claim).
func (s *SumTest) EpsLower(delta float64) float64 {
	if !(delta >= 0 && delta < 1) {
		return 0
	}
	num := func(p float64) float64 { return p*(1-4*0x1p-52) - delta*(1+4*0x1p-52) }
	epsPQ := func(t float64) float64 {
		d := num(s.pAbove(t))
		if !(d > 0) {
			return math.Inf(-1)
		}
		a, b := math.Log(d), logTailUp(t/s.v)
		return a - b - 1e-12*(1+math.Abs(a)+math.Abs(b))
	}
	epsQP := func(t float64) float64 {
		d := num(tailLow(-t / s.v))
		if !(d > 0) {
			return math.Inf(-1)
		}
		a, b := math.Log(d), s.logPBelowUp(t)
		return a - b - 1e-12*(1+math.Abs(a)+math.Abs(b))
	}
	best := 0.0
	for _, f := range []func(float64) float64{epsPQ, epsQP} {
		if e := maximise(f, -40*s.v, s.m+40*s.v); e > best {
			best = e
		}
	}
	return best
}

// maximise returns the largest value of f found by a scan of 129 points
// over [lo, hi] and a golden-section search between the best point's
// neighbours (NaN values are ignored).
func maximise(f func(float64) float64, lo, hi float64) float64 {
	const n = 128
	h := (hi - lo) / n
	best, bi := math.Inf(-1), -1
	for i := 0; i <= n; i++ {
		if v := f(lo + float64(i)*h); v > best {
			best, bi = v, i
		}
	}
	if bi < 0 {
		return best
	}
	a, b := lo+float64(bi-1)*h, lo+float64(bi+1)*h
	g := (math.Sqrt(5) - 1) / 2
	c, d := b-g*(b-a), a+g*(b-a)
	fc, fd := f(c), f(d)
	for it := 0; it < 40; it++ {
		if fc > fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = f(d)
		}
		best = math.Max(best, math.Max(fc, fd))
	}
	return best
}
