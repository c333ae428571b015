package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRetiltEnvCandidates checks that evaluating retiltEnv at the ends and
// around the crossings finds the maximum over all offsets, exactly.
func TestRetiltEnvCandidates(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for trial := 0; trial < 400; trial++ {
		n := 2 * (1 + rng.IntN(3000))
		lambda := math.Exp(-1 - 8*rng.Float64())
		rangeL := float64(n+1) * lambda
		from, to := randTilts(rng, 6, rangeL), randTilts(rng, 6, rangeL)
		env := make([]float64, len(from))
		for m := range env {
			env[m] = math.Exp(-60 * rng.Float64())
			switch rng.IntN(12) {
			case 0:
				env[m] = 0
			case 1:
				env[m] = math.Inf(1)
			}
		}
		if trial%2 == 0 {
			// crossings exactly on offsets
			for m := 1; m < len(env); m++ {
				p := rng.IntN(m)
				if env[p] > 0 && !math.IsInf(env[p], 0) {
					L := float64(rng.IntN(2*n)-n+1) * lambda
					env[m] = env[p] * math.Exp((from[m]-from[p])*L)
				}
			}
		}
		lnEnv := make([]float64, len(env))
		for m, e := range env {
			lnEnv[m] = math.Log(e)
		}
		all := make([]int, 2*n)
		for o := range all {
			all[o] = o
		}
		want := retiltMax(lnEnv, from, to, n, lambda, all)
		got := retiltMax(lnEnv, from, to, n, lambda, retiltCandidates(lnEnv, from, n, lambda))
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("trial %d (n=%d, %d->%d tilts) k=%d: candidates give %v, all offsets %v", trial, n, len(from), len(to), k, got[k], want[k])
			}
		}
	}
}

// randTilts returns 1 to k tilts: 0 and random ones with |tau| rangeL < 40.
func randTilts(rng *rand.Rand, k int, rangeL float64) []float64 {
	tau := make([]float64, 1+rng.IntN(k))
	for m := 1; m < len(tau); m++ {
		tau[m] = (rng.Float64()*2 - 1) * 40 / rangeL
	}
	return tau
}

// TestRetiltDominates checks that re-tilted envelopes bound the old error
// model at every offset, for random envelopes and tilts.
func TestRetiltDominates(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	for trial := 0; trial < 200; trial++ {
		n := 2 * (1 + rng.IntN(50))
		lambda := math.Exp(-8 * rng.Float64())
		rangeL := float64(n+1) * lambda
		from, to := randTilts(rng, 5, rangeL), randTilts(rng, 5, rangeL)
		env := make([]float64, len(from))
		for m := range env {
			if rng.IntN(5) > 0 {
				env[m] = math.Exp(-60 * rng.Float64())
			}
		}
		out := retiltEnv(env, from, to, n, lambda)
		for o := 0; o < 2*n; o++ {
			L := float64(o-n+1) * lambda
			old, nw := math.Inf(1), math.Inf(1)
			for m := range from {
				old = math.Min(old, env[m]*math.Exp(-from[m]*L))
			}
			for k := range to {
				nw = math.Min(nw, out[k]*math.Exp(-to[k]*L))
			}
			if nw < old*(1-1e-13) {
				t.Fatalf("trial %d offset %d: re-tilted bound %v < old %v", trial, o, nw, old)
			}
		}
	}
}
