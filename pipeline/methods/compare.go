package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

// CompareWith returns the comparison methods implemented with package
// compare, composing the single-round states they need through s (the
// runner's or query.Ask's service: its cache folder and memory budget,
// shared with the buckets method): kov, advanced, rdp (classic
// conversion), cdp (concentrated-DP fit) and exact (closed forms). kov
// and advanced run on
// every mechanism: they are fed with the tight single-round curve
// delta0(eps0) where package compare has a closed form, and otherwise with
// the sound upper bound delta_up(eps0) of the single-round state that
// the service gives (r = 1, see singleRoundCurve). rdp and cdp are fed
// likewise with the closed-form single-round Renyi curve where one exists,
// and otherwise with the sound upper bound on D_alpha of the backend's
// single-round state (see singleRoundRenyi); where that bound is +Inf they
// do not apply. A method without an input for a mechanism kind skips the
// job with a note. Sequences: see sequence.go.
func CompareWith(s *states.Service) Registry {
	rounds := &singleRoundCache{states: s}
	reg := Registry{
		manifest.MethodKOV: curveMethod(func(ctx context.Context, job Job) (curveBuilder, string, error) {
			d0, grid, source, err := rounds.delta0(ctx, job)
			if err != nil {
				return nil, "", err
			}
			return func(r int) (compare.Curve, error) {
				return compare.KOV(d0, r, compare.KOVOptions{Eps0: grid})
			}, "KOV optimal composition over " + source, nil
		}),
		manifest.MethodAdvanced: curveMethod(func(ctx context.Context, job Job) (curveBuilder, string, error) {
			d0, grid, source, err := rounds.delta0(ctx, job)
			if err != nil {
				return nil, "", err
			}
			return func(r int) (compare.Curve, error) {
				return compare.Advanced(d0, r, compare.AdvancedOptions{Eps0: grid})
			}, "advanced composition over " + source, nil
		}),
		manifest.MethodRDP: curveMethod(func(ctx context.Context, job Job) (curveBuilder, string, error) {
			in, err := rounds.renyi(ctx, job)
			if err != nil {
				return nil, "", err
			}
			return func(r int) (compare.Curve, error) {
				return compare.RDP(in.curve, r, compare.Classic, compare.RDPOptions{})
			}, "Renyi DP, classic conversion, over " + in.source, nil
		}),
		manifest.MethodCDP: curveMethod(func(ctx context.Context, job Job) (curveBuilder, string, error) {
			in, err := rounds.renyi(ctx, job)
			if err != nil {
				return nil, "", err
			}
			note := "concentrated DP fit, classic conversion, over " + in.source
			if in.cdpOrders != nil {
				note += fmt.Sprintf("; fit checked at %d orders up to %.4g", len(in.cdpOrders), in.cdpOrders[len(in.cdpOrders)-1])
			}
			return func(r int) (compare.Curve, error) {
				c, err := compare.CDP(in.curve, r, compare.CDPOptions{Orders: in.cdpOrders})
				if errors.Is(err, compare.ErrNoCDPFit) {
					return nil, fmt.Errorf("%w: %v", ErrNotApplicable, err)
				}
				return c, err
			}, note, nil
		}),
		manifest.MethodExact: exactMethod,
	}
	for name, fn := range reg {
		reg[name] = onSamePart(fn)
	}
	return reg
}

// The single-round curve from the backend is sampled on a geometric eps0
// grid with ratio eps0Ratio (the default of compare.KOV) starting at
// minEps0 (as in package compare).
const (
	eps0Ratio = 1.02
	minEps0   = 1e-10
)

// singleRoundProduct names what is derived from the backend's state of one
// observation (r = 1).
type singleRoundProduct int

const (
	// productDelta is delta_up(eps0) on an eps0 grid (feeds kov and
	// advanced).
	productDelta singleRoundProduct = iota
	// productRenyi is the upper bound on D_alpha on a grid of orders
	// (feeds rdp and cdp).
	productRenyi
)

