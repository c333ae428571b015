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

// Ask for eps at a delta below the distinguishing mass of M_{eps,delta}
// (its delta, 0.05, after one observation): no finite eps reaches it, and
// the note says why.
func ExampleResult_Eps() {
	m, err := engine.EpsDelta(1, 0.05)
	if err != nil {
		panic(err)
	}
	res, err := engine.Compose(context.Background(), m, 1, engine.Options{Buckets: 2000})
	if err != nil {
		panic(err)
	}
	e := res.Eps(0.1)
	fmt.Printf("eps(0.1) in [%.4f, %.4f]\n", e.Lower, e.Upper)
	e = res.Eps(0.01)
	fmt.Printf("eps(0.01) in [%v, %v]: %s\n", e.Lower, e.Upper, e.Note)
	// Output:
	// eps(0.1) in [0.9253, 0.9253]
	// eps(0.01) in [+Inf, +Inf]: eps_up is +Inf for delta below 0.05: the distinguishing events (impossible under the other distribution) hold up to that mass; eps_low is +Inf for delta below 0.05: the distinguishing events hold at least that mass (not (eps, delta)-DP for any finite eps)
}
