package backend

import (
	"context"
	"fmt"
	"slices"

	"github.com/pbuckets/pbuckets/engine"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// Engine implements Backend with package engine.
type Engine struct{}

// Mechanism builds the engine mechanism of spec with the constructor of
// its kind (manifest.MechanismSpec.Build); a sequence builds those of its
// parts.
func (e Engine) Mechanism(spec manifest.MechanismSpec) (Mechanism, error) {
	if spec.Kind == manifest.KindSequence {
		return e.sequenceMechanism(spec)
	}
	return spec.Build()
}

// ComposeMany calls engine.ComposeMany, or for a sequence
// engine.ComposeSequence once per r.
func (Engine) ComposeMany(ctx context.Context, m Mechanism, rs []int, opt manifest.EngineOptions, progress func(done, total int)) ([]State, error) {
	o := opt.Engine()
	o.Progress = progress
	if s, ok := m.(*sequence); ok {
		return composeSequence(ctx, s, rs, o)
	}
	em, ok := m.(engine.Mechanism)
	if !ok {
		return nil, fmt.Errorf("mechanism %v was not built by EngineBackend", m)
	}
	res, err := engine.ComposeMany(ctx, em, rs, o)
	if err != nil {
		return nil, err
	}
	out := make([]State, len(res))
	for i, r := range res {
		out[i] = &engineState{r: r}
	}
	return out, nil
}

// PowerPath reports whether r compositions of m with opt would take the
// engine's power path at EngineOptions.Path = PathPower
// (engine.PowerQualifies, known before composing); false for sequences,
// which the chain composes.
func (Engine) PowerPath(ctx context.Context, m Mechanism, r int, opt manifest.EngineOptions) (bool, error) {
	em, ok := m.(engine.Mechanism)
	if !ok {
		return false, nil
	}
	o := opt.Engine()
	// the length changes only the range's tail budget (shorter transforms
	// compose on a narrower range, engine.Options.DeltaFloor): asked at
	// the longest, whose range is the widest, a mechanism that qualifies
	// qualifies at every length
	o.Buckets = 1 << 22
	return engine.PowerQualifies(ctx, em, r, o)
}

// PowerStart returns the transform length (points) from minN to maxN at
// which the engine predicts the power path's relative bracket widths of r
// compositions of m with opt to meet target for the questions eps(delta)
// at deltas and delta(eps) at eps (nats) (engine.PowerLengthFor: a model,
// nothing composed); 0 where it predicts none up to maxN or nothing, and
// for sequences.
func (Engine) PowerStart(ctx context.Context, m Mechanism, r int, eps, deltas []float64, target float64, minN, maxN int, opt manifest.EngineOptions) (int, error) {
	em, ok := m.(engine.Mechanism)
	if !ok {
		return 0, nil
	}
	return engine.PowerLengthFor(ctx, em, r, eps, deltas, target, minN, maxN, opt.Engine())
}

// ClosedForm reports whether the engine composes r observations of m with
// opt in closed form (engine.ComposesInClosedForm: one leaf whose bucket
// count is EngineOptions.Buckets, at a cost independent of r); false for
// sequences.
func (Engine) ClosedForm(m Mechanism, r int, opt manifest.EngineOptions) bool {
	em, ok := m.(engine.Mechanism)
	return ok && engine.ComposesInClosedForm(em, r, opt.Engine())
}

// DeltaFloor returns engine.DeltaFloorFor of m after r observations for
// questions at eps (nats) and deltas: the value of
// manifest.EngineOptions.DeltaFloor that lets the engine choose the tail
// budget for them, 0 where it would change nothing with opt
// (engine.FloorChangesComposition; sequences keep the default budget).
func (Engine) DeltaFloor(ctx context.Context, m Mechanism, r int, eps, deltas []float64, opt manifest.EngineOptions) (float64, error) {
	em, ok := m.(engine.Mechanism)
	if !ok || !engine.FloorChangesComposition(em, r, opt.Engine()) {
		return 0, nil
	}
	return engine.DeltaFloorFor(ctx, em, r, eps, deltas)
}

// EstimateMemory returns engine.EstimateMemory of the options plus the
// memory of the mechanism's one-time build (manifest.MechanismSpec.BuildMemory).
func (e Engine) EstimateMemory(spec manifest.MechanismSpec) int64 {
	if spec.Kind == manifest.KindSequence {
		// The parts are built once each and kept for the composition.
		n := engine.EstimateMemory(spec.Engine.Engine())
		seen := map[string]bool{}
		for _, p := range spec.ResolvedParts() {
			if !seen[p.Mechanism.ID] {
				seen[p.Mechanism.ID] = true
				n += e.EstimateMemory(p.Mechanism) - engine.EstimateMemory(p.Mechanism.Engine.Engine())
			}
		}
		return n
	}
	return engine.EstimateMemory(spec.Engine.Engine()) + spec.BuildMemory()
}

// DecodeState restores an engine.Result.
func (Engine) DecodeState(data []byte) (State, error) {
	r := new(engine.Result)
	if err := r.UnmarshalBinary(data); err != nil {
		return nil, err
	}
	return &engineState{r: r}, nil
}

// Reattach gives a decoded state the far-tail bounds its queries compute
// from m's events (engine.Result.Reattach: the wire does not carry them);
// m and r must be what the state composed, or it returns an error. States
// of sequences are left as they are.
func (s *engineState) Reattach(m Mechanism, r int) error {
	em, ok := m.(engine.Mechanism)
	if !ok {
		return nil
	}
	return s.r.Reattach(em, r)
}

// engineState is a State of the engine. It collects the notes of its
// queries (why a bound is the trivial one) for Notes; it is not safe for
// concurrent queries.
type engineState struct {
	r     *engine.Result
	notes []string
}

func (s *engineState) note(n string) {
	if n != "" && !slices.Contains(s.notes, n) {
		s.notes = append(s.notes, n)
	}
}

func (s *engineState) DeltaBounds(eps float64) (float64, float64) {
	d := s.r.Delta(eps)
	s.note(d.Note)
	return d.Upper, d.Lower
}

func (s *engineState) EpsBounds(delta float64) (float64, float64) {
	e := s.r.Eps(delta)
	s.note(e.Note)
	return e.Upper, e.Lower
}

// Notes returns the engine's notes on the composition (engine.Result.Notes)
// and those of the queries answered so far.
func (s *engineState) Notes() []string {
	return append(s.r.Notes(), s.notes...)
}

func (s *engineState) Summary() StateSummary {
	info := s.r.Info()
	return StateSummary{Buckets: info.Buckets, Factor: info.Factor, InfinityMass: s.r.Corners().Mass(), Path: routePath(s.r.Route())}
}

// routePath returns StateSummary.Path of an engine route: "" for
// engine.RouteUnknown.
func routePath(r engine.Route) string {
	switch r {
	case engine.RouteChain:
		return manifest.PathChain
	case engine.RoutePower:
		return manifest.PathPower
	case engine.RouteClosedForm:
		return PathClosedForm
	}
	return ""
}

func (s *engineState) MarshalBinary() ([]byte, error) { return s.r.MarshalBinary() }

// TPRBounds returns the bounds of engine.Result.TPR at fpr (the largest
// true-positive rate of a membership-inference test, both directions) and
// the mu of the Gaussian-DP curve through the upper bound
// (engine.GaussianTradeoffMu, a summary).
func (s *engineState) TPRBounds(fpr float64) (lower, upper, mu float64) {
	b := s.r.TPR(fpr)
	return b.Lower, b.Upper, engine.GaussianTradeoffMu(fpr, b.Upper)
}

// RenyiBounds returns engine.Result.Renyi and RenyiEstimate. The upper
// bound on D_alpha (maximised over both directions) covers its own
// floating-point error: the engine bounds each bucket's term by a chord
// evaluated with a rigorous rounding allowance, and rounds the sums,
// exponentials, logarithms and the interval ends outwards
// (engine/renyi.go); the buckets method's D_alpha and the single-round
// curve of rdp and cdp are this one bound.
func (s *engineState) RenyiBounds(alpha float64) (lower, upper, estimate float64) {
	lower, upper = s.r.Renyi(alpha)
	return lower, upper, s.r.RenyiEstimate(alpha)
}

// ChainCounts returns the numbers of compositions among rs that shape the
// states of one ComposeMany call (engine.ChainCounts): the cache keys
// states by them, and a call that composes them gives every r it shares
// with another call of the same shaping counts the same bits.
func ChainCounts(rs []int) []int { return engine.ChainCounts(rs) }

// PowerLength returns the transform length (points) the engine's power
// path composes on for a bucket count b: the shortest 2^k or 3·2^k of at
// least b and 2^10 (engine.PowerLength).
func PowerLength(b int) int { return engine.PowerLength(b) }
