package engine

import (
	"context"
	"math"
	"testing"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

// testPowerPlan returns the power path's plan for r observations of m at
// Options.Buckets = N with the default options (the test fails where m
// does not qualify).
func testPowerPlan(t *testing.T, m Mechanism, r, N int) *plan {
	t.Helper()
	if err := prepare(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	o, err := Options{Buckets: N, power: powerOn}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	o = o.withTailBudget([]Part{{Mechanism: m, Count: r}})
	p, err := newPowerPlan(m, r, o)
	if err != nil || p == nil {
		t.Fatalf("%s: no power plan (%v)", m, err)
	}
	return p
}

// powerListFor returns the power path's composed list of r observations
// of m on transforms of length N (the test fails where m does not
// qualify).
func powerListFor(t *testing.T, m Mechanism, r, N int) *list {
	t.Helper()
	ctx := context.Background()
	p := testPowerPlan(t, m, r, N)
	z, why, err := p.powerList(ctx, m, r, fft.NewPlan(p.powerN))
	if err != nil || z == nil {
		t.Fatalf("%s r=%d: not composed by the power path: %s %v", m, r, why, err)
	}
	return z
}

// sameBits reports the first offset where a and b differ in their bits
// (-1: none; len(a) when the lengths differ).
func sameBits(a, b []float64) int {
	if len(a) != len(b) {
		return len(a)
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestSpareArraysBitwise checks that a power list's error bounds and grid
// table computed in its spare work arrays (list.spare, filled with NaN
// first: an entry left unwritten shows) are bitwise those computed in new
// arrays, and that the spare arrays were used.
func TestSpareArraysBitwise(t *testing.T) {
	sgd, err := SGD(4, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	gauss, err := Gauss(20, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		m Mechanism
		r int
	}{{sgd, 1000}, {gauss, 100}}
	for _, c := range cases {
		z := powerListFor(t, c.m, c.r, 1<<12)
		if len(z.spare) < 3 {
			t.Fatalf("%s: %d spare arrays, want at least 3", c.m, len(z.spare))
		}
		for _, v := range z.spare {
			for i := range v {
				v[i] = math.NaN()
			}
		}
		b1 := z.bounds()
		if z.spare != nil || len(b1.table) != 3 {
			t.Fatalf("%s: the spare arrays were not taken (%d left, table %d)", c.m, len(z.spare), len(b1.table))
		}
		t1 := z.gridTable(b1)
		b0 := z.bounds()
		t0 := z.gridTable(b0)
		for _, q := range []struct {
			name string
			x, y []float64
		}{{"ea", b1.ea, b0.ea}, {"ec", b1.ec, b0.ec}, {"up", t1.up, t0.up}, {"low", t1.low, t0.low}, {"t", t1.t, t0.t}} {
			if i := sameBits(q.x, q.y); i >= 0 {
				t.Errorf("%s: %s differs at %d", c.m, q.name, i)
			}
		}
		if t1.trel != t0.trel {
			t.Errorf("%s: trel %v, want %v", c.m, t1.trel, t0.trel)
		}
	}
}
