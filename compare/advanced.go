package compare

import (
	"fmt"
	"math"
)

// AdvancedOptions configures Advanced. The zero value selects the defaults.
type AdvancedOptions struct {
	// Eps0 is the grid of single-round eps0 values over which the bound is
	// optimised; if nil a geometric grid MinEps0*Ratio^j up to MaxEps0 (plus
	// 0) is used, defaults 1e-10, 50, 1.005.
	Eps0                    []float64
	MinEps0, MaxEps0, Ratio float64
}

// AdvancedCurve is the advanced composition theorem of Dwork, Rothblum and
// Vadhan (paper Lemma 4, "boosting and differential privacy") in its exact
// form: k-fold composition of an (eps0, delta0)-ADP pair is (eps', delta')-ADP
// for every slack d in (0, 1], with
//
//	eps'   = sqrt(2 k ln(1/d)) eps0 + k eps0 (e^eps0 - 1)
//	delta' = k delta0 + d.
//
// At every query point both eps0 (over the grid, using the mechanism's own
// tight delta0(eps0)) and d (in closed form) are chosen optimally.
type AdvancedCurve struct {
	k      int
	eps0s  []float64
	delta0 []float64
}

// Advanced returns the advanced composition bound for k-fold composition of a
// pair with single-round tight curve delta0.
func Advanced(delta0 DeltaFunc, k int, opt AdvancedOptions) (*AdvancedCurve, error) {
	const who = "Advanced"
	if delta0 == nil {
		return nil, fmt.Errorf("compare: %s: delta0 is nil", who)
	}
	if err := validR(who, k); err != nil {
		return nil, err
	}
	g, d, err := eps0Grid(who, delta0, opt.Eps0, opt.MinEps0, opt.MaxEps0, opt.Ratio, 1.005)
	if err != nil {
		return nil, err
	}
	return &AdvancedCurve{k: k, eps0s: g, delta0: d}, nil
}

// Delta returns the smallest delta' over eps0 in the grid and d with
// eps' <= eps; 1 if none.
func (c *AdvancedCurve) Delta(eps float64) float64 {
	if math.IsNaN(eps) {
		return math.NaN()
	}
	if eps < 0 {
		return 1
	}
	k := float64(c.k)
	best := 1.0
	for j, e0 := range c.eps0s {
		base := k * c.delta0[j]
		if base >= best {
			continue
		}
		if e0 == 0 {
			best = base // eps' = 0 for every d; let d -> 0
			continue
		}
		rest := eps - k*e0*math.Expm1(e0)
		if rest < 0 {
			continue
		}
		x := rest / e0
		d := math.Exp(-x * x / (2 * k))
		if v := base + d; v < best {
			best = v
		}
	}
	return best
}

// Eps returns the smallest eps' over eps0 in the grid with delta' <= delta.
func (c *AdvancedCurve) Eps(delta float64) float64 {
	if math.IsNaN(delta) {
		return math.NaN()
	}
	if delta >= 1 {
		return 0
	}
	k := float64(c.k)
	best := math.Inf(1)
	for j, e0 := range c.eps0s {
		d := delta - k*c.delta0[j]
		if !(d > 0) {
			continue
		}
		v := math.Sqrt(2*k*math.Log(1/math.Min(d, 1)))*e0 + k*e0*math.Expm1(e0)
		if v < best {
			best = v
		}
	}
	return best
}

// homCurve is a homogeneous k-fold composition via a per-round split
// eps0 = eps/k: Delta(eps) = compose(delta0(eps/k)).
type homCurve struct {
	k       int
	delta0  DeltaFunc
	compose func(d0 float64) float64
}

func (c *homCurve) Delta(eps float64) float64 {
	if math.IsNaN(eps) {
		return math.NaN()
	}
	if eps < 0 {
		return 1
	}
	return clamp01(c.compose(c.delta0(eps / float64(c.k))))
}

func (c *homCurve) Eps(delta float64) float64 { return epsForDelta(c.Delta, delta) }

// Naive returns naive composition (paper Lemma 2) of k identical pairs with
// single-round curve delta0: (k eps0, k delta0(eps0))-ADP, i.e.
// Delta(eps) = min(1, k delta0(eps/k)).
func Naive(delta0 DeltaFunc, k int) (Curve, error) {
	if delta0 == nil {
		return nil, fmt.Errorf("compare: Naive: delta0 is nil")
	}
	if err := validR("Naive", k); err != nil {
		return nil, err
	}
	kf := float64(k)
	return &homCurve{k: k, delta0: delta0, compose: func(d float64) float64 { return kf * d }}, nil
}

// Adaptive returns the composition of paper Lemma 3 ("adaptive
// composition") applied k-1 times to k identical pairs:
// (k eps0, 1 - (1 - delta0(eps0))^k)-ADP, i.e.
// Delta(eps) = 1 - (1 - delta0(eps/k))^k. It is never worse than Naive.
func Adaptive(delta0 DeltaFunc, k int) (Curve, error) {
	if delta0 == nil {
		return nil, fmt.Errorf("compare: Adaptive: delta0 is nil")
	}
	if err := validR("Adaptive", k); err != nil {
		return nil, err
	}
	kf := float64(k)
	return &homCurve{k: k, delta0: delta0, compose: func(d float64) float64 {
		return -math.Expm1(kf * math.Log1p(-math.Min(d, 1)))
	}}, nil
}

func checkPairs(who string, pairs []Point) error {
	if len(pairs) == 0 {
		return fmt.Errorf("compare: %s: no pairs", who)
	}
	for i, p := range pairs {
		if !(p.Eps >= 0) || math.IsInf(p.Eps, 1) || !(p.Delta >= 0 && p.Delta <= 1) {
			return fmt.Errorf("compare: %s: pair %d = (%v, %v) needs finite eps >= 0 and delta in [0, 1]", who, i, p.Eps, p.Delta)
		}
	}
	return nil
}

// ComposeNaive composes heterogeneous guarantees (eps_j, delta_j) by paper
// Lemma 2: (sum eps_j, sum delta_j), delta capped at 1.
func ComposeNaive(pairs []Point) (Point, error) {
	if err := checkPairs("ComposeNaive", pairs); err != nil {
		return Point{}, err
	}
	var out Point
	for _, p := range pairs {
		out.Eps += p.Eps
		out.Delta += p.Delta
	}
	out.Delta = math.Min(out.Delta, 1)
	return out, nil
}

// ComposeAdaptive composes heterogeneous guarantees (eps_j, delta_j) by paper
// Lemma 3 (adaptive composition), applied pairwise:
// (sum eps_j, 1 - prod (1 - delta_j)).
func ComposeAdaptive(pairs []Point) (Point, error) {
	if err := checkPairs("ComposeAdaptive", pairs); err != nil {
		return Point{}, err
	}
	var out Point
	logKeep := 0.0
	for _, p := range pairs {
		out.Eps += p.Eps
		logKeep += math.Log1p(-p.Delta)
	}
	out.Delta = -math.Expm1(logKeep)
	return out, nil
}
