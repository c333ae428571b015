package engine

import (
	"context"
	"math"
)

// The tail budget chosen by the engine.
//
// Options.TailBudget is the corner mass the automatic factor leaves after
// all compositions: beyond it the buckets' delta_up is the corners' mass,
// so the buckets resolve delta only down to a few orders above the budget
// (below, the moment bound decides where the pair has one, within about
// 10-30x of the truth, and the lower bounds end). A deeper budget widens
// the leaf range (a coarser factor) and lets more squarings happen (the
// free corner budget follows it), so it costs compose time; it pays only
// where the caller asks for deltas below the default's reach.
//
// Where the caller leaves TailBudget 0 the engine chooses it: the default
// (defaultTailBudget) unless Options.DeltaFloor says which deltas will be
// asked. Then each part's mechanism names the budget it needs for that
// floor (partBudget). A count pair (tailBudgeter) asks for
// tailBudgetMargin below a floor under the default's reach, never below
// the deepest budget its masses can resolve, and the default from
// tiltDecidesFrom observations on, where the tilted bounds decide the far
// tail; the squaring chain takes the smallest over the parts, never above
// the default (withTailBudget). Every other mechanism asks for
// floorBudgetMargin below the floor, never below the default and never
// above maxFloorBudget (floorBudget); the power path (power.go) composes
// on the range of that budget (powerTailBudget): a shallow question gets
// a narrower range, hence a finer grid at the same transform length, and
// its bracket narrows like the square of the range. The chain keeps the
// default for these mechanisms: a shallower budget narrowed its DP-SGD
// brackets 1.1-5.5 times at some budgets and widened them up to 19 times
// at others (engine/README.md, tail budget per question). Any budget is
// sound: the corners' mass counts in full in delta_up, so a budget only
// decides how deep the brackets stay narrow. DeltaFloorFor computes a
// floor from the questions (deltas asked, and the moment bound's delta at
// the largest e^eps asked).

// defaultTailBudget is the tail budget where neither Options.TailBudget nor
// Options.DeltaFloor says otherwise.
const defaultTailBudget = 1e-22

// tailBudgetMargin is the ratio of the chosen tail budget to the smallest
// delta the caller will ask (Options.DeltaFloor): the buckets' bounds stay
// within a few percent of each other down to about 1e5 to 1e9 times the
// budget on the Vuvuzela conversation pairs (measured at budgets 1e-22 to
// 1e-40; engine/README.md, far tails).
const tailBudgetMargin = 1e-10

// tailBudgeter is implemented by mechanisms that resolve their loss
// distribution beyond the default tail budget (their masses are known to
// a relative error far below the budget's ratio to the bulk).
type tailBudgeter interface {
	// tailBudget returns the tail budget the mechanism needs so that
	// deltas down to floor (> 0) are resolved after r observations: in
	// (0, defaultTailBudget].
	tailBudget(floor float64, r int) float64
}

// floorBudgetMargin is the ratio of the tail budget to the smallest delta
// asked (Options.DeltaFloor) for mechanisms that name no budget of their
// own (floorBudget). The corners' mass, about the budget, widens delta's
// bracket by about budget/delta (relative). Measured on the DP-SGD peers'
// rows (eps at delta 1e-5, 1e-6): the power path's brackets at 2^16 to
// 2^19 points narrowed 1.05-2.2 times (engine/README.md, tail budget per
// question); at a margin of 1e-6 the power path's positive tilt aliased
// (its tilted mass beyond the range) and the chain's brackets widened.
const floorBudgetMargin = 1e-8

// maxFloorBudget is the largest tail budget floorBudget chooses: deltas
// above 1e-2 are not resolved more finely by a shallower one.
const maxFloorBudget = 1e-10

// floorBudget returns the tail budget of a mechanism without a
// tailBudgeter for deltas down to floor (> 0): floorBudgetMargin below
// it, within [defaultTailBudget, maxFloorBudget].
func floorBudget(floor float64) float64 {
	return math.Min(maxFloorBudget, math.Max(defaultTailBudget, floor*floorBudgetMargin))
}

