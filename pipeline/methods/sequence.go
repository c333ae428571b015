package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// The comparison methods on sequences (kind "sequence"). One observation
// of a sequence is Count observations of each part; r observations of it
// are r*Count observations of each part (composition of independent
// observations does not depend on their order).
//
//   - A sequence whose parts all name one mechanism is that mechanism
//     observed r * (sum of counts) times: every method runs on the
//     mechanism (samePart).
//   - rdp and cdp: Renyi divergences add under composition (Mironov 2017,
//     Prop. 1), so the single-run curve is sum_j count_j D_alpha(part j)
//     (compare.ComposeRenyi), each part's curve being its closed form or
//     the backend's sound single-round bound (sequenceRenyi).
//   - exact: a sequence of untruncated Gauss mechanisms is one Gauss
//     mechanism: the privacy loss of N(0, s^2) vs N(d, s^2) is N(mu^2/2,
//     mu^2) with mu = d/s, and independent losses add, so the sequence has
//     mu^2 = sum_j count_j (d_j/s_j)^2 per run (sequenceExact).
//   - kov and advanced compose r copies of one mechanism; for parts that
//     are different mechanisms they do not apply (the manifest refuses
//     them, see manifest.checkSequences).

// samePart returns the mechanism of a sequence whose parts all name one
// mechanism, with the sequence's parameters and engine options, and the
// number of its observations in one run of the sequence.
func samePart(spec manifest.MechanismSpec) (manifest.MechanismSpec, int, bool) {
	if spec.Kind != manifest.KindSequence || len(spec.PartIDs()) != 1 {
		return manifest.MechanismSpec{}, 0, false
	}
	parts := spec.ResolvedParts()
	return parts[0].Mechanism, spec.Observations(), true
}

// onSamePart runs fn on the mechanism of a sequence of one mechanism (see
// samePart), with every r multiplied by its observations per run, and
// returns the outcomes under the sequence's r. Other jobs run fn as they
// are.
func onSamePart(fn Func) Func {
	return func(ctx context.Context, job Job) ([]Outcome, error) {
		part, per, ok := samePart(job.Instance.Spec)
		if !ok {
			return fn(ctx, job)
		}
		in := *job.Instance
		in.Spec = part
		inner := job
		inner.Instance = &in
		inner.Compositions = make([]int, len(job.Compositions))
		for i, r := range job.Compositions {
			if r > manifest.MaxObservations/per {
				return nil, fmt.Errorf("r = %d runs of %d observations exceed 2^40 observations", r, per)
			}
			inner.Compositions[i] = r * per
		}
		outs, err := fn(ctx, inner)
		for i := range outs {
			outs[i].R /= per
			if outs[i].Note != "" {
				outs[i].Note += fmt.Sprintf(" (the sequence is %d observations of %s per run)", per, part.ID)
			}
		}
		return outs, err
	}
}

// notForSequences is the error of kov and advanced on a sequence of
// different mechanisms.
func notForSequences(spec manifest.MechanismSpec, method string) error {
	return fmt.Errorf("%w: %s composes r copies of one mechanism; the parts of sequence %q are different mechanisms (%v)",
		ErrNotApplicable, method, spec.ID, spec.PartIDs())
}

// sequenceRenyi returns the single-run Renyi curve of a sequence: the sum
// of its parts' curves times their counts. Each part's curve is its closed
// form or, where there is none, the backend's sound single-round upper
// bound (singleRoundRenyi). The cdp orders are those where every
// backend-fed part's bound is finite (nil when all parts have closed
// forms).
func (c *singleRoundCache) sequenceRenyi(ctx context.Context, spec manifest.MechanismSpec) (renyiInput, error) {
	parts := spec.ResolvedParts()
	curves := make([]compare.RenyiFunc, len(parts))
	counts := make([]int, len(parts))
	var orders []float64
	fromBackend := false
	for i, p := range parts {
		counts[i] = p.Count
		if err := subsampledRenyi(p.Mechanism); err != nil {
			return renyiInput{}, fmt.Errorf("part %q: %w", p.Mechanism.ID, err)
		}
		f, err := renyiCurve(p.Mechanism)
		if err == nil {
			curves[i] = f
			continue
		}
		if !errors.Is(err, ErrNotApplicable) {
			return renyiInput{}, err
		}
		if c.states == nil || c.states.Backend == nil {
			return renyiInput{}, fmt.Errorf("%w: part %q: no closed-form Renyi curve for kind %s and no backend", ErrNotApplicable, p.Mechanism.ID, p.Mechanism.Kind)
		}
		in, err := c.renyiFromBackend(ctx, p.Mechanism, nil, nil)
		if err != nil {
			return renyiInput{}, fmt.Errorf("part %q: %w", p.Mechanism.ID, err)
		}
		curves[i] = in.curve
		if !fromBackend {
			orders = in.cdpOrders
		} else {
			orders = slices.DeleteFunc(orders, func(a float64) bool { return !slices.Contains(in.cdpOrders, a) })
		}
		fromBackend = true
	}
	sum, err := compare.ComposeRenyi(curves, counts)
	if err != nil {
		return renyiInput{}, err
	}
	source := "the parts' closed-form single-round Renyi curves, summed over the sequence"
	if fromBackend {
		source = "the parts' single-round Renyi curves (closed forms, or the buckets' sound upper bounds), summed over the sequence"
		if len(orders) < 2 {
			orders = nil
		}
	}
	return renyiInput{curve: sum, source: source, cdpOrders: orders}, nil
}

// sequenceRenyiCurve returns the closed-form Renyi curve of one run of a
// sequence, if every part has one.
func sequenceRenyiCurve(spec manifest.MechanismSpec) (compare.RenyiFunc, error) {
	parts := spec.ResolvedParts()
	curves := make([]compare.RenyiFunc, len(parts))
	counts := make([]int, len(parts))
	for i, p := range parts {
		f, err := renyiCurve(p.Mechanism)
		if err != nil {
			return nil, fmt.Errorf("part %q: %w", p.Mechanism.ID, err)
		}
		curves[i], counts[i] = f, p.Count
	}
	return compare.ComposeRenyi(curves, counts)
}

// gaussSequence returns the noise sigma of the Gauss mechanism (sensitivity
// 1) equal to one run of a sequence of untruncated Gauss mechanisms:
// 1/sigma^2 = sum_j count_j (sensitivity_j/sigma_j)^2.
func gaussSequence(spec manifest.MechanismSpec) (float64, bool) {
	s := 0.0
	for _, p := range spec.ResolvedParts() {
		m := p.Mechanism
		if m.Kind != manifest.KindGauss || m.Params["truncate"] > 0 {
			return 0, false
		}
		d := m.Params["sensitivity"] / m.Params["sigma"]
		s += float64(p.Count) * d * d
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return 0, false
	}
	return 1 / math.Sqrt(s), true
}
