package engine

import (
	"math"
	"testing"
)

// TestWeightCacheManyTilts checks that the weight cache never recycles an
// array of a tilt set in use: two sets of nine unpaired tilts (a grid
// list's shifted negatives with the level's and the saddle tilts: two
// arrays per tilt) are asked for one after the other, as a composition's
// corners ask for x's and y's, and every array of both must still hold its
// weights. With a fixed 24 arrays the first set's were evicted and
// recycled into the second's.
func TestWeightCacheManyTilts(t *testing.T) {
	const n, lambda = 64, 0.01
	c := weightCache{n: n}
	set := func(s float64) []float64 {
		tau := []float64{0}
		for _, x := range []float64{1, 2, 3, 4} {
			tau = append(tau, s*x, -s*x-1)
		}
		return tau
	}
	ta, tb := set(1.5), set(2.5)
	a := c.get(lambda, ta)
	b := c.get(lambda, tb)
	for _, tc := range []struct {
		tau []float64
		tw  *tiltWeights
	}{{ta, a}, {tb, b}} {
		for m, tm := range tc.tau {
			want, _ := weights(n, lambda, tm)
			for o := range want {
				if got := tc.tw.w[m][o]; math.Abs(got-want[o]) > 1e-12*want[o] {
					t.Fatalf("tilt %v, offset %d: weight %v, want %v (array recycled while in use)", tm, o, got, want[o])
				}
				if got := tc.tw.inv[m][o]; math.Abs(got*want[o]-1) > 1e-12 {
					t.Fatalf("tilt %v, offset %d: inverse weight %v, want 1/%v (array recycled while in use)", tm, o, got, want[o])
				}
			}
		}
	}
}
