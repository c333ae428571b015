package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// renyiInput is what feeds rdp and cdp: a single-round Renyi curve (an
// upper bound on max(D_alpha(A||B), D_alpha(B||A)) in nats), a description
// of its source for runs.parquet and, for curves from the backend, the
// orders at which cdp checks its fits (nil: compare.DefaultCDPOrders).
type renyiInput struct {
	curve     compare.RenyiFunc
	source    string
	cdpOrders []float64
}

// renyi returns the single-round Renyi curve that feeds rdp and cdp: the
// closed form of package compare where one exists (renyiCurve), otherwise
// the backend's sound upper bound on D_alpha of one observation (see
// singleRoundRenyi). Where that bound is +Inf (or the backend has none) it
// returns an error wrapping ErrNotApplicable that says why.
func (c *singleRoundCache) renyi(ctx context.Context, job Job) (renyiInput, error) {
	spec := job.Instance.Spec
	if spec.Kind == manifest.KindSequence {
		return c.sequenceRenyi(ctx, spec)
	}
	if err := subsampledRenyi(spec); err != nil {
		return renyiInput{}, err // not from the backend either: rdp and cdp do not apply
	}
	f, err := renyiCurve(spec)
	if err == nil {
		source := "the closed-form single-round Renyi curve"
		if spec.Kind == manifest.KindSGD && spec.EffectiveSampling() == manifest.SamplingFixedSize {
			source = "the certified single-round Renyi curve of the fixed-size pair"
		}
		return renyiInput{curve: memoCurve(f), source: source}, nil
	}
	if !errors.Is(err, ErrNotApplicable) {
		return renyiInput{}, err
	}
	if c.states == nil || c.states.Backend == nil {
		return renyiInput{}, fmt.Errorf("%w: no closed-form Renyi curve for kind %s%s and no backend", ErrNotApplicable, spec.Kind, truncNote(spec))
	}
	return c.renyiFromBackend(ctx, spec, job.Mechanism, alsoNeeded(job, productRenyi))
}

// memoCurve returns f with its values kept: rdp and cdp evaluate the
// single-round curve at the same orders for every r of a job (the sampled
// Gaussian's curve integrates numerically at each order).
func memoCurve(f compare.RenyiFunc) compare.RenyiFunc {
	var mu sync.Mutex
	seen := map[float64]float64{}
	return func(a float64) float64 {
		mu.Lock()
		defer mu.Unlock()
		if v, ok := seen[a]; ok {
			return v
		}
		v := f(a)
		seen[a] = v
		return v
	}
}

// renyiFromBackend returns the single-round Renyi curve of spec's
// mechanism mech (nil: built from spec) computed with the backend
// (productRenyi); the composition also yields the products in also.
func (c *singleRoundCache) renyiFromBackend(ctx context.Context, spec manifest.MechanismSpec, mech backend.Mechanism, also []singleRoundProduct) (renyiInput, error) {
	e, err := c.get(ctx, spec, mech, productRenyi, also)
	if err != nil {
		return renyiInput{}, err
	}
	s := e.renyi
	if s.notApplicable != nil {
		return renyiInput{}, s.notApplicable
	}
	return renyiInput{curve: s.curve(), source: s.info, cdpOrders: s.cdpOrders}, nil
}

// renyiSamples is productRenyi: sound upper bounds on the single-round
// D_alpha (maximised over both directions) at orders (sorted); +Inf where
// the backend gives no finite bound.
type renyiSamples struct {
	orders, upper []float64
	// cdpOrders are the orders of compare.DefaultCDPOrders with a finite
	// bound, where cdp checks its fits.
	cdpOrders []float64
	info      string
	// notApplicable, if not nil, wraps ErrNotApplicable: the bound is +Inf
	// at every order (or not available), with the reason.
	notApplicable error
}

// renyiOrders returns the orders at which the backend's single-round
// Renyi bound is sampled: compare.DefaultOrders (used by rdp) and
// compare.DefaultCDPOrders (used by cdp's fit), sorted, without duplicates.
func renyiOrders() []float64 {
	o := append(compare.DefaultOrders(), compare.DefaultCDPOrders()...)
	sort.Float64s(o)
	out := o[:0]
	for _, a := range o {
		if len(out) == 0 || a != out[len(out)-1] {
			out = append(out, a)
		}
	}
	return out
}

