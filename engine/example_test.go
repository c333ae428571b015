package engine_test

import (
	"context"
	"fmt"
	"math"

	"github.com/pbuckets/pbuckets/engine"
)

// Compose the Gauss mechanism (sigma = 200*sqrt 2, sensitivity 1) 512 times
// and print both bounds on delta at e^eps = 1.1; the exact value is
// 0.0047885.
func Example() {
	m, err := engine.Gauss(200*math.Sqrt2, 1, 0)
	if err != nil {
		panic(err)
	}
	res, err := engine.Compose(context.Background(), m, 512, engine.Options{Buckets: 20000})
	if err != nil {
		panic(err)
	}
	d := res.Delta(math.Log(1.1))
	fmt.Printf("delta_low = %.4f, delta_up = %.4f\n", d.Lower, d.Upper)
	// Output: delta_low = 0.0048, delta_up = 0.0048
}
