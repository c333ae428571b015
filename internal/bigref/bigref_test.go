package bigref

import (
	"math"
	"testing"
)

// TestExp checks Exp against math.Exp (within a few float64 ulps).
func TestExp(t *testing.T) {
	for _, x := range []float64{-700, -30, -1, -1e-9, 0, 0.5, 3, 100, 700} {
		got, _ := Exp(F(x)).Float64()
		if want := math.Exp(x); math.Abs(got-want) > 4e-16*want {
			t.Errorf("Exp(%g) = %v, want %v", x, got, want)
		}
	}
}

// TestA checks A against the closed form at alpha = 2: A_2 = 1 + q^2
// (e^(1/s^2) - 1), and A_alpha = 1 for q = 0.
func TestA(t *testing.T) {
	for _, c := range []struct{ s, q float64 }{{1, 0.01}, {0.5, 0.3}, {4, 1}} {
		got, _ := A(2, c.s, c.q).Float64()
		want := 1 + c.q*c.q*math.Expm1(1/(c.s*c.s))
		if math.Abs(got-want) > 1e-15*want {
			t.Errorf("A(2, %g, %g) = %v, want %v", c.s, c.q, got, want)
		}
	}
	if got, _ := A(7, 1, 0).Float64(); got != 1 {
		t.Errorf("A(7, 1, 0) = %v, want 1", got)
	}
}
