package engine

import (
	"math"
	"slices"
	"testing"
)

// stagesByBisection is the divisor search as a bisection over every
// divisor (the reference powerStagesMemo's walk from stageGuess must
// match where the fit is monotone in m).
func (p *plan) stagesByBisection(mech Mechanism, r, N int, lambda float64, memo map[int]float64) (powerStages, bool) {
	if x := math.Ceil(float64(p.n) * p.gridLambda / (lambda / powerStageK)); !(2*x <= float64(N/powerStageCostDiv)) {
		return powerStages{}, false
	}
	var ds []int
	for m := powerStageMinM; m <= r/powerStageMinQ; m++ {
		if r%m == 0 {
			ds = append(ds, m)
		}
	}
	if len(ds) == 0 {
		return powerStages{}, false
	}
	fit := func(m int) (powerStages, bool) {
		return p.stageFitMemo(mech, r, N, lambda, m, powerStageK, powerStageCostDiv, memo)
	}
	if _, ok := fit(ds[0]); !ok {
		return powerStages{}, false
	}
	lo, hi := 0, len(ds)-1
	var best powerStages
	found := false
	for lo <= hi {
		mid := (lo + hi) / 2
		if st, ok := fit(ds[mid]); ok {
			best, found = st, true
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	return best, found
}

// TestPowerStagesSearch checks that the divisor search (the cumulants'
// guess, then a walk) chooses the bisection's plan on DP-SGD, Gauss and
// Laplace pairs over counts with many and few divisors and transform
// lengths 2^12-2^20, and that a fit is monotone in m there.
func TestPowerStagesSearch(t *testing.T) {
	sgd := func(sigma, q float64) func() (Mechanism, error) {
		return func() (Mechanism, error) { return SGD(sigma, q) }
	}
	mechs := []struct {
		name string
		mk   func() (Mechanism, error)
	}{
		{"sgd4", sgd(4, 0.01)},
		{"sgd1", sgd(1, 0.01)},
		{"sgd1.1", sgd(1.1, 0.01)},
		{"sgd1k", sgd(1, 0.001)},
		{"sgd0.8", sgd(0.8, 0.05)},
		{"gauss", func() (Mechanism, error) { return Gauss(200*math.Sqrt2, 1, 0) }},
		{"laplace", func() (Mechanism, error) { return Laplace(2, 1, 0) }},
	}
	rs := []int{720, 1000, 4096, 10000, 65536, 250000, 1 << 20}
	for _, mc := range mechs {
		m, err := mc.mk()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			o, err := Options{Buckets: 1 << 14, power: powerOn}.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			o = o.withTailBudget([]Part{{Mechanism: m, Count: r}})
			p, err := newPowerPlan(m, r, o)
			if err != nil {
				t.Fatal(err)
			}
			if p == nil {
				continue
			}
			ref := map[int]float64{} // the reference's ranges, by m
			for N := 1 << 12; N <= 1<<20; N *= 2 {
				R := p.powerRange(m, r)
				if !(R > 0) || R > powerMaxRange {
					continue
				}
				lambda := R / float64(N/2)
				memo := map[int]float64{}
				got, gotOK := p.powerStagesMemo(m, r, N, lambda, memo, nil)
				want, wantOK := p.stagesByBisection(m, r, N, lambda, ref)
				t.Logf("%s r %d N %d: m %d, %d full range estimates", mc.name, r, N, got.m, len(memo))
				if gotOK != wantOK || got != want {
					t.Errorf("%s r %d N %d: plan %+v (%v), bisection %+v (%v)", mc.name, r, N, got, gotOK, want, wantOK)
				}
				// monotone: no divisor above the choice fits, every one below does
				var fits []bool
				for d := powerStageMinM; d <= r/powerStageMinQ; d++ {
					if r%d == 0 {
						_, ok := p.stageFitMemo(m, r, N, lambda, d, powerStageK, powerStageCostDiv, ref)
						fits = append(fits, ok)
					}
				}
				if i := slices.Index(fits, false); i >= 0 && slices.Contains(fits[i:], true) {
					t.Logf("%s r %d N %d: fit not monotone in m: %v", mc.name, r, N, fits)
				}
			}
		}
	}
}
