package manifest

import "math"

// The range checks of numeric mechanism parameters (paramSpec.check): each
// returns "" for a valid value and otherwise the valid range, the tail of
// the error message ("sigma must be positive and finite").

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

func halfOpenUnit(v float64) string {
	if v > 0 && v <= 1 {
		return ""
	}
	return "must be in (0, 1]"
}

func closedUnit(v float64) string {
	if v >= 0 && v <= 1 {
		return ""
	}
	return "must be in [0, 1]"
}

// maxExactInt is 2^53: integers up to it are exact in a float64.
const maxExactInt = 1 << 53

func positiveInteger(v float64) string {
	if v >= 1 && v <= maxExactInt && v == math.Trunc(v) {
		return ""
	}
	return "must be a positive integer"
}
