package compare

import (
	"math"
	"testing"
)

// removePairDelta returns the exact single-step delta(eps) of R(q, a) =
// ((1-q) N(0,1) + q N(a,1), N(0,1)), the larger of both directions: the
// loss ln(1-q+q exp(a t - a^2/2)) is increasing in t, so each direction's
// optimal event is a half line with a closed-form end.
func removePairDelta(a, q, eps float64) float64 {
	tail := func(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) } // P(Z > x)
	// A||B: t > t_e, L(t_e) = eps
	te := (math.Log((math.Expm1(eps)+q)/q) + a*a/2) / a
	ab := (1-q)*tail(te) + q*tail(te-a) - math.Exp(eps)*tail(te)
	// B||A: t < t'_e, L(t'_e) = -eps, if e^-eps > 1-q
	ba := 0.0
	if v := math.Expm1(-eps) + q; v > 0 {
		tp := (math.Log(v/q) + a*a/2) / a
		ba = tail(-tp) - math.Exp(eps)*((1-q)*tail(-tp)+q*tail(a-tp))
	}
	return math.Max(math.Max(ab, ba), 0)
}

// quadLogM returns ln E_B[(1+qX)^(1-lambda)] (X = exp(a z - a^2/2) - 1,
// z ~ N(0,1)) by Simpson's rule with n intervals over [-14, a+14] of
// phi(z) g(qX(z)), g(x) = (1+x)^(1-lambda) - 1 - (1-lambda) x evaluated
// through the same cancellation-free identities as the bound (lossTailK,
// lossTailM, lossTailE are checked separately): a reference, not a bound.
func quadLogM(a, q, lambda float64, n int) float64 {
	g := func(z float64) float64 {
		x := q * math.Expm1(a*z-a*a/2)
		v := lambda*lossTailK(x) + (1+x)*lossTailE(lambda*math.Log1p(x))
		if lambda > 0.5 {
			s := 1 - lambda
			v = s*lossTailM(x) + lossTailE(-s*math.Log1p(x))
		}
		return v * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
	}
	lo, hi := -14.0, 2*a+14
	return math.Log1p(simpson(g, lo, hi, n))
}

// TestLossTailHelpers checks k(x) = x - (1+x) log1p(x) and e(y) = expm1(-y)
// + y, whose series replace the direct forms below 0.1 in absolute value,
// against the direct forms where these have no cancellation to speak of
// and against their leading terms where they do.
func TestLossTailHelpers(t *testing.T) {
	for _, x := range []float64{-0.5, -0.1, -0.0999999, -0.01, -1e-5, 1e-8, 1e-3, 0.0999999, 0.1, 0.5, 3, 1e6} {
		k := lossTailK(x)
		if math.Abs(x) > 0.05 {
			if d := x - (1+x)*math.Log1p(x); math.Abs(k-d) > 1e-13*math.Abs(d) {
				t.Errorf("k(%g) = %.17g, direct %.17g", x, k, d)
			}
		} else if lead := -x * x / 2 * (1 - x/3); math.Abs(k-lead) > math.Abs(x*x*x*x)/10 {
			t.Errorf("k(%g) = %.17g, leading terms %.17g", x, k, lead)
		}
		if k > 0 {
			t.Errorf("k(%g) = %g > 0", x, k)
		}
	}
	for _, x := range []float64{-0.5, -0.1, -0.0999999, -0.01, -1e-5, 1e-8, 1e-3, 0.0999999, 0.1, 0.5, 3, 1e6} {
		m := lossTailM(x)
		if math.Abs(x) > 0.05 {
			if d := math.Log1p(x) - x; math.Abs(m-d) > 1e-13*math.Abs(d) {
				t.Errorf("m(%g) = %.17g, direct %.17g", x, m, d)
			}
		} else if lead := -x * x / 2 * (1 - 2*x/3); math.Abs(m-lead) > math.Abs(x*x*x*x)/3 {
			t.Errorf("m(%g) = %.17g, leading terms %.17g", x, m, lead)
		}
		if m > 0 {
			t.Errorf("m(%g) = %g > 0", x, m)
		}
	}
	for _, y := range []float64{-3, -0.1, -0.0999999, -1e-3, -1e-9, 1e-12, 1e-4, 0.0999999, 0.1, 2, 50} {
		e := lossTailE(y)
		if math.Abs(y) > 0.05 {
			if d := math.Expm1(-y) + y; math.Abs(e-d) > 1e-13*math.Abs(d) {
				t.Errorf("e(%g) = %.17g, direct %.17g", y, e, d)
			}
		} else if lead := y * y / 2 * (1 - y/3); math.Abs(e-lead) > y*y*y*y/10 {
			t.Errorf("e(%g) = %.17g, leading terms %.17g", y, e, lead)
		}
		if e < 0 {
			t.Errorf("e(%g) = %g < 0", y, e)
		}
	}
}

