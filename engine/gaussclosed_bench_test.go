package engine

import (
	"math"
	"testing"
)

// BenchmarkGaussR: the Gauss row of BenchmarkPeers (sigma 200 sqrt 2,
// sensitivity 1, delta at e^eps 1.01 and 1.5) at more numbers of
// compositions, at the bucket counts PB_BUCKETS (default 100,000):
// GAUSS_R/BUCKETS reports cpu-s and relw as BenchmarkPeers. A closed-form
// composition (gaussclosed.go) costs the same at every r. Run with
// -benchtime 1x -count 5 and take medians.
func BenchmarkGaussR(b *testing.B) {
	for _, r := range []int{512, 65536, 1 << 20} {
		row := peersRow{name: "gauss" + itoa(r), r: r, eEps: []float64{1.01, 1.5},
			mech: func() (Mechanism, error) { return Gauss(200*math.Sqrt2, 1, 0) }}
		b.Run(row.name, func(b *testing.B) {
			row.benchBuckets(b)
		})
	}
}
