package engine

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// Result holds a composed bucket list and answers privacy queries about it.
// It is immutable and safe for concurrent use.
type Result struct {
	l     *list
	b     bounds
	ec    bool
	info  Info
	notes []string
	// route is the computation that composed the result (Route), set
	// where ComposeMany decides it.
	route Route

	tableOnce sync.Once
	table     *deltaTable // built on the first query

	// g is the grid list of the same composition (grid.go), nil when not
	// computed; gb its error bounds. Delta takes the tighter bound of l and
	// g in each direction.
	g          *list
	gb         bounds
	gtableOnce sync.Once
	gtable     *gridTable
	// guide approximates g's delta for the eps searches (epsguide.go),
	// built on the first eps query; nil when there is none.
	guideOnce sync.Once
	guide     *epsGuide

	// s is the grid list of the swapped pair (B, A) (gridswap.go), nil
	// when not computed; sb its error bounds.
	s          *list
	sb         bounds
	stableOnce sync.Once
	stable     *gridTable

	// where the lower bounds come from (lowerpair.go)
	lowerSource

	// momFn computes the moment bound of the privacy loss
	// (momentbound.go), nil when the mechanisms give none; mom is its
	// result, computed on first use (moments).
	momFn   func() *momentBound
	momOnce sync.Once
	mom     *momentBound
}

func newResult(l *list, ec bool, tilts int, leafLambda float64) *Result {
	r := &Result{l: l, b: l.bounds(), ec: ec, info: Info{
		Buckets:       2 * l.n,
		LeafFactor:    math.Exp(leafLambda),
		Factor:        math.Exp(l.lambda),
		LogLeafFactor: leafLambda,
		LogFactor:     l.lambda,
		Compositions:  l.compositions,
		Squarings:     l.squarings,
		U:             l.u,
		Tilts:         tilts,
		Mechanisms:    compactNames(l.names),
	}}
	if e := math.Max(l.l1A, l.l1C); !(e <= 1e-3) {
		r.addNotes([]string{fmt.Sprintf("the rounding-error bound of the composed buckets is %.3g in total (it grows about 2x per composition and per squaring): the bounds are loose where it matters", e)})
	}
	return r
}

// withGrid adds the grid list g of the same composition (nil: none).
func (r *Result) withGrid(g *list) *Result {
	if g != nil {
		r.g, r.gb = g, g.bounds()
	}
	return r
}

// newGridResult returns the result of a grid list alone (no grouped list).
func newGridResult(g *list, tilts int, leafLambda float64) *Result {
	r := &Result{ec: true, info: Info{
		Buckets:       2 * g.n,
		LeafFactor:    math.Exp(leafLambda),
		Factor:        math.Exp(g.lambda),
		LogLeafFactor: leafLambda,
		LogFactor:     g.lambda,
		Compositions:  g.compositions,
		Squarings:     g.squarings,
		Tilts:         tilts,
		Mechanisms:    compactNames(g.names),
	}}
	return r.withGrid(g)
}

// cornerList returns the list whose corners the result reports: the
// grouped list, or the grid list when there is no grouped list.
func (r *Result) cornerList() *list {
	if r.l == nil {
		return r.g
	}
	return r.l
}

// epsMax is the eps beyond which no list of r has a regular bucket: the
// end of the eps searches.
func (r *Result) epsMax() float64 {
	e := 0.0
	if l := r.l; l != nil {
		e = (float64(l.n) + l.u + 2) * l.lambda
	}
	if g := r.g; g != nil {
		e = math.Max(e, (float64(g.n)+2)*g.lambda+math.Max(g.wUp, g.wLo))
	}
	return math.Max(e, r.swapEpsMax())
}

// addNotes appends the notes not yet present.
func (r *Result) addNotes(notes []string) {
	for _, n := range notes {
		if !slices.Contains(r.notes, n) {
			r.notes = append(r.notes, n)
		}
	}
}

// Notes returns what made this result's bounds looser than the method
// allows, if anything: the privacy loss beyond the bucket range the engine
// uses, squarings stopped at that range, rounding-error bounds that are not
// small. Empty for most results. The notes of individual queries are in
// DeltaBound.Note and EpsBound.Note.
func (r *Result) Notes() []string { return slices.Clone(r.notes) }

// Info describes how a Result was computed.
type Info struct {
	// Buckets is the number of buckets 2n of the list (Definition 4).
	Buckets int
	// LeafFactor is the factor f of the leaves; Factor is f_T of the
	// composed tree (LeafFactor^(2^Squarings)).
	LeafFactor, Factor float64
	// LogLeafFactor and LogFactor are ln LeafFactor and ln Factor, the
	// bucket widths in units of privacy loss (finite where Factor has
	// overflowed to +Inf, past e^709.78).
	LogLeafFactor, LogFactor float64
	// Compositions is the number of observations composed (r).
	Compositions int
	// Squarings is the number of squaring nodes on the path of the tree.
	Squarings int
	// U is the counter u_T of Definition 7 (here real-valued, so it also
	// absorbs rounding at the leaves; see the package documentation).
	U float64
	// Tilts is the number of exponential tilts used by the convolutions.
	Tilts int
	// Mechanisms lists the mechanisms composed, as their String forms.
	Mechanisms []string
	// LowerMechanisms lists the mechanisms whose composition gave the
	// lower bounds, when a pair of Mechanisms only dominates the
	// mechanism it stands for (see Lower pairs in the package
	// documentation); empty when the lower bounds
	// come from Mechanisms themselves or are absent (see Result.Notes).
	LowerMechanisms []string
}

