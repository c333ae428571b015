package manifest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// HasEpochs reports whether the mechanism is a training step, or an epoch
// of steps, with a number of epochs (Epochs): kind random_allocation, and
// the subsampled kinds (sgd, laplace with q).
func (s MechanismSpec) HasEpochs() bool {
	return s.Kind == KindRandomAllocation || s.Subsampled()
}

// Epochs returns the number of observations r (compositions of the
// mechanism's pair) and of training steps that make the given number of
// epochs of spec, a pass over every record:
//
//   - random_allocation: one observation is one epoch of steps_per_epoch
//     steps, so r = epochs and steps = epochs * steps_per_epoch;
//   - sgd and subsampled laplace: one observation is one step, and an
//     epoch is 1/q steps in expectation (Poisson) or dataset_size/batch
//     steps (fixed size): r = steps = epochs/q, or epochs * dataset_size /
//     batch when those are given.
//
// epochs must be positive and give a whole number of observations (within
// 1e-9 relative, for rates such as 0.001 that are not exact in binary);
// nothing is rounded: the error says which whole numbers of steps lie
// either side. Other kinds have no epochs (HasEpochs).
func (s MechanismSpec) Epochs(epochs float64) (r, steps int, err error) {
	if !(epochs > 0) || math.IsInf(epochs, 0) {
		return 0, 0, fmt.Errorf("epochs must be positive and finite, got %v", epochs)
	}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }
	// whole returns x as an int when it is whole; perEpoch is the number
	// of observations of one epoch, unit their name.
	whole := func(x, perEpoch float64, unit, epochText string) (int, error) {
		n := math.Round(x)
		if n >= 1 && math.Abs(x-n) <= 1e-9*x && n <= 1<<40 {
			return int(n), nil
		}
		if x > 1<<40 {
			return 0, fmt.Errorf("%s epochs are %.4g %s, more than 2^40", g(epochs), x, unit)
		}
		lo, hi := math.Max(1, math.Floor(x)), math.Max(1, math.Ceil(x))
		if lo == hi {
			hi++
		}
		return 0, fmt.Errorf("%s epochs are %s %s (%s), not a whole number: give a number of epochs that makes whole %s (a multiple of %s epochs), or the %s r directly (r = %.0f is %s epochs, r = %.0f is %s epochs)",
			g(epochs), g(x), unit, epochText, unit, g(1/perEpoch), unit, lo, g(lo/perEpoch), hi, g(hi/perEpoch))
	}
	switch {
	case s.Kind == KindRandomAllocation:
		n := math.Round(epochs)
		if n < 1 || math.Abs(epochs-n) > 1e-9*epochs || n > 1<<40 {
			return 0, 0, fmt.Errorf("%s epochs are not a whole number: random_allocation counts whole epochs (an observation is an epoch of steps_per_epoch steps, each record in one of them); give %.0f or %.0f", g(epochs), math.Max(1, math.Floor(epochs)), math.Max(1, math.Floor(epochs))+1)
		}
		return int(n), int(n) * int(s.Params["steps_per_epoch"]), nil
	case s.Subsampled():
		p := s.Params
		var x, per float64
		var text string
		switch b, n := p["batch"], p["dataset_size"]; {
		case b > 0 && n > 0:
			per = n / b
			x, text = epochs*per, fmt.Sprintf("an epoch is dataset_size/batch = %s steps", g(per))
		case p["q"] > 0:
			per = 1 / p["q"]
			x, text = epochs*per, fmt.Sprintf("an epoch is 1/q = %s steps", g(per))
		default:
			return 0, 0, fmt.Errorf("kind %s without a sampling rate q (or batch and dataset_size) has no epochs: give the number of steps r", s.Kind)
		}
		n, err := whole(x, per, "steps", text)
		return n, n, err
	}
	return 0, 0, fmt.Errorf("kind %s has no epochs (only sgd, subsampled laplace and random_allocation): give the number of observations r", s.Kind)
}

// EpochPoint is what one number of observations r of an instance is in
// training terms, when the query gives it in epochs.
type EpochPoint struct {
	// R is the number of observations (compositions of the pair).
	R int
	// Epochs is the number of epochs as the query gave it; Steps the
	// training steps they make (R, except for random_allocation, whose
	// observation is an epoch).
	Epochs float64
	Steps  int
}

// EpochPoints returns the points of query.epochs for instance in, in the
// order of query.epochs, one per r (the first epochs giving it); none when
// the query has no epochs or the mechanism has none (HasEpochs). Epochs
// that give no whole r are left out (the parser refuses them); a nil
// instance has none.
func (m *Manifest) EpochPoints(in *Instance) []EpochPoint {
	return epochPoints(in, m.Query.Epochs)
}

