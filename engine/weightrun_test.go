package engine

import (
	"math"
	"testing"
)

// TestWeightRunBitwise checks that weightRun makes bitwise weights'
// entries (block by block) and relative error, for lengths that end inside a block of 32
// and tilts of both signs and 0.
func TestWeightRunBitwise(t *testing.T) {
	for _, n := range []int{1, 17, 512, 3000, 1 << 15} {
		for _, lambda := range []float64{1e-4, 0.013, 0.7} {
			for _, tau := range []float64{0, math.Copysign(0, -1), 2.6913335490015045, -3.59, 41.9} {
				w, rel := weights(n, lambda, tau)
				run, rrel := newWeightRun(n, lambda, tau)
				if rrel != rel {
					t.Errorf("n=%d lambda=%v tau=%v: rel %v, weights' %v", n, lambda, tau, rrel, rel)
				}
				var b [weightBlock]float64
				for o := range w {
					if o%weightBlock == 0 {
						run.block(o, &b)
					}
					if v := b[o%weightBlock]; math.Float64bits(v) != math.Float64bits(w[o]) {
						t.Fatalf("n=%d lambda=%v tau=%v: offset %d: block's %v, weights' %v", n, lambda, tau, o, v, w[o])
					}
				}
			}
		}
	}
}
