package pipeline

import (
	"math"
	"sort"
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

// RenyiBounds returns engine.Result.Renyi and RenyiEstimate.
func (s *engineState) RenyiBounds(alpha float64) (lower, upper, estimate float64) {
	lower, upper = s.r.Renyi(alpha)
	return lower, upper, s.r.RenyiEstimate(alpha)
}

// renyiBounds answers the D_alpha queries of a job for the state after r
// compositions. Renyi divergence is additive under composition of
// independent pairs (in each direction), so the analytic value after r
// rounds is r times the single-round curve.
func renyiBounds(st State, spec MechanismSpec, r int, alphas []float64) []RenyiBound {
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

// renyiFrame builds renyi.parquet: one row per mechanism instance x r x
// alpha of the buckets method.
func renyiFrame(rows []renyiRow) *Frame {
	sortRenyi(rows)
	n := len(rows)
	str := func(name string) *Column { return &Column{Name: name, Type: String, Strings: make([]string, n)} }
	flt := func(name string, nullable bool) *Column {
		return &Column{Name: name, Type: Float64, Nullable: nullable, Floats: make([]float64, n)}
	}
	mech, meth, id, kind, params := str("mechanism"), str("method"), str("mechanism_id"), str("kind"), str("params")
	comp := &Column{Name: "compositions", Type: Int64, Ints: make([]int64, n)}
	alpha, lo, up, est, an := flt("alpha", false), flt("renyi_lower", true), flt("renyi_upper", true), flt("renyi_estimate", true), flt("renyi_analytic", true)
	for i, r := range rows {
		mech.Strings[i], comp.Ints[i], meth.Strings[i] = r.mechanism, int64(r.r), r.method
		id.Strings[i], kind.Strings[i], params.Strings[i] = r.id, r.kind, r.params
		alpha.Floats[i], lo.Floats[i], up.Floats[i] = r.b.Alpha, r.b.Lower, r.b.Upper
		est.Floats[i], an.Floats[i] = r.b.Estimate, r.b.Analytic
	}
	return &Frame{Columns: []*Column{mech, comp, meth, alpha, lo, up, est, an, id, kind, params}}
}

type renyiRow struct {
	boundRow
	b RenyiBound
}

func sortRenyi(rows []renyiRow) {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].key.less(rows[j].key) })
}
