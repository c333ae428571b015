package engine

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

func floatsFrom(data []byte) []float64 {
	var out []float64
	for len(data) >= 8 {
		out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(data)))
		data = data[8:]
	}
	return out
}

// FuzzHistogram feeds arbitrary vectors to the histogram constructor: it
// must either refuse them with ErrInvalid or accept valid PMFs, never panic.
func FuzzHistogram(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
	f.Add([]byte{1, 2, 3}, []byte{})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		pa, pb := floatsFrom(a), floatsFrom(b)
		m, err := Histogram(pa, pb)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		if m.String() == "" {
			t.Fatal("empty name")
		}
	})
}
