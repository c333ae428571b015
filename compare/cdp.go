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
// the optimal continuous order (Bun-Steinke 2016, Prop. 1.3 / Lemma 3.5):
// eps = r xi + r rho + 2 sqrt(r rho ln(1/delta)), equivalently
// delta = exp(-(eps - r xi - r rho)^2 / (4 r rho)).
// Among the admissible fits (a family indexed by rho) the best one is used at
// each query point.
type CDPCurve struct {
	r    int
	fits []CDPFit // single-round
}

// CDP fits (xi, rho) to renyi and returns the r-fold CDP bound. It returns an
// error wrapping ErrNoCDPFit where no fit exists (infinite divergences, curve
// growing faster than linearly) instead of guessing.
//
// Admissible fits: rho >= the slope of D between the two largest checked
// orders (so the line keeps dominating a curve that grows at most linearly
// beyond them) and xi(rho) = max(0, max_alpha D_alpha - rho*alpha) over the
// checked orders. Between checked orders the fit is not verified; with the
// dense default grid the gap is negligible.
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
		orders = append(DefaultOrders(), 512, 1024, 2048, 4096)
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
	rhos := []float64{rhoLo}
	if rhoHi > rhoLo {
		lo := math.Max(rhoLo, rhoHi*1e-8)
		g, err := GeometricGrid(lo, rhoHi, math.Pow(rhoHi/lo, 1.0/400)*1.0000001)
		if err == nil {
			rhos = append(rhos, g...)
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
	return &CDPCurve{r: r, fits: fits}, nil
}

// Fits returns the admissible single-round (xi, rho) fits.
func (c *CDPCurve) Fits() []CDPFit { return append([]CDPFit(nil), c.fits...) }

// Conversion reports the ADP conversion used (always Classic, at the optimal
// continuous order).
func (c *CDPCurve) Conversion() Conversion { return Classic }

// DeltaFit returns the delta bound at eps and the single-round fit used.
func (c *CDPCurve) DeltaFit(eps float64) (float64, CDPFit) {
	if math.IsNaN(eps) {
		return math.NaN(), CDPFit{}
	}
	best, bf := 1.0, CDPFit{}
	if eps < 0 {
		return best, bf
	}
	r := float64(c.r)
	for _, f := range c.fits {
		xi, rho := r*f.Xi, r*f.Rho
		var d float64
		switch {
		case rho == 0 && eps >= xi:
			d = 0
		case rho == 0 || eps <= xi+rho:
			d = 1
		default:
			x := eps - xi - rho
			d = math.Exp(-x * x / (4 * rho))
		}
		if d < best {
			best, bf = d, f
		}
	}
	return best, bf
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
	best, bf := math.Inf(1), CDPFit{}
	for _, f := range c.fits {
		xi, rho := r*f.Xi, r*f.Rho
		var e float64
		switch {
		case rho == 0:
			e = xi
		case delta <= 0:
			e = math.Inf(1)
		default:
			e = xi + rho + 2*math.Sqrt(rho*math.Log(1/delta))
		}
		if e < best {
			best, bf = e, f
		}
	}
	return best, bf
}

// Eps returns the CDP eps bound at delta.
func (c *CDPCurve) Eps(delta float64) float64 { e, _ := c.EpsFit(delta); return e }
