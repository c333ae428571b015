package main

import (
	"math"
	"math/big"
	"strconv"
	"strings"
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

// roundDecimal returns x rounded to d significant decimal digits (1 <= d <=
// 15) upwards (up) or downwards, as the shortest string that parses back
// to that decimal: the printed number is >= x (up) or <= x, exactly.
func roundDecimal(x float64, d int, up bool) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "+Inf"
	case math.IsInf(x, -1):
		return "-Inf"
	case x == 0:
		return "0"
	}
	s := strconv.FormatFloat(x, 'e', d-1, 64) // nearest: [-]d.ddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	m, err1 := strconv.ParseInt(strings.Replace(mant, ".", "", 1), 10, 64)
	e, err2 := strconv.Atoi(exp)
	if err1 != nil || err2 != nil {
		return s // not reached: FormatFloat's 'e' format
	}
	e -= d - 1 // the decimal is m * 10^e
	dec := func(m int64) *big.Rat {
		r := new(big.Rat).SetInt64(m)
		p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(e))), nil))
		if e >= 0 {
			return r.Mul(r, p)
		}
		return r.Quo(r, p)
	}
	c := dec(m).Cmp(new(big.Rat).SetFloat64(x))
	step := int64(0)
	switch {
	case up && c < 0:
		step = 1
	case !up && c > 0:
		step = -1
	}
	if step != 0 {
		if next := m + step; absInt64(next) < pow10(d-1) {
			// The nearest decimal was a power of ten (x rounded up to
			// it): step on the finer grid below it instead.
			m, e = m*10+step, e-1
		} else {
			m = next
		}
	}
	v, err := strconv.ParseFloat(strconv.FormatInt(m, 10)+"e"+strconv.Itoa(e), 64)
	switch {
	case math.IsInf(v, 0):
		return roundDecimal(v, d, up) // beyond the largest float64
	case err != nil:
		return s // not reached: a well-formed decimal
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func absInt64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func pow10(k int) int64 {
	p := int64(1)
	for ; k > 0; k-- {
		p *= 10
	}
	return p
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