// String returns the product's part of a cache key.
func (p singleRoundProduct) String() string {
	if p == productDelta {
		return "delta"
	}
	return "renyi"
}

// fromBackend reports whether the product is computed with the backend for
// spec, i.e. package compare has no closed form for it.
func (p singleRoundProduct) fromBackend(spec manifest.MechanismSpec) bool {
	var err error
	if p == productDelta {
		_, err = delta0(spec)
	} else {
		_, err = renyiCurve(spec)
	}
	return errors.Is(err, ErrNotApplicable)
}

// usedBy reports whether one of the methods consumes the product.
func (p singleRoundProduct) usedBy(methods []string) bool {
	for _, m := range methods {
		switch {
		case p == productDelta && (m == manifest.MethodKOV || m == manifest.MethodAdvanced),
			p == productRenyi && (m == manifest.MethodRDP || m == manifest.MethodCDP):
			return true
		}
	}
	return false
}

// singleRoundCache computes the backend's single-round products once per
// mechanism (the methods are jobs of their own, possibly running at the
// same time). One composition of r = 1 yields every product that the job's
// manifest will ask for (kov or advanced: productDelta; rdp or cdp:
// productRenyi), so the methods share it. It keeps the sampled products
// only, a few KiB each, not the state.
type singleRoundCache struct {
	states *states.Service
	mu     sync.Mutex
	// entries maps the state's key (states.Service.Key) + "|" + product
	// to the computation that produces it; one entry may serve several
	// products.
	entries map[string]*singleRoundEntry
}

type singleRoundEntry struct {
	ready    chan struct{}
	products []singleRoundProduct // what this computation produces
	delta    *deltaSamples
	renyi    *renyiSamples
	err      error
}

// deltaSamples is productDelta: delta_up(eps0) at the eps0 of grid.
type deltaSamples struct {
	grid, vals []float64
	info       string
}

// delta0 returns the single-round curve that feeds kov and advanced, the
// eps0 grid to use (nil: the method's default grid) and a description of
// its source. Mechanisms with a closed form in package compare use it; the
// others use the backend (see singleRoundCurve).
func (c *singleRoundCache) delta0(ctx context.Context, job Job) (compare.DeltaFunc, []float64, string, error) {
	spec := job.Instance.Spec
	if spec.Kind == manifest.KindSequence {
		return nil, nil, "", notForSequences(spec, "KOV and advanced composition")
	}
	d0, err := delta0(spec)
	if err == nil {
		return d0, nil, "the closed-form single-round curve (tight)", nil
	}
	if !errors.Is(err, ErrNotApplicable) {
		return nil, nil, "", err
	}
	if c.states == nil || c.states.Backend == nil {
		return nil, nil, "", fmt.Errorf("%w: no closed-form single-round curve for kind %s and no backend", ErrNotApplicable, spec.Kind)
	}
	return c.deltaFromBackend(ctx, spec, job.Mechanism, alsoNeeded(job, productDelta))
}

// alsoNeeded lists the products other than want that the job's manifest
// will ask the backend for, so that one composition yields them all.
func alsoNeeded(job Job, want singleRoundProduct) []singleRoundProduct {
	if job.Manifest == nil {
		return nil
	}
	var out []singleRoundProduct
	for _, p := range []singleRoundProduct{productDelta, productRenyi} {
		if p != want && p.usedBy(job.Manifest.Query.Methods) && p.fromBackend(job.Instance.Spec) {
			out = append(out, p)
		}
	}
	return out
}

// fromBackend returns the single-round curve of spec computed with the
// backend (see singleRoundCurve), its eps0 grid and a description.
func (c *singleRoundCache) fromBackend(ctx context.Context, spec manifest.MechanismSpec) (compare.DeltaFunc, []float64, string, error) {
	return c.deltaFromBackend(ctx, spec, nil, nil)
}

