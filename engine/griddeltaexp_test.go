package engine

import (
	"context"
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// bigOneMinusExp returns 1 - e^y for the exact sum y = x + s (s = -dU or
// +dL) at 256 bits: e^y by range reduction to |y/2^k| < 2^-8, 40 Taylor
// terms, and k squarings.
func bigOneMinusExp(x, s float64) *big.Float {
	const prec = 256
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.Add(y, new(big.Float).SetPrec(prec).SetFloat64(s))
	k := 0
	for a, _ := new(big.Float).Abs(y).Float64(); a >= 1.0/256; a /= 2 {
		k++
	}
	z := new(big.Float).SetPrec(prec).SetMantExp(y, -k)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for i := 1; i <= 40; i++ {
		term.Mul(term, z)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(i)))
		sum.Add(sum, term)
	}
	for ; k > 0; k-- {
		sum.Mul(sum, sum)
	}
	return new(big.Float).SetPrec(prec).Sub(new(big.Float).SetPrec(prec).SetInt64(1), sum)
}

// TestOneMinusExpBracketsExact checks oneMinusExp against 256-bit values
// of 1 - e^(x - dU) and 1 - e^(x + dL) over exponents from -60 to 1 and
// allowances from 0 to 1e-2 (both sides of the fast path's limit): the
// upper factor is never below the exact one, the lower never above, both
// within 1e-14 relative plus the allowances of it, and the ok flags follow
// the exponents' signs.
func TestOneMinusExpBracketsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	draw := func() float64 {
		switch rng.Intn(4) {
		case 0:
			return 0
		case 1:
			return math.Pow(10, -16+14*rng.Float64())
		default:
			return math.Pow(10, -16+13*rng.Float64())
		}
	}
	for i := 0; i < 20000; i++ {
		var x float64
		switch rng.Intn(3) {
		case 0:
			x = -60 * rng.Float64()
		case 1:
			x = -math.Pow(10, -17+17*rng.Float64()) // near 0 from below
		default:
			x = 1e-12 * (2*rng.Float64() - 1) // around 0
		}
		dU, dL := draw(), draw()
		fU, fL, okU, okL := oneMinusExp(x, dU, dL)
		eU, eL := bigOneMinusExp(x, -dU), bigOneMinusExp(x, dL)
		if okU != (eU.Sign() > 0) && x-dU != 0 {
			t.Fatalf("x %g dU %g: okU %v, exact 1-e^(x-dU) %s", x, dU, okU, eU.Text('g', 10))
		}
		if okU {
			ex, _ := eU.Float64()
			if new(big.Float).SetFloat64(fU).Cmp(eU) < 0 {
				t.Fatalf("x %g dU %g: upper factor %.17g below the exact %.17g", x, dU, fU, ex)
			}
			if fU > ex*(1+1e-14)+2*dU+1e-300 {
				t.Errorf("x %g dU %g: upper factor %.17g loose against %.17g", x, dU, fU, ex)
			}
		}
		if okL {
			ex, _ := eL.Float64()
			if new(big.Float).SetFloat64(fL).Cmp(eL) > 0 {
				t.Fatalf("x %g dL %g: lower factor %.17g above the exact %.17g", x, dL, fL, ex)
			}
			if fL < ex*(1-1e-14)-3*dL {
				t.Errorf("x %g dL %g: lower factor %.17g loose against %.17g", x, dL, fL, ex)
			}
		} else if fL != 0 {
			t.Fatalf("x %g dL %g: lower factor %g where the exponent is not negative", x, dL, fL)
		}
	}
}

// BenchmarkGridDelta evaluates a composed grid list's delta (both
// directions, both pairs) at 16 eps from 0.1 to 3.1 on DP-SGD sigma 4, q
// 0.01, r 2^12, 100,000 buckets: the work of one eps query.
func BenchmarkGridDelta(b *testing.B) {
	m, _ := SGD(4, 0.01)
	res, err := Compose(context.Background(), m, 1<<12, Options{Lists: ListsGrid})
	if err != nil {
		b.Fatal(err)
	}
	tab := res.g.gridTable(res.gb)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := 0; k < 16; k++ {
			res.g.gridDelta(0.1+0.2*float64(k), tab)
		}
	}
}

