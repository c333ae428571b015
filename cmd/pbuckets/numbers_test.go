package main

import (
	"strings"
	"testing"
)

// Integers accept 10_000 and 1e4; a comma list that reads as one number
// with thousands separators is refused with a hint (before: --r 10,500
// silently meant r = 10 and 500, --r 10,000 failed with "got 0").
func TestIntegerSpellings(t *testing.T) {
	for in, want := range map[string]int64{"10000": 10000, "10_000": 10000, "1e4": 10000, "2.5e5": 250000, "1_000_000": 1e6, "100.0": 100, "-3": -3} {
		if got, err := parseInteger(in); err != nil || got != want {
			t.Errorf("parseInteger(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"2.5", "1e20", "0x10", "10__0", "_10", "1,0", "x", "inf", "1e4_0"} {
		if got, err := parseInteger(in); err == nil {
			t.Errorf("parseInteger(%q) = %d, want an error", in, got)
		}
	}
	for _, in := range []string{"10,500", "10,000", "1,000,000", "100, 200"} {
		l := intList()
		if err := l.Set(in); err == nil || !strings.Contains(err.Error(), "ambiguous") {
			t.Errorf("--r %q: %v, want refused as ambiguous", in, err)
		}
	}
	l := intList()
	for _, in := range []string{"1000,10000", "10_000,1e5", "5,7"} {
		if err := l.Set(in); err != nil {
			t.Errorf("--r %q: %v", in, err)
		}
	}
	if got := l.String(); got != "1000,10000,10000,100000,5,7" {
		t.Errorf("list %q", got)
	}
	code, _, stderr := runCmd(t, "eps", "--kind", "gauss", "--sigma", "2", "--r", "10,500", "--delta", "1e-5")
	if code != exitUsage || !strings.Contains(stderr, "write 10500 (or 10_500) for one number") {
		t.Errorf("eps --r 10,500: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "eps", "--kind", "gauss", "--sigma", "2", "--r", "1e2", "--buckets", "2e3", "--delta", "1e-5", "--no-cache"); code != exitOK || !strings.Contains(stderr, "") {
		t.Errorf("eps --r 1e2 --buckets 2e3: exit %d\n%s", code, stderr)
	}
}
