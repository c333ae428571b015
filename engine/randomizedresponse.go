package engine

// RandomizedResponse returns the randomized response pair of Section 5.5:
// A = (p, 1-p), B = (1-p, p), for p in (0, 1).
func RandomizedResponse(p float64) (Mechanism, error) {
	if !(p > 0 && p < 1) {
		return nil, paramError("randomized_response: p", "must be in (0, 1), got %v", p)
	}
	return &histMech{name: "randomized_response(p=" + fmtFloat(p) + ")", a: []float64{p, 1 - p}, b: []float64{1 - p, p}}, nil
}
