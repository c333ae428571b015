package engine

import (
	"encoding/binary"
	"fmt"
	"math"
)

// floats is a []float64 that gob encodes as its IEEE 754 bits, 8 bytes
// little-endian per value, one copy. gob's own encoding of a []float64
// (bytes reversed, then a variable-length integer per value) cost about
// 8% of a one-observation DP-SGD query, spent writing the state to the
// cache. The values round-trip bit for bit (NaN payloads and signed zeros
// included).
type floats []float64

// GobEncode implements gob.GobEncoder.
func (f floats) GobEncode() ([]byte, error) {
	b := make([]byte, 8*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return b, nil
}

// GobDecode implements gob.GobDecoder.
func (f *floats) GobDecode(b []byte) error {
	if len(b)%8 != 0 {
		return fmt.Errorf("engine: %d bytes are not a whole number of float64 values", len(b))
	}
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	*f = v
	return nil
}
