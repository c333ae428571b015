package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Options controls how bucket lists are built and composed. The zero value
// is valid and selects the paper's settings (100,000 buckets, error
// correction, squaring threshold 2.2) with an automatically chosen factor.
type Options struct {
	// Buckets is the number of buckets 2n of Definition 4 (the list holds
	// indices -n..n plus the infinity bucket, as the authors' code counts
	// them). It must be a multiple of 4 (n even, for squaring) and at
	// least 8. With PathDefault, an explicit count composes by the
	// squaring chain at that count, as it always did, and zero means
	// 100,000 for the chain and lets ComposeMany choose, per call, between
	// that chain and the power path
	// (one forward transform, an r-th power and one inverse per tilt;
	// engine/README.md, section 6.1) and the power path's
	// transform length: the power path where a width predictor made before
	// composing expects it at least as tight as the chain at 100,000
	// buckets and cheaper, and its result keeps its width in the tails
	// (probed at a few delta evaluations); the chain otherwise. The choice
	// depends on the mechanism, the other options and ChainCounts of the
	// numbers of compositions only. Factor, Lists other than ListsBoth and
	// DisableErrorCorrection keep the chain. PathChain and PathPower
	// (Path) read Buckets as the chain's bucket count or the power path's
	// transform length.
	Buckets int

	// Factor is the bucket factor f > 1 of the leaves. Zero selects it
	// automatically from n, the mechanisms and the number of compositions
	// (see Plan); an explicit factor always wins.
	Factor float64

	// DisableErrorCorrection turns the error-correction terms of Section 4
	// off: delta_up is then the bound of Definition 5 and delta_low is not
	// reported (NaN).
	DisableErrorCorrection bool

	// SquaringThreshold is the growth of the corner mass that triggers a
	// squaring before a composition (Figure 10; 2.2 in the paper). Zero
	// means 2.2.
	SquaringThreshold float64

	// FreeInftyBudget is free_infty_budget of Section 4.6: no squaring is
	// triggered while the corner mass after the composition stays below it.
	// Zero means TailBudget (the authors' code uses 1e-20, which lets the
	// corners grow past deltas of 1e-19); a negative value means 0.
	FreeInftyBudget float64

	// TailBudget is the corner mass the automatic factor may leave after all
	// compositions (it is also the resolution floor of the buckets' delta).
	// Zero means 1e-22, or a deeper budget the engine chooses for
	// DeltaFloor. Ignored when Factor is set.
	TailBudget float64

	// DeltaFloor is the smallest delta the caller will ask of the
	// results (eps at that delta, or delta at an e^eps where it is about
	// that small; DeltaFloorFor computes it from the questions). With
	// TailBudget and Factor 0 the engine then chooses a tail budget deep
	// enough for the buckets to resolve such deltas, where the mechanism
	// can (the Vuvuzela count pairs; others keep the default), at the
	// cost of a coarser factor and more compose time. Zero means none:
	// the default budget. It steers the tail budget only; every bound is
	// sound whatever it says.
	DeltaFloor float64

	// AlignEps is an eps (nats, >= 0) of a delta(eps) question the
	// caller will ask. A composition in closed form (ComposesInClosedForm)
	// with Factor 0 then takes the largest spacing at most 1.25 times its
	// own that puts AlignEps on a grid point (and -AlignEps: the grid is
	// symmetric), where its delta(AlignEps) bounds are exact up to
	// rounding (gaussclosed.go, "Alignment"). Others ignore it. Zero means
	// none. Every bound is sound whatever it says.
	AlignEps float64

	// Tilts is the number of exponential tilts used for each convolution,
	// 1 to 5. With 1 the rigorous FFT error floor is about
	// 1e-16 of the bulk mass per bucket; 3, the default, keeps the error
	// relative in both tails out to about 6 standard deviations of the
	// privacy loss; 5 reaches about 9. With 3 or more, compositions whose
	// own loss is narrower than the final one add two tilts of their own.
	// Each tilt costs one FFT convolution per
	// composition. Zero means 3.
	Tilts int

	// Lists selects the bucket lists composed. The default, ListsBoth,
	// composes the grouped list of the paper and the grid lists (see Grid
	// lists in the package documentation) at once and reports the tighter bound of each in every
	// direction: never looser than either, about twice the work of one.
	// ListsGrid composes the grid lists alone: about half the time and
	// memory, as tight for continuous mechanisms (Gauss, DP-SGD) except
	// lower bounds about 1e-6..1e-4 (relative) looser, but looser for
	// mechanisms with atoms (randomized response, histograms, eps_delta,
	// Laplace), whose lower pair loses mass at every squaring, and with a
	// +Inf Renyi upper bound once a corner may hold mass. ListsGrouped is
	// the paper's method alone. With
	// DisableErrorCorrection only the grouped list is composed, whatever
	// Lists says: the grid lists' bounds are error-corrected by
	// construction, and the option asks for the paper's Definition 5.
	// The composition of a lower pair (see Lower pairs in the package
	// documentation) uses, under
	// ListsBoth, the one list that gives its lower bounds (the grid list
	// for the Gaussian, the grouped list for Laplace), and the lists asked
	// for otherwise.
	Lists Lists

	// Path selects how ComposeMany composes the r-fold composition of one
	// mechanism (see Path). The zero value, PathDefault, gives Buckets its
	// meaning above.
	Path Path

	// Progress, if not nil, is called after every composition or squaring
	// step with the number of steps done and planned. It must be cheap and
	// safe to call from the goroutine running the composition.
	Progress func(done, total int)

	// power selects the path of the r-fold composition of one mechanism
	// for the package's tests: the zero value defers to Path, powerOn
	// takes the power path (power.go) wherever the mechanism qualifies,
	// powerAuto chooses at any bucket count.
	power powerMode

	// autoTailBudget and autoFreeInfty record that withDefaults chose
	// TailBudget and FreeInftyBudget (the caller left them 0), so that
	// withTailBudget (tailbudget.go) may choose them per composition.
	autoTailBudget, autoFreeInfty bool
}

