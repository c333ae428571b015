package engine

import (
	"bytes"
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
