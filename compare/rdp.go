package compare

import (
	"fmt"
	"math"
	"sort"
)

// RenyiFunc is a Renyi divergence curve alpha -> D_alpha (nats) of a pair of
// distributions, for orders alpha > 1. For an (A, B) pair it should be the
// maximum of D_alpha(A||B) and D_alpha(B||A). It may return +Inf (the order is
// then useless) but not NaN or negative values for alpha > 1.
type RenyiFunc func(alpha float64) float64

// Conversion selects how an RDP guarantee (alpha, D) is turned into
// (eps, delta)-ADP.
type Conversion int

const (
	// Classic is Mironov's conversion, the one the paper (Section 5.7) and
	// the moments accountant of Abadi et al. use:
	// eps = D + ln(1/delta)/(alpha-1), i.e. delta = exp((alpha-1)(D - eps)).
	Classic Conversion = iota
	// Improved is the conversion of Canonne, Kamath and Steinke (2020,
	// Prop. 12; also Asoodeh et al.) as used by Google's dp_accounting:
	// eps = D + log1p(-1/alpha) - (ln delta + ln alpha)/(alpha-1), i.e.
	// ln delta = (alpha-1)(D - eps + log1p(-1/alpha)) - ln alpha,
	// combined (as dp_accounting does) with the bound
	// delta <= sqrt(1 - exp(-D)) (Bretagnolle-Huber; D_alpha >= KL).
	Improved
)

// String returns "classic" or "improved".
func (c Conversion) String() string {
	switch c {
	case Classic:
		return "classic"
	case Improved:
		return "improved"
	}
	return fmt.Sprintf("Conversion(%d)", int(c))
}

// DefaultOrders returns the default Renyi orders: a geometric grid with ratio
// 1.01 over [1.25, 256] (fractional orders) plus every integer in [2, 256].
func DefaultOrders() []float64 {
	g, _ := GeometricGrid(1.25, 256, 1.01)
	g[len(g)-1] = 256
	for a := 2; a <= 256; a++ {
		g = append(g, float64(a))
	}
	sort.Float64s(g)
	out := g[:0]
	for i, a := range g {
		if a > 256 {
			break
		}
		if i == 0 || a != out[len(out)-1] {
			out = append(out, a)
		}
	}
	return out
}

// GaussRenyi returns the Renyi divergence of the Gauss mechanism (Mironov
// 2017, Prop. 7): D_alpha = alpha sens^2 / (2 sigma^2), both directions.
func GaussRenyi(sigma, sens float64) (RenyiFunc, error) {
	if err := positive("GaussRenyi", "sigma", sigma); err != nil {
		return nil, err
	}
	if err := positive("GaussRenyi", "sensitivity", sens); err != nil {
		return nil, err
	}
	c := sens * sens / (2 * sigma * sigma)
	return func(a float64) float64 {
		if !(a > 1) {
			return math.NaN()
		}
		return a * c
	}, nil
}

// LaplaceRenyi returns the Renyi divergence of LP(0, scale) vs LP(sens, scale)
// (Mironov 2017, Prop. 6), with eps0 = sens/scale:
// D_alpha = 1/(alpha-1) ln( alpha/(2alpha-1) e^{(alpha-1) eps0}
// + (alpha-1)/(2alpha-1) e^{-alpha eps0} ), both directions.
func LaplaceRenyi(scale, sens float64) (RenyiFunc, error) {
	if err := positive("LaplaceRenyi", "scale", scale); err != nil {
		return nil, err
	}
	if err := positive("LaplaceRenyi", "sensitivity", sens); err != nil {
		return nil, err
	}
	e0 := sens / scale
	return func(a float64) float64 {
		if !(a > 1) {
			return math.NaN()
		}
		if math.IsInf(a, 1) {
			return e0
		}
		l := logAddExp(math.Log(a/(2*a-1))+(a-1)*e0, math.Log((a-1)/(2*a-1))-a*e0)
		return math.Max(0, l/(a-1))
	}, nil
}

