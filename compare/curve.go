package compare

import (
	"fmt"
	"math"
	"sort"
)

// Curve is an (eps, delta) privacy curve of a pair of distributions after
// composition: the pair is (eps, Delta(eps))-ADP in the sense of the paper's
// Definition 1 (both directions), and Eps is its inverse.
//
// eps is in nats (e^eps is the multiplicative factor). For the bounds in this
// package (KOV, advanced, naive, RDP, CDP) Delta is an upper bound on the
// tight delta; for the Exact* curves it is the tight value itself.
type Curve interface {
	// Delta returns delta(eps) in [0, 1]. Upper bounds return 1 for eps < 0
	// and NaN for NaN input.
	Delta(eps float64) float64
	// Eps returns the smallest eps >= 0 with Delta(eps) <= delta, +Inf if
	// there is none, and 0 for delta >= 1.
	Eps(delta float64) float64
}

// DeltaFunc is a single-round privacy curve delta0(eps0): for every eps0 >= 0
// the pair of distributions is (eps0, delta0(eps0))-ADP. It must be
// non-increasing and take values in [0, 1]. The Mechanism constructors
// (GaussDelta0, LaplaceDelta0, RRDelta0, ...) return tight ones.
type DeltaFunc func(eps0 float64) float64

// Point is one (eps, delta) guarantee.
type Point struct {
	Eps   float64 // in nats
	Delta float64 // in [0, 1]
}

// front is a Pareto front of (eps, delta) points: eps strictly increasing,
// delta strictly decreasing.
type front []Point

// mergeFronts merges two fronts into the Pareto front of their union.
func mergeFronts(a, b front) front {
	out := make(front, 0, len(a)+len(b))
	i, j := 0, 0
	best := math.Inf(1)
	push := func(p Point) {
		if p.Delta < best {
			if n := len(out); n > 0 && out[n-1].Eps == p.Eps {
				out[n-1] = p
			} else {
				out = append(out, p)
			}
			best = p.Delta
		}
	}
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && (a[i].Eps < b[j].Eps || (a[i].Eps == b[j].Eps && a[i].Delta <= b[j].Delta))):
			push(a[i])
			i++
		default:
			push(b[j])
			j++
		}
	}
	return out
}

// delta returns min{d : (e, d) in front, e <= eps}, or 1 if there is none.
func (f front) delta(eps float64) float64 {
	if math.IsNaN(eps) {
		return math.NaN()
	}
	// first index with Eps > eps
	k := sort.Search(len(f), func(i int) bool { return f[i].Eps > eps })
	if k == 0 {
		return 1
	}
	return math.Min(1, f[k-1].Delta)
}

// eps returns min{e : (e, d) in front, d <= delta}, or +Inf if none.
func (f front) eps(delta float64) float64 {
	if math.IsNaN(delta) {
		return math.NaN()
	}
	if delta >= 1 {
		return 0
	}
	k := sort.Search(len(f), func(i int) bool { return f[i].Delta <= delta })
	if k == len(f) {
		return math.Inf(1)
	}
	return math.Max(0, f[k].Eps)
}

// checkDelta0 evaluates delta0 at eps0 and validates the value.
func checkDelta0(who string, delta0 DeltaFunc, eps0 float64) (float64, error) {
	d := delta0(eps0)
	if math.IsNaN(d) || d < 0 {
		return 0, fmt.Errorf("compare: %s: delta0(%g) = %g, want a value in [0, 1]", who, eps0, d)
	}
	return math.Min(d, 1), nil
}

// validR checks a number of compositions.
func validR(who string, r int) error {
	if r < 1 {
		return fmt.Errorf("compare: %s: number of compositions r must be >= 1, got %d", who, r)
	}
	return nil
}

// positive checks that x is a positive finite number.
func positive(who, name string, x float64) error {
	if !(x > 0) || math.IsInf(x, 1) {
		return fmt.Errorf("compare: %s: %s must be positive and finite, got %v", who, name, x)
	}
	return nil
}

// GeometricGrid returns n >= 2 points lo*ratio^j, j = 0..n-1, covering
// [lo, hi] with the given ratio > 1 (the last point is >= hi). It returns an
// error for lo <= 0, hi < lo or ratio <= 1.
func GeometricGrid(lo, hi, ratio float64) ([]float64, error) {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 1) || !(ratio > 1) || math.IsInf(ratio, 1) {
		return nil, fmt.Errorf("compare: GeometricGrid: need 0 < lo <= hi < Inf and ratio > 1, got lo=%g hi=%g ratio=%g", lo, hi, ratio)
	}
	n := int(math.Ceil(math.Log(hi/lo)/math.Log(ratio))) + 1
	if n > 10_000_000 {
		return nil, fmt.Errorf("compare: GeometricGrid: %d points requested, limit 1e7", n)
	}
	if n < 2 {
		n = 2
	}
	g := make([]float64, n)
	for j := range g {
		g[j] = lo * math.Pow(ratio, float64(j))
	}
	return g, nil
}
