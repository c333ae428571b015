package manifest

import "math"

// The range checks of the manifest's own numbers ([search] keys, the
// pipeline's engine keys accuracy and free_infty_budget; a mechanism's
// parameters are checked by its engine constructor, parser.build, and the
// engine options by engine.Options.Check): each returns "" for a valid
// value and otherwise the tail of the error message ("must be positive and
// finite").

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func positive(v float64) string {
	if v > 0 && finite(v) {
		return ""
	}
	return "must be positive and finite"
}

func nonNegative(v float64) string {
	if v >= 0 && finite(v) {
		return ""
	}
	return "must be non-negative and finite"
}

// maxExactInt is 2^53: integers up to it are exact in a float64.
const maxExactInt = 1 << 53

// positiveInteger returns "" for a whole number in [1, 2^53] (a count the
// engine takes as int) and otherwise the tail of an error message.
func positiveInteger(v float64) string {
	if v >= 1 && v <= maxExactInt && v == math.Trunc(v) {
		return ""
	}
	return "must be a positive integer"
}
