package search

import (
	"slices"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// Specs expands the [search] table of m: one Spec per searched
// mechanism instance (sweep points included) x r x eps x delta, in that
// order. It is nil when the manifest has no [search] table.
func Specs(m *manifest.Manifest) []Spec {
	c := m.Search
	if c == nil {
		return nil
	}
	var out []Spec
	for _, in := range m.Instances() {
		if len(c.Mechanisms) > 0 && !slices.Contains(c.Mechanisms, in.Spec.ID) {
			continue
		}
		tie := c.Tie
		if tie == nil {
			tie = manifest.DefaultTieFor(in.Spec)
		}
		for _, r := range m.SearchCompositions(&in) {
			for _, eps := range c.Eps {
				for _, delta := range c.Delta {
					out = append(out, Spec{
						Label: in.Label, Mechanism: in.Spec, Tie: tie, R: r, Eps: eps, Delta: delta,
						RelTol: c.RelTol, MinFactor: c.MinFactor, MaxFactor: c.MaxFactor, MaxProbes: c.MaxProbes,
					})
				}
			}
		}
	}
	return out
}