// TestExpWalkBracketsExact walks exponents x_k = x_0 + k s (s = +-lambda,
// lambda from 1e-6 to 0.5, across the recurrence's range [-38, -0.7] and
// both its ends) and checks every factor against 256-bit values of 1 -
// e^(x_k - dU) and 1 - e^(x_k + dL): never on the wrong side, within 1e-13
// relative plus the allowances. The exact exponent of atom k is x_0 + k s,
// the recurrence's, which is what the allowances of griddelta.go assume.
func TestExpWalkBracketsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for c := 0; c < 300; c++ {
		lambda := math.Pow(10, -6+5.7*rng.Float64())
		s := lambda
		if rng.Intn(2) == 0 {
			s = -lambda
		}
		x0 := -45 + 46*rng.Float64()
		dU, dL := 1e-15*rng.Float64(), 1e-14*rng.Float64()
		w := newExpWalk(s)
		for k := 0; k < 200; k++ {
			x := x0 + float64(k)*s
			if x > 1 || x < -60 {
				break
			}
			// the exact exponent: x0 + k s in 256 bits
			bx := new(big.Float).SetPrec(256).SetFloat64(s)
			bx.Mul(bx, new(big.Float).SetPrec(256).SetInt64(int64(k)))
			bx.Add(bx, new(big.Float).SetPrec(256).SetFloat64(x0))
			hi, _ := bx.Float64()
			lo := new(big.Float).SetPrec(256).Sub(bx, new(big.Float).SetPrec(256).SetFloat64(hi))
			lof, _ := lo.Float64()
			// the rounding allowance of the computed x, as griddelta.go's d
			d := 4 * unitRoundoff * (math.Abs(x0) + math.Abs(float64(k)*s))
			fU, fL, okU, okL := w.factors(x, dU+d, dL+d)
			// 1 - e^(hi + lof - dU) and 1 - e^(hi + lof + dL), exactly
			eU, eL := bigOneMinusExp(hi, lof-dU), bigOneMinusExp(hi, lof+dL)
			if okU {
				if new(big.Float).SetFloat64(fU).Cmp(eU) < 0 {
					ex, _ := eU.Float64()
					t.Fatalf("case %d atom %d x %g: upper factor %.17g below the exact %.17g", c, k, x, fU, ex)
				}
				if ex, _ := eU.Float64(); fU > ex*(1+1e-13)+2*(dU+d)+1e-300 {
					t.Errorf("case %d atom %d x %g: upper factor %.17g loose against %.17g", c, k, x, fU, ex)
				}
			} else if eU.Sign() > 0 && x-dU-d < -1e-12 {
				t.Fatalf("case %d atom %d x %g: okU false where 1-e^(x-dU) > 0", c, k, x)
			}
			if okL {
				if new(big.Float).SetFloat64(fL).Cmp(eL) > 0 {
					ex, _ := eL.Float64()
					t.Fatalf("case %d atom %d x %g: lower factor %.17g above the exact %.17g", c, k, x, fL, ex)
				}
				if ex, _ := eL.Float64(); fL < ex*(1-1e-13)-3*(dL+d) {
					t.Errorf("case %d atom %d x %g: lower factor %.17g loose against %.17g", c, k, x, fL, ex)
				}
			}
		}
	}
}

// TestExpWalkRecurrenceExact walks dyadic exponents (x_0 and s multiples of
// 2^-20, so every x_k is exact) through the recurrence's range with no
// allowances: the factors alone must bracket 1 - e^x_k, which fails if the
// recurrence's error (factorPair's rel, 64u) is left out.
func TestExpWalkRecurrenceExact(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	for c := 0; c < 400; c++ {
		s := -math.Ldexp(float64(1+rng.Intn(1<<14)), -20)
		x0 := -math.Ldexp(float64(rng.Intn(39<<20)), -20) - 0.7
		w := newExpWalk(s)
		for k := 0; k < 64; k++ {
			x := x0 + float64(k)*s
			fU, fL, _, _ := w.factors(x, 0, 0)
			e := bigOneMinusExp(x, 0)
			if new(big.Float).SetFloat64(fU).Cmp(e) < 0 || new(big.Float).SetFloat64(fL).Cmp(e) > 0 {
				ex, _ := e.Float64()
				t.Fatalf("case %d atom %d x %g: [%.17g, %.17g] misses 1 - e^x = %.17g", c, k, x, fL, fU, ex)
			}
		}
	}
}
