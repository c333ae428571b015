package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEnvAbsHiBitwise checks envAbsHi against envAbs's first result
// bitwise, for random envelopes (finite and infinite) and tilts.
func TestEnvAbsHiBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 5000 {
		K := 1 + rng.IntN(6)
		lnEnv, tau := make([]float64, K), make([]float64, K)
		for m := range lnEnv {
			lnEnv[m] = (rng.Float64() - 0.7) * 100
			if rng.IntN(8) == 0 {
				lnEnv[m] = math.Inf(1)
			}
			tau[m] = (rng.Float64() - 0.5) * 4
		}
		L := (rng.Float64() - 0.5) * 200
		want, _ := envAbs(lnEnv, tau, L)
		if got := envAbsHi(lnEnv, tau, L); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: %v, envAbs %v", trial, got, want)
		}
	}
}
