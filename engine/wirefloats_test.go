package engine

import (
	"bytes"
	"context"
	"encoding/gob"
	"math"
	"testing"
)

// TestFloatsRoundTrip checks that the cache encoding of float64 arrays
// keeps every bit (signed zeros, subnormals, infinities, NaN payloads) and
// refuses a truncated value.
func TestFloatsRoundTrip(t *testing.T) {
	in := floats{0, math.Copysign(0, -1), 1, -2.5, 0x1p-1074, 0x1p-1022, math.MaxFloat64,
		math.Inf(1), math.Inf(-1), math.Float64frombits(0x7ff8000000000123), 1.0000000000000002}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(struct{ A floats }{in}); err != nil {
		t.Fatal(err)
	}
	var out struct{ A floats }
	if err := gob.NewDecoder(&buf).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out.A) != len(in) {
		t.Fatalf("decoded %d values, want %d", len(out.A), len(in))
	}
	for i := range in {
		if math.Float64bits(out.A[i]) != math.Float64bits(in[i]) {
			t.Errorf("value %d: got bits %x, want %x", i, math.Float64bits(out.A[i]), math.Float64bits(in[i]))
		}
	}
	var f floats
	if err := f.GobDecode(make([]byte, 12)); err == nil {
		t.Error("12 bytes decoded without an error")
	}
}

// TestResultEncodingKeepsArrays checks that encoded results (which store
// only the support of their arrays) decode to bitwise the same arrays, for
// every kind of list, leaves and compositions (and the grouped list's raw
// corners, which its notes report), and that support keeps a
// whole array whose entries outside lo..hi are not zero.
func TestResultEncodingKeepsArrays(t *testing.T) {
	sgd, _ := SGD(2, 0.05)
	rr, _ := RandomizedResponse(0.7)
	same := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	far, _ := Gauss(0.2, 1, 0) // r = 64: a swapped grid list (gridswap.go)
	swapped, watched := 0, 0
	for _, m := range []Mechanism{sgd, rr, far} {
		for _, r := range []int{1, 3, 64} {
			for _, lists := range []Lists{ListsBoth, ListsGrid, ListsGrouped} {
				res, err := Compose(context.Background(), m, r, Options{Buckets: 4000, Lists: lists})
				if err != nil {
					t.Fatal(err)
				}
				data, err := res.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				var back Result
				if err := back.UnmarshalBinary(data); err != nil {
					t.Fatalf("%s r=%d %v: %v", m, r, lists, err)
				}
				if res.s != nil {
					swapped++
				}
				if res.l != nil && (res.l.hasWatch != back.l.hasWatch || res.l.raw != back.l.raw) {
					t.Errorf("%s r=%d %v: raw corners %v (%v), decoded %v (%v)", m, r, lists, res.l.raw, res.l.hasWatch, back.l.raw, back.l.hasWatch)
				}
				if res.l != nil && res.l.hasWatch {
					watched++
				}
				for _, p := range []struct{ x, y *list }{{res.l, back.l}, {res.g, back.g}, {res.s, back.s}} {
					if (p.x == nil) != (p.y == nil) {
						t.Fatalf("%s r=%d %v: list present %v, decoded %v", m, r, lists, p.x != nil, p.y != nil)
					}
					if p.x != nil && (!same(p.x.a, p.y.a) || !same(p.x.c, p.y.c) || p.x.lo != p.y.lo || p.x.hi != p.y.hi) {
						t.Errorf("%s r=%d %v: arrays differ after decoding", m, r, lists)
					}
				}
			}
		}
	}
	if swapped == 0 {
		t.Error("no result with a swapped grid list")
	}
	if watched == 0 {
		t.Error("no result with raw corners")
	}
	v := []float64{0, 1, 2, 0, 5}
	if got := support(v, 1, 2); len(got) != len(v) {
		t.Errorf("support of %v on 1..2 kept %d values, want all %d", v, len(got), len(v))
	}
	if got, ok := expand(support(v, 1, 4), 1, 4, 5); !ok || !same(got, v) {
		t.Errorf("expand(support) = %v, %v; want %v", got, ok, v)
	}
	if _, ok := expand(floats{1, 2}, 3, 4, 4); ok {
		t.Error("expand accepted a support beyond the array")
	}
}
