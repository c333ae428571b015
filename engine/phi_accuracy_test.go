package engine

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// phiRef returns exp(-t^2/2)/sqrt(2 pi) to far beyond float64 precision
// (bigExp, bigSqrt2Pi of the closed-form references).
func phiRef(t float64) float64 {
	bt := bigF(t)
	x := new(big.Float).SetPrec(closedPrec).Mul(bt, bt)
	x.Quo(x, bigF(-2))
	v := bigExp(x)
	v.Quo(v, bigSqrt2Pi)
	f, _ := v.Float64()
	return f
}

// TestPhiAccurate checks phiAccurate against a 320-bit evaluation of the
// standard normal density, within 5u relative (its error analysis: one
// exponential of at most 1 ulp and three roundings of u/2, plus the
// rounding of the reference to float64) wherever the density is a normal
// float64, from tiny arguments to the underflow near 37.5.
func TestPhiAccurate(t *testing.T) {
	u := unitRoundoff
	rng := rand.New(rand.NewPCG(1, 2))
	var ts []float64
	for i := 0; i <= 3000; i++ {
		ts = append(ts, float64(i)*0.0125) // 0 .. 37.5
	}
	for i := 0; i < 3000; i++ {
		ts = append(ts, rng.Float64()*37.5, math.Ldexp(rng.Float64(), -rng.IntN(60)))
	}
	worst := 0.0
	for _, x := range ts {
		for _, s := range []float64{x, -x} {
			want := phiRef(s)
			if want < minNormal {
				continue
			}
			got := phiAccurate(s)
			rel := math.Abs(got-want) / want
			worst = max(worst, rel)
			if !(rel <= 5*u) {
				t.Errorf("phiAccurate(%v) = %.17g, want %.17g (relative error %.2f u)", s, got, want, rel/u)
			}
		}
	}
	t.Logf("largest relative error %.2f u", worst/u)
	for _, s := range []float64{40, 1e3, 1e200, math.Inf(1), math.Inf(-1)} {
		if got := phiAccurate(s); got != 0 {
			t.Errorf("phiAccurate(%v) = %v, want 0", s, got)
		}
	}
	if got := phiAccurate(math.NaN()); !math.IsNaN(got) {
		t.Errorf("phiAccurate(NaN) = %v, want NaN", got)
	}
}

// glSumRef returns the 4-point Gauss-Legendre sum of glNormal, sum_k w_k
// e^(-t s_k - s_k^2/2) with s_k = h (1 + x_k), in 256-bit arithmetic.
func glSumRef(t, h float64) float64 {
	sum := bigF(0)
	for k := 0; k < 4; k++ {
		s := new(big.Float).SetPrec(closedPrec).Mul(bigF(h), new(big.Float).SetPrec(closedPrec).Add(bigF(1), bigF(gl4x[k])))
		x := new(big.Float).SetPrec(closedPrec).Mul(bigF(t), s)
		s2 := new(big.Float).SetPrec(closedPrec).Mul(s, s)
		s2.Quo(s2, bigF(2))
		x.Add(x, s2)
		x.Neg(x)
		sum.Add(sum, new(big.Float).SetPrec(closedPrec).Mul(bigF(gl4w[k]), bigExp(x)))
	}
	f, _ := sum.Float64()
	return f
}

