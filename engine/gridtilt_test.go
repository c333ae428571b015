package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGridTiltWeightsNormal checks the premise of gridTilts's cap: for the
// tilts a composition of grid lists uses (plan.tilts: chooseTilts, then
// gridTilts, for the range of the list), over random bucket counts, ranges
// from 1 to 2^30 nats, loss deviations and tilt counts, every weight
// e^(tau L(o)) and its reciprocal is a finite normal float64 and the
// weights' relative error bound is small. Subnormal or infinite weights
// would void the error model of the tilted convolutions (weightsInto's
// relative error, the untilting products env e^(-tau L)). It fails when
// gridTiltRange exceeds about 708 (the reciprocals e^-(|tau| range) turn
// subnormal) or when the cap is dropped.
func TestGridTiltWeightsNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 660))
	cases := 300
	if testing.Short() {
		cases = 60
	}
	atCap := 0
	for c := 0; c < cases; c++ {
		n := 2 * (1 + rng.IntN(1<<14))
		if c%10 == 0 {
			n = 1 << 19 // the reciprocal's end comes closest to the range
		}
		rangeL := math.Exp(rng.Float64() * math.Log(1<<30))
		if c%3 == 0 {
			rangeL = 400 + 400*rng.Float64() // around swapRange
		}
		lambda := rangeL / float64(n+1)
		sd := math.Exp((rng.Float64()*2 - 1) * 10)
		k := 1 + rng.IntN(5)
		tau := gridTilts(chooseTilts(sd, k, rangeL), rangeL)
		for _, x := range tau {
			if x < 0 && -x*rangeL > gridTiltRange*(1-1e-9) {
				atCap++
			}
		}
		tw := newTiltWeights(n, lambda, tau)
		if !(tw.rel < 1e-10) {
			t.Fatalf("n=%d range=%v tau=%v: weights' relative error bound %v", n, rangeL, tau, tw.rel)
		}
		for m := range tau {
			for o := 0; o < 2*n; o++ {
				for _, v := range []float64{tw.w[m][o], tw.inv[m][o]} {
					if !(v >= minNormal && v <= math.MaxFloat64) {
						t.Fatalf("n=%d range=%v tau=%v: weight %v of tilt %v at offset %d (loss %v) is not a finite normal float64",
							n, rangeL, tau, v, tau[m], o, float64(o-n+1)*lambda)
					}
				}
			}
		}
	}
	if atCap < cases/20 {
		t.Errorf("only %d cases with a tilt at the cap", atCap)
	}
}

// TestGridTiltsUncappedBelowSwapRange checks that gridTilts never cuts the
// shifted tilt -(T+1) while the range is at most swapRange (above it the
// swapped grid list holds the B||A side), for every tilt chooseTilts may
// return. With the cap of 600/range it failed between 540 and 600 nats
// (the DP-SGD sweep cell sigma 0.5, q 0.00631, r 2^18, range 576: tilt
// -1.04 instead of -1.104; engine/README.md, issue 12 step 5).
func TestGridTiltsUncappedBelowSwapRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 5))
	for c := 0; c < 2000; c++ {
		rangeL := swapRange * math.Exp(-8*rng.Float64())
		if c%4 == 0 {
			rangeL = swapRange * (1 - 0.2*rng.Float64())
		}
		sd := math.Exp((rng.Float64()*2 - 1) * 8)
		in := chooseTilts(sd, 1+rng.IntN(5), rangeL)
		out := gridTilts(in, rangeL)
		for m, x := range in {
			if want := x; x < 0 {
				want = x - 1
				if out[m] != want {
					t.Fatalf("range %v, tilts %v: shifted tilt %v, want %v", rangeL, in, out[m], want)
				}
			} else if out[m] != want {
				t.Fatalf("range %v, tilts %v: tilt %v changed to %v", rangeL, in, x, out[m])
			}
		}
	}
}

