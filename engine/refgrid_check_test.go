package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bracketHolds reports whether the bracket [lo, hi] (ln) contains the
// reference value ex +- unc (ln), with a relative slack of 1e-12.
func bracketHolds(lo, hi, ex, unc float64) bool {
	if math.IsInf(ex, -1) {
		return math.IsInf(lo, -1) || lo < -690
	}
	slack := unc + 1e-12*(1+math.Abs(ex))
	return lo <= ex+slack && hi >= ex-slack
}

// TestGridBracketExact checks the small-r bracket of refgrid_test.go
// against exact values: one step of every reference pair (delta1, itself
// checked against mpmath), the subsampled Gaussian with q = 1 (the Gauss
// pair, closed form) for r = 2..16, the Laplace pair (refLaplace) and the
// Laplace remove pair with q = 1 for r <= 6, and histogram pairs by
// enumeration (refEnumerate) for r <= 4. It also bounds the bracket's width
// (a bracket that says nothing would pass the containment checks): ln(hi/lo)
// at most 0.05 where delta >= 1e-6, 0.25 down to 1e-12.
func TestGridBracketExact(t *testing.T) {
	t.Parallel()
	type tc struct {
		name  string
		mb    *multiBracket
		g     *gridBracket
		ref   refFn
		eps   []float64
		width float64 // largest allowed ln(hi/lo) where delta >= 1e-12
	}
	var cases []tc
	rng := rand.New(rand.NewPCG(11, 4))
	epsList := []float64{0, 0.01, 0.1, 0.5, 1, 2, 4, 8, 20, 100}
	// one step of every kind
	for k := 0; k < 14; k++ {
		q := []float64{1e-4, 0.01, 0.2, 0.7, 1}[k%5]
		a := math.Exp(rng.Float64()*4 - 2)
		var rp rpPair
		var name string
		switch k % 7 {
		case 0:
			rp, name = rpPair{rpRemove(q, a)}, "remove"
		case 1:
			rp, name = rpPair{rpAntipodal(q, a)}, "antipodal"
		case 2:
			rp, name = rpSymmetrise(rpPair{rpRemove(q, a)}, q, a, false), "symmetric"
		case 3:
			rp, name = rpLapRemove(q, a), "lapremove"
		case 4:
			rp, name = rpSymmetrise(rpLapRemove(q, a), q, a, true), "lapsymmetric"
		case 5:
			rp, name = rpGaussTrunc(a, a/2*(1+rng.Float64()*4)), "gausstrunc"
		case 6:
			rp, name = rpLaplaceTrunc(a, a*(1+rng.Float64()*3)), "laptrunc"
		}
		cases = append(cases, tc{name: fmt.Sprintf("%s q=%v a=%.4g r=1", name, q, a),
			mb: newMultiBracket(rp, 1, 1000, false), ref: rpRef1(rp), eps: epsList, width: 0.05})
	}
	// Gauss as the subsampled pair with q = 1
	for _, r := range []int{2, 3, 5, 8, 16} {
		a := math.Exp(rng.Float64()*3 - 2)
		mu := a * math.Sqrt(float64(r))
		cases = append(cases, tc{name: fmt.Sprintf("gauss a=%.4g r=%d", a, r),
			mb:  newMultiBracket(rpPair{rpRemove(1, a)}, r, 600, false),
			ref: func(eps float64) (float64, float64) { return refGauss(mu, eps) }, eps: epsList, width: 0.05})
	}
	// Laplace, untruncated and as the remove pair with q = 1
	for _, r := range []int{2, 3, 4, 6} {
		mu := math.Exp(rng.Float64()*3 - 1.5)
		cases = append(cases, tc{name: fmt.Sprintf("laplace mu=%.4g r=%d", mu, r),
			mb:  newMultiBracket(rpLaplaceTrunc(mu, math.Inf(1)), r, 600, true),
			ref: func(eps float64) (float64, float64) { return refLaplace(mu, r, eps) }, eps: epsList, width: 0.05})
		cases = append(cases, tc{name: fmt.Sprintf("lapremove q=1 mu=%.4g r=%d", mu, r),
			mb:  newMultiBracket(rpLapRemove(1, mu), r, 600, false),
			ref: func(eps float64) (float64, float64) { return refLaplace(mu, r, eps) }, eps: epsList, width: 0.05})
	}
	// histograms (atoms only, zeros and tiny masses included)
	for k := 0; k < 8; k++ {
		kk := 2 + rng.IntN(3)
		a, b := randPMFProp(rng, kk), randPMFProp(rng, kk)
		r := 1 + rng.IntN(4)
		var as, bs [][]float64
		for i := 0; i < r; i++ {
			as, bs = append(as, a), append(bs, b)
		}
		cs := histCells(a, b)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, c := range cs {
			if !math.IsInf(c.lo, 0) {
				lo, hi = math.Min(lo, c.lo), math.Max(hi, c.hi)
			}
		}
		if !(hi > lo) {
			lo, hi = -1, 1
		}
		h := (hi - lo) / 400
		cases = append(cases, tc{name: fmt.Sprintf("histogram %v|%v r=%d", a, b, r),
			g:   newGridBracketCells(cs, r, h, false),
			ref: func(eps float64) (float64, float64) { return refEnumerate(as, bs, eps) }, eps: epsList, width: math.Inf(1)})
	}
	checked := 0
	worst := 0.0
	for _, c := range cases {
		for _, eps := range c.eps {
			var lo, hi float64
			if c.mb != nil {
				lo, hi = c.mb.bracket(eps)
			} else {
				lo, hi = c.g.bracket(eps)
			}
			ex, unc := c.ref(eps)
			if unc > 1e-6 {
				continue
			}
			checked++
			if !bracketHolds(lo, hi, ex, unc) {
				t.Errorf("%s eps=%v: bracket [%.10g, %.10g] does not contain %.10g (+- %.2g)", c.name, eps, math.Exp(lo), math.Exp(hi), math.Exp(ex), unc)
			}
			if hi < lo {
				t.Errorf("%s eps=%v: empty bracket [%.10g, %.10g]", c.name, eps, math.Exp(lo), math.Exp(hi))
			}
			// tight where delta >= 1e-6, within 25% down to 1e-12
			if ex > math.Log(1e-12) && !math.IsInf(c.width, 1) {
				w := c.width
				if ex < math.Log(1e-6) {
					w = 0.25
				} else {
					worst = math.Max(worst, hi-lo)
				}
				if hi-lo > w {
					t.Errorf("%s eps=%v: bracket [%.6g, %.6g] around %.6g is wider than %v (ln)", c.name, eps, math.Exp(lo), math.Exp(hi), math.Exp(ex), w)
				}
			}
		}
	}
	t.Logf("%d checks; widest bracket where delta >= 1e-6: ln(hi/lo) = %.3g", checked, worst)
}

