package compare

import (
	"errors"
	"math"
	"testing"
)

// renyiIntegral computes D_alpha(P||Q) = 1/(alpha-1) log int p^alpha q^(1-alpha)
// by Simpson's rule on the given breakpoints (log densities lp, lq).
func renyiIntegral(lp, lq func(float64) float64, a float64, breaks []float64) float64 {
	var parts []float64
	for i := 0; i+1 < len(breaks); i++ {
		parts = append(parts, logSimpson(func(x float64) float64 { return a*lp(x) + (1-a)*lq(x) }, breaks[i], breaks[i+1], 20000))
	}
	return logSumExp(parts) / (a - 1)
}

func TestRenyiClosedFormsVsIntegration(t *testing.T) {
	lgau := func(mu, s float64) func(float64) float64 {
		return func(x float64) float64 { return logNormPDF((x-mu)/s) - math.Log(s) }
	}
	llap := func(mu, b float64) func(float64) float64 {
		return func(x float64) float64 { return -math.Abs(x-mu)/b - math.Log(2*b) }
	}
	g, _ := GaussRenyi(2, 1.5)
	l, _ := LaplaceRenyi(2, 1)
	for _, a := range []float64{1.25, 2, 3.7, 10, 40} {
		want := renyiIntegral(lgau(1.5, 2), lgau(0, 2), a, []float64{-60, 0, 1.5, 30 + 4*a*1.5, 200})
		checkRel(t, "Gauss D", g(a), want, 1e-9)
		// Laplace: both directions are equal; kinks at 0 and 1
		want = renyiIntegral(llap(0, 2), llap(1, 2), a, []float64{-200, 0, 1, 200})
		checkRel(t, "Laplace D", l(a), want, 1e-9)
		want2 := renyiIntegral(llap(1, 2), llap(0, 2), a, []float64{-200, 0, 1, 200})
		checkRel(t, "Laplace D reverse", l(a), want2, 1e-9)
	}
}

// RR Renyi and additivity: D_alpha of the r-fold product (by enumeration) is
// r times the single-round value.
func TestRRRenyiProduct(t *testing.T) {
	for _, p := range []float64{0.51, 0.7} {
		f, _ := RRRenyi(p)
		for _, r := range []int{1, 3, 6} {
			A, B := product([]float64{p, 1 - p}, r), product([]float64{1 - p, p}, r)
			for _, a := range []float64{1.5, 2, 7.3} {
				var s float64
				for i := range A {
					s += math.Pow(A[i], a) * math.Pow(B[i], 1-a)
				}
				checkRel(t, "RR product D", float64(r)*f(a), math.Log(s)/(a-1), 1e-11)
			}
		}
	}
}

func TestSampledGaussianRenyi(t *testing.T) {
	// independent integration of both directions with explicit densities
	direct := func(a, s, q float64, pq bool) float64 {
		lq := func(x float64) float64 { return logNormPDF(x/s) - math.Log(s) }
		lp := func(x float64) float64 {
			return logAddExp(math.Log1p(-q)+lq(x), math.Log(q)+logNormPDF((x-1)/s)-math.Log(s))
		}
		br := []float64{-30*s - a, 0, 30*s + a + 1}
		if pq {
			return renyiIntegral(lp, lq, a, br)
		}
		return renyiIntegral(lq, lp, a, br)
	}
	for _, c := range []struct{ s, q float64 }{{4, 0.01}, {1, 0.1}, {0.8, 0.5}} {
		f, _ := SampledGaussianRenyi(c.s, c.q)
		for _, a := range []float64{1.25, 2, 3, 5.5, 16, 64} {
			pq, qp := sgmRenyiPQ(a, c.s, c.q), sgmRenyiQP(a, c.s, c.q)
			checkRel(t, "SGM D(P||Q)", pq, direct(a, c.s, c.q, true), 1e-8)
			checkRel(t, "SGM D(Q||P)", qp, direct(a, c.s, c.q, false), 1e-8)
			if qp > pq*(1+1e-9) {
				t.Errorf("s=%g q=%g a=%g: D(Q||P)=%g > D(P||Q)=%g (Mironov-Talwar-Zhang Thm. 5)", c.s, c.q, a, qp, pq)
			}
			if got := f(a); got != math.Max(pq, qp) {
				t.Errorf("SampledGaussianRenyi(%g) = %g, want max of directions %g", a, got, math.Max(pq, qp))
			}
			if a == math.Trunc(a) { // binomial expansion vs integration path
				checkRel(t, "SGM binomial vs integral", pq, sgmLogIntegral(a, c.s, c.q, true)/(a-1), 1e-8)
			}
		}
	}
	one, _ := SampledGaussianRenyi(3, 1)
	checkRel(t, "SGM q=1", one(5), 5/18.0, 1e-15)
	zero, _ := SampledGaussianRenyi(3, 0)
	if zero(5) != 0 {
		t.Errorf("SGM q=0 D = %g, want 0", zero(5))
	}
}