// EpochsAt returns the epochs and steps of r for instance in when r is the
// r of one of query.epochs (ok is false otherwise, e.g. for an r of
// query.compositions only).
func (m *Manifest) EpochsAt(in *Instance, r int) (p EpochPoint, ok bool) {
	return pointAt(m.EpochPoints(in), r)
}

// Compositions returns the numbers of observations r at which instance in
// is queried, sorted and unique: query.compositions, and the r of each of
// query.epochs when the mechanism has epochs. Without epochs it is
// query.compositions itself.
func (m *Manifest) Compositions(in *Instance) []int {
	return withPoints(m.Query.Compositions, m.EpochPoints(in))
}

// SearchEpochsAt is EpochsAt for the [search] table's epochs.
func (m *Manifest) SearchEpochsAt(in *Instance, r int) (p EpochPoint, ok bool) {
	if m.Search == nil {
		return EpochPoint{}, false
	}
	return pointAt(epochPoints(in, m.Search.Epochs), r)
}

// SearchCompositions returns the numbers of observations r at which
// instance in is searched, sorted and unique: search.compositions and the
// r of each of search.epochs (as Compositions for [query]); nil without a
// [search] table.
func (m *Manifest) SearchCompositions(in *Instance) []int {
	if m.Search == nil {
		return nil
	}
	return withPoints(m.Search.Compositions, epochPoints(in, m.Search.Epochs))
}

func epochPoints(in *Instance, epochs []float64) []EpochPoint {
	if in == nil || len(epochs) == 0 || !in.Spec.HasEpochs() {
		return nil
	}
	var out []EpochPoint
	for _, e := range epochs {
		r, steps, err := in.Spec.Epochs(e)
		if err != nil || slices.ContainsFunc(out, func(p EpochPoint) bool { return p.R == r }) {
			continue
		}
		out = append(out, EpochPoint{R: r, Epochs: e, Steps: steps})
	}
	return out
}

func pointAt(pts []EpochPoint, r int) (EpochPoint, bool) {
	for _, p := range pts {
		if p.R == r {
			return p, true
		}
	}
	return EpochPoint{}, false
}

// withPoints returns rs with the r of pts, sorted and unique (rs itself
// when pts is empty).
func withPoints(rs []int, pts []EpochPoint) []int {
	if len(pts) == 0 {
		return rs
	}
	out := slices.Clone(rs)
	for _, p := range pts {
		out = append(out, p.R)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// allCompositions returns the numbers of observations of every instance,
// sorted and unique (query.compositions without epochs).
func (m *Manifest) allCompositions() []int {
	if len(m.Query.Epochs) == 0 {
		return m.Query.Compositions
	}
	rs := slices.Clone(m.Query.Compositions)
	insts := m.Instances()
	for i := range insts {
		rs = append(rs, m.Compositions(&insts[i])...)
	}
	slices.Sort(rs)
	return slices.Compact(rs)
}

// epochs reads the key epochs of a [query] or [search] table: numbers of
// epochs, each positive and finite (a grid, like compositions), sorted and
// unique; present is false when the key is absent.
func (tb table) epochs() (vals []float64, present bool) {
	x, present := tb.t["epochs"]
	if !present {
		return nil, false
	}
	l, d := tb.at("epochs")
	vals, err := floatGrid(x)
	if err != nil {
		tb.p.el.addErr(l, d, err)
		return nil, true
	}
	for _, v := range vals {
		if !(v > 0) {
			tb.p.el.add(l, d, "numbers of epochs must be positive, got %v", v)
			return nil, true
		}
	}
	slices.Sort(vals)
	return slices.Compact(vals), true
}

// checkEpochs checks the key epochs of table ("query" or "search") against
// every instance of the mechanisms ids (all when empty): each number of
// epochs must be a whole number of observations of every mechanism that
// has epochs, and without compositions (hasR false) every such mechanism
// must have epochs (else it would have nothing to compute). One error per
// mechanism.
func (p *parser) checkEpochs(m *Manifest, table string, epochs []float64, hasR bool, ids []string) {
	if len(epochs) == 0 || m.instanceCount(ids) > maxTasks {
		return // checkSize refuses the manifest
	}
	l, key := p.line(table, "epochs"), table+".epochs"
	reported := map[string]bool{}
	insts := m.Instances()
	for i := range insts {
		in := &insts[i]
		id := in.Spec.ID
		if reported[id] || len(ids) > 0 && !slices.Contains(ids, id) {
			continue
		}
		if !in.Spec.HasEpochs() {
			if !hasR {
				p.el.add(l, key, "mechanism %q (kind %s) has no epochs (only sgd, subsampled laplace and random_allocation have): give the numbers of observations r instead (%s.compositions, or --r)", id, in.Spec.Kind, table)
				reported[id] = true
			}
			continue
		}
		for _, e := range epochs {
			if _, _, err := in.Spec.Epochs(e); err != nil {
				p.el.add(l, key, "mechanism %q: %v", in.Label, err)
				reported[id] = true
				break
			}
		}
	}
}