// Corners reports the probability mass that the bucket list could not place
// in a finite bucket. All masses are upper bounds (they include the
// floating-point error bounds).
type Corners struct {
	// InfinityA is B(infinity), the A-mass of events with privacy loss
	// ratio above f^n (including DistinguishingA); it is added in full to
	// delta_up in direction A||B.
	InfinityA float64
	// DistinguishingA is the A-mass of events impossible under B
	// (P_B = 0): the delta that remains at eps = infinity in A||B.
	DistinguishingA float64
	// LowB is the B-mass of events with ratio at most f^-n (the bucket -n,
	// including DistinguishingB); added in full to delta_up in B||A.
	LowB float64
	// DistinguishingB is the B-mass of events impossible under A.
	DistinguishingB float64
	// LowA and InfinityB are the other masses of the same corners (A-mass
	// of bucket -n, B-mass of bucket infinity). The corners absorb their
	// events, so these too are added to delta_up of A||B and B||A.
	LowA, InfinityB float64
}

// Mass returns the total corner mass, max over both directions.
func (c Corners) Mass() float64 {
	return math.Max(c.InfinityA+c.LowA, c.LowB+c.InfinityB)
}

// DeltaBound is the answer to a delta(eps) query (Theorem 2).
type DeltaBound struct {
	Eps float64
	// Upper is delta_up(eps) = max(delta_{A||B}, delta_{B||A}).
	Upper float64
	// Lower is delta_low(eps) = max over directions of the sound lower
	// bounds (each is a lower bound on the tight delta of Lemma 1, so the
	// larger one is too), from the lower pair where the composed pair
	// only dominates the mechanism (0 when none is known, with a note in
	// Result.Notes). NaN when error correction is disabled.
	Lower float64
	// UpperAB, UpperBA, LowerAB, LowerBA are the per-direction values.
	UpperAB, UpperBA, LowerAB, LowerBA float64
	// Corners is the corner mass behind these numbers.
	Corners Corners
	// Note says why Upper is the trivial bound 1 when the engine could
	// not do better (corner mass, rounding-error bounds); empty otherwise.
	Note string
}

// Info returns how the result was computed.
func (r *Result) Info() Info {
	info := r.info
	info.Mechanisms = append([]string(nil), r.info.Mechanisms...)
	info.LowerMechanisms = append([]string(nil), r.info.LowerMechanisms...)
	return info
}

// Corners returns the corner masses of the composed list.
func (r *Result) Corners() Corners { return r.cornerList().corners() }

// Delta returns both bounds at eps with their per-direction parts and the
// corner masses. Negative or NaN eps is treated as 0 and NaN respectively.
func (r *Result) Delta(eps float64) DeltaBound {
	if math.IsNaN(eps) {
		nan := math.NaN()
		return DeltaBound{Eps: eps, Upper: nan, Lower: nan, UpperAB: nan, UpperBA: nan, LowerAB: nan, LowerBA: nan}
	}
	if eps < 0 {
		eps = 0
	}
	return r.slackDelta(r.lowerDelta(r.deltaOwn(eps), eps), eps)
}

// deltaOwn is Delta from r's own lists (eps >= 0), whatever the source of
// its lower bounds.
func (r *Result) deltaOwn(eps float64) DeltaBound {
	d := r.deltaLists(eps)
	if r.s != nil {
		d = combineDelta(d, r.swapDelta(eps))
	}
	return r.withMoments(d)
}

// gridTable returns the table of the grid list g, building it once.
func (r *Result) gridTable() *gridTable {
	r.gtableOnce.Do(func() { r.gtable = r.g.gridTable(r.gb) })
	return r.gtable
}

// epsGuide returns the guide of the eps searches, nil when r has no grid
// list or its guide would not be finite.
func (r *Result) epsGuide() *epsGuide {
	r.guideOnce.Do(func() {
		if r.g != nil {
			r.guide = newEpsGuide(r.g, r.gridTable())
		}
	})
	return r.guide
}

// deltaLists is Delta from the grouped and the grid list (eps >= 0).
func (r *Result) deltaLists(eps float64) DeltaBound {
	var d DeltaBound
	if r.l != nil && r.g != nil {
		// both lists: the grid list's sums on another core (they only read
		// the lists and their tables; an eps query evaluates Delta 15 to
		// 30 times, each a pass over the buckets above eps in each list)
		var dg DeltaBound
		done := make(chan struct{})
		go func() {
			defer close(done)
			dg = r.g.gridDelta(eps, r.gridTable())
		}()
		r.tableOnce.Do(func() { r.table = r.l.deltaTable(r.b) })
		d = r.l.delta(eps, r.b, r.ec, r.table)
		<-done
		return combineDelta(d, dg)
	}
	if r.g != nil { // the grid list alone
		return r.g.gridDelta(eps, r.gridTable())
	}
	if r.l != nil {
		r.tableOnce.Do(func() { r.table = r.l.deltaTable(r.b) })
		d = r.l.delta(eps, r.b, r.ec, r.table)
	}
	return d
}