// TestGridBracketAgainstMpmath checks the bracket of two steps of the
// Gaussian and Laplace remove pairs against mpmath quadrature
// (testdata/pair_refs.txt, kinds remove2 and lapremove2), per direction.
func TestGridBracketAgainstMpmath(t *testing.T) {
	t.Parallel()
	n := 0
	for _, r := range loadPairRefs(t) {
		if r.steps != 2 {
			continue
		}
		g := newMultiBracketDir(r.pair, 2, 1000, r.ba)
		lo, hi := g.bracket(r.eps)
		if !bracketHolds(lo, hi, r.want, 1e-12*(1+math.Abs(r.want))) {
			t.Errorf("%s: bracket [%.12g, %.12g] does not contain mpmath's %.12g", r.line, math.Exp(lo), math.Exp(hi), math.Exp(r.want))
		}
		if !math.IsInf(r.want, -1) && hi-lo > 0.01 {
			t.Errorf("%s: bracket [%.12g, %.12g] is wider than 1%%", r.line, math.Exp(lo), math.Exp(hi))
		}
		n++
	}
	if n < 30 {
		t.Fatalf("only %d two-step values", n)
	}
}

// newMultiBracketDir is newMultiBracket for one direction (ba: B||A).
func newMultiBracketDir(rp rpPair, r, n int, ba bool) *multiBracket {
	if ba {
		rp = rp.swap()
	}
	return newMultiBracket(rp, r, n, true)
}

// TestTruncBracket checks truncBracket (soundness_pairs_test.go), the
// bracket of a truncated Gauss or Laplace pair from the untruncated pair's
// exact delta: it must contain the exact one-step delta (delta1 of the
// truncated reference pairs, checked against mpmath) and overlap the grid
// bracket of r = 2..6 steps, and be exact (a point) at eps = +Inf and
// beyond r Lmax.
func TestTruncBracket(t *testing.T) {
	t.Parallel()
	n := 0
	for _, gauss := range []bool{true, false} {
		for _, mu := range []float64{0.05, 0.7, 3} {
			for _, f := range []float64{1.001, 1.3, 4, 30} {
				tau := mu * f
				if gauss {
					tau = mu / 2 * f
				}
				rp := rpGaussTrunc(mu, tau)
				if !gauss {
					rp = rpLaplaceTrunc(mu, tau)
				}
				ex := rpRef1(rp)
				for _, r := range []int{1, 2, 4, 6} {
					var mb *multiBracket
					if r > 1 {
						mb = newMultiBracket(rp, r, 400, true)
					}
					for _, eps := range []float64{0, 0.05, 0.5, 2, 10, 100, math.Inf(1)} {
						lo, hi := truncBracket(gauss, mu, tau, r, eps)
						n++
						if hi < lo-1e-12 {
							t.Errorf("gauss=%v mu=%v tau=%v r=%d eps=%v: empty bracket [%g, %g]", gauss, mu, tau, r, eps, lo, hi)
						}
						if r == 1 {
							v, u := ex(eps)
							if !bracketHolds(lo, hi, v, u) {
								t.Errorf("gauss=%v mu=%v tau=%v eps=%v: [%.12g, %.12g] does not contain the exact %.12g", gauss, mu, tau, eps, math.Exp(lo), math.Exp(hi), math.Exp(v))
							}
							continue
						}
						glo, ghi := mb.bracket(eps)
						tol := 1e-9 * (1 + math.Abs(lo) + math.Abs(hi))
						if lo > ghi+tol || glo > hi+tol {
							t.Errorf("gauss=%v mu=%v tau=%v r=%d eps=%v: box bracket [%.12g, %.12g] and grid bracket [%.12g, %.12g] are disjoint", gauss, mu, tau, r, eps, math.Exp(lo), math.Exp(hi), math.Exp(glo), math.Exp(ghi))
						}
						if math.IsInf(eps, 1) && hi-lo > 1e-9 {
							t.Errorf("gauss=%v mu=%v tau=%v r=%d: the distinguishing mass is not exact: [%g, %g]", gauss, mu, tau, r, lo, hi)
						}
					}
				}
			}
		}
	}
	t.Logf("%d checks", n)
}
