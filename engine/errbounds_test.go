package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// errBoundsBrute is the direct per-offset minimum over all tilts, the
// reference for errBoundsInto.
func (l *list) errBoundsBrute(tw *tiltWeights) (ea, ec []float64) {
	inv := tw.inv
	ea = make([]float64, 2*l.n)
	ec = make([]float64, 2*l.n)
	for o := range ea {
		ea[o], ec[o] = math.Inf(1), math.Inf(1)
		for m := range inv {
			ea[o] = math.Min(ea[o], l.envA[m]*inv[m][o])
			ec[o] = math.Min(ec[o], l.envC[m]*inv[m][o])
		}
		ea[o] = ea[o]*((1+1e-12)*(1+2*tw.rel)) + l.relA*(1+2*unitRoundoff)*l.a[o]
		ec[o] = ec[o]*((1+1e-12)*(1+2*tw.rel)) + l.relC*(1+2*unitRoundoff)*l.c[o]
	}
	return ea, ec
}

// TestErrBoundsSegments checks that choosing the tilt per stretch between
// crossings gives the per-offset minimum (up to rounding at the crossings)
// and never less, over random envelopes (zero and infinite ones included)
// and tilts.
func TestErrBoundsSegments(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 300; trial++ {
		n := 2 * (1 + rng.IntN(500))
		lambda := math.Exp(-2 - 6*rng.Float64())
		K := 1 + rng.IntN(7)
		sd := float64(n) * lambda * (0.01 + rng.Float64())
		tau := chooseTilts(sd, min(K, 5), float64(n+1)*lambda)
		for len(tau) < K {
			tau = append(tau, (rng.Float64()-0.5)*20/(float64(n)*lambda))
		}
		l := newList(n, lambda, tau)
		for o := range l.a {
			l.a[o], l.c[o] = rng.Float64()*1e-3, rng.Float64()*1e-3
		}
		l.relA, l.relC = 1e-15, 2e-15
		for m := range tau {
			l.envA[m] = math.Exp(-40 * rng.Float64())
			l.envC[m] = math.Exp(-40 * rng.Float64())
			switch rng.IntN(10) {
			case 0:
				l.envA[m] = 0
			case 1:
				l.envC[m] = math.Inf(1)
			}
		}
		if trial%2 == 0 && K >= 2 {
			// lines crossing exactly at grid points (as re-tilted
			// envelopes do: their maxima sit on offsets)
			for m := 1; m < K; m++ {
				p := rng.IntN(m)
				oc := rng.IntN(2 * n)
				L := float64(oc-n+1) * lambda
				l.envA[m] = l.envA[p] * math.Exp((tau[m]-tau[p])*L)
				l.envC[m] = l.envC[p] * math.Exp((tau[m]-tau[p])*L)
			}
		}
		tw := newTiltWeights(n, lambda, tau)
		ga, gc := l.errBoundsW(tw)
		wa, wc := l.errBoundsBrute(tw)
		for o := range ga {
			for _, p := range [][2]float64{{ga[o], wa[o]}, {gc[o], wc[o]}} {
				got, want := p[0], p[1]
				if got < want || got > want*(1+1e-9) {
					t.Fatalf("trial %d (n=%d K=%d) offset %d: got %v, per-offset minimum %v", trial, n, K, o, got, want)
				}
			}
		}
	}
}

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