// partBudget returns the tail budget part m needs for deltas down to
// floor (> 0) after total observations of the composition.
func partBudget(m Mechanism, floor float64, total int) float64 {
	if tb, ok := m.(tailBudgeter); ok {
		return tb.tailBudget(floor, total)
	}
	return floorBudget(floor)
}

// withTailBudget returns o with the tail budget (and the free corner
// budget where it follows the tail budget) chosen for the composition of
// parts: unchanged unless the caller left TailBudget and Factor 0 and set
// DeltaFloor; else the smallest budget any part needs (tailBudgeter; parts
// without one need the default), at most the default. The squaring chain
// composes with it; the power path takes powerTailBudget.
func (o Options) withTailBudget(parts []Part) Options {
	if !o.autoTailBudget || o.Factor != 0 || !(o.DeltaFloor > 0) {
		return o
	}
	total := 0
	for _, p := range parts {
		total += p.Count
	}
	b := o.TailBudget
	for _, p := range parts {
		if tb, ok := p.Mechanism.(tailBudgeter); ok {
			if v := tb.tailBudget(o.DeltaFloor, total); v > 0 && v < b {
				b = v
			}
		}
	}
	if b < o.TailBudget {
		o.TailBudget = b
		if o.autoFreeInfty {
			o.FreeInftyBudget = b
		}
	}
	return o
}

// powerShortMargin is floorBudgetMargin of the power path's shorter
// transforms (at most powerShortN points): there the grid's slack sets
// brackets of at least about 2.5e-5 relative on the DP-SGD rows, beside
// which the corners' share (about budget/floor on delta) stays small, and
// the narrower range the shallower budget allows narrows them (the
// bracket grows like the range squared). Relative eps widths with the
// question's floor at 2^16 / 2^17 points, margins 1e-8 -> 1e-7: DP-SGD
// 1.1/0.01/10^4 1.20e-4 -> 1.06e-4 / 3.04e-5 -> 2.78e-5; 4/0.01/65,536
// 5.92e-4 -> 5.51e-4 / 1.48e-4 -> 1.38e-4; 1/0.001/250,000 3.31e-3 ->
// 2.41e-3 / 9.87e-4 -> 6.08e-4. At 2^18 points and beyond the corners'
// share shows (1/0.001/250,000 at 2^18: 1.63e-4 -> 1.93e-4; at 2^20 a
// margin of 1e-6 widened all three rows 1.6-2.9 times), so longer
// transforms keep floorBudgetMargin.
const powerShortMargin = 1e-7

// powerShortN is the longest transform of the power path that composes
// on the range of powerShortMargin.
const powerShortN = 1 << 17

// powerTailBudget returns the tail budget of the power path's range
// (power.go): where the caller left TailBudget and Factor 0 and set a
// floor, floorBudget of Options.DeltaFloor, with powerShortMargin instead
// of floorBudgetMargin for transforms of at most powerShortN points
// (Options.Buckets), never below the budget withTailBudget chose; else
// TailBudget.
func (o Options) powerTailBudget() float64 {
	if !o.autoTailBudget || o.Factor != 0 || !(o.DeltaFloor > 0) {
		return o.TailBudget
	}
	b := floorBudget(o.DeltaFloor)
	if o.Buckets > 0 && powerLength(o.Buckets) <= powerShortN {
		b = math.Min(maxFloorBudget, math.Max(defaultTailBudget, o.DeltaFloor*powerShortMargin))
	}
	return math.Max(o.TailBudget, b)
}

// deepestCountBudget is the smallest tail budget a count pair is given:
// its masses are known to about 3e-13 relative (section 2 of
// engine/README.md), and below about 1e-40 the buckets' bounds stop
// improving on the Vuvuzela pairs of the paper while the compose time
// keeps growing (measured on GS(15k, 2.5k), r = 1,024).
const deepestCountBudget = 1e-40

// tiltDecidesFrom is the number of observations of a count pair from
// which the tilted bounds (tiltbounds.go) resolve the far tail beyond the
// default budget's reach from both sides (their Berry-Esseen term falls
// like r^-1/2; measured within 1.1x of the continuous model at delta
// 1e-30 on GS(15k, 2.5k) at r = 65,536, and 2x at r = 1,024), so that a
// deeper budget would only coarsen the factor (measured at r = 524,288:
// GS(450k, 28.2k) at delta 1e-20, 4.5x with the default budget, 8x with
// 1e-39).
const tiltDecidesFrom = 1 << 14