// TestLossTailMoments checks the per-step log moments, the one quantity of
// the bound that is computed rather than derived, against Simpson's rule at
// 2^17 and 2^18 intervals (agreeing to 1e-9): they must lie above the reference (they bound
// ln M from above; M < 1) and within 1% of it, so a bound made 1% too small
// (more negative) fails.
func TestLossTailMoments(t *testing.T) {
	cases := []struct{ a, q float64 }{{2 / 0.5775, 1e-5}, {1, 0.01}, {0.25, 0.1}, {5, 1e-3}, {0.5, 0.9}}
	for _, c := range cases {
		lt, err := NewLossTailLower(c.a, c.q)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < len(lt.lambda); k += 10 {
			lam := lt.lambda[k]
			ref := quadLogM(c.a, c.q, lam, 1<<17)
			if ref2 := quadLogM(c.a, c.q, lam, 1<<18); math.Abs(ref2-ref) > 1e-9*math.Abs(ref) {
				t.Logf("a %g q %g lambda %g: Simpson not converged (%g, %g), skipped", c.a, c.q, lam, ref, ref2)
				continue
			}
			got := lt.logM[k]
			if got < ref {
				t.Errorf("a %g q %g lambda %g: log moment bound %.17g below the reference %.17g", c.a, c.q, lam, got, ref)
			}
			if got > 0.99*ref {
				t.Errorf("a %g q %g lambda %g: log moment bound %.17g looser than 1%% of %.17g", c.a, c.q, lam, got, ref)
			}
		}
	}
}

// TestLossTailLowerSingleStep checks the bound at r = 1 against the exact
// delta of the pair (closed form) and, for EpsLower, against the exact
// delta at the eps it returns.
func TestLossTailLowerSingleStep(t *testing.T) {
	cases := []struct{ a, q float64 }{{2 / 0.5775, 1e-5}, {1, 0.01}, {3, 0.3}, {0.5, 0.5}, {6, 0.01}}
	for _, c := range cases {
		lt, err := NewLossTailLower(c.a, c.q)
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 0.01, 0.1, 0.5, 1, 2, 4} {
			if got, want := lt.DeltaLower(1, eps), removePairDelta(c.a, c.q, eps); got > want {
				t.Errorf("a %g q %g eps %g: DeltaLower %.17g above the exact delta %.17g", c.a, c.q, eps, got, want)
			}
		}
		for _, d := range []float64{1e-8, 1e-5, 1e-3, 0.1, 0.5} {
			e := lt.EpsLower(1, d)
			if e > 0 && removePairDelta(c.a, c.q, e) < d {
				t.Errorf("a %g q %g delta %g: EpsLower %.17g, where the exact delta is %.17g < delta", c.a, c.q, d, e, removePairDelta(c.a, c.q, e))
			}
		}
	}
}

