package compare

import (
	"math"
	"sync"
)

// sgmEval evaluates the sampled Gaussian's D_alpha (SampledGaussianRenyi)
// at many orders with what the orders share computed once, bit for bit as
// sgmRenyiPQ and sgmRenyiQP compute it order by order: the points of the
// P||Q quadrature (z_i = lo + i h with lo and h independent of the order,
// so a larger order only adds points) with the Gaussian term and
// ln(P/Q)(z_i) at each, the ln i! of the binomial sums, and one scratch
// array for the quadrature values (an order's points were a fresh array,
// and their garbage about a sixth of an rdp query's CPU). It is safe for
// concurrent use (one evaluation at a time).
type sgmEval struct {
	sigma, q float64

	mu sync.Mutex
	// gauss[i] and lm[i] are ln N(z_i; 0, s^2) and ln (P/Q)(z_i) at the
	// P||Q quadrature points (sgmLogIntegral with pq = true)
	gauss, lm []float64
	// lfact[k] = ln k! (math.Lgamma(k+1))
	lfact []float64
	vals  []float64 // scratch
}

// renyi returns max(D_alpha(P||Q), D_alpha(Q||P)) for an order a > 1 at
// which SampledGaussianRenyi integrates (a <= sgmMaxOrder and within
// sgmMaxPoints), as math.Max(sgmRenyiPQ(a, ...), sgmRenyiQP(a, ...)).
func (e *sgmEval) renyi(a float64) float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	var pq float64
	if a == math.Trunc(a) && a <= sgmMaxOrder {
		pq = math.Max(0, e.logAInt(int(a))/(a-1))
	} else {
		pq = math.Max(0, e.logIntegralPQ(a)/(a-1))
	}
	if pq > e.qpCeiling(a) {
		// the computed D_alpha(Q||P) is below pq: max(pq, qp) = pq
		return pq
	}
	qp := math.Max(0, e.logIntegral(a, false)/(a-1))
	return math.Max(pq, qp)
}

// qpCeiling returns a value that sgmRenyiQP(a, sigma, q) (the quadrature
// as computed, not only the divergence) does not exceed. Q/P = 1/m with
// m = (1-q) + q e^((2z-1)/(2 s^2)) >= 1-q, so D_alpha(Q||P) <= ln(1/(1-q));
// in floating point each ln m(z_i) is at least the computed ln(1-q)
// (logAddExp adds a log1p >= 0), so each quadrature value is at most the
// Gaussian term plus -(alpha-1) ln(1-q), and the trapezoid sum of the
// normal density with step sigma/16 on [lo, hi] is at most 1 (the
// infinite grid's sum exceeds 1 by about exp(-2 pi^2 256), the truncation
// only lowers it). What remains is the rounding of the sum and of its
// logarithm: relative 2 n u for n <= sgmMaxPoints values (u = 2^-53),
// below 1e-9 in ln, and of the few operations on ln(1-q); the ceiling
// adds 1e-9 (absolute, before the division by alpha-1) and 1e-9 relative.
func (e *sgmEval) qpCeiling(a float64) float64 {
	c := -math.Log1p(-e.q)
	return c*(1+1e-9) + 1e-9/(a-1)
}

// scratch returns e.vals with length n.
func (e *sgmEval) scratch(n int) []float64 {
	if cap(e.vals) < n {
		e.vals = make([]float64, max(n, 2*cap(e.vals))) // the orders grow
	}
	return e.vals[:n]
}

// logAInt is sgmLogAInt(a, sigma, q) with ln k! from a table.
func (e *sgmEval) logAInt(a int) float64 {
	for k := len(e.lfact); k <= a; k++ {
		lg, _ := math.Lgamma(float64(k) + 1)
		e.lfact = append(e.lfact, lg)
	}
	lq, l1q := math.Log(e.q), math.Log1p(-e.q)
	terms := e.scratch(a + 1)
	af := float64(a)
	s := e.sigma
	for k := 0; k <= a; k++ {
		kf := float64(k)
		lc := e.lfact[a] - e.lfact[k] - e.lfact[a-k] // lchoose(af, kf)
		terms[k] = lc + (af-kf)*l1q + kf*lq + (kf*kf-kf)/(2*s*s)
	}
	return logSumExp(terms)
}

// logIntegralPQ is sgmLogIntegral(a, sigma, q, true) with the points'
// terms that do not depend on a from the table.
func (e *sgmEval) logIntegralPQ(a float64) float64 {
	sigma, q := e.sigma, e.q
	lq, l1q := math.Log(q), math.Log1p(-q)
	s2 := sigma * sigma
	lo, hi, pow := -20*sigma-1, a+20*sigma+1, a
	h := sigma / 16
	nf := math.Ceil((hi-lo)/h) + 1
	if !(nf < sgmMaxPoints) {
		return sgmLogIntegral(a, sigma, q, true) // another step: nothing shared
	}
	n := int(nf)
	lnorm := -math.Log(sigma) - 0.5*ln2Pi
	for i := len(e.gauss); i < n; i++ {
		z := lo + float64(i)*h
		e.lm = append(e.lm, logAddExp(l1q, lq+(2*z-1)/(2*s2)))
		e.gauss = append(e.gauss, lnorm-z*z/(2*s2))
	}
	vals := e.scratch(n)
	for i := range vals {
		vals[i] = e.gauss[i] + pow*e.lm[i]
	}
	return math.Log(h) + logSumExp(vals)
}

// logIntegral is sgmLogIntegral(a, sigma, q, pq) in the scratch array.
func (e *sgmEval) logIntegral(a float64, pq bool) float64 {
	sigma, q := e.sigma, e.q
	lq, l1q := math.Log(q), math.Log1p(-q)
	s2 := sigma * sigma
	var lo, hi, pow float64
	if pq {
		lo, hi, pow = -20*sigma-1, a+20*sigma+1, a
	} else {
		lo, hi, pow = -a-20*sigma-1, 20*sigma+1, -(a - 1)
	}
	h := sigma / 16
	nf := math.Ceil((hi-lo)/h) + 1
	if !(nf < sgmMaxPoints) {
		return sgmLogIntegral(a, sigma, q, pq)
	}
	vals := e.scratch(int(nf))
	lnorm := -math.Log(sigma) - 0.5*ln2Pi
	for i := range vals {
		z := lo + float64(i)*h
		lm := logAddExp(l1q, lq+(2*z-1)/(2*s2))
		vals[i] = lnorm - z*z/(2*s2) + pow*lm
	}
	return math.Log(h) + logSumExp(vals)
}
