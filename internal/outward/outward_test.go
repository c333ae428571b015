package outward

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAgainst checks that Against rounds outwards and keeps the bound's
// side of the target where the bound is on it, adding digits as needed.
func TestAgainst(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 1))
	for i := 0; i < 20000; i++ {
		target := math.Pow(10, -1-8*rng.Float64())
		x := target * (1 + (rng.Float64()-0.5)*math.Pow(10, -1-10*rng.Float64()))
		for _, upper := range []bool{true, false} {
			s := Against(x, 3, upper, target)
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("Against(%v, 3, %v, %v) = %q", x, upper, target, s)
			}
			if upper && v < x || !upper && v > x {
				t.Fatalf("Against(%v, 3, upper=%v, %v) = %s: wrong side of the bound", x, upper, target, s)
			}
			if upper && x <= target && v > target || !upper && x > target && v <= target {
				t.Fatalf("Against(%v, 3, upper=%v, %v) = %s: crossed the target", x, upper, target, s)
			}
		}
	}
	if s := Against(1.0088888e-05, 3, false, 1e-5); s != "1.008e-05" {
		t.Errorf("Against(1.0088888e-05, 3, lower, 1e-5) = %s, want 1.008e-05", s)
	}
}
