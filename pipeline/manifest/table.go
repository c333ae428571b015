package manifest

import (
	"math"
	"slices"
)

// table reads the keys of one table of a manifest ([query], [search],
// [engine], a [[mechanism]]), reporting problems to the parser's error list
// at the line and display name that at gives for a key.
type table struct {
	p  *parser
	t  map[string]any
	at func(k string) (line int, disp string)
}

// table returns the reader of table t at path (its lines) whose keys are
// displayed as prefix + key in messages ("query.", "search.", ...).
func (p *parser) table(t map[string]any, path []string, prefix string) table {
	return table{p: p, t: t, at: func(k string) (int, string) {
		return p.line(append(append([]string(nil), path...), k)...), prefix + k
	}}
}

// unknown reports every key of the table that is not in known, as an
// "unknown <what>" with a suggestion, followed by the known keys when
// listKnown is set.
func (tb table) unknown(known []string, what string, listKnown bool) {
	for _, k := range unknownKeys(tb.t, known...) {
		l, d := tb.at(k)
		if listKnown {
			tb.p.el.add(l, d, "unknown %s%s (known: %s)", what, suggest(k, known), quoteList(known))
		} else {
			tb.p.el.add(l, d, "unknown %s%s", what, suggest(k, known))
		}
	}
}

// str reads the string k; ok is false when k is absent or not a string
// (reported).
func (tb table) str(k string) (string, bool) {
	x, present := tb.t[k]
	if !present {
		return "", false
	}
	s, isStr := x.(string)
	if !isStr {
		l, d := tb.at(k)
		tb.p.el.add(l, d, "must be a string, got %s", typeName(x))
		return "", false
	}
	return s, true
}

// strs reads the array of strings k; ok is false when k is absent or not
// such an array (reported). nonEmpty refuses an empty array; hint, if not
// empty, replaces ", got <type>" in the message about a value that is not
// an array (e.g. the values allowed).
func (tb table) strs(k string, nonEmpty bool, hint string) ([]string, bool) {
	x, present := tb.t[k]
	if !present {
		return nil, false
	}
	l, d := tb.at(k)
	arr, isArr := x.([]any)
	if !isArr || nonEmpty && len(arr) == 0 {
		if hint == "" {
			hint = ", got " + typeName(x)
		}
		what := "an array"
		if nonEmpty {
			what = "a non-empty array"
		}
		tb.p.el.add(l, d, "must be %s of strings%s", what, hint)
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for _, item := range arr {
		s, isStr := item.(string)
		if !isStr {
			tb.p.el.add(l, d, "must contain strings, got %s", typeName(item))
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// tableValue reads key k with conv (asFloat or asInt). A value of another
// type ("must be <what>") or one that check refuses (check returns the
// message) is reported; ok is false then and when k is absent.
func tableValue[T float64 | int64](tb table, k, what string, conv func(any) (T, bool), check func(T) string) (T, bool) {
	var zero T
	x, present := tb.t[k]
	if !present {
		return zero, false
	}
	v, ok := conv(x)
	if !ok {
		l, d := tb.at(k)
		tb.p.el.add(l, d, "must be %s, got %s", what, typeName(x))
		return zero, false
	}
	if msg := check(v); msg != "" {
		l, d := tb.at(k)
		tb.p.el.add(l, d, "%s, got %v", msg, v)
		return zero, false
	}
	return v, true
}

// number reads the number k (see tableValue).
func (tb table) number(k string, check func(float64) string) (float64, bool) {
	return tableValue(tb, k, "a number", asFloat, check)
}

// integer reads the integer k (see tableValue).
func (tb table) integer(k string, check func(int64) string) (int, bool) {
	n, ok := tableValue(tb, k, "an integer", asInt, check)
	return int(n), ok
}

// compositions reads the grid of numbers of observations r; present is
// false when the key is absent (the caller says whether that is an error).
func (tb table) compositions() (rs []int, present bool) {
	x, present := tb.t["compositions"]
	if !present {
		return nil, false
	}
	rs, err := intGrid(x)
	if err != nil {
		l, d := tb.at("compositions")
		tb.p.el.addErr(l, d, err)
	}
	return rs, true
}

// eps reads the eps targets, given either as e_eps (>= 1, converted to the
// natural log) or as eps (>= 0); given is false when neither key is
// present.
func (tb table) eps() (eps []float64, given bool) {
	_, hasE := tb.t["e_eps"]
	_, hasEps := tb.t["eps"]
	switch {
	case hasE && hasEps:
		l, d := tb.at("eps")
		tb.p.el.add(l, d, "give either e_eps or eps, not both")
	case hasE || hasEps:
		k, least := "eps", 0.0
		if hasE {
			k, least = "e_eps", 1.0
		}
		l, d := tb.at(k)
		vals, err := floatGrid(tb.t[k])
		if err != nil {
			tb.p.el.addErr(l, d, err)
			break
		}
		for _, e := range vals {
			if !(e >= least) {
				tb.p.el.add(l, d, "values must be >= %v, got %v", least, e)
				break
			}
			if hasE {
				eps = append(eps, math.Log(e))
			}
		}
		if !hasE {
			eps = vals
		}
	}
	return eps, hasE || hasEps
}

// delta reads the delta targets, each in (0, 1); present is false when the
// key is absent.
func (tb table) delta() (vals []float64, present bool) {
	x, present := tb.t["delta"]
	if !present {
		return nil, false
	}
	l, d := tb.at("delta")
	vals, err := floatGrid(x)
	if err != nil {
		tb.p.el.addErr(l, d, err)
	}
	for _, v := range vals {
		if !(v > 0 && v < 1) {
			tb.p.el.add(l, d, "values must be in (0, 1), got %v", v)
			break
		}
	}
	return vals, true
}

// instanceCount returns the number of mechanism instances (sweep points
// included) of the mechanisms with the given ids, or of all mechanisms when
// ids is empty, as a float64 (it may be huge).
func (m *Manifest) instanceCount(ids []string) float64 {
	n := 0.0
	for _, spec := range m.Mechanisms {
		if len(ids) > 0 && !slices.Contains(ids, spec.ID) || len(spec.InSequences) > 0 {
			continue
		}
		k := 1.0
		for _, a := range m.axes(spec) {
			k *= float64(len(a.Values))
		}
		n += k
	}
	return n
}