// deltaFromBackend is fromBackend of spec's mechanism mech (nil: built
// from spec); the composition also yields the products in also.
func (c *singleRoundCache) deltaFromBackend(ctx context.Context, spec manifest.MechanismSpec, mech backend.Mechanism, also []singleRoundProduct) (compare.DeltaFunc, []float64, string, error) {
	e, err := c.get(ctx, spec, mech, productDelta, also)
	if err != nil {
		return nil, nil, "", err
	}
	grid, vals := e.delta.grid, e.delta.vals
	lookup := func(eps0 float64) float64 {
		k, found := slices.BinarySearch(grid, eps0)
		if !found {
			// KOV and Advanced ask for grid points only; anything else
			// gets the trivial bound.
			return 1
		}
		return vals[k]
	}
	return lookup, grid, e.delta.info, nil
}

// get returns the cached entry that produces want for spec, whose
// mechanism is mech (nil: built from spec), computing it (with the
// products in also that no entry produces yet) if needed. Callers asking
// for an entry in progress wait for it (or for ctx).
func (c *singleRoundCache) get(ctx context.Context, spec manifest.MechanismSpec, mech backend.Mechanism, want singleRoundProduct, also []singleRoundProduct) (*singleRoundEntry, error) {
	if mech == nil {
		var err error
		if mech, err = c.states.Backend.Mechanism(spec); err != nil {
			return nil, fmt.Errorf("single-round %s: mechanism: %w", want, err)
		}
	}
	// The factor is chosen automatically for r = 1 (the finest list that
	// holds the single round); the other engine options are the
	// mechanism's.
	spec.Engine.Factor = 0
	req := states.Request{Mechanism: mech, Spec: spec, R: []int{1}}
	key := c.states.Key(req, 1)
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]*singleRoundEntry{}
	}
	if e, ok := c.entries[key+"|"+want.String()]; ok {
		c.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err != nil {
			if isContextErr(e.err) && ctx.Err() == nil {
				// The job computing it was cancelled, this one was not.
				return c.get(ctx, spec, mech, want, also)
			}
			return nil, e.err
		}
		return e, nil
	}
	e := &singleRoundEntry{ready: make(chan struct{})}
	for _, p := range append([]singleRoundProduct{want}, also...) {
		k := key + "|" + p.String()
		if _, ok := c.entries[k]; !ok {
			c.entries[k] = e
			e.products = append(e.products, p)
		}
	}
	c.mu.Unlock()
	e.err = e.compute(ctx, c.states, req)
	if e.err != nil {
		// Do not keep failures (a cancelled context, for one): a later
		// job computes the products again.
		c.mu.Lock()
		for _, p := range e.products {
			if k := key + "|" + p.String(); c.entries[k] == e {
				delete(c.entries, k)
			}
		}
		c.mu.Unlock()
	}
	close(e.ready)
	return e, e.err
}

