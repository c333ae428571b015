package engine

import "fmt"

// Route names the computation that composed a Result (Result.Route): the
// squaring chain (Figure 10), the power path (engine/README.md, section
// 6.1) or the closed form of the untruncated Gauss pair (one leaf). It is
// what ran, which may differ from what Options.Path asked: PathPower
// falls back to the chain where the mechanism or the composed list does
// not qualify (a rounding-error bound above 1e-3, atoms of loss, ...),
// PathDefault chooses, and the closed form replaces both where it
// applies.
type Route int

const (
	// RouteUnknown is the route of a Result that did not record it: one
	// decoded from an encoding older than the route.
	RouteUnknown Route = iota
	// RouteChain: the squaring chain composed the Result; Info.Buckets is
	// its bucket count.
	RouteChain
	// RoutePower: the power path composed the Result; Info.Buckets is its
	// grid's bucket count, the transform length asked for (Options.Buckets)
	// or the engine's choice.
	RoutePower
	// RouteClosedForm: one leaf of the pair whose loss law is the r-fold
	// one (see Gauss compositions in closed form in engine/README.md);
	// Info.Buckets is its bucket count.
	RouteClosedForm
)

// String returns "unknown", "chain", "power" or "closed form".
func (p Route) String() string {
	switch p {
	case RouteUnknown:
		return "unknown"
	case RouteChain:
		return "chain"
	case RoutePower:
		return "power"
	case RouteClosedForm:
		return "closed form"
	}
	return fmt.Sprintf("Route(%d)", int(p))
}

// Route returns the computation that composed r (see Route).
func (r *Result) Route() Route { return r.route }

// setRoute records the route of each result in out (ComposeMany and
// composeManyPlain, where the route is decided; ComposeSequence sets its
// one result's).
func setRoute(out []*Result, p Route) {
	for _, r := range out {
		if r != nil {
			r.route = p
		}
	}
}
