package manifest

import (
	"fmt"
	"slices"
)

// searchableParams lists, for each kind that has a noise parameter, the
// parameters a search may multiply, and the default tie.
func searchableParams(kind string) (allowed, def []string) {
	switch kind {
	case KindLaplace:
		return []string{"scale", "truncate"}, []string{"scale"}
	case KindGauss:
		return []string{"sigma", "truncate"}, []string{"sigma"}
	case KindSGD:
		return []string{"sigma"}, []string{"sigma"}
	case KindVuvuzelaDialing, KindVuvuzelaConversation:
		return []string{"mu", "scale"}, []string{"mu", "scale"}
	}
	return nil, nil
}

// DefaultTie returns the parameters a search multiplies when none are
// given: the noise scale (and for the Vuvuzela kinds the mean number of
// dummies too, as in the paper's configurations). It is nil for kinds
// without a noise parameter.
func DefaultTie(kind string) []string {
	_, def := searchableParams(kind)
	return slices.Clone(def)
}

// CheckTie validates tie for kind; it returns a description of the problem
// or "".
func CheckTie(kind string, tie []string) string {
	allowed, _ := searchableParams(kind)
	if allowed == nil {
		return fmt.Sprintf("kind %s has no noise parameter to search (searchable kinds: laplace, gauss, sgd, vuvuzela_dialing, vuvuzela_conversation)", kind)
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

func TieAllowed(kind string) []string {
	allowed, _ := searchableParams(kind)
	return allowed
}
