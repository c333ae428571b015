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
