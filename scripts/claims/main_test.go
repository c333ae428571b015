package main

import (
	"math"
	"testing"

	"github.com/pbuckets/pbuckets/plots"
)

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		up, lo float64
		want   string
	}{
		{1.9, 1.8, "yes"},
		{2, 1.8, "yes"},
		{2.2, 2.1, "no (proved by the lower bound)"},
		{2.1, 1.9, "undecided (the bracket straddles 2)"},
		{2.1, 2, "undecided (the bracket straddles 2)"},
		{math.NaN(), 1.9, "unknown (bound missing)"},
	} {
		if got := verdict(c.up, c.lo); got != c.want {
			t.Errorf("verdict(%g, %g) = %q, want %q", c.up, c.lo, got, c.want)
		}
	}
}

func TestTightTo(t *testing.T) {
	row := func(e, up, lo float64) plots.Row {
		return plots.Row{Mechanism: "m", Method: "buckets", R: 8, At: math.Log(e), Upper: up, Lower: lo}
	}
	// Out of order on purpose; the bracket first gets wider than 10% at
	// e^eps = 1.3, so the answer is the point at 1.2.
	cache["fig-test"] = &plots.Results{Delta: []plots.Row{
		row(1.3, 1e-4, 5e-5),
		row(1.0, 1e-1, 0.99e-1),
		row(1.2, 1e-3, 0.95e-3),
		row(1.1, 1e-2, 0.99e-2),
		row(1.4, 1e-6, 1e-6), // tight again, but after the first wide point
		{Mechanism: "m", Method: "kov", R: 8, At: math.Log(1.35), Upper: 1e-9},
	}}
	defer delete(cache, "fig-test")
	d, e := tightTo("fig-test", "m", 8, 1.1)
	if d != 1e-3 || math.Abs(e-1.2) > 1e-12 {
		t.Errorf("tightTo = %g at %g, want 1e-3 at 1.2", d, e)
	}
	// A zero lower bound ends the tight range.
	cache["fig-test"].Delta[1].Lower = 0
	if d, _ := tightTo("fig-test", "m", 8, 1.1); !math.IsNaN(d) {
		t.Errorf("tightTo with a zero lower bound at the start = %g, want NaN", d)
	}
}

// TestEpsBoundsBeyondExp: eps bounds are read as stored, also where e^eps
// overflows float64 (CDP's eps 2355 for DP-SGD printed +Inf through e^eps).
func TestEpsBoundsBeyondExp(t *testing.T) {
	cache["fig-eps"] = &plots.Results{Eps: []plots.Row{
		{Mechanism: "sgd", Method: "cdp", R: 65536, At: 1e-5, Upper: 2355.25, Lower: math.NaN()},
		{Mechanism: "sgd", Method: "buckets", R: 65536, At: 1e-5, Upper: 2.681104, Lower: 2.681099},
	}}
	defer delete(cache, "fig-eps")
	if u, _ := epsBounds("fig-eps", "sgd", "cdp", 65536, 1e-5); u != 2355.25 {
		t.Errorf("CDP eps upper = %v, want 2355.25", u)
	}
	u, l := epsBounds("fig-eps", "sgd", "buckets", 65536, 1e-5)
	if u != 2.681104 || l != 2.681099 {
		t.Errorf("buckets eps = [%v, %v], want [2.681099, 2.681104]", l, u)
	}
	if eu, _ := eps("fig-eps", "sgd", "buckets", 65536, 1e-5); math.Abs(eu-math.Exp(2.681104)) > 1e-12 {
		t.Errorf("e^eps upper = %v, want e^2.681104", eu)
	}
}
