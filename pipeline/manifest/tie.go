package manifest

import (
	"fmt"
	"slices"
	"strings"
)

// searchableParams returns the parameters a search may multiply for a
// kind and its default tie (the table of kinds' search and tie).
func searchableParams(kind string) (allowed, def []string) {
	k, _ := schemaFor(kind)
	return k.search, k.tie
}

// searchableKinds lists the kinds with a noise parameter to search, in
// documentation order.
func searchableKinds() []string {
	var out []string
	for _, k := range kindTable {
		if k.search != nil {
			out = append(out, k.name)
		}
	}
	return out
}

// DefaultTie returns the parameters a search multiplies when none are
// given: the noise scale (and for the Vuvuzela kinds the mean number of
// dummies too, as in the paper's configurations). It is nil for kinds
// without a noise parameter.
func DefaultTie(kind string) []string {
	_, def := searchableParams(kind)
	return slices.Clone(def)
}

// checkTie validates tie against the parameters allowed for kind.
func checkTie(kind string, allowed, tie []string) string {
	if allowed == nil {
		if kind == KindSequence {
			return fmt.Sprintf("no part of the sequence has a noise parameter to search (searchable kinds: %s)", strings.Join(searchableKinds(), ", "))
		}
		return fmt.Sprintf("kind %s has no noise parameter to search (searchable kinds: %s)", kind, strings.Join(searchableKinds(), ", "))
	}
	if len(tie) == 0 {
		return "tie must name at least one parameter"
	}
	seen := map[string]bool{}
	for _, p := range tie {
		if !slices.Contains(allowed, p) {
			return fmt.Sprintf("kind %s: parameter %q cannot be tied to the noise%s (allowed: %s)", kind, p, suggest(p, allowed), quoteList(allowed))
		}
		if seen[p] {
			return fmt.Sprintf("parameter %q tied twice", p)
		}
		seen[p] = true
	}
	return ""
}

// specTie returns the parameters a search may multiply for spec and its
// default tie: those of its kind, or for a sequence "<part id>.<parameter>"
// for each distinct part whose kind has them (the default multiplies the
// noise of every part).
func specTie(spec MechanismSpec) (allowed, def []string) {
	if spec.Kind != KindSequence {
		return searchableParams(spec.Kind)
	}
	seen := map[string]bool{}
	for _, p := range spec.Parts {
		id := p.Mechanism.ID
		if seen[id] {
			continue
		}
		seen[id] = true
		a, d := searchableParams(p.Mechanism.Kind)
		for _, k := range a {
			allowed = append(allowed, id+"."+k)
		}
		for _, k := range d {
			def = append(def, id+"."+k)
		}
	}
	return allowed, def
}

// TieAllowedFor returns the parameters a search may multiply for spec: as
// TieAllowed for its kind, and "<part id>.<parameter>" for a sequence.
func TieAllowedFor(spec MechanismSpec) []string {
	allowed, _ := specTie(spec)
	return allowed
}

// DefaultTieFor returns the parameters a search of spec multiplies when
// none are given: DefaultTie of its kind, or for a sequence the noise of
// every part ("<part id>.sigma", ...).
func DefaultTieFor(spec MechanismSpec) []string {
	_, def := specTie(spec)
	return def
}

// CheckTieFor validates tie for spec (see TieAllowedFor); it returns a
// description of the problem or "".
func CheckTieFor(spec MechanismSpec, tie []string) string {
	allowed, _ := specTie(spec)
	return checkTie(spec.Kind, allowed, tie)
}
