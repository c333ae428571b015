package fft

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// radix3Lengths are the lengths 3*2^k of the error tests.
var radix3Lengths = []int{6, 12, 24, 48, 96, 384, 3072}

// errorInput is an input family of the error tests: uniform values, a
// probability mass with tails at 1e-300 (and a subnormal one), two masses
// packed as real and imaginary parts, a single spike, a constant.
type errorInput struct {
	name string
	gen  func(rng *rand.Rand, n int) (re, im []float64)
}

var errorInputs = []errorInput{
	{"uniform", func(rng *rand.Rand, n int) (re, im []float64) {
		re, im = make([]float64, n), make([]float64, n)
		for i := range re {
			re[i], im[i] = 2*rng.Float64()-1, 2*rng.Float64()-1
		}
		return re, im
	}},
	{"mass with tails at 1e-300", func(rng *rand.Rand, n int) (re, im []float64) {
		re, im = make([]float64, n), make([]float64, n)
		c, sd := float64(n)*rng.Float64(), float64(n)/2/math.Sqrt(2*690)
		for i := range re {
			d := math.Min(math.Abs(float64(i)-c), float64(n)-math.Abs(float64(i)-c))
			re[i] = math.Exp(-d * d / (2 * sd * sd))
		}
		return re, im
	}},
	{"two packed masses, geometric to 1e-300", func(rng *rand.Rand, n int) (re, im []float64) {
		re, im = make([]float64, n), make([]float64, n)
		for i := range re {
			re[i] = math.Pow(10, -300*float64(i)/float64(n)) * (1 + 0.1*rng.Float64())
			im[n-1-i] = 0.3 * math.Pow(10, -300*float64(i)/float64(n))
		}
		return re, im
	}},
	{"mass with a subnormal tail", func(rng *rand.Rand, n int) (re, im []float64) {
		re, im = make([]float64, n), make([]float64, n)
		for i := range re {
			re[i] = math.Ldexp(1+rng.Float64(), -1074*i/n)
		}
		return re, im
	}},
	{"single spike", func(rng *rand.Rand, n int) (re, im []float64) {
		re, im = make([]float64, n), make([]float64, n)
		j := rng.IntN(n)
		re[j], im[j] = 0.7, -0.2
		return re, im
	}},
	{"constant", func(rng *rand.Rand, n int) (re, im []float64) {
		re, im = make([]float64, n), make([]float64, n)
		for i := range re {
			re[i] = 1
		}
		return re, im
	}},
}

// perturbTwiddles replaces every twiddle a plan of length 3m stores (the
// radix-3 stage's and the radix-2 stage tables of its plan of length m)
// by an exact root moved by 6.5u in a random direction and rounded,
// checking that each stays within TwiddleErr of the exact root: the error
// bound must hold for any twiddles that close, and these make the
// observed errors larger than the accurate ones do.
func perturbTwiddles(t *testing.T, p *Plan, roots []bc, rng *rand.Rand) {
	t.Helper()
	n := p.n
	mu := bf(TwiddleErr)
	move := func(e int) (float64, float64) {
		phi := 2 * math.Pi * rng.Float64()
		d := bcOf(6.5*unitRoundoff*math.Cos(phi), 6.5*unitRoundoff*math.Sin(phi))
		re, im := bcAdd(roots[e%n], d).float()
		dist := bcSub(bcOf(re, im), roots[e%n]).abs2()
		if dist.Cmp(new(big.Float).Mul(mu, mu)) > 0 {
			t.Fatalf("perturbed twiddle w^%d is further than TwiddleErr", e)
		}
		return re, im
	}
	r := p.r3
	m := r.sub.n
	for k := 0; k < m; k++ {
		r.w1Re[k], r.w1Im[k] = move(k)
		r.w1ImC[k] = -r.w1Im[k]
		r.w2Re[k], r.w2Im[k] = move(2 * k)
		r.w2ImC[k] = -r.w2Im[k]
	}
	s := r.sub
	for size := 8; size <= m; size <<= 1 {
		for k := 0; k < size/2; k++ {
			i := size/2 - 4 + k
			s.stRe[i], s.stIm[i] = move(k * (n / size))
			s.stImC[i] = -s.stIm[i]
		}
	}
}

