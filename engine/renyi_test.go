package engine

import (
	"context"
	"math"
	"testing"
)

// TestRenyiBracketsRandomizedResponse checks the Renyi bounds against the
// closed form r/(alpha-1) ln(p^a q^(1-a) + q^a p^(1-a)).
func TestRenyiBracketsRandomizedResponse(t *testing.T) {
	for _, c := range []struct {
		p float64
		r int
	}{{0.51, 512}, {0.6, 50}, {0.9, 3}} {
		m, _ := RandomizedResponse(c.p)
		res, err := Compose(context.Background(), m, c.r, Options{Buckets: 20000})
		if err != nil {
			t.Fatal(err)
		}
		checkRRRenyi(t, res, c.p, c.r, "both lists")
	}
}

// TestRenyiWithCornerMass brackets the Renyi divergence of composed
// randomized response when a small bucket range pushes mass into the
// corners (whose losses the buckets do not know).
func TestRenyiWithCornerMass(t *testing.T) {
	withCorners := 0
	for _, c := range []struct {
		p       float64
		r       int
		buckets int
		factor  float64
	}{{0.6, 1, 8, 1.1}, {0.6, 4, 8, 1.1}, {0.55, 20, 40, 1.02}, {0.7, 3, 12, 1.05}} {
		m, _ := RandomizedResponse(c.p)
		res, err := Compose(context.Background(), m, c.r, Options{Buckets: c.buckets, Factor: c.factor})
		if err != nil {
			t.Fatal(err)
		}
		if res.Delta(0).Corners.Mass() > 0 {
			withCorners++
		}
		q := 1 - c.p
		for _, alpha := range []float64{1.5, 2, 8} {
			ex := float64(c.r) / (alpha - 1) * math.Log(math.Pow(c.p, alpha)*math.Pow(q, 1-alpha)+math.Pow(q, alpha)*math.Pow(c.p, 1-alpha))
			lo, hi := res.Renyi(alpha)
			if lo > ex*(1+1e-9) || hi < ex*(1-1e-9) {
				t.Errorf("%+v alpha=%v: [%v, %v] does not contain %v", c, alpha, lo, hi, ex)
			}
		}
	}
	if withCorners < 2 {
		t.Fatalf("only %d cases put mass into the corners", withCorners)
	}
}

// TestRenyiUpperFineBuckets: with very narrow buckets the chord of the
// Renyi upper bound cancels catastrophically; the bound fell 2.4% below the
// exact D_alpha of randomized response p = 0.501 at 200,000 buckets and
// order 1.01 (found by the rdp work) before rounding allowances were added.
func TestRenyiUpperFineBuckets(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		p       float64
		r       int
		buckets int
	}{{0.501, 1, 200000}, {0.51, 1, 200000}, {0.51, 2, 200000}, {0.505, 3, 100000}, {0.55, 1, 2000}} {
		m, _ := RandomizedResponse(c.p)
		res, err := Compose(context.Background(), m, c.r, Options{Buckets: c.buckets})
		if err != nil {
			t.Fatal(err)
		}
		q := 1 - c.p
		for _, alpha := range []float64{1.01, 1.05, 1.1, 1.5, 2, 8, 32} {
			ex := float64(c.r) / (alpha - 1) * math.Log(math.Pow(c.p, alpha)*math.Pow(q, 1-alpha)+math.Pow(q, alpha)*math.Pow(c.p, 1-alpha))
			lo, hi := res.Renyi(alpha)
			if hi < ex || lo > ex {
				t.Errorf("%+v alpha=%v: [%v, %v] does not contain %v (upper %.3g below)", c, alpha, lo, hi, ex, (ex-hi)/ex)
			}
			if hi > ex*1.01 {
				t.Errorf("%+v alpha=%v: upper %v more than 1%% above %v", c, alpha, hi, ex)
			}
		}
	}
}

// checkRRRenyi checks that res's Renyi bounds at alpha 1.5, 2, 8 and 32
// contain the closed form of randomized response p composed r times.
func checkRRRenyi(t *testing.T, res *Result, p float64, r int, what string) {
	t.Helper()
	for _, alpha := range []float64{1.5, 2, 8, 32} {
		ex := exactRRRenyi(p, r, alpha)
		lo, hi := res.Renyi(alpha)
		if lo > ex*(1+1e-9) || hi < ex*(1-1e-9) {
			t.Errorf("%s: rr p=%v r=%d alpha=%v: Renyi [%v, %v] does not contain %v", what, p, r, alpha, lo, hi, ex)
		}
	}
}
