package compare

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
)

// KOVOptions configures KOV. The zero value selects the defaults.
type KOVOptions struct {
	// Eps0 is the grid of single-round eps0 values (nats, >= 0) at which the
	// mechanism's tight delta0(eps0) is looked up, as in paper Section 5.6.
	// If nil, a geometric grid MinEps0*Ratio^j up to MaxEps0 is used, plus
	// eps0 = 0; the grid stops at the smallest eps0 with delta0 = 0 (found by
	// bisection, so pure-DP mechanisms get their exact eps0).
	Eps0 []float64
	// MinEps0, MaxEps0, Ratio define the default grid; defaults 1e-10, 50,
	// 1.02. (The paper uses ratio 1.1 starting at 1e-14.)
	MinEps0, MaxEps0, Ratio float64
	// Workers is the number of goroutines; default GOMAXPROCS.
	Workers int
}

// KOVCurve is the bound of Kairouz, Oh and Viswanath's optimal composition
// theorem (paper Theorem 3 / Lemma 5, Section 5.6) applied to every
// (eps0, delta0(eps0)) pair of a grid and reduced to the Pareto front.
type KOVCurve struct {
	r     int
	front front
	grid  int
}

// KOV computes the KOV composition bound for r-fold composition of a pair
// with single-round tight curve delta0. For each grid point eps0 and each
// i = 0..floor(r/2) it forms
//
//	eps'  = (r - 2i) eps0
//	delta' = 1 - (1 - delta0)^r (1 - delta_i),
//	delta_i = sum_{l<i} C(r,l) (e^{(r-l)eps0} - e^{(r-2i+l)eps0}) / (1+e^{eps0})^r
//
// and keeps the Pareto front. delta_i is evaluated in log space with a
// cancellation-free recurrence (every term is a binomial probability times
// 1 - e^{-2(i-l)eps0}), so r = 2^16 and beyond work (the paper stopped at
// r = 512 because of overflow).
func KOV(delta0 DeltaFunc, r int, opt KOVOptions) (*KOVCurve, error) {
	const who = "KOV"
	if delta0 == nil {
		return nil, fmt.Errorf("compare: %s: delta0 is nil", who)
	}
	if err := validR(who, r); err != nil {
		return nil, err
	}
	grid, d0, err := eps0Grid(who, delta0, opt.Eps0, opt.MinEps0, opt.MaxEps0, opt.Ratio, 1.02)
	if err != nil {
		return nil, err
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers > len(grid) {
		workers = len(grid)
	}
	fronts := make([]front, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var f front
			var chain []Point
			for j := w; j < len(grid); j += workers {
				chain = kovChain(chain[:0], grid[j], d0[j], r)
				f = mergeFronts(f, chain)
			}
			fronts[w] = f
		}(w)
	}
	wg.Wait()
	var f front
	for _, g := range fronts {
		f = mergeFronts(f, g)
	}
	return &KOVCurve{r: r, front: f, grid: len(grid)}, nil
}

// eps0Grid builds and validates an eps0 grid and evaluates delta0 on it.
func eps0Grid(who string, delta0 DeltaFunc, user []float64, lo, hi, ratio, defRatio float64) ([]float64, []float64, error) {
	var grid []float64
	if user != nil {
		if len(user) == 0 {
			return nil, nil, fmt.Errorf("compare: %s: empty eps0 grid", who)
		}
		for _, e := range user {
			if !(e >= 0) || math.IsInf(e, 1) {
				return nil, nil, fmt.Errorf("compare: %s: eps0 grid value %v must be finite and >= 0", who, e)
			}
		}
		grid = append([]float64(nil), user...)
		sort.Float64s(grid)
	} else {
		if lo == 0 {
			lo = 1e-10
		}
		if hi == 0 {
			hi = 50
		}
		if ratio == 0 {
			ratio = defRatio
		}
		g, err := GeometricGrid(lo, hi, ratio)
		if err != nil {
			return nil, nil, fmt.Errorf("compare: %s: default eps0 grid: %w", who, err)
		}
		grid = append([]float64{0}, g...)
	}
	d0 := make([]float64, 0, len(grid))
	out := grid[:0]
	for j, e := range grid {
		d, err := checkDelta0(who, delta0, e)
		if err != nil {
			return nil, nil, err
		}
		if user == nil && d == 0 && j > 0 && d0[j-1] > 0 {
			// pure DP from some eps0 on (Laplace, randomized response): find
			// the smallest such eps0 to machine precision, so that e.g. KOV
			// uses randomized response's own eps0 = ln(p/(1-p)).
			e = bisect(func(x float64) float64 { return delta0(x) }, 0, grid[j-1], e)
		}
		out = append(out, e)
		d0 = append(d0, d)
		if user == nil && d == 0 {
			break // larger eps0 cannot help: (eps0, 0) already dominates
		}
	}
	return out, d0, nil
}

