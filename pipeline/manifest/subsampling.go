package manifest

import "slices"

// Sampling schemes and neighbouring relations of the subsampled kinds (sgd,
// and laplace with q): the keys sampling and relation, their values, and
// the checks of the keys that go with them (q, or batch and dataset_size).
const (
	// SamplingPoisson includes each record independently with probability
	// q (the default).
	SamplingPoisson = "poisson"
	// SamplingFixedSize draws batch records of dataset_size without
	// replacement (rate q = batch/dataset_size).
	SamplingFixedSize = "fixed_size"
	// RelationAddRemove: neighbouring data sets differ by one record added
	// or removed (the default).
	RelationAddRemove = "add_remove"
	// RelationReplaceOne: neighbouring data sets have the same size and
	// differ in one record.
	RelationReplaceOne = "replace_one"
)

// subsamplingKeys are the option keys of the subsampled kinds.
var subsamplingKeys = []string{"sampling", "relation"}

// SamplingNames and RelationNames list the values of the keys sampling and
// relation, default first.
func SamplingNames() []string { return []string{SamplingPoisson, SamplingFixedSize} }

// RelationNames lists the values of the key relation, default first.
func RelationNames() []string { return []string{RelationAddRemove, RelationReplaceOne} }

// EffectiveSampling returns the sampling scheme of a subsampled mechanism
// (MechanismSpec.Sampling, or the default "poisson").
func (s MechanismSpec) EffectiveSampling() string {
	if s.Sampling == "" {
		return SamplingPoisson
	}
	return s.Sampling
}

// EffectiveRelation returns the neighbouring relation of a subsampled
// mechanism (MechanismSpec.Relation, or the default "add_remove").
func (s MechanismSpec) EffectiveRelation() string {
	if s.Relation == "" {
		return RelationAddRemove
	}
	return s.Relation
}

// Subsampled reports whether the mechanism subsamples its data: kind sgd,
// or kind laplace with a rate q.
func (s MechanismSpec) Subsampled() bool {
	_, hasQ := s.Params["q"]
	return s.Kind == KindSGD || s.Kind == KindLaplace && hasQ
}

// subsampling reads the keys sampling and relation of a [[mechanism]]
// table t of kind sgd or laplace into spec, and checks which of them go
// together with q, batch, dataset_size and truncate (their ranges, batch
// <= dataset_size included, are engine.FixedSizeRate's and the
// constructors'). Defaults are stored as "" so that a
// manifest naming them has the cache keys of one that does not.
func (p *parser) subsampling(t map[string]any, spec *MechanismSpec, at func(string) (int, string)) {
	read := func(k string, names []string) string {
		x, present := t[k]
		if !present {
			return ""
		}
		l, d := at(k)
		s, isStr := x.(string)
		switch {
		case !isStr:
			p.el.add(l, d, "must be a string (one of %s), got %s", quoteList(names), typeName(x))
		case !slices.Contains(names, s):
			p.el.add(l, d, "unknown %s %q%s (one of %s)", k, s, suggest(s, names), quoteList(names))
		case s != names[0]:
			return s
		}
		return ""
	}
	spec.Sampling = read("sampling", SamplingNames())
	spec.Relation = read("relation", RelationNames())
	_, hasQ := t["q"]
	_, hasB := t["batch"]
	_, hasN := t["dataset_size"]
	_, hasS := t["sampling"]
	_, hasR := t["relation"]
	fixed := spec.Sampling == SamplingFixedSize
	switch spec.Kind {
	case KindLaplace:
		if !hasQ {
			for _, k := range []string{"sampling", "relation"} {
				if k == "sampling" && hasS || k == "relation" && hasR {
					l, d := at(k)
					p.el.add(l, d, "applies to a subsampled Laplace mechanism only: give the sampling rate q too")
				}
			}
			return
		}
		if tr, ok := spec.Params["truncate"]; ok && tr > 0 {
			l, d := at("q")
			p.el.add(l, d, "a subsampled Laplace mechanism (q given) cannot be truncated: remove truncate or q")
		}
	case KindSGD:
		switch {
		case hasQ && (hasB || hasN):
			k := "batch"
			if !hasB {
				k = "dataset_size"
			}
			l, d := at(k)
			p.el.add(l, d, "give either the rate q or batch and dataset_size, not both")
		case !hasQ && !hasB && !hasN:
			_, d := at("q")
			p.el.add(spec.Line, d, `missing required key for kind sgd (the sampling rate; with sampling = "fixed_size", batch and dataset_size may replace it)`)
		case hasB || hasN:
			k := "batch"
			if !hasB {
				k = "dataset_size"
			}
			l, d := at(k)
			if !fixed {
				p.el.add(l, d, `batch and dataset_size need sampling = "fixed_size" (Poisson sampling has no fixed batch: give the rate q)`)
				return
			}
			if !hasB || !hasN {
				other := "dataset_size"
				if !hasB {
					other = "batch"
				}
				p.el.add(l, d, "give %s too (or the rate q instead)", other)
			}
		}
	}
}

// checkSweptSubsampling refuses a sweep axis that would give a subsampled
// mechanism an invalid combination of the keys q, batch, dataset_size and
// truncate (one that subsampling refuses in the mechanism table itself).
func checkSweptSubsampling(spec *MechanismSpec, param string, vals []float64) string {
	p := spec.Params
	_, hasQ := p["q"]
	_, hasB := p["batch"]
	switch {
	case spec.Kind == KindSGD && param == "q" && hasB:
		return "mechanism has batch and dataset_size: sweep those, not q"
	case spec.Kind == KindSGD && (param == "batch" || param == "dataset_size") && hasQ:
		return "mechanism has the rate q: sweep q, not " + param
	case spec.Kind == KindSGD && (param == "batch" || param == "dataset_size") && !hasB:
		return `give batch and dataset_size (with sampling = "fixed_size") in the mechanism to sweep ` + param
	case spec.Kind == KindLaplace && param == "truncate" && hasQ:
		for _, v := range vals {
			if v > 0 {
				return "a subsampled Laplace mechanism (q given) cannot be truncated"
			}
		}
	case spec.Kind == KindLaplace && param == "q" && p["truncate"] > 0:
		return "a truncated Laplace mechanism cannot be subsampled"
	}
	return ""
}