// compute gets the state of one observation of the mechanism (req, r =
// 1) from the service and derives the entry's products from it.
func (e *singleRoundEntry) compute(ctx context.Context, s *states.Service, req states.Request) (retErr error) {
	got, err := s.Get(ctx, req)
	if err != nil {
		return fmt.Errorf("single-round %v: composing r = 1: %w", e.products, err)
	}
	defer func() {
		if err := got.Stored(); err != nil && retErr == nil {
			retErr = err
		}
	}()
	st, spec := got.States[0], req.Spec
	for _, p := range e.products {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch p {
		case productDelta:
			grid, vals, info, err := singleRoundCurve(st)
			if err != nil {
				return err
			}
			e.delta = &deltaSamples{grid: grid, vals: vals, info: info}
		case productRenyi:
			e.renyi = singleRoundRenyi(st, spec)
		}
	}
	return nil
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// singleRoundCurve samples the sound upper bound delta_up(eps0) of the
// state st of one observation of the mechanism (r = 1) on the grid {0} and
// minEps0 * eps0Ratio^j up to the largest finite privacy loss L = n ln f of
// the state, including L itself. Beyond L only the corner mass counts,
// which delta_up(L) already is (up to error terms), so larger eps0 cannot
// help. The smallest eps0 where delta_up reaches that floor is added (by
// bisection). Grid points whose delta_up is not below that of a smaller
// eps0 are dropped: (eps0, delta0) is then implied by a point already on
// the grid. Every returned pair (eps0, delta0) is a sound single-round
// guarantee.
func singleRoundCurve(st backend.State) (grid, vals []float64, info string, err error) {
	sum := st.Summary()
	maxLoss := float64(sum.Buckets/2) * math.Log(sum.Factor)
	if !(maxLoss > 0) || math.IsInf(maxLoss, 1) {
		return nil, nil, "", fmt.Errorf("single-round curve: the state after r = 1 has no usable loss range (%d buckets, factor %v)", sum.Buckets, sum.Factor)
	}
	query := func(e float64) (float64, error) {
		up, _ := st.DeltaBounds(e)
		if math.IsNaN(up) || up < 0 {
			return 0, fmt.Errorf("single-round curve: delta_up(%g) = %v after r = 1", e, up)
		}
		return math.Min(up, 1), nil
	}
	cand := []float64{0}
	for e := minEps0; e < maxLoss; e *= eps0Ratio {
		cand = append(cand, e)
	}
	cand = append(cand, maxLoss)
	cvals := make([]float64, len(cand))
	for i, e := range cand {
		if cvals[i], err = query(e); err != nil {
			return nil, nil, "", err
		}
	}
	// The curve reaches its floor (the corner mass, 0 for pure DP) at the
	// mechanism's largest privacy loss, up to the bucket width. Find that
	// eps0 by bisection, as package compare does for closed forms, so that
	// e.g. randomized response gets its own eps0 and not the next point
	// of the geometric grid.
	floor := cvals[len(cvals)-1] * (1 + 1e-9)
	j := slices.IndexFunc(cvals, func(v float64) bool { return v <= floor })
	if j > 0 {
		lo, hi, hv := cand[j-1], cand[j], cvals[j]
		for k := 0; k < 100 && hi-lo > 1e-12*hi; k++ {
			mid := lo + (hi-lo)/2
			v, err := query(mid)
			if err != nil {
				return nil, nil, "", err
			}
			if v <= floor {
				hi, hv = mid, v
			} else {
				lo = mid
			}
		}
		cand = slices.Insert(cand, j, hi)
		cvals = slices.Insert(cvals, j, hv)
	}
	best := math.Inf(1)
	for i, e := range cand {
		if v := cvals[i]; v < best {
			grid, vals, best = append(grid, e), append(vals, v), v
		}
	}
	info = fmt.Sprintf("the single-round delta_up of the buckets (r = 1, %d buckets, ln f = %.4g, %d eps0 points up to %.4g)",
		sum.Buckets, math.Log(sum.Factor), len(grid), grid[len(grid)-1])
	return grid, vals, info, nil
}

// delta0 returns the tight single-round curve of the mechanism, where
// package compare has one.
func delta0(spec manifest.MechanismSpec) (compare.DeltaFunc, error) {
	p := spec.Params
	if spec.Subsampled() && spec.Kind == manifest.KindLaplace {
		return nil, fmt.Errorf("%w: no closed-form single-round curve for the subsampled Laplace mechanism", ErrNotApplicable)
	}
	switch spec.Kind {
	case manifest.KindGauss:
		if p["truncate"] > 0 {
			return compare.TruncatedGaussDelta0(p["sigma"], p["sensitivity"], p["truncate"])
		}
		return compare.GaussDelta0(p["sigma"], p["sensitivity"])
	case manifest.KindLaplace:
		if p["truncate"] > 0 {
			return compare.TruncatedLaplaceDelta0(p["scale"], p["sensitivity"], p["truncate"])
		}
		return compare.LaplaceDelta0(p["scale"], p["sensitivity"])
	case manifest.KindRandomizedResponse:
		return compare.RRDelta0(p["p"])
	case manifest.KindEpsDelta:
		return compare.EpsDeltaDelta0(p["eps"], p["delta"])
	}
	return nil, fmt.Errorf("%w: no closed-form single-round curve for kind %s", ErrNotApplicable, spec.Kind)
}

// renyiCurve returns the single-round Renyi divergence curve, where package
// compare has one.
func renyiCurve(spec manifest.MechanismSpec) (compare.RenyiFunc, error) {
	p := spec.Params
	if err := subsampledRenyi(spec); err != nil {
		return nil, err
	}
	switch spec.Kind {
	case manifest.KindGauss:
		if p["truncate"] > 0 {
			return nil, fmt.Errorf("%w: no Renyi curve for the truncated Gauss mechanism", ErrNotApplicable)
		}
		return compare.GaussRenyi(p["sigma"], p["sensitivity"])
	case manifest.KindLaplace:
		if p["truncate"] > 0 {
			return nil, fmt.Errorf("%w: no Renyi curve for the truncated Laplace mechanism", ErrNotApplicable)
		}
		return compare.LaplaceRenyi(p["scale"], p["sensitivity"])
	case manifest.KindRandomizedResponse:
		return compare.RRRenyi(p["p"])
	case manifest.KindSGD:
		if spec.EffectiveSampling() == manifest.SamplingFixedSize {
			// the certified curve of the pair the engine's upper bound
			// rests on (fixedSizeRenyiUpper), both relations
			return fixedSizeRenyiUpper(spec)
		}
		// Poisson add/remove (subsampledRenyi); the Renyi divergence depends
		// on sigma/sensitivity only.
		sens, ok := p["sensitivity"]
		if !ok {
			sens = 1
		}
		return compare.SampledGaussianRenyi(p["sigma"]/sens, p["q"])
	case manifest.KindSequence:
		return sequenceRenyiCurve(spec)
	}
	return nil, fmt.Errorf("%w: no closed-form Renyi curve for kind %s", ErrNotApplicable, spec.Kind)
}

// subsampledRenyi returns an error wrapping ErrNotApplicable for the
// subsampled mechanisms without a Renyi curve (rdp and cdp do not apply):
// the sampled Gaussian's curve (compare.SampledGaussianRenyi) is that of
// Poisson sampling under add/remove, fixed-size DP-SGD has the certified
// curve of its dominating pair (fixedSizeRenyiUpper, both relations), and
// no Renyi curve is used for Poisson replace-one or the subsampled Laplace
// mechanism. It returns nil for every other mechanism.
func subsampledRenyi(spec manifest.MechanismSpec) error {
	if !spec.Subsampled() {
		return nil
	}
	if spec.Kind == manifest.KindLaplace {
		return fmt.Errorf("%w: no Renyi curve for the subsampled Laplace mechanism (q given); kov, advanced and buckets apply", ErrNotApplicable)
	}
	if spec.Kind == manifest.KindSGD && spec.EffectiveSampling() == manifest.SamplingFixedSize {
		return nil // fixedSizeRenyiUpper, both relations
	}
	if spec.EffectiveSampling() != manifest.SamplingPoisson || spec.EffectiveRelation() != manifest.RelationAddRemove {
		return fmt.Errorf("%w: the sampled Gaussian's Renyi curve holds for Poisson sampling under add/remove only, not sampling %q, relation %q; kov, advanced and buckets apply",
			ErrNotApplicable, spec.EffectiveSampling(), spec.EffectiveRelation())
	}
	if _, ok := spec.Params["q"]; !ok {
		return fmt.Errorf("%w: no sampling rate q", ErrNotApplicable)
	}
	return nil
}

// curveBuilder returns a method's curve after r compositions.
type curveBuilder func(r int) (compare.Curve, error)

// curveMethod adapts a curve constructor to a Func: prepare runs once
// per job (it may compute the single-round input) and returns the per-r
// builder and the note for runs.parquet. Curves are upper bounds; they have
// no lower bound (NaN).
func curveMethod(prepare func(context.Context, Job) (curveBuilder, string, error)) Func {
	return func(ctx context.Context, job Job) ([]Outcome, error) {
		build, note, err := prepare(ctx, job)
		if err != nil {
			return nil, err
		}
		out := make([]Outcome, 0, len(job.Compositions))
		for i, r := range job.Compositions {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			c, err := build(r)
			if errors.Is(err, ErrNotApplicable) {
				return nil, err
			}
			out = append(out, curveOutcome(r, c, err, note, false, job))
			if job.Progress != nil {
				job.Progress(i+1, len(job.Compositions))
			}
		}
		return out, nil
	}
}

func curveOutcome(r int, c compare.Curve, err error, note string, tight bool, job Job) Outcome {
	o := Outcome{R: r, Note: note}
	if err != nil {
		o.Err = err
		return o
	}
	for _, eps := range job.Eps {
		d := c.Delta(eps)
		lo := math.NaN()
		if tight {
			lo = d
		}
		o.Delta = append(o.Delta, Bound{Upper: d, Lower: lo})
	}
	for _, delta := range job.Delta {
		e := c.Eps(delta)
		lo := math.NaN()
		if tight {
			lo = e
		}
		o.Eps = append(o.Eps, Bound{Upper: e, Lower: lo})
	}
	return o
}

// exactMethod returns the tight curves that have closed forms: the
// untruncated Gauss mechanism and sequences of it (gaussSequence),
// randomized response, and a single round of the untruncated Laplace
// mechanism. Upper and lower bound coincide.
func exactMethod(ctx context.Context, job Job) ([]Outcome, error) {
	spec := job.Instance.Spec
	p := spec.Params
	var build func(r int) (compare.Curve, error)
	switch {
	case spec.Kind == manifest.KindSequence:
		sigma, ok := gaussSequence(spec)
		if !ok {
			return nil, fmt.Errorf("%w: no closed form for sequence %q (known for sequences of untruncated Gauss mechanisms)", ErrNotApplicable, spec.ID)
		}
		build = func(r int) (compare.Curve, error) { return compare.ExactGauss(sigma, 1, r) }
	case spec.Kind == manifest.KindGauss && p["truncate"] == 0:
		build = func(r int) (compare.Curve, error) { return compare.ExactGauss(p["sigma"], p["sensitivity"], r) }
	case spec.Kind == manifest.KindRandomizedResponse:
		build = func(r int) (compare.Curve, error) { return compare.ExactRR(p["p"], r) }
	case spec.Kind == manifest.KindLaplace && p["truncate"] == 0 && !spec.Subsampled():
		build = func(r int) (compare.Curve, error) {
			if r != 1 {
				return nil, fmt.Errorf("%w: the exact Laplace curve is known for r = 1 only", ErrNotApplicable)
			}
			return compare.ExactLaplace(p["scale"], p["sensitivity"])
		}
	default:
		return nil, fmt.Errorf("%w: no closed form for kind %s%s", ErrNotApplicable, spec.Kind, truncNote(spec))
	}
	out := make([]Outcome, 0, len(job.Compositions))
	for _, r := range job.Compositions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := build(r)
		if errors.Is(err, ErrNotApplicable) {
			// Only this r lacks a closed form: report it as a skipped task.
			out = append(out, Outcome{R: r, Err: err})
			continue
		}
		out = append(out, curveOutcome(r, c, err, "closed form (tight)", true, job))
	}
	return out, nil
}

func truncNote(spec manifest.MechanismSpec) string {
	if spec.Params["truncate"] > 0 {
		return " (truncated)"
	}
	return ""
}
