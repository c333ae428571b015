package compare

import (
	"math"
	"testing"
)

// KOV fed with randomized response's own pair (eps0, 0) must reproduce the
// exact r-fold delta at eps = (r - 2i) eps0 (KOV's theorem is tight there).
// ExactRR uses a different formula (sum over k of the positive part).
func TestKOVEqualsExactRR(t *testing.T) {
	for _, p := range []float64{0.51, 0.6, 0.9} {
		d0, _ := RRDelta0(p)
		for _, r := range []int{1, 2, 7, 64, 512, 4096, 1 << 16} {
			ex, _ := ExactRR(p, r)
			e0 := ex.Eps0()
			k, err := KOV(d0, r, KOVOptions{Eps0: []float64{e0}})
			if err != nil {
				t.Fatal(err)
			}
			step := 1
			if r > 512 {
				step = r / 512
			}
			n := 0
			for i := 0; i <= r/2; i += step {
				eps := float64(r-2*i) * e0
				want := ex.Delta(eps)
				if want < 1e-300 {
					continue
				}
				n++
				if got := k.Delta(eps); relErr(got, want) > 1e-9 {
					t.Errorf("p=%g r=%d i=%d: KOV %.15g, exact %.15g (rel %.2g)", p, r, i, got, want, relErr(got, want))
				}
			}
			if n == 0 && r > 1 {
				t.Errorf("p=%g r=%d: no points checked", p, r)
			}
			if r == 1 && k.Delta(e0) != 0 {
				t.Errorf("p=%g r=1: KOV delta(eps0) = %g, want 0", p, k.Delta(e0))
			}
		}
	}
}

// With a full default grid plus the exact eps0, KOV still meets the exact
// value at the points (other grid points can only give larger bounds), and
// the r = 2^20 case runs.
func TestKOVGridRR(t *testing.T) {
	for _, c := range []struct {
		p float64
		r int
	}{{0.51, 512}, {0.55, 1 << 20}} {
		ex, _ := ExactRR(c.p, c.r)
		d0, _ := RRDelta0(c.p)
		g, _ := GeometricGrid(1e-6, 10, 1.05)
		k, err := KOV(d0, c.r, KOVOptions{Eps0: append(g, ex.Eps0())})
		if err != nil {
			t.Fatal(err)
		}
		mean := float64(c.r) * (2*c.p - 1) * ex.Eps0() // mean privacy loss
		for _, f := range []float64{0, 0.5, 0.9, 1, 1.05, 1.1} {
			i := int(float64(c.r)/2 - f*mean/(2*ex.Eps0()))
			if i < 0 || i > c.r/2 {
				continue
			}
			eps := float64(c.r-2*i) * ex.Eps0()
			want := ex.Delta(eps)
			if want < 1e-300 {
				continue
			}
			if got := k.Delta(eps); relErr(got, want) > 1e-9 {
				t.Errorf("p=%g r=%d eps=%g: KOV %.15g, exact %.15g", c.p, c.r, eps, got, want)
			}
		}
	}
}

// KOV is tight for the worst-case pair M_{eps,delta}: compare with brute-force
// enumeration of the r-fold product of the four-outcome distributions, and
// with a direct float evaluation of Theorem 3's formula.
func TestKOVEpsDeltaPair(t *testing.T) {
	for _, c := range []struct{ e, d float64 }{{0.3, 1e-3}, {1, 0.05}, {0.05, 0}} {
		ee := math.Exp(c.e)
		pa := []float64{c.d, (1 - c.d) * ee / (1 + ee), (1 - c.d) / (1 + ee), 0}
		pb := []float64{0, (1 - c.d) / (1 + ee), (1 - c.d) * ee / (1 + ee), c.d}
		d0, _ := EpsDeltaDelta0(c.e, c.d)
		for r := 1; r <= 7; r++ {
			k, err := KOV(d0, r, KOVOptions{Eps0: []float64{c.e}})
			if err != nil {
				t.Fatal(err)
			}
			A, B := product(pa, r), product(pb, r)
			for i := 0; i <= r/2; i++ {
				eps := float64(r-2*i) * c.e
				brute := bruteDelta(A, B, eps)
				// direct Theorem 3
				var s float64
				for l := 0; l < i; l++ {
					s += binom(r, l) * (math.Exp(float64(r-l)*c.e) - math.Exp(float64(r-2*i+l)*c.e))
				}
				di := s / math.Pow(1+ee, float64(r))
				direct := 1 - math.Pow(1-c.d, float64(r))*(1-di)
				got := k.Delta(eps)
				if math.Abs(got-brute) > 1e-13 || math.Abs(got-direct) > 1e-13 {
					t.Errorf("M_{%g,%g} r=%d i=%d: KOV %.15g, brute force %.15g, direct formula %.15g", c.e, c.d, r, i, got, brute, direct)
				}
			}
		}
	}
}

func binom(n, k int) float64 {
	b := 1.0
	for j := 1; j <= k; j++ {
		b = b * float64(n-k+j) / float64(j)
	}
	return b
}