// TestRadix3MatchesExactDFT checks ForwardBitReversed and
// InverseBitReversed of the plans of length 3*2^k against the DFT in
// 200-bit arithmetic: ||y^ - y||_2 <= Kappa ||y||_2 for every input family,
// with the plan's own twiddles and with twiddles moved by 6.5u (TwiddleErr
// is 8u), and logs the largest observed/bound ratio.
func TestRadix3MatchesExactDFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 37))
	worst := 0.0
	var worstOf [2]float64 // with the plan's twiddles, with moved ones
	for _, n := range radix3Lengths {
		roots := exactRoots(n)
		for _, perturbed := range []bool{false, true} {
			p := NewPlan(n)
			if perturbed {
				perturbTwiddles(t, p, roots, rng)
			}
			for _, in := range errorInputs {
				for _, inv := range []bool{false, true} {
					re, im := in.gen(rng, n)
					x := make([]bc, n)
					for i := range x {
						x[i] = bcOf(re[i], im[i])
					}
					want := exactDFT(x, roots, inv)
					var rel float64
					if inv {
						// the input spectrum X_k goes to Position(k)
						sr, si := make([]float64, n), make([]float64, n)
						for k := range re {
							sr[p.Position(k)], si[p.Position(k)] = re[k], im[k]
						}
						p.InverseBitReversed(sr, si)
						rel = relErrBig(sr, si, want, func(i int) int { return i })
					} else {
						p.ForwardBitReversed(re, im)
						rel = relErrBig(re, im, want, p.Frequency)
					}
					if !(rel <= p.Kappa()) {
						t.Errorf("n=%d %s perturbed=%v inverse=%v: relative error %.3g > kappa %.3g", n, in.name, perturbed, inv, rel, p.Kappa())
					}
					if r := rel / p.Kappa(); perturbed {
						worstOf[1] = math.Max(worstOf[1], r)
					} else {
						worstOf[0] = math.Max(worstOf[0], r)
					}
					if r := rel / p.Kappa(); r > worst {
						worst = r
						t.Logf("n=%d %s perturbed=%v inverse=%v: relative error %.3g = %.3f kappa (%.2f u)", n, in.name, perturbed, inv, rel, r, rel/unitRoundoff)
					}
				}
			}
		}
	}
	t.Logf("largest observed/bound ratio %.3f (%.3f with the plan's twiddles, %.3f with moved ones)", worst, worstOf[0], worstOf[1])
}