// Path selects the composition path of ComposeMany (Options.Path).
type Path int

const (
	// PathDefault gives Options.Buckets its own meaning: an explicit
	// count composes by the squaring chain at that count, 0 lets
	// ComposeMany choose between the chain at 100,000 buckets and the
	// power path (powerchoice.go).
	PathDefault Path = iota
	// PathChain composes by the squaring chain (Figure 10) at
	// Options.Buckets buckets (0: 100,000), whatever the count.
	PathChain
	// PathPower composes by the power path (engine/README.md, section
	// 6.1: one forward transform, an r-th power and one inverse per tilt)
	// on a transform of Options.Buckets points, 2^k or 3·2^k from 2^10
	// to 2^26 (0: 2^17; PowerLength), where the mechanism qualifies. Where it does not
	// (count pairs and other mechanisms with atoms of loss or
	// distinguishing events, composed ranges above 300 nats, a Factor,
	// Lists = ListsGrouped, DisableErrorCorrection, or a composed list
	// whose rounding-error bound exceeds 1e-3 or whose lower pair lost 1%
	// of the mass) the squaring chain composes it at Options.Buckets
	// buckets instead, and ComposeSequence always composes by the chain.
	// Both paths are sound; they differ in cost and width (the power
	// path's bracket narrows like Buckets^-2 where its grid's slack sets
	// it).
	PathPower
)

// String returns "default", "chain" or "power".
func (p Path) String() string {
	switch p {
	case PathDefault:
		return "default"
	case PathChain:
		return "chain"
	case PathPower:
		return "power"
	}
	return fmt.Sprintf("Path(%d)", int(p))
}

// Lists selects the bucket lists a computation composes (Options.Lists).
type Lists int

const (
	// ListsBoth composes the grouped and the grid lists (the default).
	ListsBoth Lists = iota
	// ListsGrouped composes the grouped list of the paper alone.
	ListsGrouped
	// ListsGrid composes the grid lists alone.
	ListsGrid
)

// String returns "both", "grouped" or "grid".
func (l Lists) String() string {
	switch l {
	case ListsBoth:
		return "both"
	case ListsGrouped:
		return "grouped"
	case ListsGrid:
		return "grid"
	}
	return fmt.Sprintf("Lists(%d)", int(l))
}

// Part is one element of a heterogeneous sequence of mechanisms: Count
// independent observations of Mechanism.
type Part struct {
	Mechanism Mechanism
	Count     int
}

// Version identifies the engine's numerical behaviour: it changes whenever
// the bounds computed for the same mechanism, options and r may change
// (result caches include it in their keys).
const Version = "engine-2026-11-28.5"

// ErrInvalid is wrapped by every error caused by invalid parameters or
// options, so callers can tell bad input from internal failures.
var ErrInvalid = errors.New("invalid input")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Check reports the first option outside its range as a *ParamError whose
// Param is the option's name in lower case with underscores ("buckets",
// "squaring_threshold", "tilts"); nil when every option is valid. The
// composing functions refuse the same options.
func (o Options) Check() error {
	_, err := o.withDefaults()
	return err
}

