package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// Tests of k-out-of-t random allocation (allocation_k.go).

// allocKCompose composes E epochs of k-out-of-t allocation.
func allocKCompose(t *testing.T, sigma float64, steps, k, epochs int, opt Options) *Result {
	t.Helper()
	m, err := RandomAllocationGauss(sigma, 1, steps, k, AddRemove)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, epochs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// With k = t every step uses the record: the Gaussian mechanism with mu =
// m sqrt(t E); the reduction (t blocks of one step) and the lower pair
// (the sum statistic) are both exact there.
func TestAllocKEqualsT(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sigma         float64
		steps, epochs int
	}{{2, 2, 1}, {3, 4, 3}, {5, 7, 2}} {
		res := allocKCompose(t, c.sigma, c.steps, c.steps, c.epochs, allocOpts)
		mu := math.Sqrt(float64(c.steps*c.epochs)) / c.sigma
		for _, eps := range []float64{0, 0.5, 1, 2, 4} {
			l, dl := refGauss(mu, eps)
			ref := math.Exp(l)
			if ref < 1e-14 {
				continue
			}
			d := res.Delta(eps)
			if !(d.Upper >= math.Exp(l-dl)*(1-1e-12) && d.Lower <= math.Exp(l+dl)*(1+1e-12)) {
				t.Errorf("sigma %v t=k=%d E %d eps %v: [%.12g, %.12g] misses %.12g", c.sigma, c.steps, c.epochs, eps, d.Lower, d.Upper, ref)
			}
			if d.Upper-d.Lower > 2e-2*ref {
				t.Errorf("sigma %v t=k=%d E %d eps %v: [%.12g, %.12g] wider than 2e-2 of %.6g", c.sigma, c.steps, c.epochs, eps, d.Lower, d.Upper, ref)
			}
		}
	}
}

// logElemSym returns ln e_k(x) / C(t, k) of positive x (the likelihood
// ratio of k-out-of-t allocation), by the recurrence on prefixes in
// log space.
func logElemSym(x []float64, k int) float64 {
	e := make([]float64, k+1) // ln e_j of the prefix
	for j := range e {
		e[j] = math.Inf(-1)
	}
	e[0] = 0
	for i, v := range x {
		lv := math.Log(v)
		for j := min(k, i+1); j >= 1; j-- {
			e[j] = logAddExp(e[j], e[j-1]+lv)
		}
	}
	lc, _ := math.Lgamma(float64(len(x) + 1))
	l1, _ := math.Lgamma(float64(k + 1))
	l2, _ := math.Lgamma(float64(len(x) - k + 1))
	return e[k] - (lc - l1 - l2)
}

// allocKMC estimates delta_{P||Q}(eps) (ab) or delta_{Q||P}(eps) of E
// epochs of the exact k-out-of-t pair P = avg over k-subsets S of
// N(m 1_S, I), Q = N(0, I), by plain sampling.
func allocKMC(rng *rand.Rand, m float64, steps, k, epochs int, eps []float64, ab bool, n int) []mcEst {
	x := make([]float64, steps)
	perm := make([]int, steps)
	s1 := make([]float64, len(eps))
	s2 := make([]float64, len(eps))
	hits := make([]int, len(eps))
	for it := 0; it < n; it++ {
		L := 0.0
		for e := 0; e < epochs; e++ {
			y := x
			for i := range y {
				y[i] = rng.NormFloat64()
			}
			if ab {
				for i := range perm {
					perm[i] = i
				}
				for i := 0; i < k; i++ { // partial Fisher-Yates
					j := i + rng.IntN(steps-i)
					perm[i], perm[j] = perm[j], perm[i]
					y[perm[i]] += m
				}
			}
			for i, v := range y {
				x[i] = math.Exp(m*v - m*m/2)
			}
			L += logElemSym(x, k)
		}
		for q, ep := range eps {
			var f float64
			if ab {
				f = -math.Expm1(ep - L)
			} else {
				f = -math.Expm1(ep + L)
			}
			if f > 0 {
				s1[q] += f
				s2[q] += f * f
				hits[q]++
			}
		}
	}
	out := make([]mcEst, len(eps))
	nf := float64(n)
	for q := range eps {
		mean := s1[q] / nf
		out[q] = mcEst{mean, math.Sqrt(math.Max(0, s2[q]/nf-mean*mean) / nf), hits[q], 0}
	}
	return out
}

