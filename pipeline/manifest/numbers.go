package manifest

import "math"

// The range checks of numbers outside the mechanisms' parameters (engine
// options, [search] keys; a mechanism's parameters are checked by its
// engine constructor, parser.build): each returns "" for a valid value and
// otherwise the tail of the error message ("must be positive and finite").

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

func openUnit(v float64) string {
	if v > 0 && v < 1 {
		return ""
	}
	return "must be in (0, 1)"
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