// Published DP-SGD numbers (Abadi et al.; paper Section 5.4):
// sigma = 4, q = 0.01, r = 2^16, delta = 1e-5.
func TestDPSGDPublished(t *testing.T) {
	f, _ := SampledGaussianRenyi(4, 0.01)
	c, err := RDP(f, 1<<16, Classic, RDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eps, alpha := c.EpsOrder(1e-5)
	if math.Abs(eps-3.338) > 6e-4 || alpha < 7.5 || alpha > 9.5 {
		t.Errorf("classic: eps = %.5f at order %.3f, want 3.338 at about 8.3", eps, alpha)
	}
	if c.Conversion() != Classic || c.Conversion().String() != "classic" {
		t.Errorf("conversion = %v", c.Conversion())
	}
	ci, _ := RDP(f, 1<<16, Improved, RDPOptions{})
	epsI, _ := ci.EpsOrder(1e-5)
	if math.Abs(epsI-2.9079) > 2e-4 { // dp_accounting RDP accountant: 2.9079
		t.Errorf("improved: eps = %.5f, want 2.9079", epsI)
	}
	// delta(eps) is the inverse
	checkRel(t, "classic Delta(Eps)", c.Delta(eps), 1e-5, 1e-9)
	checkRel(t, "improved Delta(Eps)", ci.Delta(epsI), 1e-5, 1e-9)
}

func TestRDPConversions(t *testing.T) {
	g, _ := GaussRenyi(10, 1)
	c, _ := RDP(g, 100, Classic, RDPOptions{})
	ci, _ := RDP(g, 100, Improved, RDPOptions{})
	rho := 100 / 200.0
	for _, d := range []float64{1e-3, 1e-6, 1e-12} {
		// continuous optimum of alpha*rho + ln(1/d)/(alpha-1)
		lower := rho + 2*math.Sqrt(rho*math.Log(1/d))
		e := c.Eps(d)
		if e < lower*(1-1e-12) || e > lower*1.001 {
			t.Errorf("classic Gauss eps(%g) = %g, continuous optimum %g", d, e, lower)
		}
		if ci.Eps(d) > e {
			t.Errorf("improved eps(%g) = %g worse than classic %g", d, ci.Eps(d), e)
		}
	}
	for _, e := range []float64{0.5, 2, 5} {
		if ci.Delta(e) > c.Delta(e) {
			t.Errorf("improved delta(%g) = %g worse than classic %g", e, ci.Delta(e), c.Delta(e))
		}
	}
	// a hand-checked single order: alpha = 2, D = 0.1, eps = 1
	one, _ := RDP(func(float64) float64 { return 0.1 }, 1, Classic, RDPOptions{Orders: []float64{2}})
	checkRel(t, "classic delta, one order", one.Delta(1), math.Exp(-0.9), 1e-15)
	oneI, _ := RDP(func(float64) float64 { return 0.1 }, 1, Improved, RDPOptions{Orders: []float64{2}})
	// min( exp((2-1)(0.1 - 1 + log(1/2)) - log 2), sqrt(1 - exp(-0.1)) )
	checkRel(t, "improved delta, one order", oneI.Delta(1), math.Exp(-0.9)/4, 1e-15)
	checkRel(t, "improved delta, KL bound", oneI.Delta(-0+0), math.Min(math.Exp(0.1-math.Log(4)), math.Sqrt(-math.Expm1(-0.1))), 1e-15)
	if inf, _ := RDP(func(float64) float64 { return math.Inf(1) }, 3, Classic, RDPOptions{}); inf.Delta(5) != 1 || !math.IsInf(inf.Eps(0.1), 1) {
		t.Errorf("infinite divergence: Delta=%g Eps=%g", inf.Delta(5), inf.Eps(0.1))
	}
}

func TestCDP(t *testing.T) {
	g, _ := GaussRenyi(10, 1)
	c, err := CDP(g, 100, CDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rho := 100 / 200.0
	for _, d := range []float64{1e-3, 1e-6} {
		checkRel(t, "CDP Gauss eps", c.Eps(d), rho+2*math.Sqrt(rho*math.Log(1/d)), 1e-9)
	}
	e := 3.0
	checkRel(t, "CDP Gauss delta", c.Delta(e), math.Exp(-(e-rho)*(e-rho)/(4*rho)), 1e-9)
	_, fit := c.EpsFit(1e-6)
	if fit.Xi > 1e-12 || relErr(fit.Rho, 1/200.0) > 1e-9 {
		t.Errorf("Gauss fit = %+v, want (0, 1/200)", fit)
	}
	// every admissible fit dominates the curve at the checked orders
	rr, _ := RRRenyi(0.6)
	cr, err := CDP(rr, 10, CDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cr.Fits() {
		for _, a := range DefaultCDPOrders() {
			if rr(a) > f.Xi+f.Rho*a+1e-12 {
				t.Fatalf("fit %+v below D at alpha=%g", f, a)
			}
		}
	}
	// the verification step: a curve that bends up between checked orders
	// (not a true Renyi curve) is caught at alpha*
	bump := func(a float64) float64 {
		if a > 3 && a < 3.5 {
			return 10
		}
		return 0.01 * a
	}
	cb, err := CDP(bump, 1, CDPOptions{Orders: []float64{2, 3, 3.5, 4, 8, 16}})
	if err != nil {
		t.Fatal(err)
	}
	L := math.Log(1 / 1e-3)
	// fit (0, 0.01) would put alpha* = 1 + sqrt(L/0.01) = 27.3, outside the bump
	checkRel(t, "CDP verified eps", cb.Eps(1e-3), 0.01+2*math.Sqrt(0.01*L), 1e-9)
	// at delta where alpha* falls inside (3, 3.5) the line is not trusted
	d := math.Exp(-0.01 * 2.2 * 2.2) // alpha* = 3.2
	if got := cb.Eps(d); got < 10 {
		t.Errorf("CDP Eps(%g) = %g trusts the fit inside the bump (D = 10 there)", d, got)
	}
	// no fit: infinite, NaN or superlinear curves
	for name, f := range map[string]RenyiFunc{
		"infinite":  func(float64) float64 { return math.Inf(1) },
		"quadratic": func(a float64) float64 { return 0.01 * a * a },
		"exp":       func(a float64) float64 { return math.Exp(a / 100) },
	} {
		if _, err := CDP(f, 10, CDPOptions{}); !errors.Is(err, ErrNoCDPFit) {
			t.Errorf("%s curve: err = %v, want ErrNoCDPFit", name, err)
		}
	}
}

func TestComposeRenyi(t *testing.T) {
	g1, _ := GaussRenyi(2, 1)
	g2, _ := GaussRenyi(4, 1)
	c, err := ComposeRenyi([]RenyiFunc{g1, g2}, []int{3, 5})
	if err != nil {
		t.Fatal(err)
	}
	// 3 rounds sigma 2 + 5 rounds sigma 4 = one Gauss with 1/s^2 = 3/4 + 5/16
	checkRel(t, "composed Gauss D", c(7), 7*(3.0/4+5.0/16)/2, 1e-15)
	if _, err := ComposeRenyi([]RenyiFunc{g1}, []int{1, 2}); err == nil {
		t.Error("mismatched lengths accepted")
	}
	if _, err := ComposeRenyi([]RenyiFunc{g1}, []int{-1}); err == nil {
		t.Error("negative count accepted")
	}
}
