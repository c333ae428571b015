package fft

import (
	"math"
	"testing"
)

// TestPlanTablesBitwise checks a plan's twiddle and stage tables against
// their definition built in separate arrays: w^k = Sincos(2 pi k/n) for
// k < n/4, the rotated -i w^(k-n/4) above, and the stage of size s holding
// w^(k n/s) from offset s/2 - 4 (conjugated in stImC), bit for bit.
func TestPlanTablesBitwise(t *testing.T) {
	for logN := 1; logN <= 14; logN++ {
		n := 1 << logN
		p := NewPlan(n)
		twRe, twIm := make([]float64, n/2), make([]float64, n/2)
		q := max(n/4, 1)
		for k := 0; k < min(q, n/2); k++ {
			s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
			twRe[k], twIm[k] = c, -s
		}
		for k := q; k < n/2; k++ {
			twRe[k], twIm[k] = twIm[k-q], -twRe[k-q]
		}
		same := func(name string, got, want []float64) {
			if len(got) != len(want) {
				t.Fatalf("n=%d: %s has %d entries, want %d", n, name, len(got), len(want))
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("n=%d: %s[%d] = %v, want %v", n, name, i, got[i], want[i])
				}
			}
		}
		same("twRe", p.twRe, twRe)
		same("twIm", p.twIm, twIm)
		if n < 8 {
			continue
		}
		stRe, stIm, stImC := make([]float64, n-4), make([]float64, n-4), make([]float64, n-4)
		for size := 8; size <= n; size <<= 1 {
			half, step := size>>1, n/size
			for k := 0; k < half; k++ {
				stRe[half-4+k] = twRe[k*step]
				stIm[half-4+k] = twIm[k*step]
				stImC[half-4+k] = -twIm[k*step]
			}
		}
		same("stRe", p.stRe, stRe)
		same("stIm", p.stIm, stIm)
		same("stImC", p.stImC, stImC)
	}
}
