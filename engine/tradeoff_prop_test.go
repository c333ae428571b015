package engine

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

var tprPropCases = flag.Int("tpr.cases", 24, "cases drawn by TestTPRProperty")

// normSF is P(N(0,1) > x), accurate in both tails.
func normSF(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }

// sgdStepTPR returns the exact largest TPR at FPR alpha of one step of
// the Poisson-subsampled Gaussian pair A = (1-q) N(0) + q N(m), B = N(0)
// (shift m in units of sigma), in the direction ab (null B) or the
// reverse. Both likelihood ratios are monotone in the output, so the
// Neyman-Pearson tests are thresholds: null B rejects x > c with
// B(x > c) = alpha; null A rejects x < c with A(x < c) = alpha (c found
// by bisection to full precision).
func sgdStepTPR(q, m, alpha float64, ab bool) float64 {
	if ab {
		c := -normalQuantile(alpha) // B(x > c) = alpha
		return (1-q)*alpha + q*normSF(c-m)
	}
	aLow := func(c float64) float64 { return (1-q)*normSF(-c) + q*normSF(m-c) }
	lo, hi := -40.0, 40.0+m
	for i := 0; i < 200 && hi-lo > 0; i++ {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if aLow(mid) > alpha {
			hi = mid
		} else {
			lo = mid
		}
	}
	return normSF(-lo) // B(x < c)
}

// TestTPRProperty draws seeded cases of every kind with an exact trade-off
// curve and checks that TPR brackets hold it at FPRs from 1e-10 to 0.9:
// composed Gaussians and random allocation with one step per epoch (mu-GDP,
// Dong, Roth, Su 2022), one step of DP-SGD (Neyman-Pearson thresholds, both
// directions), composed randomized response and random histograms
// (enumeration). Few buckets, so the brackets are not tight; soundness is
// what is checked (and that the bracket is a bracket in [fpr, 1]).
func TestTPRProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2026, 1127))
	ctx := context.Background()
	for c := 0; c < *tprPropCases; c++ {
		var (
			res   *Result
			err   error
			name  string
			exact func(alpha float64) float64
		)
		switch c % 5 {
		case 0: // composed Gaussian
			sigma := math.Exp(rng.Float64()*math.Log(100)) / 4 // 0.25 .. 25
			r := 1 + rng.IntN(200)
			m, _ := Gauss(sigma, 1, 0)
			res, err = Compose(ctx, m, r, Options{Buckets: 4000})
			mu := math.Sqrt(float64(r)) / sigma
			name, exact = fmt.Sprintf("gauss sigma %.4g r %d", sigma, r), func(a float64) float64 { return gaussTPR(a, mu) }
		case 1: // random allocation, one step per epoch: a Gaussian step
			sigma := 0.5 + 3*rng.Float64()
			e := 1 + rng.IntN(5)
			m, err2 := RandomAllocationGauss(sigma, 1, 1, 1, AddRemove)
			if err2 != nil {
				t.Fatal(err2)
			}
			res, err = Compose(ctx, m, e, Options{Buckets: 8000})
			mu := math.Sqrt(float64(e)) / sigma
			name, exact = fmt.Sprintf("random allocation t 1 sigma %.4g epochs %d", sigma, e), func(a float64) float64 { return gaussTPR(a, mu) }
		case 2: // one DP-SGD step
			sigma := 0.3 + 3*rng.Float64()
			q := math.Exp(-rng.Float64() * math.Log(1e4)) // 1e-4 .. 1
			m, _ := SubsampledGauss(sigma, 1, q, Poisson, AddRemove)
			res, err = Compose(ctx, m, 1, Options{Buckets: 8000})
			name = fmt.Sprintf("sgd sigma %.4g q %.4g", sigma, q)
			exact = func(a float64) float64 {
				return math.Max(sgdStepTPR(q, 1/sigma, a, true), sgdStepTPR(q, 1/sigma, a, false))
			}
		case 3: // composed randomized response
			p := 0.5 + 0.45*rng.Float64()
			r := 1 + rng.IntN(30)
			m, _ := RandomizedResponse(p)
			res, err = Compose(ctx, m, r, Options{Buckets: 4000})
			a, b := rrComposed(p, r)
			name = fmt.Sprintf("rr p %.4g r %d", p, r)
			exact = func(al float64) float64 { return exactTPRDiscrete(a, b, al) }
		default: // random histogram, composed up to 3 times
			k := 2 + rng.IntN(4)
			a, b := randomPMFPair(rng, k)
			m, err2 := Histogram(a, b)
			if err2 != nil {
				t.Fatal(err2)
			}
			r := 1 + rng.IntN(3)
			res, err = Compose(ctx, m, r, Options{Buckets: 2000})
			pa, pb := productPMF(a, b, r)
			name = fmt.Sprintf("histogram %d atoms r %d", k, r)
			exact = func(al float64) float64 {
				return math.Max(exactTPRDiscrete(pa, pb, al), exactTPRDiscrete(pb, pa, al))
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := 0; i < 6; i++ {
			fpr := math.Exp(-rng.Float64()*math.Log(1e10)) * 0.9 // 9e-11 .. 0.9
			b := res.TPR(fpr)
			want := exact(fpr)
			// the references round too (and histograms are read with a
			// 1e-9 tolerance on their sums)
			slack := 1e-10*want + 1e-15
			if c%5 == 4 {
				slack += 1e-9
			}
			if !(b.Lower <= b.Upper) || b.Lower < fpr || b.Upper > 1 {
				t.Errorf("%s fpr %.4g: [%g, %g] is not a bracket in [fpr, 1]", name, fpr, b.Lower, b.Upper)
			}
			if b.Upper < want-slack || b.Lower > want+slack {
				t.Errorf("%s fpr %.4g: [%.12g, %.12g] misses the exact %.12g", name, fpr, b.Lower, b.Upper, want)
			}
		}
	}
}