// RRRenyi returns the Renyi divergence of randomized response with bias p
// (paper Section 5.5): D_alpha = 1/(alpha-1) ln( p^alpha (1-p)^(1-alpha) +
// (1-p)^alpha p^(1-alpha) ), both directions.
func RRRenyi(p float64) (RenyiFunc, error) {
	hi, lo, e0, err := rrEps0("RRRenyi", p)
	if err != nil {
		return nil, err
	}
	lh, ll := math.Log(hi), math.Log(lo)
	return func(a float64) float64 {
		if !(a > 1) {
			return math.NaN()
		}
		if math.IsInf(a, 1) {
			return e0
		}
		l := logAddExp(a*lh+(1-a)*ll, a*ll+(1-a)*lh)
		return math.Max(0, l/(a-1))
	}, nil
}

// SampledGaussianRenyi returns the Renyi divergence of the sampled Gaussian
// mechanism of DP-SGD (Abadi et al.; paper Section 5.4): P = (1-q) N(0, s^2) +
// q N(1, s^2) vs Q = N(0, s^2), sensitivity 1, noise multiplier s = sigma,
// sampling rate q. It returns max(D_alpha(P||Q), D_alpha(Q||P)) following
// Mironov, Talwar and Zhang (2019): D_alpha(P||Q) by the binomial expansion
// A_alpha = sum_k C(alpha,k) (1-q)^(alpha-k) q^k exp((k^2-k)/(2 s^2)) for
// integer alpha and by numerical integration of
// E_Q[(P/Q)^alpha] otherwise; D_alpha(Q||P) always by numerical integration
// (trapezoid rule in log space with step sigma/16, which converges
// geometrically for these smooth, Gaussian-tailed integrands; the curve
// shares the work of its orders and skips D_alpha(Q||P) where a rigorous
// bound puts it below D_alpha(P||Q), bit for bit the same values:
// sgmEval). For orders
// above 2^20, or where a step of sigma/4 would need more than 4e6 points, it
// returns the upper bound max(alpha/(2 sigma^2), ln(1/(1-q))).
func SampledGaussianRenyi(sigma, q float64) (RenyiFunc, error) {
	if err := positive("SampledGaussianRenyi", "sigma", sigma); err != nil {
		return nil, err
	}
	if !(q >= 0 && q <= 1) {
		return nil, fmt.Errorf("compare: SampledGaussianRenyi: sampling rate q must be in [0, 1], got %v", q)
	}
	eval := &sgmEval{sigma: sigma, q: q}
	return func(a float64) float64 {
		if !(a > 1) {
			return math.NaN()
		}
		if q == 0 {
			return 0
		}
		if math.IsInf(a, 1) {
			return math.Inf(1)
		}
		if q == 1 {
			return a / (2 * sigma * sigma)
		}
		if a > sgmMaxOrder || (a+40*sigma+2)/(sigma/4) > sgmMaxPoints {
			// D(P||Q) <= D of the unsampled Gauss pair (data processing) and
			// D(Q||P) <= ln(1/(1-q)) since Q/P <= 1/(1-q): an upper bound.
			return math.Max(a/(2*sigma*sigma), -math.Log1p(-q))
		}
		return eval.renyi(a) // math.Max(sgmRenyiPQ(a, sigma, q), sgmRenyiQP(a, sigma, q))
	}, nil
}

// sgmMaxOrder is the largest order evaluated exactly; above it
// SampledGaussianRenyi returns a simple upper bound.
// sgmMaxPoints caps the quadrature points; with step <= sigma/4 the
// trapezoid rule is exact to far below double precision for these
// Gaussian-width integrands.
const (
	sgmMaxOrder  = 1 << 20
	sgmMaxPoints = 4_000_000
)

