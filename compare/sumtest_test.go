package compare

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestSumTestGaussExact checks the sum test against the closed form where
// it is tight: with q = 1 every step adds the shift, S is N(r, sigma^2 r)
// against N(0, sigma^2 r), and the best threshold test on S is the
// Neyman-Pearson test of the r-fold Gauss pair, so DeltaLower must be the
// exact delta (ExactGauss) up to its allowances, never above it.
func TestSumTestGaussExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 3))
	for i := 0; i < 40; i++ {
		sigma := math.Exp(rng.Float64()*math.Log(100)) * 0.5
		r := 1 + rng.IntN(1<<rng.IntN(31))
		s, err := NewSumTest(sigma, 1, r)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := ExactGauss(sigma, 1, r)
		mu := g.Mu()
		for _, z := range []float64{0, 0.5, 2, 4, 6} {
			eps := math.Max(0, mu*mu/2+z*mu-1)
			low, exact := s.DeltaLower(eps), g.Delta(eps)
			if !(low <= exact*(1+1e-9)+1e-300) {
				t.Errorf("sigma %v r %d eps %v: lower %v above the exact %v", sigma, r, eps, low, exact)
			}
			if exact > 1e-200 && !(low >= exact*(1-1e-6)) {
				t.Errorf("sigma %v r %d eps %v: lower %v, exact %v: not tight", sigma, r, eps, low, exact)
			}
		}
		for _, d := range []float64{1e-3, 1e-5, 1e-10} {
			el, ee := s.EpsLower(d), g.Eps(d)
			if ee > 1e4 { // beyond ExactGauss's eps search
				continue
			}
			if !(el <= ee*(1+1e-9)) || !(el >= ee*(1-1e-5)-1e-9) {
				t.Errorf("sigma %v r %d delta %v: eps lower %v, exact %v", sigma, r, d, el, ee)
			}
		}
	}
}

// TestSumTestBelowRDP checks the sum test of subsampled pairs against an
// independent upper bound of the same mechanism, Renyi DP over the
// sampled Gaussian's Renyi curve: every lower bound below it, in delta and
// in eps, over seeded random sigma, q and r up to 2^30.
func TestSumTestBelowRDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 4))
	for i := 0; i < 16; i++ {
		sigma := 0.5 + rng.Float64()*40
		q := math.Exp(-rng.Float64() * math.Log(1e5))
		r := 1 + rng.IntN(1<<rng.IntN(31))
		s, err := NewSumTest(sigma, q, r)
		if err != nil {
			t.Fatal(err)
		}
		rf, err := SampledGaussianRenyi(sigma, q)
		if err != nil {
			t.Fatal(err)
		}
		rdp, err := RDP(rf, r, Classic, RDPOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 0.1, 0.5, 1, 2, 5, 10, 50} {
			if low := s.DeltaLower(eps); !(low >= 0) || low > rdp.Delta(eps)+1e-300 {
				t.Errorf("sigma %v q %v r %d eps %v: lower %v, RDP %v", sigma, q, r, eps, low, rdp.Delta(eps))
			}
		}
		st := time.Now()
		for _, d := range []float64{1e-3, 1e-5, 1e-10} {
			if el, eu := s.EpsLower(d), rdp.Eps(d); !(el >= 0) || el > eu {
				t.Errorf("sigma %v q %v r %d delta %v: eps lower %v above RDP %v", sigma, q, r, d, el, eu)
			}
		}
		t.Logf("sigma %v q %v r %d: %v", sigma, q, r, time.Since(st))
	}
}

// TestSumTestIssue20 pins issue 20's DP-SGD case (sigma 5, q 1e-4, r =
// 2^25, delta 1e-5): the sum of the outputs proves eps >= 0.3999, below
// the buckets upper bound 0.4044 (20,000 buckets).
func TestSumTestIssue20(t *testing.T) {
	s, err := NewSumTest(5, 1e-4, 1<<25)
	if err != nil {
		t.Fatal(err)
	}
	if e := s.EpsLower(1e-5); !(e >= 0.3999 && e <= 0.4044) {
		t.Errorf("eps lower %v, want in [0.3999, 0.4044]", e)
	}
}
