package main

import (
	"math"

	"github.com/pbuckets/pbuckets/internal/outward"
)

// formatBracket renders sound bounds lower <= x <= upper for text output,
// rounded outwards so that the printed numbers are bounds too: "in [5.1925,
// 6.5051]", or "<= 6.2787" when there is no lower bound (NaN). The number of
// significant digits grows with the bracket's tightness (about two digits of
// its width, at least 5 and at most 12).
func formatBracket(lower, upper float64) string {
	if math.IsNaN(lower) {
		return "<= " + roundDecimal(upper, 5, true)
	}
	d := 5
	if w := (upper - lower) / math.Max(math.Abs(upper), math.Abs(lower)); w >= 0 && !math.IsInf(upper, 0) {
		d = 12
		if w > 0 {
			d = min(max(int(math.Ceil(-math.Log10(w)))+1, 5), 12)
		}
	}
	return "in [" + roundDecimal(lower, d, false) + ", " + roundDecimal(upper, d, true) + "]"
}

// roundDecimal is outward.Decimal, the one rounding of printed bounds.
func roundDecimal(x float64, d int, up bool) string { return outward.Decimal(x, d, up) }