func (o Options) withDefaults() (Options, error) {
	if o.Path < PathDefault || o.Path > PathPower {
		return o, optionError("path", "must be default, chain or power, got %v", o.Path)
	}
	if o.Path == PathPower && o.Buckets != 0 && (!isPowerLength(o.Buckets) || o.Buckets > 1<<26) {
		return o, optionError("buckets", "the power path's transform length must be 2^k or 3*2^k from %d to %d, got %d", powerMinN, 1<<26, o.Buckets)
	}
	if o.Buckets == 0 {
		o.Buckets = 100000
	}
	if o.Buckets < 8 || o.Buckets%4 != 0 {
		return o, optionError("buckets", "must be a multiple of 4 (so that n is even, Definition 3) and at least 8, got %d", o.Buckets)
	}
	if o.Buckets > 1<<26 {
		return o, optionError("buckets", "must be at most %d, got %d", 1<<26, o.Buckets)
	}
	if o.Factor != 0 && !(o.Factor > 1) || math.IsInf(o.Factor, 0) || math.IsNaN(o.Factor) {
		return o, optionError("factor", "must be > 1 and finite (or 0 for automatic), got %v", o.Factor)
	}
	if o.SquaringThreshold == 0 {
		o.SquaringThreshold = 2.2
	}
	if !(o.SquaringThreshold > 1) || math.IsInf(o.SquaringThreshold, 0) {
		return o, optionError("squaring_threshold", "must be > 1, got %v", o.SquaringThreshold)
	}
	if o.TailBudget == 0 {
		o.TailBudget = defaultTailBudget
		o.autoTailBudget = true
	}
	if !(o.TailBudget > 0 && o.TailBudget < 1) {
		return o, optionError("tail_budget", "must be in (0, 1), got %v", o.TailBudget)
	}
	if math.IsNaN(o.FreeInftyBudget) || math.IsInf(o.FreeInftyBudget, 0) {
		return o, optionError("free_infty_budget", "must be finite, got %v", o.FreeInftyBudget)
	}
	if o.FreeInftyBudget == 0 {
		o.FreeInftyBudget = o.TailBudget
		o.autoFreeInfty = true
	}
	if !(o.DeltaFloor >= 0 && o.DeltaFloor < 1) {
		return o, optionError("delta_floor", "must be in [0, 1), got %v", o.DeltaFloor)
	}
	if !(o.AlignEps >= 0) || math.IsInf(o.AlignEps, 1) {
		return o, optionError("align_eps", "must be finite and >= 0, got %v", o.AlignEps)
	}
	if o.FreeInftyBudget < 0 {
		o.FreeInftyBudget = 0
	}
	if o.Tilts == 0 {
		o.Tilts = 3
	}
	if o.Lists < ListsBoth || o.Lists > ListsGrid {
		return o, optionError("lists", "must be both, grouped or grid, got %v", o.Lists)
	}
	if o.Tilts < 1 || o.Tilts > 5 {
		return o, optionError("tilts", "must be between 1 and 5, got %d", o.Tilts)
	}
	return o, nil
}

