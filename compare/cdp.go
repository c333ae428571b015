package compare

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrNoCDPFit is returned (wrapped) by CDP when the Renyi curve has no affine
// majorant xi + rho*alpha: it is infinite or NaN somewhere, or it grows
// faster than linearly at the largest checked orders.
var ErrNoCDPFit = errors.New("no (xi, rho) concentrated-DP fit exists for this Renyi curve")

// CDPOptions configures CDP. The zero value selects the defaults.
type CDPOptions struct {
	// Orders are the orders alpha > 1 at which D_alpha <= xi + rho*alpha is
	// enforced. Default: DefaultOrders() plus 512, 1024, 2048, 4096 (the large
	// orders pin down the asymptotic slope).
	Orders []float64
}

// CDPFit is one (xi, rho) concentrated-DP guarantee (Bun and Steinke's
// (xi, rho)-zCDP; Dwork and Rothblum's CDP): D_alpha <= Xi + Rho*alpha.
type CDPFit struct {
	Xi, Rho float64 // nats
}

// CDPCurve is the concentrated-DP bound of paper Section 5.7: affine fits
// D_alpha <= xi + rho*alpha of the single-round Renyi curve, composed over r
// rounds (xi and rho add), converted to ADP with the classic conversion at
// the optimal continuous order alpha* = 1 + sqrt(ln(1/delta)/(r rho))
// (Bun-Steinke 2016, Prop. 1.3 / Lemma 3.5):
// eps = r xi + r rho + 2 sqrt(r rho ln(1/delta)), equivalently
// delta = exp(-(eps - r xi - r rho)^2 / (4 r rho)).
// Among the admissible fits (a family indexed by rho) the best one is used at
// each query point. Soundness does not rest on the fit being checked only at
// finitely many orders: before a fit's value is returned, the Renyi curve is
// evaluated at the order alpha* actually used, and if D_alpha* exceeds the
// line, D_alpha* is used instead (so the result is always a valid RDP
// conversion at alpha*). Queries therefore call the Renyi function.
type CDPCurve struct {
	r     int
	renyi RenyiFunc
	fits  []CDPFit // single-round
}

// CDP fits (xi, rho) to renyi and returns the r-fold CDP bound. It returns an
// error wrapping ErrNoCDPFit where no fit exists (infinite or NaN
// divergences, curve growing faster than linearly) instead of guessing.
//
// Admissible fits: rho >= the slope of D between the two largest checked
// orders (so the line keeps dominating a curve whose slope does not grow
// beyond them; true for Gauss, Laplace, randomized response and the sampled
// Gaussian) and xi(rho) = max(0, max_alpha D_alpha - rho*alpha) over the
// checked orders.
func CDP(renyi RenyiFunc, r int, opt CDPOptions) (*CDPCurve, error) {
	const who = "CDP"
	if renyi == nil {
		return nil, fmt.Errorf("compare: %s: renyi curve is nil", who)
	}
	if err := validR(who, r); err != nil {
		return nil, err
	}
	orders := opt.Orders
	if orders == nil {
		orders = DefaultCDPOrders()
	}
	if len(orders) < 2 {
		return nil, fmt.Errorf("compare: %s: need at least two orders to fit, got %d", who, len(orders))
	}
	orders = append([]float64(nil), orders...)
	sort.Float64s(orders)
	div := make([]float64, len(orders))
	for i, a := range orders {
		if !(a > 1) || math.IsInf(a, 1) {
			return nil, fmt.Errorf("compare: %s: Renyi order %v must be finite and > 1", who, a)
		}
		d := renyi(a)
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("compare: %s: D_alpha = %v at alpha = %v: %w", who, d, a, ErrNoCDPFit)
		}
		if d < -1e-12 {
			return nil, fmt.Errorf("compare: %s: Renyi divergence at order %v is %v < 0", who, a, d)
		}
		div[i] = math.Max(d, 0)
	}
	n := len(orders) - 1
	aN, dN := orders[n], div[n]
	// superlinear growth check: D/alpha at the top vs at about a quarter of it
	m := sort.SearchFloat64s(orders, aN/4)
	if m >= n {
		m = n - 1
	}
	if dN > 0 && dN/aN > 1.5*div[m]/orders[m] && orders[m] < aN {
		return nil, fmt.Errorf("compare: %s: D_alpha/alpha grows from %.4g at alpha=%g to %.4g at alpha=%g (faster than linear): %w",
			who, div[m]/orders[m], orders[m], dN/aN, aN, ErrNoCDPFit)
	}
	rhoLo := math.Max(0, (dN-div[n-1])/(aN-orders[n-1]))
	rhoHi := 0.0
	for i, a := range orders {
		rhoHi = math.Max(rhoHi, div[i]/a)
	}
	if rhoHi == 0 { // D = 0 at all orders: identical distributions
		return &CDPCurve{r: r, renyi: renyi, fits: []CDPFit{{0, 0}}}, nil
	}
	lo := math.Max(rhoLo, rhoHi*1e-8)
	rhos := []float64{lo}
	if rhoHi > lo {
		if g, err := GeometricGrid(lo, rhoHi, math.Pow(rhoHi/lo, 1.0/400)*(1+1e-12)); err == nil {
			rhos = g
		}
	}
	fits := make([]CDPFit, 0, len(rhos))
	for _, rho := range rhos {
		xi := 0.0
		for i, a := range orders {
			xi = math.Max(xi, div[i]-rho*a)
		}
		fits = append(fits, CDPFit{Xi: xi, Rho: rho})
	}
	return &CDPCurve{r: r, renyi: renyi, fits: fits}, nil
}

