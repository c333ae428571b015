package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxProductBitwise checks maxProduct against the pass it replaces
// (math.Max of fl(t L) over the losses) bitwise, sign of zero included,
// for random losses without NaN (with zeros of both signs, ties and wide
// exponents)
// and tilts (both zeros, both signs, tiny and huge).
func TestMaxProductBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	ts := []float64{0, math.Copysign(0, -1), 1, -1, 1e-300, -1e-300, 5e-324, -5e-324, 1e300, -1e300, 0.37, -2.5}
	for trial := range 2000 {
		n := rng.IntN(6)
		loss := make([]float64, n)
		for i := range loss {
			switch rng.IntN(5) {
			case 0:
				loss[i] = 0
			case 1:
				loss[i] = math.Copysign(0, -1)
			default:
				loss[i] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20))
			}
		}
		lo, hi := lossExtremes(loss)
		for _, tv := range append(ts, (rng.Float64()-0.5)*100) {
			want := math.Inf(-1)
			for _, L := range loss {
				want = math.Max(want, tv*L)
			}
			if got := maxProduct(tv, lo, hi, n); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("trial %d: t %g losses %v: %g, the pass %g", trial, tv, loss, got, want)
			}
		}
	}
}
