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

// support returns the values v[lo..hi] that may be non-zero (list.lo,
// list.hi) for the encoding, or all of v when an entry outside is not zero
// (so that nothing is ever lost, whatever lo and hi say).
func support(v []float64, lo, hi int) floats {
	lo, hi = max(lo, 0), min(hi, len(v)-1)
	for o, x := range v {
		if (o < lo || o > hi) && x != 0 {
			return floats(v)
		}
	}
	if lo > hi {
		return floats{}
	}
	return floats(v[lo : hi+1])
}

// expand rebuilds an array of length m from its support s starting at lo
// (support); ok is false when s does not fit or m is not positive.
func expand(s floats, lo, hi, m int) (v []float64, ok bool) {
	if m <= 0 || m > 1<<40 {
		return nil, false
	}
	switch {
	case len(s) == m: // the whole array (support's fallback)
		return []float64(s), true
	case len(s) == 0 && lo > hi:
		return make([]float64, m), true
	case lo >= 0 && lo <= hi && hi < m && len(s) == hi-lo+1:
		v = make([]float64, m)
		copy(v[lo:], s)
		return v, true
	}
	return nil, false
}