// allocKCases are the cases of the Monte Carlo test and table.
var allocKCases = []struct {
	sigma            float64
	steps, k, epochs int
}{{1, 10, 2, 1}, {1, 20, 3, 1}, {0.8, 12, 5, 1}, {2, 30, 2, 4}, {1, 50, 5, 2}, {1.5, 9, 4, 10}}

// The upper bound of the reduction is never below the 99.9% lower
// confidence limit of plain Monte Carlo of the exact k-out-of-t pair, and
// the lower bound (the sum statistic) never above the upper one.
func TestAllocKMonteCarlo(t *testing.T) {
	t.Parallel()
	const z = 3.2905
	rng := rand.New(rand.NewPCG(22, 1))
	n := 20000
	if testing.Short() {
		n = 4000
	}
	for _, c := range allocKCases {
		res := allocKCompose(t, c.sigma, c.steps, c.k, c.epochs, Options{})
		var eps []float64
		for _, d := range []float64{0.1, 1e-2, 3e-3} {
			eps = append(eps, res.Eps(d).Upper)
		}
		for _, ab := range []bool{true, false} {
			est := allocKMC(rng, 1/c.sigma, c.steps, c.k, c.epochs, eps, ab, n)
			for q, e := range est {
				d := res.Delta(eps[q])
				up, low := d.UpperAB, d.LowerAB
				if !ab {
					up, low = d.UpperBA, d.LowerBA
				}
				if e.hits < 200 || e.se > 0.1*e.mean {
					continue
				}
				if up < e.mean-z*e.se {
					t.Errorf("sigma %v t %d k %d E %d eps %.6g ab %v: upper %.6g below the lower confidence limit %.6g", c.sigma, c.steps, c.k, c.epochs, eps[q], ab, up, e.mean-z*e.se)
				}
				if low > e.mean+z*e.se {
					t.Errorf("sigma %v t %d k %d E %d eps %.6g ab %v: lower %.6g above the upper confidence limit %.6g", c.sigma, c.steps, c.k, c.epochs, eps[q], ab, low, e.mean+z*e.se)
				}
			}
		}
	}
}

// TestAllocKTable prints the reduction's bracket against Monte Carlo (how
// loose the reduction is). Not a check: ALLOC_EXPLORE=1.
func TestAllocKTable(t *testing.T) {
	if os.Getenv("ALLOC_EXPLORE") == "" {
		t.Skip("set ALLOC_EXPLORE=1")
	}
	rng := rand.New(rand.NewPCG(22, 2))
	for _, c := range allocKCases {
		res := allocKCompose(t, c.sigma, c.steps, c.k, c.epochs, Options{})
		var eps []float64
		for _, d := range []float64{1e-2, 1e-3} {
			eps = append(eps, res.Eps(d).Upper)
		}
		ab := allocKMC(rng, 1/c.sigma, c.steps, c.k, c.epochs, eps, true, 200000)
		ba := allocKMC(rng, 1/c.sigma, c.steps, c.k, c.epochs, eps, false, 200000)
		for q, ep := range eps {
			d := res.Delta(ep)
			mc := math.Max(ab[q].mean, ba[q].mean)
			se := ab[q].se
			if ba[q].mean > ab[q].mean {
				se = ba[q].se
			}
			fmt.Printf("| %g | %d | %d | %d | %.4g | [%.4g, %.4g] | %.4g +- %.2g | %.3g |\n", c.sigma, c.steps, c.k, c.epochs, ep, d.Lower, d.Upper, mc, se, d.Upper/mc)
		}
	}
}
