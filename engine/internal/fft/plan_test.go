package fft

import (
	"math"
	"testing"
)

// TestNewPlan checks the plan's length and error constant for lengths 2 to
// 2^20: Len is n, Kappa is the package's Kappa of log2 n, kappa grows with
// n and stays far below 1 (it bounds a relative error), one stage's eta is
// (8 + 4 sqrt2) u, and the twiddle table holds exp(-2 pi i k/n) at k = 0
// and n/4 exactly.
func TestNewPlan(t *testing.T) {
	prev := 0.0
	for logN := 1; logN <= 20; logN++ {
		n := 1 << logN
		p := NewPlan(n)
		if p.Len() != n {
			t.Errorf("NewPlan(%d).Len() = %d", n, p.Len())
		}
		k := p.Kappa()
		if k != Kappa(logN) {
			t.Errorf("n=%d: Plan.Kappa %v, Kappa(%d) %v", n, k, logN, Kappa(logN))
		}
		if !(k > prev && k < 1e-13) {
			t.Errorf("n=%d: kappa %v (previous %v)", n, k, prev)
		}
		prev = k
		if p.twRe[0] != 1 || p.twIm[0] != 0 {
			t.Errorf("n=%d: w^0 = (%v, %v)", n, p.twRe[0], p.twIm[0])
		}
		if n >= 4 && (p.twRe[n/4] != 0 || p.twIm[n/4] != -1) {
			t.Errorf("n=%d: w^(n/4) = (%v, %v), want -i", n, p.twRe[n/4], p.twIm[n/4])
		}
	}
	// eta = mu + gamma_4 (sqrt2 + mu) with mu = 8u and gamma_4 ~ 4u is
	// about (8 + 4 sqrt2) u per stage.
	u := 0x1p-53
	if eta := Kappa(1) / u; !(eta > 8+4*math.Sqrt2 && eta < 8+4*math.Sqrt2+1e-9) {
		t.Errorf("Kappa(1) = %v u, want about %v u", eta, 8+4*math.Sqrt2)
	}
}

// TestNewPlanRefusesBadLengths checks that NewPlan panics for lengths that
// are neither 2^k nor 3*2^k with k >= 1 (the callers choose them; none is
// user input).
func TestNewPlanRefusesBadLengths(t *testing.T) {
	for _, n := range []int{-6, -4, 0, 1, 3, 5, 9, 10, 18, 36, 45, 99, 1000, 3*1024 + 3} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewPlan(%d) did not panic", n)
				}
			}()
			NewPlan(n)
		}()
	}
}