// TestGridTiltCapBruteForce composes small random pairs, most with losses
// of tens to hundreds of nats per observation (composed beyond 745, where
// e^-L leaves float64), into grid lists whose every composition uses the
// tilts at their caps: chooseTilts for a tiny deviation (T = 60/range) and
// gridTilts's shift, or the negative tilt at -gridTiltRange/range itself
// (weights up to e^660), over composed ranges of about 50 to 1,400 nats
// with random squarings, and checks both directions of the grid bounds
// against enumeration in log space at eps up to 1,500 and +Inf.
func TestGridTiltCapBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2028))
	trials := 1500
	if testing.Short() {
		trials = 300
	}
	informative, extreme := 0, 0
	for trial := 0; trial < trials; trial++ {
		g, as, bs, desc, ext := gridCapCase(rng, trial)
		if ext {
			extreme++
		}
		// the tilted convolutions stay in float64: no NaN value, no
		// infinite envelope (they would only make the bounds trivial)
		for o := range g.a {
			if math.IsNaN(g.a[o]) || math.IsNaN(g.c[o]) {
				t.Fatalf("%s: value NaN at offset %d", desc, o)
			}
		}
		for m := range g.tau {
			if !(g.envA[m] < math.Inf(1)) || !(g.envC[m] < math.Inf(1)) {
				t.Fatalf("%s: envelope of tilt %v is %v, %v", desc, g.tau[m], g.envA[m], g.envC[m])
			}
		}
		tab := g.gridTable(g.bounds())
		for _, eps := range swapEps {
			d := g.gridDelta(eps, tab)
			if msg := checkDirs(as, bs, eps, d); msg != "" {
				t.Fatalf("%s: %s", desc, msg)
			}
			if _, _, ba, _ := refEnumerateDirs(as, bs, eps); eps >= 100 && !math.IsInf(eps, 1) && !math.IsInf(ba, -1) && d.UpperBA < 1 {
				informative++
			}
		}
	}
	t.Logf("%d B||A checks at eps >= 100 with a positive exact delta and a non-trivial upper bound; %d lists with a tilt at -%v/range", informative, extreme, float64(gridTiltRange))
	if informative < trials/10 || extreme < trials/10 {
		t.Errorf("the cases do not reach the regime: %d informative checks, %d lists at the cap", informative, extreme)
	}
}

// gridCapCase builds one case of TestGridTiltCapBruteForce: 1-4
// observations of 1-3 random pairs (far groups, histograms, randomized
// response), composed one after the other with the tilts at their caps.
// It returns the composed grid list, the observations' PMFs, a
// description, and whether some composition used -gridTiltRange/range.
func gridCapCase(rng *rand.Rand, trial int) (*list, [][]float64, [][]float64, string, bool) {
	k := 1 + rng.IntN(3)
	var mechs []Mechanism
	var pa, pb [][]float64
	for i := 0; i < k; i++ {
		var a, b []float64
		var m Mechanism
		switch rng.IntN(4) {
		case 0:
			n := 2 + rng.IntN(4)
			a, b = randomPMFWith(rng, n, true), randomPMFWith(rng, n, true)
			var err error
			if m, err = Histogram(a, b); err != nil {
				panic(err)
			}
			h := m.(*histMech)
			a, b = h.a, h.b
		case 1:
			p := 0.5 + 0.499*rng.Float64()
			a, b = []float64{p, 1 - p}, []float64{1 - p, p}
			m, _ = RandomizedResponse(p)
		default:
			g := farHist(rng, 3+rng.IntN(4), 20+rng.Float64()*320)
			a, b, m = g.a, g.b, g
		}
		mechs = append(mechs, m)
		pa, pb = append(pa, a), append(pb, b)
	}
	o, _ := Options{Buckets: 4 * (2 + rng.IntN(60)), Tilts: 1 + rng.IntN(5)}.withDefaults()
	p, leaves := gridLeavesOf(mechs, o, false)
	// the observations: each leaf once, some twice
	var obs []*list
	var as, bs [][]float64
	for i, l := range leaves {
		for c := 1 + rng.IntN(2); c > 0 && len(obs) < 4; c-- {
			obs = append(obs, l)
			as, bs = append(as, pa[i]), append(bs, pb[i])
		}
	}
	ext := false
	acc := obs[0]
	if rng.IntN(3) == 0 {
		acc = acc.square()
	}
	for _, leaf := range obs[1:] {
		for acc.squarings < leaf.squarings {
			acc = acc.square()
		}
		for leaf.squarings < acc.squarings {
			leaf = leaf.square()
		}
		if rng.IntN(3) == 0 {
			acc, leaf = acc.square(), leaf.square()
		}
		rangeL := float64(acc.n+1) * acc.lambda
		sd := 1e-6 // T at its cap 60/range
		if rng.IntN(4) == 0 {
			sd = math.Exp(rng.Float64()*8 - 2)
		}
		tau := gridTilts(chooseTilts(sd, max(3, o.Tilts), rangeL), rangeL)
		if rng.IntN(2) == 0 {
			tau[2] = -gridTiltRange / rangeL // the largest magnitude allowed
			ext = true
		}
		acc = p.gcp.compose(acc.retilt(tau), leaf.retilt(tau), nil)
	}
	desc := fmt.Sprintf("trial %d: %d observations, buckets=%d tilts=%v squarings=%d range=%.4g", trial, len(obs), 2*acc.n, acc.tau, acc.squarings, float64(acc.n+1)*acc.lambda)
	return acc, as, bs, desc, ext
}
