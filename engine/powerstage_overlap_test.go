package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPowerStagesOverlapChain checks the power path where its own rule
// chooses the stages (powerStagesFor: two stages on most of these cases)
// against the squaring chain on random subsampled Gaussians (both
// samplings and both relations, r a multiple of 16, a question's floor or
// none): both bracket the same truth, so every eps and delta bracket of
// one must meet the other's. An upper bound below the truth by more than
// the chain's width, or a lower bound above it, fails it. 8 cases (48
// with PB_LONG); at least a quarter of them must compose in two stages.
func TestPowerStagesOverlapChain(t *testing.T) {
	if testing.Short() {
		t.Skip("composes DP-SGD by both paths (about 10 s)")
	}
	t.Parallel()
	n := 8
	if longTests() {
		n = 48
	}
	type tcase struct {
		m     Mechanism
		desc  string
		r, N  int
		floor float64
	}
	rng := rand.New(rand.NewPCG(31, 9))
	cases := make([]tcase, n)
	for i := range cases {
		sigma := 0.7 + 4.3*rng.Float64()
		q := math.Pow(10, -3.5+2.5*rng.Float64())
		s, rel := Sampling(rng.IntN(2)), Relation(rng.IntN(2))
		r := 16 * (4 + rng.IntN(4000))
		N := 1 << (14 + rng.IntN(4))
		if i%2 == 1 {
			N = N / 4 * 3 // the lengths 3*2^k
		}
		floor := []float64{0, 1e-5, 1e-8}[rng.IntN(3)]
		m, err := SubsampledGauss(sigma, 1, q, s, rel)
		if err != nil {
			t.Fatal(err)
		}
		cases[i] = tcase{m, fmt.Sprintf("%v r=%d N=%d floor=%g", m, r, N, floor), r, N, floor}
	}
	errs := make([][]string, n)
	staged := make([]bool, n)
	runConcurrently(n, func(i int) {
		c := cases[i]
		ctx := context.Background()
		o := Options{Buckets: c.N, power: powerOn, DeltaFloor: c.floor}
		pw, err := Compose(ctx, c.m, c.r, o)
		if err != nil {
			errs[i] = append(errs[i], err.Error())
			return
		}
		staged[i] = pw.g != nil && pw.l == nil && ruleStages(c.m, c.r, 2*pw.g.n, o)
		ch, err := Compose(ctx, c.m, c.r, Options{Buckets: 40000, power: powerOff})
		if err != nil {
			errs[i] = append(errs[i], err.Error())
			return
		}
		meet := func(aLo, aUp, bLo, bUp float64) bool {
			return aLo <= bUp*(1+1e-12)+1e-300 && bLo <= aUp*(1+1e-12)+1e-300
		}
		for _, d := range []float64{1e-3, 1e-5, 1e-8} {
			if d < c.floor {
				continue
			}
			a, b := pw.Eps(d), ch.Eps(d)
			if !meet(a.Lower, a.Upper, b.Lower, b.Upper) {
				errs[i] = append(errs[i], fmt.Sprintf("%s: eps(%g) power [%v, %v], chain [%v, %v]", c.desc, d, a.Lower, a.Upper, b.Lower, b.Upper))
			}
		}
		for _, e := range []float64{0.1, 1, 3} {
			a, b := pw.Delta(e), ch.Delta(e)
			if !meet(a.Lower, a.Upper, b.Lower, b.Upper) {
				errs[i] = append(errs[i], fmt.Sprintf("%s: delta(%g) power [%v, %v], chain [%v, %v]", c.desc, e, a.Lower, a.Upper, b.Lower, b.Upper))
			}
		}
	})
	two := 0
	for i := range cases {
		for _, e := range errs[i] {
			t.Error(e)
		}
		if staged[i] {
			two++
		}
	}
	if 4*two < n {
		t.Errorf("%d of %d cases in two stages: the test no longer draws the two-stage path", two, n)
	}
	t.Logf("%d of %d cases in two stages", two, n)
}