// Compose returns the bounds for r independent observations of m (the r-fold
// composition M^r), computed by repeated squaring of the composition tree
// (Figure 10) for any r >= 1.
func Compose(ctx context.Context, m Mechanism, r int, opt Options) (*Result, error) {
	res, err := ComposeMany(ctx, m, []int{r}, opt)
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// ComposeMany returns the bounds for each number of observations in rs. The
// 2^k-fold states are computed once and shared, so a sweep over many r costs
// little more than the largest r. All results use the same leaf factor,
// chosen for the largest r. Where m's pair only dominates the mechanism,
// its lower pair is composed too, after it, and gives the lower bounds
// (see Lower pairs in the package documentation).
func ComposeMany(ctx context.Context, m Mechanism, rs []int, opt Options) ([]*Result, error) {
	if out, ok, err := composeGaussClosed(ctx, m, rs, opt); ok {
		setRoute(out, RouteClosedForm)
		return out, err
	}
	if m == nil {
		return nil, invalidf("nil mechanism")
	}
	low, _, _ := lowerOf(m)
	o := opt
	sp := &splitProgress{fn: opt.Progress, extra: lowerSteps(opt, low, rs...)}
	o.Progress = sp.firstPhase()
	out, err := composeManyPlain(ctx, m, rs, o)
	if err != nil {
		return nil, err
	}
	if err := composeLowerMany(ctx, m, rs, opt, sp, out); err != nil {
		return nil, err
	}
	return out, nil
}

// composeManyPlain is ComposeMany of m's own pair (no lower pair).
func composeManyPlain(ctx context.Context, m Mechanism, rs []int, opt Options) ([]*Result, error) {
	if m == nil {
		return nil, invalidf("nil mechanism")
	}
	if len(rs) == 0 {
		return nil, invalidf("no compositions given")
	}
	maxR := 0
	for _, r := range rs {
		if r < 1 {
			return nil, invalidf("number of compositions must be >= 1, got %d", r)
		}
		if r > 1<<40 {
			return nil, invalidf("number of compositions must be at most 2^40, got %d", r)
		}
		maxR = max(maxR, r)
	}
	auto := autoPath(opt)
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := prepare(ctx, m); err != nil {
		return nil, err
	}
	o = o.withTailBudget([]Part{{Mechanism: m, Count: maxR}})
	switch {
	case auto:
		out, err := composeAuto(ctx, m, rs, o)
		if err != nil || out != nil {
			setRoute(out, RoutePower)
			return out, err
		}
	case o.power == powerOn || o.Path == PathPower:
		out, err := composePower(ctx, m, rs, o)
		if err != nil || out != nil {
			setRoute(out, RoutePower)
			return out, err
		}
	}
	// the chain: by default, by request, or where the power path does not
	// qualify (Result.Route says which ran)
	plan, err := newPlan([]Part{{Mechanism: m, Count: maxR}}, o)
	if err != nil {
		return nil, err
	}
	plan.setTargets(m, rs)
	out, err := plan.composeMany(ctx, m, rs)
	setRoute(out, RouteChain)
	return out, err
}

// ComposeSequence returns the bounds for the heterogeneous sequence of
// independent observations described by parts (Corollary 1): the
// composition of parts[0].Count observations of parts[0].Mechanism, then of
// parts[1], and so on. All leaves share one factor. Where a part's pair
// only dominates its mechanism, the sequence of the parts' lower pairs is
// composed too and gives the lower bounds (see Lower pairs in the package
// documentation).
func ComposeSequence(ctx context.Context, parts []Part, opt Options) (*Result, error) {
	if res, ok, err := composeGaussClosedSequence(ctx, parts, opt); ok {
		if res != nil {
			res.route = RouteClosedForm
		}
		return res, err
	}
	low, distinct, reason := lowerSequence(parts)
	o := opt
	extra := 0
	if low != nil {
		extra = lowerSequenceSteps(opt, distinct, parts, low)
	}
	sp := &splitProgress{fn: opt.Progress, extra: extra}
	o.Progress = sp.firstPhase()
	res, err := composeSequencePlain(ctx, parts, o)
	if res != nil {
		res.route = RouteChain // sequences compose on the chain
	}
	if err != nil || opt.DisableErrorCorrection {
		return res, err
	}
	for i, p := range parts {
		if low == nil || low[i].Mechanism == p.Mechanism { // its own pair: its slack, if any
			lnA, lnC := slackOf(p.Mechanism)
			res.addSlack(p.Count, lnA, lnC)
		}
	}
	if !distinct {
		return res, nil
	}
	if low == nil {
		res.setLowerAbsent(reason)
		return res, nil
	}
	lo := lowerOptions(opt, lowerMechs(parts, low)...)
	lo.Progress = sp.secondPhase()
	lres, err := composeSequencePlain(ctx, low, lo)
	if err != nil {
		return nil, err
	}
	res.setLowerFrom(lres)
	return res, nil
}

// lowerSequenceSteps returns the steps the composition of the lower
// sequence low of parts plans (composeSequence), 0 when there is none.
func lowerSequenceSteps(o Options, distinct bool, parts, low []Part) int {
	if !distinct || o.DisableErrorCorrection {
		return 0
	}
	s := len(low) - 1
	for _, p := range low {
		s += powerSteps([]int{p.Count})
	}
	return chainsOf(lowerOptions(o, lowerMechs(parts, low)...)) * s
}

// lowerMechs returns the lower pairs of a sequence's parts for
// lowerOptions: nil for a part whose own pair is attained (it states no
// preference of lists).
func lowerMechs(parts, low []Part) []Mechanism {
	out := make([]Mechanism, len(low))
	for i, p := range low {
		if p.Mechanism != parts[i].Mechanism {
			out[i] = p.Mechanism
		}
	}
	return out
}

// composeSequencePlain is ComposeSequence of the parts' own pairs.
func composeSequencePlain(ctx context.Context, parts []Part, opt Options) (*Result, error) {
	if len(parts) == 0 {
		return nil, invalidf("empty sequence")
	}
	for i, p := range parts {
		if p.Mechanism == nil {
			return nil, invalidf("part %d: nil mechanism", i)
		}
		if p.Count < 1 {
			return nil, invalidf("part %d: count must be >= 1, got %d", i, p.Count)
		}
	}
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		if err := prepare(ctx, p.Mechanism); err != nil {
			return nil, err
		}
	}
	o = o.withTailBudget(parts)
	plan, err := newPlan(parts, o)
	if err != nil {
		return nil, err
	}
	return plan.composeSequence(ctx, parts)
}

// prepare runs the one-time preparation of m (see preparer), if any.
func prepare(ctx context.Context, m Mechanism) error {
	if p, ok := m.(preparer); ok {
		if err := p.prepare(ctx); err != nil {
			return fmt.Errorf("engine: preparing %s: %w", m, err)
		}
	}
	return nil
}
