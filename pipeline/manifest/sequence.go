package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// KindSequence is the kind of the mechanisms that [[sequence]] tables
// describe: heterogeneous sequences of independent observations of other
// mechanisms (Corollary 1 of the paper: their privacy-loss distributions
// compose like those of one mechanism repeated).
const KindSequence = "sequence"

// MaxObservations bounds the observations of a composition: r, and for a
// sequence the sum of its counts times r.
const MaxObservations = 1 << 40

// PartSpec is one part of a sequence: Count independent observations of
// Mechanism.
type PartSpec struct {
	// Mechanism is the [[mechanism]] the part names, as the manifest gives
	// it; a sequence's own parameters and engine options override its
	// (see MechanismSpec.ResolvedParts).
	Mechanism MechanismSpec
	// Count is the number of observations, at least 1.
	Count int
	// Line is the line of the part in the manifest.
	Line int
}

// ResolvedParts returns the parts of a sequence with the sequence's current
// parameters, Params["<part id>.<parameter>"] (which sweeps and searches
// change), and its engine options. It is nil for other kinds.
func (s MechanismSpec) ResolvedParts() []PartSpec {
	if s.Kind != KindSequence {
		return nil
	}
	out := make([]PartSpec, len(s.Parts))
	for i, p := range s.Parts {
		m := p.Mechanism
		m.Params = make(map[string]float64, len(p.Mechanism.Params))
		for k, v := range p.Mechanism.Params {
			if sv, ok := s.Params[m.ID+"."+k]; ok {
				v = sv
			}
			m.Params[k] = v
		}
		m.Engine = s.Engine
		out[i] = PartSpec{Mechanism: m, Count: p.Count, Line: p.Line}
	}
	return out
}

// PartIDs returns the distinct mechanism ids of a sequence's parts, in
// order of first appearance (nil for other kinds).
func (s MechanismSpec) PartIDs() []string {
	var ids []string
	for _, p := range s.Parts {
		if !slices.Contains(ids, p.Mechanism.ID) {
			ids = append(ids, p.Mechanism.ID)
		}
	}
	return ids
}

// Observations returns the number of observations of one run of a
// sequence (the sum of its counts), or 1 for other kinds.
func (s MechanismSpec) Observations() int {
	if s.Kind != KindSequence {
		return 1
	}
	n := 0
	for _, p := range s.Parts {
		n += p.Count
	}
	return n
}

// tableArray returns v as a list of tables: an array of tables
// ([[sequence.parts]]) or an inline array of inline tables.
func tableArray(v any) ([]map[string]any, bool) {
	switch x := v.(type) {
	case []map[string]any:
		return x, true
	case []any:
		out := make([]map[string]any, len(x))
		for i, item := range x {
			t, ok := item.(map[string]any)
			if !ok {
				return nil, false
			}
			out[i] = t
		}
		return out, true
	}
	return nil, false
}