// sgmRenyiPQ is D_alpha(P||Q) of the sampled Gaussian mechanism.
func sgmRenyiPQ(a, sigma, q float64) float64 {
	if a == math.Trunc(a) && a <= sgmMaxOrder {
		return math.Max(0, sgmLogAInt(int(a), sigma, q)/(a-1))
	}
	return math.Max(0, sgmLogIntegral(a, sigma, q, true)/(a-1))
}

// sgmRenyiQP is D_alpha(Q||P) of the sampled Gaussian mechanism.
func sgmRenyiQP(a, sigma, q float64) float64 {
	return math.Max(0, sgmLogIntegral(a, sigma, q, false)/(a-1))
}

// sgmLogAInt is log A_alpha for integer alpha by the binomial expansion
// (Mironov, Talwar, Zhang 2019, Section 3.3).
func sgmLogAInt(a int, sigma, q float64) float64 {
	lq, l1q := math.Log(q), math.Log1p(-q)
	terms := make([]float64, a+1)
	af := float64(a)
	for k := 0; k <= a; k++ {
		kf := float64(k)
		terms[k] = lchoose(af, kf) + (af-kf)*l1q + kf*lq + (kf*kf-kf)/(2*sigma*sigma)
	}
	return logSumExp(terms)
}

// sgmGrid returns the trapezoid grid of sgmLogIntegral for order a: its
// ends lo and hi, the power pow of the ratio, the step h and the number of
// points nf covering [lo, hi].
func sgmGrid(a, sigma float64, pq bool) (lo, hi, pow, h, nf float64) {
	if pq {
		lo, hi, pow = -20*sigma-1, a+20*sigma+1, a
	} else {
		lo, hi, pow = -a-20*sigma-1, 20*sigma+1, -(a - 1)
	}
	h = sigma / 16
	return lo, hi, pow, h, math.Ceil((hi-lo)/h) + 1
}

// sgmLogIntegral is log E_Q[(P/Q)^a] (pq = true) or log E_Q[(Q/P)^(a-1)]
// (pq = false) by the trapezoid rule in log space. P/Q at z is
// m(z) = (1-q) + q exp((2z-1)/(2 s^2)).
func sgmLogIntegral(a, sigma, q float64, pq bool) float64 {
	lq, l1q := math.Log(q), math.Log1p(-q)
	s2 := sigma * sigma
	lo, hi, pow, h, nf := sgmGrid(a, sigma, pq)
	n := sgmMaxPoints
	if nf < float64(n) {
		n = int(nf)
	}
	if n == sgmMaxPoints {
		n = 4_000_000
		h = (hi - lo) / float64(n-1)
	}
	vals := make([]float64, n)
	lnorm := -math.Log(sigma) - 0.5*ln2Pi
	for i := range vals {
		z := lo + float64(i)*h
		lm := logAddExp(l1q, lq+(2*z-1)/(2*s2))
		vals[i] = lnorm - z*z/(2*s2) + pow*lm
	}
	return math.Log(h) + logSumExp(vals)
}

// RDPOptions configures RDP. The zero value selects the defaults.
type RDPOptions struct {
	// Orders are the Renyi orders alpha > 1 to optimise over; default
	// DefaultOrders() (fractional and integer orders in [1.25, 256]).
	Orders []float64
	// Outward rounds every step of the composition and the conversion
	// toward the safe side: r*D_alpha and the converted delta and eps are
	// moved up by a bound on their floating-point error, so that with a
	// certified Renyi curve (SampledGaussianRenyiUpper, GaussRenyiUpper,
	// ...) Delta and Eps are certified upper bounds. Without it they are
	// rounded to nearest (a few ulps either way).
	Outward bool
}

// RDPCurve is the Renyi-DP / moments-accountant bound (paper Section 5.7):
// the single-round Renyi curve composed additively over r rounds
// (D_alpha of the r-fold product is r D_alpha) and converted to
// (eps, delta)-ADP with the selected Conversion, optimised over the orders.
type RDPCurve struct {
	conv    Conversion
	orders  []float64
	div     []float64 // r * D_alpha
	outward bool      // RDPOptions.Outward
}