// kovChain computes the KOV points of one (eps0, delta0) pair (using dst as
// scratch space) and returns them as a Pareto front (increasing eps').
func kovChain(dst []Point, eps0, delta0 float64, r int) front {
	logBase := float64(r) * math.Log1p(-delta0) // log (1-delta0)^r
	base := -math.Expm1(logBase)
	if delta0 >= 1 {
		return dst
	}
	if eps0 == 0 {
		return append(dst, Point{0, base})
	}
	q := 1 / (1 + math.Exp(eps0))  // probability of the "other" outcome
	p := 1 / (1 + math.Exp(-eps0)) // e^eps0/(1+e^eps0)
	logc := math.Log(-math.Expm1(-2 * eps0))
	half := r / 2
	// Skip the far lower tail of the binomial: terms below thresh cannot
	// change delta' in double precision (relative 1e-26 of base, or below
	// the underflow threshold when delta0 = 0).
	thresh := -800.0
	if base > 0 {
		thresh = math.Log(base) - 60
	}
	mode := int(math.Floor(float64(r+1) * q))
	if mode > half {
		mode = half
	}
	l0 := sort.Search(mode+1, func(l int) bool { return logDbinom(l, r, q, p) >= thresh })
	if l0 > mode {
		l0 = mode
	}
	// D = log delta_i, T = log sum_{l<i} b_l e^{-2(i-l)eps0} (both -Inf when empty)
	logD, logT := math.Inf(-1), math.Inf(-1)
	start := len(dst)
	for i := l0; i <= half; i++ {
		var dp float64
		if math.IsInf(logD, -1) {
			dp = base
		} else {
			di := math.Exp(logD)
			if di >= 1 {
				dp = 1
			} else {
				dp = -math.Expm1(logBase + math.Log1p(-di))
			}
		}
		if dp >= 1 {
			break
		}
		dst = append(dst, Point{float64(r-2*i) * eps0, dp})
		s := logAddExp(logT, logDbinom(i, r, q, p))
		logD = logAddExp(logD, logc+s)
		logT = s - 2*eps0
	}
	// reverse to increasing eps'
	ch := dst[start:]
	for a, b := 0, len(ch)-1; a < b; a, b = a+1, b-1 {
		ch[a], ch[b] = ch[b], ch[a]
	}
	return mergeFronts(ch, nil)
}

// Delta returns min{delta' : (eps', delta') on the KOV front, eps' <= eps},
// or 1 if no front point has eps' <= eps.
func (c *KOVCurve) Delta(eps float64) float64 { return c.front.delta(eps) }

// Eps returns min{eps' : (eps', delta') on the KOV front, delta' <= delta}.
func (c *KOVCurve) Eps(delta float64) float64 { return c.front.eps(delta) }

// Front returns a copy of the Pareto front, sorted by increasing eps.
func (c *KOVCurve) Front() []Point { return append([]Point(nil), c.front...) }

// R returns the number of compositions.
func (c *KOVCurve) R() int { return c.r }
