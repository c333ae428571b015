package methods

import (
	"math"

	"github.com/pbuckets/pbuckets/pipeline/backend"
)

// TPRBound is what the buckets method reports about membership-inference
// risk at one false-positive rate: sound lower and upper bounds on the
// largest true-positive rate any test reaches at FPR, over both
// neighbouring directions (engine.Result.TPR), and Mu, the mu of the
// Gaussian-DP trade-off curve through (FPR, Upper) (engine.
// GaussianTradeoffMu, through the backend): a summary of the curve, not a
// bound.
type TPRBound struct {
	FPR, Lower, Upper, Mu float64
}

// tprState is implemented by states that bound true-positive rates.
type tprState interface {
	TPRBounds(fpr float64) (lower, upper, mu float64)
}

// tprBounds answers the membership-inference queries of a job for a
// state; NaN bounds where the state cannot answer.
func tprBounds(st backend.State, fprs []float64) []TPRBound {
	if len(fprs) == 0 {
		return nil
	}
	ts, ok := st.(tprState)
	out := make([]TPRBound, len(fprs))
	for i, f := range fprs {
		b := TPRBound{FPR: f, Lower: math.NaN(), Upper: math.NaN(), Mu: math.NaN()}
		if ok {
			b.Lower, b.Upper, b.Mu = ts.TPRBounds(f)
		}
		out[i] = b
	}
	return out
}
