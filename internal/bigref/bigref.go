// Package bigref holds high-precision references that tests of several
// packages check float64 code against: exp in math/big and the exact
// moment A_alpha of the Poisson-subsampled Gaussian (Mironov, Talwar,
// Zhang, "Renyi Differential Privacy of the Sampled Gaussian Mechanism",
// 2019). Only tests import it.
//
// May import: no package of this module.
package bigref

import (
	"math"
	"math/big"
)

// Prec is the precision of the references: 320 bits, so that their own
// error (below 2^-300 relative, plus the halvings of Exp) is far below the
// float64 quantities they check.
const Prec = 320

// F returns x at precision Prec.
func F(x float64) *big.Float { return new(big.Float).SetPrec(Prec).SetFloat64(x) }

// Exp returns exp(x) to about Prec bits: x = 2^m y with |y| <= 2^-8,
// Taylor series of exp(y) to a term below 2^-(Prec+8), squared m times
// (each squaring doubles the relative error: m <= 40 here, 2^40 * 2^-320
// is still far below 1e-60).
func Exp(x *big.Float) *big.Float {
	y := new(big.Float).SetPrec(Prec).Set(x)
	m := 0
	lim := F(0x1p-8)
	for new(big.Float).Abs(y).Cmp(lim) > 0 {
		y.Quo(y, F(2))
		m++
	}
	sum, term := F(1), F(1)
	eps := F(math.Ldexp(1, -(Prec + 8)))
	for k := 1; k < 200; k++ {
		term.Mul(term, y)
		term.Quo(term, F(float64(k)))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	for ; m > 0; m-- {
		sum.Mul(sum, sum)
	}
	return sum
}

// A returns A_alpha = sum_k C(a,k) (1-q)^(a-k) q^k exp((k^2-k)/(2 s^2))
// (Mironov, Talwar, Zhang 2019) in math/big, for the float64 values s, q.
func A(a int, s, q float64) *big.Float {
	one := F(1)
	qb := F(q)
	pb := new(big.Float).Sub(one, qb) // exact at Prec
	c := new(big.Float).Quo(one, new(big.Float).Mul(F(2), new(big.Float).Mul(F(s), F(s))))
	sum := F(0)
	binom := new(big.Int).SetInt64(1)
	for k := 0; k <= a; k++ {
		if k > 0 {
			binom.Mul(binom, big.NewInt(int64(a-k+1)))
			binom.Quo(binom, big.NewInt(int64(k)))
		}
		t := new(big.Float).SetPrec(Prec).SetInt(binom)
		for i := 0; i < a-k; i++ {
			t.Mul(t, pb)
		}
		for i := 0; i < k; i++ {
			t.Mul(t, qb)
		}
		t.Mul(t, Exp(new(big.Float).Mul(c, F(float64(k*k-k)))))
		sum.Add(sum, t)
	}
	return sum
}