// DefaultCDPOrders returns the default orders at which CDP checks its fits:
// 1.01 to 256 with ratio 1.01, then to 4096 with ratio 1.02 (the large
// orders pin down the slope).
func DefaultCDPOrders() []float64 {
	lo, _ := GeometricGrid(1.01, 256, 1.01)
	lo = lo[:len(lo)-1]
	hi, _ := GeometricGrid(256, 4096, 1.02)
	hi[len(hi)-1] = 4096
	return append(lo, hi...)
}

// Fits returns the admissible single-round (xi, rho) fits.
func (c *CDPCurve) Fits() []CDPFit { return append([]CDPFit(nil), c.fits...) }

// Conversion reports the ADP conversion used (always Classic, at the optimal
// continuous order).
func (c *CDPCurve) Conversion() Conversion { return Classic }

// composedAt returns r * max(xi + rho*alpha, D_alpha): the composed
// divergence bound at alpha, verified against the Renyi curve.
func (c *CDPCurve) composedAt(f CDPFit, alpha float64) float64 {
	line := f.Xi + f.Rho*alpha
	d := c.renyi(alpha)
	if math.IsNaN(d) || math.IsInf(alpha, 1) {
		return math.Inf(1)
	}
	return float64(c.r) * math.Max(line, d)
}

type cdpCand struct {
	v, alpha float64
	fit      CDPFit
}

// bestVerified returns the smallest verified value among candidates whose
// fit values (lower bounds of their verified values) are sorted ascending.
func (c *CDPCurve) bestVerified(cands []cdpCand, verify func(cdpCand) float64, worst float64) (float64, CDPFit) {
	sort.Slice(cands, func(i, j int) bool { return cands[i].v < cands[j].v })
	best, bf := worst, CDPFit{}
	for _, k := range cands {
		if k.v >= best {
			break
		}
		if v := verify(k); v < best {
			best, bf = v, k.fit
		}
	}
	return best, bf
}

// DeltaFit returns the delta bound at eps and the single-round fit used.
func (c *CDPCurve) DeltaFit(eps float64) (float64, CDPFit) {
	if math.IsNaN(eps) {
		return math.NaN(), CDPFit{}
	}
	if eps < 0 {
		return 1, CDPFit{}
	}
	if math.IsInf(eps, 1) {
		return 0, CDPFit{}
	}
	r := float64(c.r)
	cands := make([]cdpCand, 0, len(c.fits))
	for _, f := range c.fits {
		xi, rho := r*f.Xi, r*f.Rho
		if rho == 0 {
			if eps >= xi {
				return 0, f
			}
			continue
		}
		x := eps - xi - rho
		if x <= 0 {
			continue // bound is 1
		}
		cands = append(cands, cdpCand{v: -x * x / (4 * rho), alpha: 1 + x/(2*rho), fit: f})
	}
	ld, bf := c.bestVerified(cands, func(k cdpCand) float64 {
		v := (k.alpha - 1) * (c.composedAt(k.fit, k.alpha) - eps)
		if math.IsNaN(v) {
			return 0
		}
		return v
	}, 0)
	return math.Exp(ld), bf
}

// Delta returns the CDP delta bound at eps.
func (c *CDPCurve) Delta(eps float64) float64 { d, _ := c.DeltaFit(eps); return d }

// EpsFit returns the eps bound at delta and the single-round fit used.
func (c *CDPCurve) EpsFit(delta float64) (float64, CDPFit) {
	switch {
	case math.IsNaN(delta):
		return math.NaN(), CDPFit{}
	case delta >= 1:
		return 0, CDPFit{}
	}
	r := float64(c.r)
	L := -math.Log(delta)
	cands := make([]cdpCand, 0, len(c.fits))
	for _, f := range c.fits {
		xi, rho := r*f.Xi, r*f.Rho
		if rho == 0 {
			return xi, f
		}
		if delta <= 0 {
			continue
		}
		cands = append(cands, cdpCand{v: xi + rho + 2*math.Sqrt(rho*L), alpha: 1 + math.Sqrt(L/rho), fit: f})
	}
	return c.bestVerified(cands, func(k cdpCand) float64 {
		v := c.composedAt(k.fit, k.alpha) + L/(k.alpha-1)
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v
	}, math.Inf(1))
}

// Eps returns the CDP eps bound at delta.
func (c *CDPCurve) Eps(delta float64) float64 { e, _ := c.EpsFit(delta); return e }