// singleRoundRenyi samples the sound upper bound on D_alpha of the state st
// of one observation of spec (r = 1; engine.Result.Renyi: the chord bound
// within each bucket, maximised over both directions, covering its own
// rounding: backend's RenyiBounds) at renyiOrders().
// Only upper bounds are used, so RDP and CDP stay sound. NaN counts as
// +Inf (no information). Once the bound is +Inf at an order (the engine
// evaluates e^((alpha-1) L) in floating point, which overflows for large
// alpha), the larger orders are not evaluated and are +Inf too. As D_alpha
// is nondecreasing in alpha, a bound at a larger order also holds at the
// smaller ones; the samples are lowered accordingly. If the bound is +Inf
// already at the smallest order (mass in a corner of the state: a
// distinguishing event or tails the engine does not resolve), RDP and CDP
// do not apply and notApplicable says why.
func singleRoundRenyi(st backend.State, spec manifest.MechanismSpec) *renyiSamples {
	var bound func(alpha float64) float64
	if rs, ok := st.(renyiState); ok {
		bound = func(a float64) float64 { _, hi, _ := rs.RenyiBounds(a); return hi }
	} else {
		return &renyiSamples{notApplicable: fmt.Errorf("%w: no closed-form Renyi curve for kind %s%s and the backend's states give no Renyi divergence bounds",
			ErrNotApplicable, spec.Kind, truncNote(spec))}
	}
	sum := st.Summary()
	orders := renyiOrders()
	upper := make([]float64, len(orders))
	for i, a := range orders {
		if i > 0 && math.IsInf(upper[i-1], 1) {
			upper[i] = math.Inf(1)
			continue
		}
		switch hi := bound(a); {
		case math.IsNaN(hi):
			upper[i] = math.Inf(1)
		default:
			upper[i] = math.Max(hi, 0) // D_alpha >= 0
		}
	}
	if math.IsInf(upper[0], 1) {
		return &renyiSamples{notApplicable: fmt.Errorf("%w: the buckets' sound upper bound on the single-round Renyi divergence (r = 1, %d buckets) is +Inf at alpha = %g and above: the state's infinity corners hold mass %.3g%s",
			ErrNotApplicable, sum.Buckets, orders[0], sum.InfinityMass, infiniteRenyiReason(spec))}
	}
	for i := len(upper) - 2; i >= 0; i-- {
		upper[i] = math.Min(upper[i], upper[i+1])
	}
	s := &renyiSamples{orders: orders, upper: upper}
	finite := sort.Search(len(orders), func(i int) bool { return math.IsInf(upper[i], 1) })
	for _, a := range compare.DefaultCDPOrders() {
		if k := sort.SearchFloat64s(orders, a); k < finite && orders[k] == a {
			s.cdpOrders = append(s.cdpOrders, a)
		}
	}
	if len(s.cdpOrders) < 2 {
		s.cdpOrders = nil // cdp's default orders: it reports that no fit exists
	}
	s.info = fmt.Sprintf("the buckets' sound upper bound on the single-round D_alpha (r = 1, %d buckets, ln f = %.4g; finite at %d orders in [%g, %.4g])",
		sum.Buckets, math.Log(sum.Factor), finite, orders[0], orders[finite-1])
	return s
}

// infiniteRenyiReason explains, for the note of a skipped rdp or cdp task,
// why the single-round Renyi bound of spec is infinite.
func infiniteRenyiReason(spec manifest.MechanismSpec) string {
	switch {
	case spec.Kind == manifest.KindEpsDelta && spec.Params["delta"] > 0,
		(spec.Kind == manifest.KindGauss || spec.Kind == manifest.KindLaplace) && spec.Params["truncate"] > 0:
		return " (the pair has distinguishing events, outputs possible under one input only, so D_alpha = +Inf for every alpha > 1: RDP and CDP give no bound)"
	case spec.Kind == manifest.KindHistogram && hasDistinguishingBin(spec.A, spec.B):
		return " (the histograms have a bin with probability 0 under one input only, a distinguishing event, so D_alpha = +Inf for every alpha > 1: RDP and CDP give no bound)"
	case spec.Kind == manifest.KindVuvuzelaDialing || spec.Kind == manifest.KindVuvuzelaConversation:
		return " (the tails of the noise counts that the engine keeps in a corner, not a distinguishing event: the true D_alpha may be finite, but the buckets give no finite sound bound on it, so RDP and CDP report none)"
	}
	return " (D_alpha has no finite sound bound from the buckets)"
}

// hasDistinguishingBin reports whether some bin has positive probability
// under exactly one of a and b.
func hasDistinguishingBin(a, b []float64) bool {
	for i := range a {
		if i < len(b) && (a[i] > 0) != (b[i] > 0) {
			return true
		}
	}
	return false
}

// curve returns the sampled bound as a Renyi curve for every order > 1,
// sound between and outside the samples: at a sample it is the sample;
// between two samples a < alpha < b it is the smaller of the bound at b
// (D_alpha is nondecreasing in alpha) and the chord of (alpha-1) D_alpha
// through the bounds at a and b ((alpha-1) D_alpha = ln E[(P/Q)^alpha] is
// convex in alpha in each direction, hence so is the maximum over both);
// below the smallest order it is the bound there, above the largest +Inf.
func (s *renyiSamples) curve() compare.RenyiFunc {
	orders, upper := s.orders, s.upper
	return func(a float64) float64 {
		if !(a > 1) {
			return math.NaN()
		}
		j := sort.SearchFloat64s(orders, a)
		switch {
		case j == len(orders):
			return math.Inf(1)
		case orders[j] == a || j == 0:
			return upper[j]
		case math.IsInf(upper[j], 1):
			return math.Inf(1)
		}
		lo, hi := orders[j-1], orders[j]
		t := (a - lo) / (hi - lo)
		chord := ((1-t)*(lo-1)*upper[j-1] + t*(hi-1)*upper[j]) / (a - 1)
		return math.Min(chord, upper[j])
	}
}