// sequences parses the [[sequence]] tables. It runs after the mechanisms;
// each sequence is appended to m.Mechanisms with kind "sequence", and the
// mechanisms its parts name are marked (InSequences): they are not queried
// on their own.
func (p *parser) sequences(v any, m *Manifest, ownEngine map[string]bool) {
	list, ok := v.([]map[string]any)
	if !ok {
		if _, isTable := v.(map[string]any); isTable {
			p.el.add(p.line("sequence"), "sequence", "must be an array of tables: write [[sequence]], not [sequence]")
		} else {
			p.el.add(p.line("sequence"), "sequence", "must be an array of tables ([[sequence]]), got %s", typeName(v))
		}
		return
	}
	seqIDs := map[string]int{}
	for i, t := range list {
		if id, ok := t["id"].(string); ok {
			if _, dup := seqIDs[id]; !dup {
				seqIDs[id] = i
			}
		}
	}
	var mechIDs []string
	for _, spec := range m.Mechanisms {
		mechIDs = append(mechIDs, spec.ID)
	}
	const partHint = `{ mechanism = "<mechanism id>", count = <observations> }`
	for i, t := range list {
		idx := strconv.Itoa(i)
		spec := MechanismSpec{Kind: KindSequence, Params: map[string]float64{}, Engine: m.Engine, Line: p.line("sequence", idx)}
		disp := fmt.Sprintf("sequence[%d]", i)
		tb := p.table(t, []string{"sequence", idx}, "")
		at := func(k string) (int, string) { l, _ := tb.at(k); return l, disp + ": " + k }
		switch id := t["id"].(type) {
		case nil:
			p.el.add(spec.Line, disp+": id", "missing required key")
		case string:
			l, d := at("id")
			switch {
			case !idPattern.MatchString(id):
				p.el.add(l, d, "%q is not a valid id (letters, digits, '_', '-')", id)
			case seqIDs[id] != i:
				p.el.add(l, d, "duplicate id %q (also sequence[%d])", id, seqIDs[id])
			case m.mechanism(id) != nil:
				p.el.add(l, d, "duplicate id %q (also a [[mechanism]])", id)
			}
			spec.ID = id
			disp = fmt.Sprintf("sequence %q", id)
		default:
			l, d := at("id")
			p.el.add(l, d, "must be a string, got %s", typeName(id))
		}
		keys := []string{"id", "parts", "engine"}
		for _, k := range unknownKeys(t, keys...) {
			l, d := at(k)
			p.el.add(l, d, "unknown key for a sequence%s (known: %s)", suggest(k, keys), quoteList(keys))
		}
		raw, present := t["parts"]
		items, isList := tableArray(raw)
		switch {
		case !present:
			p.el.add(spec.Line, disp+": parts", "missing required key: the parts, e.g. parts = [%s, ...]", partHint)
		case !isList || len(items) == 0:
			l, d := at("parts")
			p.el.add(l, d, "must be a non-empty array of tables %s, got %s", partHint, typeName(raw))
		}
		hashes := []string{}
		for j, item := range items {
			jdx := strconv.Itoa(j)
			pl := p.line("sequence", idx, "parts", jdx)
			pd := fmt.Sprintf("%s: parts[%d]", disp, j)
			ptb := table{p: p, t: item, at: func(k string) (int, string) {
				return p.line("sequence", idx, "parts", jdx, k), pd + ": " + k
			}}
			ptb.unknown([]string{"mechanism", "count"}, "key of a part", true)
			part := PartSpec{Line: pl}
			switch id := item["mechanism"].(type) {
			case nil:
				p.el.add(pl, pd+": mechanism", "missing required key: the id of a [[mechanism]]")
			case string:
				l, d := ptb.at("mechanism")
				mech := m.mechanism(id)
				switch {
				case mech != nil:
					part.Mechanism = *mech
				case isSequence(seqIDs, id):
					p.el.add(l, d, "%q is a sequence: sequences do not nest (list the parts of sequence %q here instead)", id, id)
				default:
					p.el.add(l, d, "no mechanism with id %q%s (parts name [[mechanism]] ids: %s)", id, suggest(id, mechIDs), quoteList(mechIDs))
				}
			default:
				l, d := ptb.at("mechanism")
				p.el.add(l, d, "must be a string (the id of a [[mechanism]]), got %s", typeName(id))
			}
			if _, present := item["count"]; !present {
				p.el.add(pl, pd+": count", "missing required key: the number of observations (>= 1)")
			} else if n, ok := ptb.integer("count", func(n int64) string {
				if n < 1 || n > MaxObservations {
					return "must be an integer in [1, 2^40] (the number of observations of the part)"
				}
				return ""
			}); ok {
				part.Count = n
			}
			if part.Mechanism.ID == "" || part.Count == 0 {
				continue
			}
			mech := m.mechanism(part.Mechanism.ID)
			if spec.ID != "" && !slices.Contains(mech.InSequences, spec.ID) {
				mech.InSequences = append(mech.InSequences, spec.ID)
			}
			for k, v := range part.Mechanism.Params {
				spec.Params[part.Mechanism.ID+"."+k] = v
			}
			if part.Mechanism.DataHash != "" {
				hashes = append(hashes, part.Mechanism.ID+"="+part.Mechanism.DataHash)
			}
			spec.Parts = append(spec.Parts, part)
		}
		if len(hashes) > 0 {
			sort.Strings(hashes)
			sum := sha256.Sum256([]byte(strings.Join(hashes, "\n")))
			spec.DataHash = hex.EncodeToString(sum[:])
		}
		if x, ok := t["engine"]; ok {
			spec.Engine = p.engine(x, m.Engine, []string{"sequence", idx, "engine"}, disp+": engine")
		}
		m.Mechanisms = append(m.Mechanisms, spec)
	}
	// A part composes with its sequence's engine options: its own would
	// be ignored.
	for i, spec := range m.Mechanisms {
		if spec.Kind != KindSequence && len(spec.InSequences) > 0 && ownEngine[spec.ID] {
			l := p.line("mechanism", strconv.Itoa(i), "engine")
			p.el.add(l, fmt.Sprintf("mechanism %q: engine", spec.ID),
				"the mechanism is a part of sequence %q, which composes it with the sequence's engine options: move these options to the sequence (engine = {...} in its [[sequence]] table)", spec.InSequences[0])
		}
	}
}