// defaultReach is the smallest delta the default tail budget resolves on
// the count pairs: their buckets' bracket is within 2% there (measured on
// GS(15k, 2.5k), r = 1,024: [5.299e-21, 5.405e-21] at e^eps 1.35), so a
// floor above it keeps the default (a deeper budget coarsens the factor
// and moves the bulk's bounds by up to 1e-4 relative).
const defaultReach = 1e-20

// tailBudget implements tailBudgeter: tailBudgetMargin below a floor
// below defaultReach, within [deepestCountBudget, defaultTailBudget],
// below tiltDecidesFrom observations; the default otherwise.
func (m *countMech) tailBudget(floor float64, r int) float64 {
	if r >= tiltDecidesFrom || floor >= defaultReach {
		return defaultTailBudget
	}
	return math.Min(defaultTailBudget, math.Max(deepestCountBudget, floor*tailBudgetMargin))
}

// FloorChangesComposition reports whether Options.DeltaFloor can change
// the composition of r observations of m with opt (so whether a caller
// that keys compositions must set it and key by it): for the pairs that
// choose their own tail budget (the Vuvuzela count pairs) on every path,
// and for the others only where the power path may compose them
// (Path PathPower, or PathDefault with Buckets 0: powerTailBudget); not
// for the squaring chain at an explicit count, nor for compositions in
// closed form (ComposesInClosedForm), whose bits the floor leaves alone.
func FloorChangesComposition(m Mechanism, r int, opt Options) bool {
	if m == nil {
		return false
	}
	if _, ok := m.(tailBudgeter); ok {
		return true
	}
	if ComposesInClosedForm(m, r, opt) {
		return false
	}
	return opt.Path == PathPower || opt.Path == PathDefault && opt.Buckets == 0
}

// DeltaFloorFor returns a value for Options.DeltaFloor for questions
// about r observations of m: the smallest of the deltas asked (eps(delta)
// questions, deltas) and of upper bounds on delta at the eps asked
// (delta(eps) questions, eps in nats) that a cheap bound gives before
// composing (the moment bound of a count pair), rounded down to a power of
// ten so that nearby questions share their compositions (and cache
// keys). It returns 0 (the default tail budget) where the floor would not
// change the composition (the budget m names for it, partBudget, is the
// default) and where delta(eps) is asked of a mechanism without a cheap
// bound (no floor can be known before composing). The floor only steers
// the tail budget, never a bound's soundness.
func DeltaFloorFor(ctx context.Context, m Mechanism, r int, eps, deltas []float64) (float64, error) {
	if m == nil {
		return 0, invalidf("nil mechanism")
	}
	if r < 1 {
		return 0, invalidf("number of compositions must be >= 1, got %d", r)
	}
	floor := math.Inf(1)
	for _, d := range deltas {
		if d > 0 && d < floor {
			floor = d
		}
	}
	if len(eps) > 0 {
		if err := prepare(ctx, m); err != nil {
			return 0, err
		}
		fn := momentsFn([]Part{{Mechanism: m, Count: r}})
		if fn == nil {
			return 0, nil
		}
		mom := fn()
		if mom == nil {
			return 0, nil
		}
		for _, e := range eps {
			if !(e >= 0) || math.IsInf(e, 1) {
				continue
			}
			ab, ba := mom.delta(e)
			// a bound that underflowed asks for the deepest budget
			if v := math.Max(math.Max(ab, ba), math.SmallestNonzeroFloat64); v < floor {
				floor = v
			}
		}
	}
	if math.IsInf(floor, 1) {
		return 0, nil
	}
	floor = decadeBelow(floor)
	if partBudget(m, floor, r) == defaultTailBudget {
		return 0, nil
	}
	return floor, nil
}

// decadeBelow returns the largest power of ten at most v (v > 0), or the
// smallest normal float64 for v below it.
func decadeBelow(v float64) float64 {
	if v < 0x1p-1022 {
		return 0x1p-1022
	}
	k := int(math.Floor(math.Log10(v)))
	for math.Pow10(k) > v {
		k--
	}
	return math.Pow10(k)
}
