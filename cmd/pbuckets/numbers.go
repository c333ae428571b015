package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Integers on the command line (--r, --buckets, ...) may be written with
// underscores between digit groups (10_000) or in exponent notation (1e4,
// 2.5e5) when the value is a whole number.

var (
	underscoredInteger = regexp.MustCompile(`^[+-]?[0-9]+(_[0-9]+)*$`)
	// thousandsList is a comma list that reads as one number with
	// thousands separators: 10,000 or 1,000,000 (and 10,500).
	thousandsList = regexp.MustCompile(`^\s*[0-9]{1,3}(\s*,\s*[0-9]{3})+\s*$`)
)

// parseInteger parses an integer: decimal digits, optionally grouped by
// underscores (10_000), or a whole number in exponent or decimal notation
// (1e4, 2.5e5, 100.0) up to 2^53.
func parseInteger(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if underscoredInteger.MatchString(t) {
		v, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		return v, nil
	}
	v, err := strconv.ParseFloat(t, 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(t, "xXpP_"):
		return 0, fmt.Errorf("%q is not an integer (write 10000, 10_000 or 1e4)", s)
	case v != math.Trunc(v):
		return 0, fmt.Errorf("%q is not a whole number", s)
	case math.Abs(v) > 1<<53:
		return 0, fmt.Errorf("%q is out of range (at most 2^53 in exponent notation)", s)
	}
	return int64(v), nil
}

// checkAmbiguousList refuses a comma list that also reads as one number
// with thousands separators (--r 10,000 would be r = 10 and 0, --r 10,500
// r = 10 and 500).
func checkAmbiguousList(s string) error {
	if !thousandsList.MatchString(s) {
		return nil
	}
	items := splitList(s)
	return fmt.Errorf("%q is ambiguous: commas separate values, so it means %s, not %s; write %s (or %s) for one number, or repeat the flag for several values",
		s, strings.Join(items, " and "), strings.Join(items, ""), strings.Join(items, ""), strings.Join(items, "_"))
}

// intValue is a flag.Value for an int written as parseInteger reads it.
type intValue struct{ p *int }

func (v intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v intValue) Set(s string) error {
	n, err := parseInteger(s)
	if err != nil {
		return err
	}
	if n > math.MaxInt32 || n < math.MinInt32 {
		return errors.New("out of range")
	}
	*v.p = int(n)
	return nil
}

// intFlag defines an int flag that accepts 10_000 and 1e4 (parseInteger).
func intFlag(fs *flag.FlagSet, name string, value int, usage string) *int {
	p := new(int)
	*p = value
	fs.Var(intValue{p}, name, usage)
	return p
}