func isSequence(ids map[string]int, id string) bool { _, ok := ids[id]; return ok }

// checkSequences checks what concerns sequences and the queries: the
// observations of each (counts times the largest r) stay within
// MaxObservations, and the query's methods apply to it.
func (p *parser) checkSequences(m *Manifest) {
	maxR := 0
	if len(m.Query.Compositions) > 0 {
		maxR = slices.Max(m.Query.Compositions)
	}
	if m.Search != nil && len(m.Search.Compositions) > 0 {
		maxR = max(maxR, slices.Max(m.Search.Compositions))
	}
	for _, spec := range m.Mechanisms {
		if spec.Kind != KindSequence || len(spec.Parts) == 0 {
			continue
		}
		disp := fmt.Sprintf("sequence %q", spec.ID)
		if n := spec.Observations(); float64(n)*float64(maxR) > MaxObservations {
			p.el.add(spec.Line, disp, "its parts count %d observations in all, times the largest r (%d) that is more than 2^40", n, maxR)
		}
		if len(spec.PartIDs()) < 2 {
			continue
		}
		p.checkPartRelations(spec, disp)
		for _, meth := range m.Query.Methods {
			if meth == MethodKOV || meth == MethodAdvanced {
				l := p.line("query", "methods")
				p.el.add(l, "query.methods", "method %q does not apply to %s: its parts are different mechanisms (%s), and %s composes r copies of one mechanism; use buckets, rdp, cdp or exact for sequences (or a manifest of their own for %s)",
					meth, disp, quoteList(spec.PartIDs()), meth, meth)
			}
		}
	}
}

// checkPartRelations refuses a sequence whose subsampled parts use
// different neighbouring relations: the composed bound is a guarantee for
// one relation, and each part's pair bounds its steps under its own
// relation only.
func (p *parser) checkPartRelations(spec MechanismSpec, disp string) {
	var first *MechanismSpec
	for i := range spec.Parts {
		pm := &spec.Parts[i].Mechanism
		if !pm.Subsampled() {
			continue
		}
		if first == nil {
			first = pm
			continue
		}
		if pm.EffectiveRelation() != first.EffectiveRelation() {
			p.el.add(spec.Line, disp+": parts", "parts %q (relation %s) and %q (relation %s) use different neighbouring relations; a sequence bounds one relation: give its subsampled parts the same relation",
				first.ID, first.EffectiveRelation(), pm.ID, pm.EffectiveRelation())
			return
		}
	}
}
