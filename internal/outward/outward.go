// Package outward prints bounds as decimals rounded outwards: an upper
// bound up, a lower bound down, so that the printed number is a bound too.
// Every command that prints a bound rounds it through Decimal.
package outward

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Decimal returns x rounded to d significant decimal digits (1 <= d <=
// 15) upwards (up) or downwards, as the shortest string that parses back
// to that decimal: the printed number is >= x (up) or <= x, exactly.
func Decimal(x float64, d int, up bool) string {
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
		return Decimal(v, d, up) // beyond the largest float64
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

// Upper returns Decimal(x, d, true): an upper bound x printed with d
// significant digits, rounded up.
func Upper(x float64, d int) string { return Decimal(x, d, true) }

// Lower returns Decimal(x, d, false): a lower bound x printed with d
// significant digits, rounded down.
func Lower(x float64, d int) string { return Decimal(x, d, false) }

// Against returns a bound x that is compared with a target in the text
// around it, rounded outwards (up for an upper bound, down for a lower one)
// to d significant digits, or more (up to 15) where d would move it onto
// the wrong side of target: an upper bound x <= target prints as a decimal
// <= target, a lower bound x > target as a decimal > target. Beyond that it
// is Decimal(x, d, upper).
func Against(x float64, d int, upper bool, target float64) string {
	for k := d; k < 15; k++ {
		s := Decimal(x, k, upper)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) {
			return s
		}
		if upper && (x > target || v <= target) || !upper && (x <= target || v > target) {
			return s
		}
	}
	return Decimal(x, 15, upper)
}
