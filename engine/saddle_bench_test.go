package engine

import (
	"fmt"
	"testing"
)

// BenchmarkPlanSaddle measures newPlan with the final saddle-point tilt
// (saddle.go) for the DP-SGD rows of issue 12 at the default buckets.
func BenchmarkPlanSaddle(b *testing.B) {
	for _, c := range []struct {
		sigma, q float64
		r        int
	}{{1.1, 0.01, 10000}, {4, 0.01, 65536}, {1, 0.001, 250000}} {
		m, err := SGD(c.sigma, c.q)
		if err != nil {
			b.Fatal(err)
		}
		o, err := Options{}.withDefaults()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("sgd%g_%g_r%d", c.sigma, c.q, c.r), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := newPlan([]Part{{m, c.r}}, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