// TestLossTailLowerLargeR checks the bound where it is meant to work: many
// steps of small losses, eps(delta) beyond 0.9 r KL(A||B) (the mean of the
// composed loss; KL from Simpson's rule on the log moments' slope at small
// lambda), and consistent with DeltaLower; at sigma 0.5775, q 1e-5, r 2^30
// (fixed-size DP-SGD's pair, shift 2/sigma) the composed loss has mean
// about 954 nats and sd about 59, the tilted bound passes it, and the
// tight eps(1e-5) is about 1215 (dp_accounting's pessimistic PLD,
// intervals 1e-4 to 1e-5: 1215.50, 1215.17, 1215.07).
func TestLossTailLowerLargeR(t *testing.T) {
	cases := []struct {
		a, q   float64
		r      int
		lo, hi float64 // expected range of EpsLower(1e-5)
	}{
		{2 / 0.5775, 1e-5, 1 << 30, 1040, 1215}, // tilted; the tight eps is about 1215
		{1, 0.01, 1 << 20, 0, 0},                // filled from KL below
	}
	for _, c := range cases {
		lt, err := NewLossTailLower(c.a, c.q)
		if err != nil {
			t.Fatal(err)
		}
		kl := -quadLogM(c.a, c.q, 1e-6, 1<<20) / 1e-6 // ~ KL(A||B)
		mean := float64(c.r) * kl
		lo, hi := c.lo, c.hi
		if hi == 0 {
			lo, hi = 0.9*mean, 2*mean
		}
		e := lt.EpsLower(c.r, 1e-5)
		if e < lo || e > hi {
			t.Errorf("a %g q %g r %d: EpsLower(1e-5) = %g, want in [%g, %g] (r KL = %g)", c.a, c.q, c.r, e, lo, hi, mean)
		}
		if d := lt.DeltaLower(c.r, e); d < 1e-5*(1-1e-6) {
			t.Errorf("a %g q %g r %d: DeltaLower(EpsLower(1e-5) = %g) = %g < 1e-5", c.a, c.q, c.r, e, d)
		}
	}
}

// TestNewLossTailLowerErrors checks the parameter checks.
func TestNewLossTailLowerErrors(t *testing.T) {
	for _, c := range [][2]float64{{0, 0.1}, {-1, 0.1}, {math.Inf(1), 0.1}, {math.NaN(), 0.1}, {1, 0}, {1, 1}, {1, math.NaN()}, {101, 0.1}} {
		if _, err := NewLossTailLower(c[0], c[1]); err == nil {
			t.Errorf("NewLossTailLower(%g, %g): no error", c[0], c[1])
		}
	}
}

// quadLambda returns Lambda(theta) = ln E_B[(1+qX)^(1+theta)] by Simpson's
// rule with n intervals over [-14, 2a+14] of phi(z) h(qX(z)), h(x) =
// (1+x)^(1+theta) - 1 - (1+theta) x = -theta k(x) + (1+x) e(-theta
// log1p(x)): a reference, not a bound.
func quadLambda(a, q, theta float64, n int) float64 {
	g := func(z float64) float64 {
		x := q * math.Expm1(a*z-a*a/2)
		v := -theta*lossTailK(x) + (1+x)*lossTailE(-theta*math.Log1p(x))
		return v * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
	}
	lo, hi := -14.0, 2*a+14
	return math.Log1p(simpson(g, lo, hi, n))
}

// TestLossTailTiltMoments checks the tilted log moments Lambda(theta)
// against Simpson's rule (2^17 and 2^18 intervals agreeing to 1e-9): the
// lower bound below it and the upper bound above, both within 1%, so
// that either made 1% wrong fails.
func TestLossTailTiltMoments(t *testing.T) {
	cases := []struct{ a, q float64 }{{2 / 0.5775, 1e-5}, {1, 0.01}, {0.25, 0.1}, {5, 1e-3}, {0.5, 0.9}}
	for _, c := range cases {
		lt, err := NewLossTailLower(c.a, c.q)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < len(lt.theta); j += 5 {
			th := lt.theta[j]
			ref := quadLambda(c.a, c.q, th, 1<<17)
			if ref2 := quadLambda(c.a, c.q, th, 1<<18); math.Abs(ref2-ref) > 1e-9*ref {
				t.Logf("a %g q %g theta %g: Simpson not converged (%g, %g), skipped", c.a, c.q, th, ref, ref2)
				continue
			}
			lo, hi := lt.lamLo[j], lt.lamUp[j]
			if lo > ref || hi < ref {
				t.Errorf("a %g q %g theta %g: [%.17g, %.17g] does not hold the reference %.17g", c.a, c.q, th, lo, hi, ref)
			}
			if lo < 0.99*ref || hi > 1.01*ref {
				t.Errorf("a %g q %g theta %g: [%.17g, %.17g] wider than 1%% around %.17g", c.a, c.q, th, lo, hi, ref)
			}
		}
	}
}
