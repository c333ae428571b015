package methods

import (
	"math"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// RenyiBound is what the buckets method reports about the Renyi divergence
// D_alpha (nats, maximised over both directions) of the r-fold composition:
// sound lower and upper bounds from the bucket list, the paper's estimate
// (Section 5.7) and, where package compare has a closed form, the analytic
// value r * D_alpha(single round) (NaN otherwise).
type RenyiBound struct {
	Alpha, Lower, Upper, Estimate, Analytic float64
}

// renyiState is implemented by states that bound Renyi divergences.
type renyiState interface {
	RenyiBounds(alpha float64) (lower, upper, estimate float64)
}

// renyiBounds answers the D_alpha queries of a job for the state after r
// compositions. Renyi divergence is additive under composition of
// independent pairs (in each direction), so the analytic value after r
// rounds is r times the single-round curve.
func renyiBounds(st backend.State, spec manifest.MechanismSpec, r int, alphas []float64) []RenyiBound {
	if len(alphas) == 0 {
		return nil
	}
	rs, ok := st.(renyiState)
	analytic, err := renyiCurve(spec)
	out := make([]RenyiBound, len(alphas))
	for i, a := range alphas {
		b := RenyiBound{Alpha: a, Lower: math.NaN(), Upper: math.NaN(), Estimate: math.NaN(), Analytic: math.NaN()}
		if ok {
			b.Lower, b.Upper, b.Estimate = rs.RenyiBounds(a)
		}
		if err == nil {
			b.Analytic = float64(r) * analytic(a)
		}
		out[i] = b
	}
	return out
}
