package backend

import (
	"context"
	"fmt"
	"strings"

	"github.com/pbuckets/pbuckets/engine"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// sequence is a heterogeneous sequence of mechanisms (kind "sequence"):
// one observation of it is Count observations of each part, in order.
// r observations of it are composed by engine.ComposeSequence with every
// count multiplied by r (the composition of independent observations does
// not depend on their order, so (A^a B^b)^r = A^(ra) B^(rb)).
type sequence struct {
	parts []engine.Part
	desc  string
}

// String describes the sequence completely: its parts' mechanisms (whose
// String describe them completely) and counts.
func (s *sequence) String() string { return s.desc }

// sequenceMechanism builds the engine mechanisms of the parts of spec, once
// per part mechanism (parts naming the same mechanism share it).
func (e Engine) sequenceMechanism(spec manifest.MechanismSpec) (*sequence, error) {
	parts := spec.ResolvedParts()
	if len(parts) == 0 {
		return nil, fmt.Errorf("sequence %q has no parts", spec.ID)
	}
	built := map[string]engine.Mechanism{}
	s := &sequence{}
	terms := make([]string, len(parts))
	for i, p := range parts {
		if p.Mechanism.Kind == manifest.KindSequence {
			return nil, fmt.Errorf("part %d (%q): sequences do not nest", i, p.Mechanism.ID)
		}
		m, ok := built[p.Mechanism.ID]
		if !ok {
			bm, err := e.Mechanism(p.Mechanism)
			if err != nil {
				return nil, fmt.Errorf("part %d (%q): %w", i, p.Mechanism.ID, err)
			}
			em, isEngine := bm.(engine.Mechanism)
			if !isEngine {
				return nil, fmt.Errorf("part %d (%q): %v is not an engine mechanism", i, p.Mechanism.ID, bm)
			}
			m = em
			built[p.Mechanism.ID] = m
		}
		if p.Count < 1 {
			return nil, fmt.Errorf("part %d (%q): count must be >= 1, got %d", i, p.Mechanism.ID, p.Count)
		}
		s.parts = append(s.parts, engine.Part{Mechanism: m, Count: p.Count})
		terms[i] = fmt.Sprintf("%s^%d", m, p.Count)
	}
	s.desc = "sequence(" + strings.Join(terms, ", ") + ")"
	return s, nil
}

// composeSequence returns the states after each number of observations r
// in rs of the sequence, each by its own engine.ComposeSequence (whose
// automatic factor is chosen for its total count).
func composeSequence(ctx context.Context, s *sequence, rs []int, o engine.Options) ([]State, error) {
	out := make([]State, len(rs))
	for i, r := range rs {
		parts := make([]engine.Part, len(s.parts))
		total := 0
		for j, p := range s.parts {
			if p.Count > manifest.MaxObservations/r {
				return nil, fmt.Errorf("%w: r = %d observations of %s exceed 2^40 observations of a part", engine.ErrInvalid, r, s)
			}
			parts[j] = engine.Part{Mechanism: p.Mechanism, Count: p.Count * r}
			total += parts[j].Count
		}
		if total > manifest.MaxObservations {
			return nil, fmt.Errorf("%w: r = %d observations of %s are %d observations, more than 2^40", engine.ErrInvalid, r, s, total)
		}
		res, err := engine.ComposeSequence(ctx, parts, o)
		if err != nil {
			return nil, err
		}
		out[i] = &engineState{r: res}
	}
	return out, nil
}