// TestRadix3StageWithinEta3 checks the radix-3 stage alone (both kernels,
// both signs) against the exact stage in 200-bit arithmetic, with the
// plan's twiddles and with twiddles moved by 6.5u: ||e||_2 <= Eta3 sqrt3
// ||x||_2 (the stage's share of Kappa3), and logs the largest
// observed/bound ratio. Setting Eta3 to zero makes it fail.
func TestRadix3StageWithinEta3(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 43))
	bound := Eta3() * math.Sqrt(3)
	omega := bc{bf(-0.5), new(big.Float).SetPrec(bigPrec).Neg(exactSqrt3Half())} // exp(-2 pi i/3)
	worst := 0.0
	for _, n := range []int{6, 12, 96, 3072} {
		roots := exactRoots(n)
		m := n / 3
		for _, perturbed := range []bool{false, true} {
			p := NewPlan(n)
			if perturbed {
				perturbTwiddles(t, p, roots, rng)
			}
			r := p.r3
			for _, in := range errorInputs {
				for _, dit := range []bool{false, true} {
					for _, inv := range []bool{false, true} {
						re, im := in.gen(rng, n)
						x := make([]bc, n)
						for i := range x {
							x[i] = bcOf(re[i], im[i])
						}
						w1i, w2i := r.w1Im, r.w2Im
						om := omega
						if inv {
							w1i, w2i, om = r.w1ImC, r.w2ImC, bcConj(omega)
						}
						om2 := bcMul(om, om)
						kernel := radix3DIF
						if dit {
							kernel = radix3DIT
						}
						kernel(re[:m], im[:m], re[m:2*m], im[m:2*m], re[2*m:], im[2*m:], r.w1Re, w1i, r.w2Re, w2i, inv)
						want := make([]bc, n)
						e2, x2 := new(big.Float).SetPrec(bigPrec), new(big.Float).SetPrec(bigPrec)
						for k := 0; k < m; k++ {
							a, b, c := x[k], x[k+m], x[k+2*m]
							w1, w2 := roots[k], roots[2*k]
							if inv {
								w1, w2 = bcConj(w1), bcConj(w2)
							}
							if dit {
								b, c = bcMul(w1, b), bcMul(w2, c)
							}
							want[k] = bcAdd(a, bcAdd(b, c))
							want[k+m] = bcAdd(a, bcAdd(bcMul(om, b), bcMul(om2, c)))
							want[k+2*m] = bcAdd(a, bcAdd(bcMul(om2, b), bcMul(om, c)))
							if !dit {
								want[k+m], want[k+2*m] = bcMul(w1, want[k+m]), bcMul(w2, want[k+2*m])
							}
							for _, j := range []int{k, k + m, k + 2*m} {
								e2.Add(e2, bcSub(bcOf(re[j], im[j]), want[j]).abs2())
								x2.Add(x2, x[j].abs2())
							}
						}
						if x2.Sign() == 0 {
							continue
						}
						ratio, _ := new(big.Float).Sqrt(new(big.Float).Quo(e2, x2)).Float64()
						if !(ratio <= bound) {
							t.Errorf("n=%d %s perturbed=%v dit=%v inverse=%v: stage error %.3g ||x|| > eta3 sqrt3 = %.3g", n, in.name, perturbed, dit, inv, ratio, bound)
						}
						if q := ratio / bound; q > worst {
							worst = q
							t.Logf("n=%d %s perturbed=%v dit=%v inverse=%v: stage error %.2f u ||x|| = %.3f of eta3 sqrt3", n, in.name, perturbed, dit, inv, ratio/unitRoundoff, q)
						}
					}
				}
			}
		}
	}
	t.Logf("largest observed/bound ratio %.3f", worst)
}