// TestGLSumAccuracy checks gl4Sum, the 4-point rule of glNormal by pairs of
// nodes, against a 256-bit evaluation of the same rule, within 8u relative
// (its error analysis: at most 7u, plus the reference's rounding), on
// intervals up to the threshold of few4, for starts of either sign.
func TestGLSumAccuracy(t *testing.T) {
	u := unitRoundoff
	rng := rand.New(rand.NewPCG(7, 11))
	worst, n := 0.0, 0
	for i := 0; i < 4000; i++ {
		tt := -40 + 80*rng.Float64()
		A := math.Abs(tt)
		// w (|t| + w + 3) = y, up to the threshold
		y := 0.06 * math.Pow(rng.Float64(), 4)
		w := (-(A + 3) + math.Sqrt((A+3)*(A+3)+4*y)) / 2
		if !few4(w, A+w) || !(w > 0) {
			continue
		}
		n++
		got := gl4Sum(tt, w/2)
		want := glSumRef(tt, w/2)
		rel := math.Abs(got-want) / want
		worst = max(worst, rel)
		if !(rel <= 8*u) {
			t.Errorf("t %v, w %v: %.17g, want %.17g (relative error %.2f u)", tt, w, got, want, rel/u)
		}
	}
	if n < 3000 {
		t.Errorf("only %d intervals under the threshold", n)
	}
	t.Logf("largest relative error %.2f u on %d intervals", worst/u, n)
}

// narrowRef returns the 4-point Gauss-Legendre rule for the standard
// normal mass of [a, a + w], a = h + l, in 256-bit arithmetic: w/2 sum_k
// w_k phi(a + w/2 (1 + x_k)).
func narrowRef(h, l, w float64) float64 {
	a := new(big.Float).SetPrec(closedPrec).Add(bigF(h), bigF(l))
	hw := new(big.Float).SetPrec(closedPrec).Quo(bigF(w), bigF(2))
	sum := bigF(0)
	for k := 0; k < 4; k++ {
		s := new(big.Float).SetPrec(closedPrec).Mul(hw, new(big.Float).SetPrec(closedPrec).Add(bigF(1), bigF(gl4x[k])))
		s.Add(s, a)
		x := new(big.Float).SetPrec(closedPrec).Mul(s, s)
		x.Quo(x, bigF(-2))
		sum.Add(sum, new(big.Float).SetPrec(closedPrec).Mul(bigF(gl4w[k]), bigExp(x)))
	}
	sum.Mul(sum, hw)
	sum.Quo(sum, bigSqrt2Pi)
	f, _ := sum.Float64()
	return f
}

// TestNarrowMassAccuracy checks narrowMass and narrowMassAt where they take
// the 4-point rule (phi at the midpoint times gl4Pairs) against a 256-bit
// evaluation of the rule, within 10u relative (their error analysis: at
// most 9u, plus the reference's rounding); starts up to 37 (the density's
// underflow), of either sign for narrowMassAt, with low parts as twoSum
// leaves them.
func TestNarrowMassAccuracy(t *testing.T) {
	u := unitRoundoff
	rng := rand.New(rand.NewPCG(13, 17))
	worst, n := 0.0, 0
	for i := 0; i < 3000; i++ {
		t1 := 37 * rng.Float64()
		A := t1
		y := 0.06 * math.Pow(rng.Float64(), 4)
		w := (-(A + 3) + math.Sqrt((A+3)*(A+3)+4*y)) / 2
		if !(w > 0) || !few4(w, t1+w) {
			continue
		}
		// narrowMass, start t1 >= 0
		check := func(name string, got, want float64) {
			if want < minNormal {
				return
			}
			n++
			rel := math.Abs(got-want) / want
			worst = max(worst, rel)
			if !(rel <= 10*u) {
				t.Errorf("%s: %.17g, want %.17g (relative error %.2f u)", name, got, want, rel/u)
			}
		}
		check("narrowMass", narrowMass(t1, w), narrowRef(t1, 0, w))
		// narrowMassAt, start h + l = t1 - m of either sign (normMassShift)
		m := 40 * rng.Float64()
		h, l := twoSum(t1, -m)
		if few4(w, math.Abs(h)+w) {
			check("narrowMassAt", narrowMassAt(h, l, w), narrowRef(h, l, w))
		}
	}
	if n < 3000 {
		t.Errorf("only %d intervals checked", n)
	}
	t.Logf("largest relative error %.2f u on %d intervals", worst/u, n)
}
