package compare

import (
	"github.com/pbuckets/pbuckets/internal/bigref"
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// quadLogB returns ln B_a, B_a = E_Q[(Q/P)^(a-1)], by the trapezoid rule
// with step s/h over [-40 s - a, 40 s + 1] of g(z) = (1+u)^-b - 1 + b u
// (u = q expm1((2z-1)/(2 s^2)), b = a-1; g >= 0 and E[b u] = 0, so no
// cancellation) against the N(0, s^2) density. For these smooth Gaussian
// integrands the rule converges geometrically; its error is estimated by
// halving the step (not bounded rigorously: a check, not a bound).
func quadLogB(a int, s, q float64, h float64) float64 { return quadLogB2(float64(a), s, q, h) }

// TestSampledGaussianRenyiUpperCertified checks the certified curve on a
// grid of (sigma, q, alpha) against references: D_alpha(P||Q) against
// A_alpha in math/big (the bound must satisfy exp((alpha-1) U) >= A_alpha
// exactly, and its ln A part be within 1e-9 relative of ln A),
// D_alpha(Q||P) against a quadrature at two steps (U >= it). The bound on
// D_alpha(Q||P) is looser (for q >= 0.1 at large orders, and at alpha = 2
// for sigma <= 0.8, it exceeds D_alpha(P||Q)); only its soundness is
// checked.
func TestSampledGaussianRenyiUpperCertified(t *testing.T) {
	sigmas := []float64{0.5, 0.8, 1.1, 2, 5, 31.48, 100}
	qs := []float64{1e-6, 1e-4, 0.01, 0.1, 0.5, 0.9}
	alphas := []int{2, 3, 4, 7, 16, 32, 64, 128, 256}
	if testing.Short() {
		alphas = []int{2, 3, 16, 64}
	}
	for _, s := range sigmas {
		for _, q := range qs {
			f, err := SampledGaussianRenyiUpper(s, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range alphas {
				u := f(float64(a))
				// soundness in math/big: exp((a-1) u) >= A_a
				x := new(big.Float).Mul(bigref.F(float64(a-1)), bigref.F(u))
				A := bigref.A(a, s, q)
				if bigref.Exp(x).Cmp(A) < 0 {
					t.Errorf("sigma %g q %g alpha %d: exp((alpha-1) U) < A_alpha (U = %.17g)", s, q, a, u)
				}
				// the lower bound on ln A (used by sgmLogANewtonUpper)
				if ll := sgmLogALower(a, 1/(2*s*s)*(1-certEps), q); bigref.Exp(bigref.F(ll)).Cmp(A) > 0 {
					t.Errorf("sigma %g q %g alpha %d: exp(sgmLogALower) = exp(%.17g) > A_alpha", s, q, a, ll)
				}
				// tightness of the D(P||Q) part: within 1e-9 of ln A
				am1, _ := new(big.Float).Sub(A, bigref.F(1)).Float64()
				if la, lau := math.Log1p(am1), sgmLogAUpper(a, 1/(2*s*s)*(1+certEps), q); !math.IsInf(am1, 1) && lau > la*(1+1e-9)+1e-300 {
					t.Errorf("sigma %g q %g alpha %d: bound on ln A = %.17g, ln A = %.17g: looser than 1e-9", s, q, a, lau, la)
				}
				lb := quadLogB(a, s, q, s/32)
				if lb2 := quadLogB(a, s, q, s/64); math.Abs(lb2-lb) > 1e-12*lb+1e-300 {
					t.Logf("sigma %g q %g alpha %d: quadrature not converged (%g vs %g), skipped", s, q, a, lb, lb2)
					lb = math.NaN()
				}
				got := float64(a-1) * u
				if !math.IsNaN(lb) && got < lb*(1-1e-10) {
					t.Errorf("sigma %g q %g alpha %d: (alpha-1) U = %.17g below the quadrature's ln B = %.17g", s, q, a, got, lb)
				}
			}
		}
	}
}

// quadLogA returns ln A_a = ln E_Q[(1+u)^a] for real a by the trapezoid
// rule as quadLogB, on g = (1+u)^a - 1 - a u (>= 0, E[a u] = 0).
func quadLogA(a float64, s, q float64, h float64) float64 {
	sum := 0.0
	lo, hi := -40*s-1, 40*s+a+1
	n := int((hi-lo)/h) + 1
	for i := 0; i < n; i++ {
		z := lo + float64(i)*h
		u := q * math.Expm1((2*z-1)/(2*s*s))
		var g float64
		if math.Abs(u) < 1e-3 {
			term, acc := 1.0, 0.0
			for j := 1; j < 40; j++ {
				term *= (a - float64(j) + 1) / float64(j) * u
				if j >= 2 {
					acc += term
				}
			}
			g = acc
		} else {
			g = math.Expm1(a*math.Log1p(u)) - a*u
		}
		sum += g * math.Exp(-z*z/(2*s*s)) / (s * math.Sqrt(2*math.Pi))
	}
	return math.Log1p(sum * h)
}

// TestSampledGaussianRenyiUpperFractional checks the fractional orders
// (Taylor-Lagrange bounds below 7.5, Newton's forward interpolation and
// chords between integer orders) against quadratures of both directions
// (converged to 1e-12 at two steps): never below, and within 1e-4 of them
// where q <= 0.01 and sigma >= 1 below 7.5 (Taylor) and on the smooth
// cases above (Newton); never above the bound at the next integer.
func TestSampledGaussianRenyiUpperFractional(t *testing.T) {
	for _, c := range [][2]float64{{5, 1e-4}, {31.48, 0.01}, {2, 0.01}, {1.1, 0.01}, {0.8, 0.1}, {5, 0.5}} {
		s, q := c[0], c[1]
		f, _ := SampledGaussianRenyiUpper(s, q)
		for _, a := range []float64{1.01, 1.1, 1.5, 1.67, 2.5, 3.62, 4.93, 7.3, 10.25, 100.5} {
			u := f(a)
			la, lb := quadLogA(a, s, q, s/32), quadLogB2(a, s, q, s/32)
			la2, lb2 := quadLogA(a, s, q, s/64), quadLogB2(a, s, q, s/64)
			if math.Abs(la2-la) > 1e-12*la || math.Abs(lb2-lb) > 1e-12*lb {
				t.Logf("sigma %g q %g alpha %g: quadrature not converged, skipped", s, q, a)
				continue
			}
			want := math.Max(la2, lb2) / (a - 1)
			if u < want*(1-1e-10) {
				t.Errorf("sigma %g q %g alpha %g: bound %.17g below the quadrature's %.17g", s, q, a, u, want)
			}
			smooth := (s == 5 || s == 31.48 || s == 2) && a < 120 // Newton's interpolation tight (no steep rise of D)
			if q <= 0.01 && s >= 1 && (a < 7.5 || smooth) && u > want*(1+1e-4) {
				t.Errorf("sigma %g q %g alpha %g: bound %.17g looser than 1e-4 (quadrature %.17g)", s, q, a, u, want)
			}
			if hi := f(math.Ceil(a)); u > hi {
				t.Errorf("sigma %g q %g alpha %g: %.17g above the bound at the next integer %.17g", s, q, a, u, hi)
			}
		}
	}
}

// quadLogB2 is quadLogB for real orders.
func quadLogB2(a float64, s, q float64, h float64) float64 {
	b := a - 1
	sum := 0.0
	lo, hi := -40*s-a, 40*s+1
	n := int((hi-lo)/h) + 1
	for i := 0; i < n; i++ {
		z := lo + float64(i)*h
		u := q * math.Expm1((2*z-1)/(2*s*s))
		var g float64
		if math.Abs(u) < 1e-3 {
			term, acc := 1.0, 0.0
			for j := 1; j < 40; j++ {
				term *= -(b + float64(j) - 1) / float64(j) * u
				if j >= 2 {
					acc += term
				}
			}
			g = acc
		} else {
			g = math.Expm1(-b*math.Log1p(u)) + b*u
		}
		sum += g * math.Exp(-z*z/(2*s*s)) / (s * math.Sqrt(2*math.Pi))
	}
	return math.Log1p(sum * h)
}

// TestCertifiedClosedForms checks the certified Gauss, Laplace and RR
// curves against math/big at integer orders, including near-cancelling
// parameters (tiny eps0, p near 1/2) where a relative pad would not do.
func TestCertifiedClosedForms(t *testing.T) {
	for _, a := range []int{2, 3, 10, 64} {
		af := float64(a)
		// Gauss: D = a sens^2/(2 sigma^2), both exact in big.
		for _, s := range []float64{0.3, 1, 7.77, 1e3} {
			g, _ := GaussRenyiUpper(s, 1.3)
			want := new(big.Float).Quo(new(big.Float).Mul(bigref.F(af), new(big.Float).Mul(bigref.F(1.3), bigref.F(1.3))), new(big.Float).Mul(bigref.F(2), new(big.Float).Mul(bigref.F(s), bigref.F(s))))
			if bigref.F(g(af)).Cmp(want) < 0 {
				t.Errorf("Gauss sigma %g alpha %d: %.17g below the exact value", s, a, g(af))
			}
		}
		// Laplace: exp((a-1) D) = a/(2a-1) e^((a-1) e0) + (a-1)/(2a-1) e^(-a e0).
		for _, b := range []float64{1e-9, 1e-3, 1, 1e3} {
			l, _ := LaplaceRenyiUpper(b, 1)
			e0 := new(big.Float).Quo(bigref.F(1), bigref.F(b))
			t1 := new(big.Float).Mul(new(big.Float).Quo(bigref.F(af), bigref.F(2*af-1)), bigref.Exp(new(big.Float).Mul(bigref.F(af-1), e0)))
			t2 := new(big.Float).Mul(new(big.Float).Quo(bigref.F(af-1), bigref.F(2*af-1)), bigref.Exp(new(big.Float).Mul(bigref.F(-af), e0)))
			x := new(big.Float).Mul(bigref.F(af-1), bigref.F(l(af)))
			want := new(big.Float).Add(t1, t2)
			if bigref.Exp(x).Cmp(want) < 0 && new(big.Float).Quo(bigref.F(l(af)), e0).Cmp(bigref.F(1)) < 0 {
				t.Errorf("Laplace scale %g alpha %d: %.17g below the exact value", b, a, l(af))
			}
		}
		// RR: exp((a-1) D) = p^a (1-p)^(1-a) + (1-p)^a p^(1-a).
		for _, p := range []float64{0.5 + 1e-9, 0.5 + 1e-4, 0.75, 1 - 1e-6, 1e-3} {
			r, _ := RRRenyiUpper(p)
			pb, qb := bigref.F(p), new(big.Float).Sub(bigref.F(1), bigref.F(p))
			pow := func(x *big.Float, n int) *big.Float {
				v := bigref.F(1)
				for i := 0; i < n; i++ {
					v.Mul(v, x)
				}
				return v
			}
			want := new(big.Float).Add(new(big.Float).Quo(pow(pb, a), pow(qb, a-1)), new(big.Float).Quo(pow(qb, a), pow(pb, a-1)))
			x := new(big.Float).Mul(bigref.F(af-1), bigref.F(r(af)))
			if bigref.Exp(x).Cmp(want) < 0 {
				t.Errorf("RR p %g alpha %d: %.17g below the exact value", p, a, r(af))
			}
		}
	}
}

// TestRDPOutward checks that the outward conversion is never below the
// rounded-to-nearest one and differs from it only by rounding.
func TestRDPOutward(t *testing.T) {
	f, _ := SampledGaussianRenyiUpper(1.1, 0.01)
	for _, conv := range []Conversion{Classic, Improved} {
		near, _ := RDP(f, 10000, conv, RDPOptions{})
		out, _ := RDP(f, 10000, conv, RDPOptions{Outward: true})
		for _, d := range []float64{1e-3, 1e-5, 1e-10} {
			a, b := near.Eps(d), out.Eps(d)
			if b < a || b > a*(1+1e-12) {
				t.Errorf("%v: Eps(%g) outward %.17g, nearest %.17g", conv, d, b, a)
			}
		}
		for _, e := range []float64{0.5, 2, 5} {
			a, b := near.Delta(e), out.Delta(e)
			if b < a || b > a*(1+1e-12)+1e-300 {
				t.Errorf("%v: Delta(%g) outward %.17g, nearest %.17g", conv, e, b, a)
			}
		}
	}
}

// TestLibmErrorModel measures the rounding model of rdp_sound.go on this
// platform: math.Exp (assembly on amd64), Log, Log1p and Expm1 against
// math/big on random arguments, requiring at most 2 ulps (certEps charges
// 4). A measurement, not a proof: the 1-ulp bounds are documented in the
// Go sources of the portable implementations only.
func TestLibmErrorModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const tol = 0x1p-51 // 2 ulps
	n := 2000
	if testing.Short() {
		n = 200
	}
	brackets := func(name string, arg float64, y, err float64, want *big.Float) {
		lo := bigref.Exp(bigref.F(y - err))
		hi := bigref.Exp(bigref.F(y + err))
		if lo.Cmp(want) > 0 || hi.Cmp(want) < 0 {
			t.Errorf("%s(%.17g) = %.17g: more than 2 ulps off", name, arg, y)
		}
	}
	for i := 0; i < n; i++ {
		x := (rng.Float64()*2 - 1) * 700
		e := math.Exp(x)
		w := bigref.Exp(bigref.F(x))
		if d := new(big.Float).Sub(bigref.F(e), w); new(big.Float).Abs(d).Cmp(new(big.Float).Mul(w, bigref.F(tol))) > 0 {
			t.Errorf("Exp(%.17g) = %.17g: more than 2 ulps off", x, e)
		}
		// Log: exp(Log(x) -+ 2 ulps of it) brackets x
		v := math.Exp((rng.Float64()*2 - 1) * 690)
		y := math.Log(v)
		brackets("Log", v, y, tol*math.Abs(y)+0x1p-1074, bigref.F(v))
		// Log1p: 1 + u in big
		u := math.Exp((rng.Float64()*2-1)*30) * 0.5
		if rng.Intn(2) == 0 {
			u = -u / (1 + u) // in (-1, 0)
		}
		y = math.Log1p(u)
		brackets("Log1p", u, y, tol*math.Abs(y)+0x1p-1074, new(big.Float).Add(bigref.F(1), bigref.F(u)))
		// Expm1: Expm1(x) + 1 against exp(x), relative to |Expm1(x)|
		z := (rng.Float64()*2 - 1) * math.Exp((rng.Float64()*2-1)*20)
		if z > 700 {
			z = 700
		}
		m := math.Expm1(z)
		wm := new(big.Float).Sub(bigref.Exp(bigref.F(z)), bigref.F(1))
		if d := new(big.Float).Sub(bigref.F(m), wm); new(big.Float).Abs(d).Cmp(new(big.Float).Mul(new(big.Float).Abs(wm), bigref.F(tol))) > 0 {
			t.Errorf("Expm1(%.17g) = %.17g: more than 2 ulps off", z, m)
		}
	}
}
