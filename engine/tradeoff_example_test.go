package engine_test

import (
	"context"
	"fmt"

	"github.com/pbuckets/pbuckets/engine"
)

// The membership-inference risk of 100 Gaussian mechanisms with noise
// sigma = 20 and sensitivity 1 (mu-GDP with mu = 0.5): the largest true-
// positive rate of any attack at a false-positive rate of 1e-3 (exact:
// Phi(Phi^-1(0.001) + 0.5) = 0.00479556).
func ExampleResult_TPR() {
	m, _ := engine.Gauss(20, 1, 0)
	res, _ := engine.Compose(context.Background(), m, 100, engine.Options{Buckets: 20000})
	b := res.TPR(1e-3)
	fmt.Printf("tpr in [%.7f, %.7f] at fpr %g\n", b.Lower, b.Upper, b.FPR)
	fmt.Printf("mu-GDP summary: %.4f\n", engine.GaussianTradeoffMu(b.FPR, b.Upper))
	// Output:
	// tpr in [0.0047956, 0.0047956] at fpr 0.001
	// mu-GDP summary: 0.5000
}
