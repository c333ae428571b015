package engine

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// Tail budgets chosen by the engine (tailbudget.go): the rule, the floor
// a question gives, and the bounds of compositions at the chosen budgets
// against exact enumeration.

// TestTailBudgetChoice checks withTailBudget's rule: an explicit tail
// budget or factor wins, no floor keeps the default, a count pair takes
// tailBudgetMargin below the floor within [deepestCountBudget, default]
// below tiltDecidesFrom observations (the default from there on),
// other mechanisms keep the default, a sequence takes its parts' smallest,
// and the free corner budget follows the tail budget only where the
// caller left it 0.
func TestTailBudgetChoice(t *testing.T) {
	conv, err := VuvuzelaConversation(NoiseGauss, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Gauss(2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name           string
		opt            Options
		parts          []Part
		wantTB, wantFI float64
	}{
		{"no floor", Options{}, []Part{{conv, 10}}, 1e-22, 1e-22},
		{"floor above the default's reach", Options{DeltaFloor: 1e-5}, []Part{{conv, 10}}, 1e-22, 1e-22},
		{"floor 1e-25", Options{DeltaFloor: 1e-25}, []Part{{conv, 10}}, 1e-35, 1e-35},
		{"floor the default resolves", Options{DeltaFloor: 1e-15}, []Part{{conv, 10}}, 1e-22, 1e-22},
		{"floor below the deepest", Options{DeltaFloor: 1e-200}, []Part{{conv, 10}}, 1e-40, 1e-40},
		{"explicit tail budget", Options{DeltaFloor: 1e-30, TailBudget: 1e-24}, []Part{{conv, 10}}, 1e-24, 1e-24},
		{"explicit factor", Options{DeltaFloor: 1e-30, Factor: 1.001}, []Part{{conv, 10}}, 1e-22, 1e-22},
		{"explicit free budget", Options{DeltaFloor: 1e-30, FreeInftyBudget: 1e-20}, []Part{{conv, 10}}, 1e-40, 1e-20},
		{"no free budget", Options{DeltaFloor: 1e-30, FreeInftyBudget: -1}, []Part{{conv, 10}}, 1e-40, 0},
		{"gauss keeps the default", Options{DeltaFloor: 1e-30}, []Part{{g, 10}}, 1e-22, 1e-22},
		{"tilted bounds decide at large r", Options{DeltaFloor: 1e-30}, []Part{{conv, tiltDecidesFrom}}, 1e-22, 1e-22},
		{"sequence takes the smallest", Options{DeltaFloor: 1e-30}, []Part{{g, 10}, {conv, 3}}, 1e-40, 1e-40},
	} {
		o, err := c.opt.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		o = o.withTailBudget(c.parts)
		if math.Abs(o.TailBudget/c.wantTB-1) > 1e-12 || (c.wantFI == 0) != (o.FreeInftyBudget == 0) ||
			(c.wantFI != 0 && math.Abs(o.FreeInftyBudget/c.wantFI-1) > 1e-12) {
			t.Errorf("%s: tail budget %v, free budget %v; want %v, %v", c.name, o.TailBudget, o.FreeInftyBudget, c.wantTB, c.wantFI)
		}
	}
	if err := (Options{DeltaFloor: -1}).Check(); err == nil {
		t.Error("DeltaFloor -1 accepted")
	}
	if err := (Options{DeltaFloor: math.NaN()}).Check(); err == nil {
		t.Error("DeltaFloor NaN accepted")
	}
}

// TestDeltaFloorFor checks the floor a question gives: 0 where the budget
// it names is the default (count pairs' deltas the default resolves,
// other mechanisms' deltas below 1e-14) and for an eps asked of a
// mechanism without a moment bound, the smallest delta asked rounded down
// to a power of ten, and at an eps the
// moment bound's delta (an upper bound on the true delta, so the floor is
// never below what a composition at the chosen budget must resolve).
func TestDeltaFloorFor(t *testing.T) {
	ctx := context.Background()
	conv, err := VuvuzelaConversation(NoiseGauss, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Gauss(2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		m      Mechanism
		eps    []float64
		deltas []float64
		want   float64 // -1: in (0, 1e-20], a budget below the default
	}{
		{"gauss, eps asked", g, []float64{5}, []float64{1e-5}, 0},
		{"gauss, shallow delta", g, nil, []float64{3e-5, 1e-3}, 1e-5},
		{"gauss, delta the default resolves", g, nil, []float64{1e-5, 1e-30}, 0},
		{"nothing asked", conv, nil, nil, 0},
		{"bulk delta", conv, nil, []float64{1e-5}, 0},
		{"deep delta", conv, nil, []float64{1e-5, 3e-27}, 1e-27},
		{"delta the default resolves", conv, nil, []float64{1e-5, 3e-17}, 0},
		{"bulk eps", conv, []float64{0.1}, []float64{1e-5}, 0},
		{"far eps", conv, []float64{0.1, 60}, nil, -1},
	} {
		got, err := DeltaFloorFor(ctx, c.m, 3, c.eps, c.deltas)
		if err != nil {
			t.Fatal(err)
		}
		ok := got == c.want
		if c.want < 0 {
			ok = got > 0 && got <= 1e-20
		}
		if !ok {
			t.Errorf("%s: floor %v, want %v", c.name, got, c.want)
		}
	}
	// the floor at an eps is at least the exact delta there (the moment
	// bound is an upper bound), rounded down to a power of ten
	res, err := Compose(ctx, conv, 3, Options{Buckets: 4000})
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{12, 20, 30} {
		f, err := DeltaFloorFor(ctx, conv, 3, []float64{eps}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := res.Delta(eps); d.Lower > 0 && f > d.Upper {
			t.Errorf("eps %v: floor %v above delta_up %v", eps, f, d.Upper)
		}
	}
	if _, err := DeltaFloorFor(ctx, nil, 3, nil, nil); err == nil {
		t.Error("nil mechanism accepted")
	}
	if _, err := DeltaFloorFor(ctx, conv, 0, nil, nil); err == nil {
		t.Error("r = 0 accepted")
	}
}

// TestPowerTailBudget checks the power path's budget (powerTailBudget):
// floorBudgetMargin below the floor (powerShortMargin up to powerShortN
// points) within [default, maxFloorBudget] where
// the caller left the tail budget and the factor to the engine, else the
// budget as withTailBudget leaves it.
func TestPowerTailBudget(t *testing.T) {
	g, err := Gauss(2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  Options
		want float64
	}{
		{"no floor", Options{}, 1e-22},
		{"shallow floor, default buckets (2^17 points)", Options{DeltaFloor: 1e-5}, 1e-12},
		{"shallow floor, short transform", Options{DeltaFloor: 1e-5, Buckets: 1 << 17}, 1e-12},
		{"shallow floor, long transform", Options{DeltaFloor: 1e-5, Buckets: 1<<17 + 4}, 1e-13},
		{"floor near 1", Options{DeltaFloor: 0.5}, maxFloorBudget},
		{"deep floor", Options{DeltaFloor: 1e-20}, 1e-22},
		{"explicit tail budget", Options{DeltaFloor: 1e-5, TailBudget: 1e-24}, 1e-24},
		{"explicit factor", Options{DeltaFloor: 1e-5, Factor: 1.001}, 1e-22},
	} {
		o, err := c.opt.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		o = o.withTailBudget([]Part{{g, 10}})
		if got := o.powerTailBudget(); math.Abs(got/c.want-1) > 1e-12 {
			t.Errorf("%s: power path's budget %v, want %v", c.name, got, c.want)
		}
		if o.TailBudget != c.opt.TailBudget && !(c.opt.TailBudget == 0 && o.TailBudget == defaultTailBudget) {
			t.Errorf("%s: the chain's budget %v changed", c.name, o.TailBudget)
		}
	}
}

// enumeratedPair holds a count pair's events for multisetDelta: the mass
// enclosures of the events above drop and the rest (dropped and
// unresolved mass, upper ends).
type enumeratedPair struct {
	aLo, aHi, bLo, bHi []float64
	restA, restB       float64
}

// enumerate returns cm's events for multisetDelta.
func enumerate(cm *countMech, drop float64) enumeratedPair {
	e := enumeratedPair{restA: cm.unknownA[1], restB: cm.unknownB[1]}
	for k := range cm.pa {
		if cm.pa[k] <= cm.ea[k] || cm.pb[k] <= cm.eb[k] || (cm.pa[k] < drop && cm.pb[k] < drop) {
			e.restA += cm.pa[k] + cm.ea[k]
			e.restB += cm.pb[k] + cm.eb[k]
			continue
		}
		e.aLo, e.aHi = append(e.aLo, cm.pa[k]-cm.ea[k]), append(e.aHi, cm.pa[k]+cm.ea[k])
		e.bLo, e.bHi = append(e.bLo, cm.pb[k]-cm.eb[k]), append(e.bHi, cm.pb[k]+cm.eb[k])
	}
	return e
}

// checkAgainstExact returns the soundness violations of the bounds d at
// eps against the exact delta's enclosures [abLo, abHi] (A||B) and
// [baLo, baHi] (B||A): an upper bound below the exact's lower end or a
// lower bound above its upper end, or a NaN.
func checkAgainstExact(d DeltaBound, abLo, abHi, baLo, baHi float64) []string {
	var out []string
	for _, v := range []float64{d.UpperAB, d.UpperBA, d.LowerAB, d.LowerBA} {
		if math.IsNaN(v) {
			return []string{"NaN bound"}
		}
	}
	if d.UpperAB < abLo {
		out = append(out, fmt.Sprintf("A||B upper %v below the exact %v", d.UpperAB, abLo))
	}
	if d.UpperBA < baLo {
		out = append(out, fmt.Sprintf("B||A upper %v below the exact %v", d.UpperBA, baLo))
	}
	if d.LowerAB > abHi {
		out = append(out, fmt.Sprintf("A||B lower %v above the exact %v", d.LowerAB, abHi))
	}
	if d.LowerBA > baHi {
		out = append(out, fmt.Sprintf("B||A lower %v above the exact %v", d.LowerBA, baHi))
	}
	return out
}

// TestFarTailChosenBudgetEnumerated composes small dialing and
// conversation pairs (Gauss and Laplace noise) r = 1..6 times with the
// tail budget the engine chooses for a floor of 1e-300 (the deepest) and
// for the floors DeltaFloorFor gives for the queried eps, and checks
// delta_up and delta_low in both directions against exact enumeration of
// the r-fold product at eps out to where delta is about 1e-300; it also
// checks that the comparison catches bounds moved across the exact delta.
func TestFarTailChosenBudgetEnumerated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eps := []float64{0, 0.5, 1, 2, 3, 5, 8, 12, 20, 30, 45, 70, 100, 150, 250, 400, 690}
	for _, c := range smallCountCases {
		cm := c.prepared(t)
		ev := enumerate(cm, c.drop)
		rs := make([]int, c.rMax)
		for i := range rs {
			rs[i] = i + 1
		}
		floor, err := DeltaFloorFor(ctx, cm, c.rMax, eps, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !(floor > 0 && floor <= 1e-20) {
			t.Errorf("%s: floor %v for eps up to %v, want in (0, 1e-20]", c.name, floor, eps[len(eps)-1])
		}
		for _, df := range []float64{1e-300, floor} {
			res, err := ComposeMany(ctx, cm, rs, Options{Buckets: 4000, DeltaFloor: df})
			if err != nil {
				t.Fatal(err)
			}
			caught := 0
			for ri, r := range rs {
				abLo, abHi, baLo, baHi := multisetDelta(ev.aLo, ev.aHi, ev.bLo, ev.bHi, ev.restA, ev.restB, r, eps)
				for i, e := range eps {
					d := res[ri].Delta(e)
					for _, v := range checkAgainstExact(d, abLo[i], abHi[i], baLo[i], baHi[i]) {
						t.Errorf("%s floor %v r=%d eps=%v: %s", c.name, df, r, e, v)
					}
					if testing.Verbose() && r == c.rMax {
						t.Logf("%s floor %v r=%d eps=%v: AB [%.3g, %.3g] exact [%.3g, %.3g]", c.name, df, r, e, d.LowerAB, d.UpperAB, abLo[i], abHi[i])
					}
					// a bound moved across the exact delta is caught
					if abLo[i] > 0 {
						bad := d
						bad.UpperAB = abLo[i] * (1 - 1e-6)
						if len(checkAgainstExact(bad, abLo[i], abHi[i], baLo[i], baHi[i])) > 0 {
							caught++
						}
						bad = d
						bad.LowerBA = baHi[i] * (1 + 1e-6)
						if len(checkAgainstExact(bad, abLo[i], abHi[i], baLo[i], baHi[i])) > 0 {
							caught++
						}
					}
				}
			}
			if caught == 0 {
				t.Errorf("%s: no broken bound was caught", c.name)
			}
		}
	}
}

// TestFarTailConversationChosenBudget: for a question at e^eps 1.45 about
// GS(15k, 2.5k) after r = 1,024 rounds, the floor DeltaFloorFor gives
// lets the engine choose a tail budget at which the buckets decide the
// far tail from both sides: within 10x of the continuous Gaussian model
// (an upper bound on the exact delta) at 5.3e-30, where the default budget
// leaves the moment bound's 10.2x and a lower bound of 0 after a
// question about e^eps 1.45 alone.
func TestFarTailConversationChosenBudget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a paper-scale conversation pair")
	}
	ctx := context.Background()
	m, err := VuvuzelaConversation(NoiseGauss, 15000, 2500)
	if err != nil {
		t.Fatal(err)
	}
	eps := math.Log(1.45)
	floor, err := DeltaFloorFor(ctx, m, 1024, []float64{eps}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !(floor > 0 && floor < 1e-28) {
		t.Fatalf("floor %v, want in (0, 1e-28)", floor)
	}
	res, err := Compose(ctx, m, 1024, Options{DeltaFloor: floor})
	if err != nil {
		t.Fatal(err)
	}
	mu := math.Sqrt(1024) * 3 / (2500 * math.Sqrt(1.25))
	cont := exactGaussLarge(mu, eps)
	d := res.Delta(eps)
	t.Logf("floor %v: [%.5g, %.5g], continuous model %.5g", floor, d.Lower, d.Upper, cont)
	if d.Lower > cont || d.Upper > 10*cont || d.Lower < cont/10 {
		t.Errorf("[%.5g, %.5g], want within 10x of the continuous model %.5g (lower end below it)", d.Lower, d.Upper, cont)
	}
}