// RDP returns the RDP bound for r-fold composition of a pair with Renyi curve
// renyi (from GaussRenyi, SampledGaussianRenyi, ..., or from elsewhere, e.g.
// privacy buckets), converted with conv.
func RDP(renyi RenyiFunc, r int, conv Conversion, opt RDPOptions) (*RDPCurve, error) {
	const who = "RDP"
	if renyi == nil {
		return nil, fmt.Errorf("compare: %s: renyi curve is nil", who)
	}
	if err := validR(who, r); err != nil {
		return nil, err
	}
	if conv != Classic && conv != Improved {
		return nil, fmt.Errorf("compare: %s: unknown conversion %v", who, conv)
	}
	orders := opt.Orders
	if orders == nil {
		orders = DefaultOrders()
	}
	div, err := evalRenyi(who, renyi, orders)
	if err != nil {
		return nil, err
	}
	for i := range div {
		div[i] *= float64(r)
		if opt.Outward {
			div[i] = certUp(div[i], 0)
		}
	}
	return &RDPCurve{conv: conv, orders: append([]float64(nil), orders...), div: div, outward: opt.Outward}, nil
}

// evalRenyi evaluates and validates a Renyi curve on orders.
func evalRenyi(who string, renyi RenyiFunc, orders []float64) ([]float64, error) {
	if len(orders) == 0 {
		return nil, fmt.Errorf("compare: %s: no Renyi orders", who)
	}
	div := make([]float64, len(orders))
	for i, a := range orders {
		if !(a > 1) || math.IsInf(a, 1) {
			return nil, fmt.Errorf("compare: %s: Renyi order %v must be finite and > 1", who, a)
		}
		d := renyi(a)
		if math.IsNaN(d) || d < -1e-12 {
			return nil, fmt.Errorf("compare: %s: Renyi divergence at order %v is %v, want a value >= 0", who, a, d)
		}
		div[i] = math.Max(d, 0)
	}
	return div, nil
}

// Conversion reports which RDP-to-ADP conversion the curve uses.
func (c *RDPCurve) Conversion() Conversion { return c.conv }

// Orders returns the Renyi orders used.
func (c *RDPCurve) Orders() []float64 { return append([]float64(nil), c.orders...) }

// Divergences returns the composed divergences r*D_alpha at Orders().
func (c *RDPCurve) Divergences() []float64 { return append([]float64(nil), c.div...) }

// logDeltaAt returns the log delta bound at order index i for eps.
func (c *RDPCurve) logDeltaAt(i int, eps float64) float64 {
	a, d := c.orders[i], c.div[i]
	if math.IsInf(d, 1) {
		return 0
	}
	switch c.conv {
	case Improved:
		l1 := math.Log1p(-1 / a)
		ld := (a-1)*(d-eps+l1) - math.Log(a)
		if d == 0 {
			return math.Inf(-1)
		}
		bh := 0.5 * math.Log(-math.Expm1(-d))
		if c.outward {
			ld = certUp(ld, 8*certEps*((a-1)*(math.Abs(d)+math.Abs(eps)+math.Abs(l1))+math.Log(a)))
			bh = certUp(bh, 4*certEps*(math.Abs(bh)+1))
		}
		return math.Min(ld, bh)
	default:
		if c.outward {
			// d - eps and the product: two roundings.
			return certUp((a-1)*(d-eps), 2*certEps*(a-1)*(math.Abs(d)+math.Abs(eps)))
		}
		return (a - 1) * (d - eps)
	}
}

