package manifest

import (
	"slices"
)

// SearchConfig is the [search] table of a manifest: noise searches over the
// manifest's mechanisms (see search.Spec).
type SearchConfig struct {
	// Mechanisms are the ids of the mechanisms searched, in manifest
	// order; all mechanisms when the manifest does not list them.
	Mechanisms []string
	// Tie names the parameters multiplied by the factor; nil means
	// DefaultTie of each mechanism's kind.
	Tie []string
	// Compositions, Eps (natural log) and Delta: one search per mechanism
	// instance x r x eps x delta; each instance's r are those of
	// Compositions and of Epochs (Manifest.SearchCompositions).
	Compositions []int
	// Epochs holds the numbers of training epochs (the key epochs),
	// sorted, unique, as query.epochs.
	Epochs     []float64
	Eps, Delta []float64
	// RelTol, MinFactor, MaxFactor and MaxProbes are as in search.Spec (0:
	// default).
	RelTol, MinFactor, MaxFactor float64
	MaxProbes                    int
	// Line is the line of the [search] header.
	Line int
}

// MaxSearches bounds the number of searches a manifest may expand to.
const MaxSearches = 10000

// search parses the [search] table. It runs after the mechanisms are
// parsed.
func (p *parser) search(v any, m *Manifest) {
	t, ok := v.(map[string]any)
	if !ok {
		p.el.add(p.line("search"), "search", "must be a table ([search]), got %s", typeName(v))
		return
	}
	c := &SearchConfig{Line: p.line("search")}
	keys := []string{"mechanisms", "tie", "compositions", "epochs", "e_eps", "eps", "delta", "rel_tol", "min_factor", "max_factor", "max_probes"}
	tb := p.table(t, []string{"search"}, "search.")
	tb.unknown(keys, "key", true)
	at := tb.at
	if ids, ok := tb.strs("mechanisms", true, ""); ok {
		l, d := at("mechanisms")
		for _, id := range ids {
			spec := m.mechanism(id)
			switch {
			case spec == nil:
				var known []string
				for _, spec := range m.Mechanisms {
					known = append(known, spec.ID)
				}
				p.el.add(l, d, "no mechanism with id %q%s", id, suggest(id, known))
			case len(spec.InSequences) > 0:
				tie := "sigma"
				if def := DefaultTie(spec.Kind); len(def) > 0 {
					tie = def[0]
				}
				p.el.add(l, d, "mechanism %q is a part of sequence %q and is not searched on its own: search the sequence, with tie = [\"%s.%s\"] to calibrate this part's noise",
					id, spec.InSequences[0], id, tie)
			}
		}
		c.Mechanisms = ids
	}
	if tie, ok := tb.strs("tie", true, ""); ok {
		c.Tie = tie
	}
	// Every searched mechanism must be searchable with the tie.
	for _, spec := range m.Mechanisms {
		if len(c.Mechanisms) > 0 && !slices.Contains(c.Mechanisms, spec.ID) || len(spec.InSequences) > 0 {
			continue
		}
		tie := c.Tie
		if tie == nil {
			tie = DefaultTieFor(spec)
		}
		if msg := CheckTieFor(spec, tie); msg != "" {
			l, d := at("tie")
			if _, present := t["tie"]; !present {
				l, d = c.Line, "search"
			}
			p.el.add(l, d, "mechanism %q: %s", spec.ID, msg)
		}
	}
	var present, hasR, hasEpochs bool
	c.Compositions, hasR = tb.compositions()
	c.Epochs, hasEpochs = tb.epochs()
	if !hasR && !hasEpochs {
		p.el.add(c.Line, "search.compositions", "missing required key (the numbers of observations r; or epochs, for training runs)")
	}
	p.checkEpochs(m, "search", c.Epochs, len(c.Compositions) > 0, c.Mechanisms)
	if c.Eps, present = tb.eps(); !present {
		p.el.add(c.Line, "search.e_eps", "missing required key: the target e_eps (or eps)")
	}
	if c.Delta, present = tb.delta(); !present {
		p.el.add(c.Line, "search.delta", "missing required key: the target delta")
	}
	c.RelTol, _ = tb.number("rel_tol", positive)
	c.MinFactor, _ = tb.number("min_factor", func(f float64) string {
		if f > 0 && f <= 1 {
			return ""
		}
		return "must be in (0, 1]"
	})
	c.MaxFactor, _ = tb.number("max_factor", func(f float64) string {
		if f >= 1 && finite(f) {
			return ""
		}
		return "must be finite and >= 1"
	})
	c.MaxProbes, _ = tb.integer("max_probes", func(n int64) string {
		if n < 2 || n > 10000 {
			return "must be in [2, 10000]"
		}
		return ""
	})
	m.Search = c
	if n := m.instanceCount(c.Mechanisms) * float64((len(c.Compositions)+len(c.Epochs))*len(c.Eps)*len(c.Delta)); n > MaxSearches {
		p.el.add(c.Line, "search", "the search expands to %.3g searches, more than %d; split it", n, MaxSearches)
	}
}
