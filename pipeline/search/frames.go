package search

import (
	"math"
	"strings"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

// ResultsFrame returns one row per search: the target, both answers with
// both bounds, the bracket and how much was computed. Missing answers are
// null (NaN). The last columns, epochs and steps, say what r is in
// training epochs when the search gave epochs (null otherwise).
func ResultsFrame(rs []*Result) *results.Frame {
	n := len(rs)
	str := func(name string) *results.Column {
		return &results.Column{Name: name, Type: results.String, Strings: make([]string, n)}
	}
	flt := func(name string, nullable bool) *results.Column {
		return &results.Column{Name: name, Type: results.Float64, Nullable: nullable, Floats: make([]float64, n)}
	}
	integer := func(name string) *results.Column {
		return &results.Column{Name: name, Type: results.Int64, Ints: make([]int64, n)}
	}
	label, id, kind, noise, tie := str("search"), str("mechanism_id"), str("kind"), str("noise"), str("tie")
	comp := integer("compositions")
	eps, eeps, delta := flt("eps", false), flt("e_eps", false), flt("delta", false)
	status := str("status")
	fMeets, upMeets, loMeets, pMeets := flt("factor_meets", true), flt("delta_upper_meets", true), flt("delta_lower_meets", true), str("params_meets")
	fIns, upIns, loIns, pIns := flt("factor_insufficient", true), flt("delta_upper_insufficient", true), flt("delta_lower_insufficient", true), str("params_insufficient")
	bracket := flt("bracket", true)
	fBelow, fAbove := flt("factor_fails_below", true), flt("factor_unproved_above", true)
	probes, computed := integer("probes"), integer("computed")
	secs := flt("seconds", false)
	base, note := str("base_params"), str("note")
	for i, r := range rs {
		s := r.Spec
		label.Strings[i], id.Strings[i], kind.Strings[i], noise.Strings[i] = s.Label, s.Mechanism.ID, s.Mechanism.Kind, s.Mechanism.Noise
		tie.Strings[i] = strings.Join(s.Tie, ",")
		comp.Ints[i] = int64(s.R)
		eps.Floats[i], eeps.Floats[i], delta.Floats[i] = s.Eps, math.Exp(s.Eps), s.Delta
		status.Strings[i] = r.Status
		put := func(p *Probe, f, up, lo *results.Column, params *results.Column) {
			f.Floats[i], up.Floats[i], lo.Floats[i] = math.NaN(), math.NaN(), math.NaN()
			if p != nil {
				f.Floats[i], up.Floats[i], lo.Floats[i] = p.Factor, p.Upper, p.Lower
				if params != nil {
					params.Strings[i] = paramsJSON(p.Params)
				}
			}
		}
		put(r.Meets, fMeets, upMeets, loMeets, pMeets)
		put(r.Insufficient, fIns, upIns, loIns, pIns)
		bracket.Floats[i] = r.Bracket()
		fBelow.Floats[i], fAbove.Floats[i] = math.NaN(), math.NaN()
		if r.MeetsBelow != nil {
			fBelow.Floats[i] = r.MeetsBelow.Factor
		}
		if r.InsufficientAbove != nil {
			fAbove.Floats[i] = r.InsufficientAbove.Factor
		}
		probes.Ints[i] = int64(len(r.Probes))
		for _, p := range r.Probes {
			if !p.Cached {
				computed.Ints[i]++
			}
			secs.Floats[i] += p.Seconds
		}
		base.Strings[i] = manifest.Instance{Spec: s.Mechanism}.ParamsJSON()
		note.Strings[i] = strings.Join(r.Notes, "; ")
	}
	epochs, steps := results.EpochColumns(n, func(i int) (float64, int, bool) {
		p := rs[i].Spec.Epoch
		return p.Epochs, p.Steps, p.Epochs > 0
	})
	return &results.Frame{Columns: []*results.Column{label, comp, eps, delta, status,
		fMeets, upMeets, loMeets, fIns, upIns, loIns, bracket,
		pMeets, pIns, fBelow, fAbove, probes, computed, secs,
		eeps, id, kind, noise, tie, base, note, epochs, steps}}
}

// ProbesFrame returns one row per probe of every search, in search
// order and by factor, with the search's epochs and steps last (as
// ResultsFrame).
func ProbesFrame(rs []*Result) *results.Frame {
	var rows int
	for _, r := range rs {
		rows += len(r.Probes)
	}
	str := func(name string) *results.Column {
		return &results.Column{Name: name, Type: results.String, Strings: make([]string, 0, rows)}
	}
	flt := func(name string, nullable bool) *results.Column {
		return &results.Column{Name: name, Type: results.Float64, Nullable: nullable, Floats: make([]float64, 0, rows)}
	}
	label, params, verdict := str("search"), str("params"), str("verdict")
	comp := &results.Column{Name: "compositions", Type: results.Int64, Ints: make([]int64, 0, rows)}
	order := &results.Column{Name: "order", Type: results.Int64, Ints: make([]int64, 0, rows)}
	eps, delta, factor := flt("eps", false), flt("delta", false), flt("factor", false)
	up, lo, secs := flt("delta_upper", false), flt("delta_lower", true), flt("seconds", false)
	cached := &results.Column{Name: "cached", Type: results.Bool, Bools: make([]bool, 0, rows)}
	var at []manifest.EpochPoint // each probe's search's
	for _, r := range rs {
		s := r.Spec
		for _, p := range r.Probes {
			at = append(at, s.Epoch)
			label.Strings = append(label.Strings, s.Label)
			comp.Ints = append(comp.Ints, int64(s.R))
			eps.Floats = append(eps.Floats, s.Eps)
			delta.Floats = append(delta.Floats, s.Delta)
			factor.Floats = append(factor.Floats, p.Factor)
			params.Strings = append(params.Strings, paramsJSON(p.Params))
			up.Floats = append(up.Floats, p.Upper)
			lo.Floats = append(lo.Floats, p.Lower)
			verdict.Strings = append(verdict.Strings, p.Verdict(s.Delta))
			order.Ints = append(order.Ints, int64(p.Order))
			cached.Bools = append(cached.Bools, p.Cached)
			secs.Floats = append(secs.Floats, p.Seconds)
		}
	}
	epochs, steps := results.EpochColumns(rows, func(i int) (float64, int, bool) {
		return at[i].Epochs, at[i].Steps, at[i].Epochs > 0
	})
	return &results.Frame{Columns: []*results.Column{label, comp, eps, delta, factor, up, lo, verdict, order, cached, secs, params, epochs, steps}}
}