// Front invariants and Delta/Eps consistency on a Gauss run at r = 2^16.
func TestKOVFrontGauss(t *testing.T) {
	d0, _ := GaussDelta0(4, 1)
	k, err := KOV(d0, 1<<16, KOVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := k.Front()
	if len(f) < 100 {
		t.Fatalf("front has only %d points", len(f))
	}
	for i := 1; i < len(f); i++ {
		if !(f[i].Eps > f[i-1].Eps && f[i].Delta < f[i-1].Delta) {
			t.Fatalf("front not strictly monotone at %d: %v %v", i, f[i-1], f[i])
		}
	}
	ex, _ := ExactGauss(4, 1, 1<<16)
	// mu = 64: the privacy loss is N(2048, 64^2)
	for _, eps := range []float64{1500, 2000, 2100, 2300, 2500} {
		d := k.Delta(eps)
		t.Logf("eps=%g KOV %.6g exact %.6g", eps, d, ex.Delta(eps))
		if d < ex.Delta(eps)*(1-1e-12) {
			t.Errorf("KOV delta(%g) = %g below exact %g", eps, d, ex.Delta(eps))
		}
		if d < 1 {
			if e := k.Eps(d); e > eps {
				t.Errorf("Eps(Delta(%g)) = %g > %g", eps, e, eps)
			}
		}
	}
	if k.Delta(-1) != 1 || !math.IsNaN(k.Delta(math.NaN())) || k.Eps(1) != 0 {
		t.Errorf("edge cases: Delta(-1)=%g Delta(NaN)=%g Eps(1)=%g", k.Delta(-1), k.Delta(math.NaN()), k.Eps(1))
	}
}

func TestAdvancedHandChecked(t *testing.T) {
	pure, _ := EpsDeltaDelta0(0.1, 0)
	a, err := Advanced(pure, 100, AdvancedOptions{Eps0: []float64{0.1}})
	if err != nil {
		t.Fatal(err)
	}
	// sqrt(2*100*ln(1e5))*0.1 + 100*0.1*(e^0.1-1), computed by hand (python)
	checkRel(t, "advanced eps(1e-5)", a.Eps(1e-5), 5.8502350929445575, 1e-13)
	// delta at eps = 3: d = exp(-((3 - 10(e^0.1-1))/0.1)^2/200)
	checkRel(t, "advanced delta(3)", a.Delta(3), 0.14988026182295536, 1e-12)
	// with delta0 = 1e-8: the slack is 1e-5 - 100*1e-8
	ed, _ := EpsDeltaDelta0(0.1, 1e-8)
	b, _ := Advanced(ed, 100, AdvancedOptions{Eps0: []float64{0.1}})
	checkRel(t, "advanced eps(1e-5), delta0=1e-8", b.Eps(1e-5), 5.872141937393178, 1e-13)
	if b.Eps(1e-6) != math.Inf(1) {
		t.Errorf("advanced eps below k*delta0 = %g, want +Inf", b.Eps(1e-6))
	}
	// optimised over the Gauss curve it never beats exact and is consistent
	g, _ := GaussDelta0(10, 1)
	ag, _ := Advanced(g, 1000, AdvancedOptions{})
	ex, _ := ExactGauss(10, 1, 1000)
	for _, d := range []float64{1e-2, 1e-5, 1e-10} {
		e := ag.Eps(d)
		if e < ex.Eps(d) {
			t.Errorf("advanced eps(%g) = %g below exact %g", d, e, ex.Eps(d))
		}
		if got := ag.Delta(e * (1 + 1e-9)); got > d*(1+1e-6) {
			t.Errorf("advanced Delta(Eps(%g)) = %g", d, got)
		}
	}
}

func TestNaiveAdaptive(t *testing.T) {
	lap, _ := LaplaceDelta0(10, 1) // eps0 = 0.1, pure DP at eps >= 0.1
	n, _ := Naive(lap, 50)
	a, _ := Adaptive(lap, 50)
	if n.Delta(5) != 0 || a.Delta(5) != 0 {
		t.Errorf("50-fold 0.1-DP must be (5, 0)-DP: naive %g adaptive %g", n.Delta(5), a.Delta(5))
	}
	// at eps = 2.5 each round spends 0.05: delta0 = 1 - exp(-0.025)
	d0 := -math.Expm1(-0.025)
	checkRel(t, "naive delta(2.5)", n.Delta(2.5), math.Min(1, 50*d0), 1e-12)
	checkRel(t, "adaptive delta(2.5)", a.Delta(2.5), 1-math.Pow(1-d0, 50), 1e-12)
	checkRel(t, "naive eps(0)", n.Eps(0), 5, 1e-9)
	p, err := ComposeAdaptive([]Point{{0.1, 0.1}, {0.2, 0.2}, {0.3, 0}})
	if err != nil {
		t.Fatal(err)
	}
	checkRel(t, "Lemma 3 eps", p.Eps, 0.6, 1e-15)
	checkRel(t, "Lemma 3 delta", p.Delta, 0.1+0.9*0.2, 1e-15)
	q, _ := ComposeNaive([]Point{{0.1, 0.1}, {0.2, 0.2}})
	checkRel(t, "Lemma 2 delta", q.Delta, 0.3, 1e-15)
}

// The default grid finds randomized response's own eps0, so KOV with default
// options already meets the exact curve at the lattice (up to one ulp of eps0).
func TestKOVDefaultGridRR(t *testing.T) {
	d0, _ := RRDelta0(0.51)
	k, err := KOV(d0, 512, KOVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ex, _ := ExactRR(0.51, 512)
	for _, d := range []float64{1e-1, 1e-4, 1e-8} {
		ke, ee := k.Eps(d), ex.Eps(d)
		// exact eps(d) lies between lattice points; KOV returns the next one up
		if ke < ee*(1-1e-12) || ke > ee+2*ex.Eps0() {
			t.Errorf("eps(%g): KOV %.10g, exact %.10g (lattice step %.3g)", d, ke, ee, 2*ex.Eps0())
		}
	}
}
