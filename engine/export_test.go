package engine

// Test-only shorthands for one bound of a query. Callers ask Result.Delta
// and Result.Eps, which return both bounds (and Eps shares the evaluations
// of its two searches).

// EpsUpper returns EpsBound.Upper: a sound upper bound on the tight eps for
// delta (the mechanism is (EpsUpper(delta), delta)-DP).
func (r *Result) EpsUpper(delta float64) float64 {
	up, _ := r.epsUpper(delta)
	return up
}

// EpsLower returns EpsBound.Lower: a lower bound on the tight eps for
// delta. NaN when error correction is disabled.
func (r *Result) EpsLower(delta float64) float64 {
	lo, _ := r.epsLower(delta)
	return lo
}

// DeltaUpper returns delta_up(eps), a sound upper bound on the tight delta of
// Lemma 1 for both directions (Theorem 2). eps may be any value >= 0 (or
// +Inf, where only distinguishing events remain).
func (r *Result) DeltaUpper(eps float64) float64 { return r.Delta(eps).Upper }

// DeltaLower returns delta_low(eps), a sound lower bound on the tight delta
// (Theorem 2). NaN when error correction is disabled.
func (r *Result) DeltaLower(eps float64) float64 { return r.Delta(eps).Lower }