// epsAt returns the eps bound at order index i for delta in (0, 1).
func (c *RDPCurve) epsAt(i int, delta float64) float64 {
	a, d := c.orders[i], c.div[i]
	if math.IsInf(d, 1) {
		return math.Inf(1)
	}
	switch c.conv {
	case Improved:
		if c.outward {
			if delta*delta*(1-8*certEps) > -math.Expm1(-d)*(1+8*certEps) {
				return 0 // as below, with the roundings of both sides bounded
			}
		} else if delta*delta+math.Expm1(-d) > 0 {
			return 0 // delta >= sqrt(1 - exp(-KL)) >= TV
		}
		l1, ld, la := math.Log1p(-1/a), math.Log(delta), math.Log(a)
		e := d + l1 - (ld+la)/(a-1)
		if c.outward {
			e = certUp(e, 8*certEps*(math.Abs(d)+math.Abs(l1)+(math.Abs(ld)+la)/(a-1)))
		}
		return e
	default:
		ld := math.Log(delta)
		e := d - ld/(a-1)
		if c.outward {
			// the log (<= 1 ulp), the division and the difference.
			e = certUp(e, 4*certEps*(math.Abs(d)+math.Abs(ld)/(a-1)))
		}
		return e
	}
}

// DeltaOrder returns the delta bound at eps and the order attaining it.
func (c *RDPCurve) DeltaOrder(eps float64) (delta, alpha float64) {
	if math.IsNaN(eps) {
		return math.NaN(), math.NaN()
	}
	if eps < 0 {
		return 1, math.NaN()
	}
	best, ba := 0.0, math.NaN()
	for i := range c.orders {
		if ld := c.logDeltaAt(i, eps); ld < best {
			best, ba = ld, c.orders[i]
		}
	}
	if c.outward && best < 0 {
		// exp: <= 1 ulp (its argument is already an upper bound).
		return math.Min(1, math.Exp(best)*(1+2*certEps)+math.SmallestNonzeroFloat64), ba
	}
	return math.Exp(best), ba
}

// Delta returns min over orders of the converted delta bound (at most 1).
func (c *RDPCurve) Delta(eps float64) float64 { d, _ := c.DeltaOrder(eps); return d }

// EpsOrder returns the eps bound at delta and the order attaining it.
func (c *RDPCurve) EpsOrder(delta float64) (eps, alpha float64) {
	switch {
	case math.IsNaN(delta):
		return math.NaN(), math.NaN()
	case delta >= 1:
		return 0, math.NaN()
	case delta <= 0:
		for _, d := range c.div {
			if d != 0 {
				return math.Inf(1), math.NaN()
			}
		}
		return 0, math.NaN()
	}
	best, ba := math.Inf(1), math.NaN()
	for i := range c.orders {
		if e := c.epsAt(i, delta); e < best {
			best, ba = e, c.orders[i]
		}
	}
	return math.Max(0, best), ba
}

// Eps returns min over orders of the converted eps bound.
func (c *RDPCurve) Eps(delta float64) float64 { e, _ := c.EpsOrder(delta); return e }

// ComposeRenyi returns the Renyi curve of a heterogeneous composition:
// alpha -> sum_j counts[j] * curves[j](alpha) (Renyi divergences add under
// composition; Mironov 2017, Prop. 1). Use it with RDP(..., r = 1, ...) or
// CDP(..., r = 1, ...).
func ComposeRenyi(curves []RenyiFunc, counts []int) (RenyiFunc, error) {
	if len(curves) == 0 || len(curves) != len(counts) {
		return nil, fmt.Errorf("compare: ComposeRenyi: need equally many curves and counts (>= 1), got %d and %d", len(curves), len(counts))
	}
	for j, c := range curves {
		if c == nil {
			return nil, fmt.Errorf("compare: ComposeRenyi: curve %d is nil", j)
		}
		if counts[j] < 0 {
			return nil, fmt.Errorf("compare: ComposeRenyi: count %d is %d < 0", j, counts[j])
		}
	}
	cs := append([]RenyiFunc(nil), curves...)
	ns := append([]int(nil), counts...)
	return func(a float64) float64 {
		s := 0.0
		for j, c := range cs {
			if ns[j] > 0 {
				s += float64(ns[j]) * c(a)
			}
		}
		return s
	}, nil
}