// exactSqrt3Half returns sqrt(3)/2 in the reference arithmetic.
func exactSqrt3Half() *big.Float {
	v, _, err := big.ParseFloat(sqrt3HalfDigits, 10, bigPrec, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return v
}

// TestRadix3Constants checks fl(sqrt(3)/2) (the correctly rounded square
// root halved, within u of the exact value) and that every twiddle of the
// radix-3 stage is within TwiddleErr of the exact root, with w^0 = 1.
func TestRadix3Constants(t *testing.T) {
	if sqrt3Half != math.Sqrt(3)/2 {
		t.Errorf("sqrt3Half %v, math.Sqrt(3)/2 %v", sqrt3Half, math.Sqrt(3)/2)
	}
	ex := exactSqrt3Half()
	v := new(big.Float).SetPrec(bigPrec).SetFloat64(3)
	v.Sqrt(v).Quo(v, bf(2))
	if d := new(big.Float).Sub(v, ex); d.Abs(d).Cmp(bf(1e-100)) > 0 {
		t.Fatalf("the test's sqrt(3)/2 digits are off by %v", d)
	}
	if d := new(big.Float).Sub(bf(sqrt3Half), ex); d.Abs(d).Cmp(new(big.Float).Mul(ex, bf(unitRoundoff))) > 0 {
		t.Errorf("sqrt3Half is off by %v, more than u sqrt(3)/2", d)
	}
	mu2 := bf(TwiddleErr * TwiddleErr)
	for _, n := range []int{6, 12, 24, 48, 96, 384, 3072} {
		roots := exactRoots(n)
		p := NewPlan(n)
		r := p.r3
		if r.w1Re[0] != 1 || r.w1Im[0] != 0 || r.w2Re[0] != 1 || r.w2Im[0] != 0 {
			t.Errorf("n=%d: w^0 is not 1", n)
		}
		worst := 0.0
		for k := 0; k < n/3; k++ {
			for _, c := range []struct {
				e      int
				re, im float64
			}{{k, r.w1Re[k], r.w1Im[k]}, {2 * k, r.w2Re[k], r.w2Im[k]}, {k, r.w1Re[k], -r.w1ImC[k]}, {2 * k, r.w2Re[k], -r.w2ImC[k]}} {
				d := bcSub(bcOf(c.re, c.im), roots[c.e]).abs2()
				if d.Cmp(mu2) > 0 {
					t.Errorf("n=%d: twiddle w^%d = (%v, %v) is further than TwiddleErr from the exact root", n, c.e, c.re, c.im)
				}
				f, _ := d.Float64()
				worst = math.Max(worst, math.Sqrt(f)/unitRoundoff)
			}
		}
		t.Logf("n=%d: largest twiddle error %.2f u (TwiddleErr %.0f u)", n, worst, TwiddleErr/unitRoundoff)
	}
	// the longest shared plans, on a sample of their twiddles
	rng := rand.New(rand.NewPCG(101, 103))
	for _, n := range []int{3 << 16, 3 << 18} {
		r := NewPlan(n).r3
		worst := 0.0
		for range 400 {
			k := rng.IntN(n / 3)
			for _, c := range []struct {
				e      int
				re, im float64
			}{{k, r.w1Re[k], r.w1Im[k]}, {2 * k, r.w2Re[k], r.w2Im[k]}} {
				d := bcSub(bcOf(c.re, c.im), exactRoot(c.e, n)).abs2()
				if d.Cmp(mu2) > 0 {
					t.Errorf("n=%d: twiddle w^%d is further than TwiddleErr from the exact root", n, c.e)
				}
				f, _ := d.Float64()
				worst = math.Max(worst, math.Sqrt(f)/unitRoundoff)
			}
		}
		t.Logf("n=%d: largest twiddle error of 800 sampled %.2f u", n, worst)
	}
}

// eta3Exact evaluates Eta3's formula (without its final rounding up) in
// 200-bit arithmetic.
func eta3Exact() *big.Float {
	f := func(x float64) *big.Float { return bf(x) }
	add := func(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(bigPrec).Add(a, b) }
	mul := func(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(bigPrec).Mul(a, b) }
	u, mu := f(unitRoundoff), f(TwiddleErr)
	one := f(1)
	sqrt2 := new(big.Float).SetPrec(bigPrec).Sqrt(f(2))
	sqrt3 := new(big.Float).SetPrec(bigPrec).Sqrt(f(3))
	// gamma_2 = 2u/(1-2u)
	g2 := new(big.Float).SetPrec(bigPrec).Quo(mul(f(2), u), new(big.Float).SetPrec(bigPrec).Sub(one, mul(f(2), u)))
	nu := add(mu, mul(mul(sqrt2, g2), add(one, mu)))
	c3 := exactSqrt3Half()
	onePlusU := add(one, u)
	cube := new(big.Float).SetPrec(bigPrec).Sub(mul(onePlusU, mul(onePlusU, onePlusU)), one)
	u2 := mul(u, u)
	a0, b0 := u, add(mul(f(2), u), u2)
	a1 := add(mul(f(2), u), u2)
	half := f(0.5)
	b1 := add(mul(onePlusU, add(add(u, mul(half, u2)), mul(c3, cube))), u)
	rho2 := add(add(mul(a0, a0), mul(f(2), mul(b0, b0))), mul(f(2), add(mul(a1, a1), mul(f(2), mul(b1, b1)))))
	rho := new(big.Float).SetPrec(bigPrec).Sqrt(rho2)
	return add(nu, new(big.Float).SetPrec(bigPrec).Quo(mul(add(one, nu), rho), sqrt3))
}

// TestKappa3CoversStages checks Eta3 against its formula in 200-bit
// arithmetic (at least it, by less than a relative 2^-39) and Kappa3(k)
// against the composition of the stage bounds that the proof of Higham's
// Theorem 24.2 gives, (1 + eta)^k (1 + eta_3) - 1, also in 200-bit
// arithmetic: it must be at least that (dropping or shrinking the radix-3
// stage's share fails), and it lies between Kappa(k+1) and Kappa(k+2).
func TestKappa3CoversStages(t *testing.T) {
	e3 := eta3Exact()
	got := bf(Eta3())
	if got.Cmp(e3) < 0 {
		t.Fatalf("Eta3 %v is below its formula %v", got, e3)
	}
	slack := new(big.Float).Quo(new(big.Float).Sub(got, e3), e3)
	if slack.Cmp(bf(0x1p-39)) > 0 {
		t.Errorf("Eta3 exceeds its formula by a relative %v", slack)
	}
	e3f, _ := e3.Float64()
	t.Logf("eta_3 = %.4f u (radix-2 eta = %.4f u)", e3f/unitRoundoff, Kappa(1)/(1+Kappa(1))/unitRoundoff)
	u := bf(unitRoundoff)
	one := bf(1)
	gamma4 := new(big.Float).SetPrec(bigPrec).Quo(new(big.Float).Mul(bf(4), u), new(big.Float).Sub(one, new(big.Float).Mul(bf(4), u)))
	sqrt2 := new(big.Float).SetPrec(bigPrec).Sqrt(bf(2))
	eta := new(big.Float).SetPrec(bigPrec).Add(bf(TwiddleErr), new(big.Float).SetPrec(bigPrec).Mul(gamma4, new(big.Float).Add(sqrt2, bf(TwiddleErr))))
	for k := 1; k <= 24; k++ {
		prod := new(big.Float).SetPrec(bigPrec).Add(one, e3)
		for j := 0; j < k; j++ {
			prod.Mul(prod, new(big.Float).SetPrec(bigPrec).Add(one, eta))
		}
		prod.Sub(prod, one)
		if bf(Kappa3(k)).Cmp(prod) < 0 {
			t.Errorf("k=%d: Kappa3 %v below (1+eta)^k (1+eta_3) - 1 = %v", k, Kappa3(k), prod)
		}
		if !(Kappa(k+1) < Kappa3(k) && Kappa3(k) < Kappa(k+2)) {
			t.Errorf("k=%d: Kappa3 %v not between Kappa(%d) %v and Kappa(%d) %v", k, Kappa3(k), k+1, Kappa(k+1), k+2, Kappa(k+2))
		}
	}
}

// TestTwiddlesWithinTwiddleErr checks every entry of the radix-2 plans'
// stage tables (from which all their twiddles come, directly or rotated
// by -i) against the exact roots, up to 2^12 points, and logs the largest
// distance (TestRadix3Constants does the same for the radix-3 stage).
func TestTwiddlesWithinTwiddleErr(t *testing.T) {
	mu2 := bf(TwiddleErr * TwiddleErr)
	worst := 0.0
	for logN := 3; logN <= 12; logN++ {
		n := 1 << logN
		roots := exactRoots(n)
		p := NewPlan(n)
		for size := 8; size <= n; size <<= 1 {
			for k := 0; k < size/2; k++ {
				i := size/2 - 4 + k
				for _, im := range []float64{p.stIm[i], -p.stImC[i]} {
					d := bcSub(bcOf(p.stRe[i], im), roots[k*(n/size)]).abs2()
					if d.Cmp(mu2) > 0 {
						t.Errorf("n=%d: stage %d twiddle %d is further than TwiddleErr from the exact root", n, size, k)
					}
					f, _ := d.Float64()
					worst = math.Max(worst, math.Sqrt(f)/unitRoundoff)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(107, 109))
	for _, logN := range []int{17, 20} {
		n := 1 << logN
		p := NewPlan(n)
		for range 400 {
			k := rng.IntN(n / 2)
			d := bcSub(bcOf(p.twRe[k], p.twIm[k]), exactRoot(k, n)).abs2()
			if d.Cmp(mu2) > 0 {
				t.Errorf("n=%d: twiddle %d is further than TwiddleErr from the exact root", n, k)
			}
			f, _ := d.Float64()
			worst = math.Max(worst, math.Sqrt(f)/unitRoundoff)
		}
	}
	t.Logf("largest twiddle error %.2f u (TwiddleErr %.0f u; 2^3..2^12 all, 2^17 and 2^20 400 sampled)", worst, TwiddleErr/unitRoundoff)
}
