package engine

import (
	"context"
	"fmt"
	"sync"
)

// Reattach gives a Result decoded by UnmarshalBinary back the far-tail
// bounds its queries compute from the mechanism's events: the moment bound
// refined per query (momentbound.go) and the tilted bounds (tiltbounds.go).
// The wire format carries only the moment bound's grid, so without
// Reattach a decoded Result bounds the far tail of a count pair by that
// grid alone: sound, and looser than the Result it was encoded from.
//
// m and count must be the mechanism and the number of observations the
// Result composed; its lists record them (their names), and anything else
// is refused with an error, so a wrong mechanism cannot lend its bounds
// (checked only where m has such bounds).
// The mechanism is prepared (the Vuvuzela count sums) on the first query
// that uses these bounds (delta_up below 1e-9), not by Reattach. A Result
// of a sequence, or of a mechanism without event bounds, is left as it is.
func (r *Result) Reattach(m Mechanism, count int) error {
	if m == nil || count < 1 {
		return invalidf("Reattach: a mechanism and a count >= 1 are required")
	}
	if _, ok := m.(momentMech); !ok || r.momFn == nil {
		return nil
	}
	names := r.names()
	if len(names) != 1 || names[0].name != m.String() || names[0].count != count {
		return fmt.Errorf("engine: Reattach: the result composed %v, not %d x %s", names, count, m)
	}
	stored := r.momFn
	parts := []Part{{Mechanism: m, Count: count}}
	r.momFn = func() *momentBound {
		if err := prepare(context.Background(), m); err != nil {
			return stored()
		}
		if fn := momentsFn(parts); fn != nil {
			if mb := fn(); mb != nil {
				return mb
			}
		}
		return stored()
	}
	r.momOnce, r.mom = sync.Once{}, nil
	return nil
}

// names returns the mechanisms and counts a Result composed, from its
// grouped list or, where it has none, its grid list.
func (r *Result) names() []nameCount {
	if r.l != nil {
		return r.l.names
	}
	if r.g != nil {
		return r.g.names
	}
	return nil
}
