package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/memory"
	"github.com/pbuckets/pbuckets/pipeline/states"
	"golang.org/x/sync/errgroup"
)

// Spec describes one noise search: a mechanism family with one free
// parameter, the factor t, which multiplies the tied parameters of a base
// mechanism (t = 1 is the base), a number of observations r and a target
// (eps, delta).
//
// The search finds the least factor whose buckets upper bound meets the
// target (delta_up(eps) <= delta) and the largest factor whose buckets lower
// bound proves the target missed (delta_low(eps) > delta). Both answers are
// probes that were actually computed, so each is justified by its own sound
// bound alone. Monotonicity of delta in the noise is used only to steer the
// bisection and to call the answers least and largest.
type Spec struct {
	// Label names the search in the output (normally the mechanism id).
	Label string
	// Mechanism is the base mechanism, at factor 1.
	Mechanism manifest.MechanismSpec
	// Tie names the parameters multiplied by the factor.
	Tie []string
	// R is the number of observations (compositions).
	R int
	// Eps (natural log) and Delta are the target.
	Eps, Delta float64
	// RelTol is the relative width at which a bisection stops: it stops
	// when hi/lo <= 1 + RelTol. Zero means DefaultRelTol.
	RelTol float64
	// MinFactor and MaxFactor bound the factors probed. Zero means
	// DefaultMinFactor and DefaultMaxFactor.
	MinFactor, MaxFactor float64
	// MaxProbes bounds the number of probes (compositions) of the search.
	// Zero means DefaultMaxProbes.
	MaxProbes int
}

// Search defaults.
const (
	DefaultRelTol    = 0.01
	DefaultMinFactor = 1.0 / 1024
	DefaultMaxFactor = 1024.0
	DefaultMaxProbes = 60
	// searchGrow is the step of the bracketing phase.
	searchGrow = 2.0
)

// ErrAccuracy is why a search refuses an accuracy target
// (EngineOptions.Accuracy, [engine] accuracy): the refinement of
// pbuckets run (package methods) grows the bucket count until the brackets
// of a query are narrow enough, but a probe needs a verdict, not a narrow
// bracket, and probes at different bucket counts would break the
// monotonicity the bisection relies on.
var ErrAccuracy = errors.New("not supported by noise searches: each probe is decided by the upper and lower bound at one bucket count, and the search's precision is rel_tol; set the bucket count instead ([engine] buckets, --buckets) and drop the accuracy (pbuckets run, eps and delta use it)")

func (s Spec) withDefaults() (Spec, error) {
	if a := s.Mechanism.Engine.Accuracy; a != 0 {
		return s, fmt.Errorf("search %q: mechanism %q: engine accuracy %v: %w", s.Label, s.Mechanism.ID, a, ErrAccuracy)
	}
	if s.RelTol == 0 {
		s.RelTol = DefaultRelTol
	}
	if s.MinFactor == 0 {
		s.MinFactor = DefaultMinFactor
	}
	if s.MaxFactor == 0 {
		s.MaxFactor = DefaultMaxFactor
	}
	if s.MaxProbes == 0 {
		s.MaxProbes = DefaultMaxProbes
	}
	if s.Tie == nil {
		s.Tie = manifest.DefaultTieFor(s.Mechanism)
	}
	var problems []string
	if msg := manifest.CheckTieFor(s.Mechanism, s.Tie); msg != "" {
		problems = append(problems, msg)
	}
	for _, p := range s.Tie {
		if _, ok := s.Mechanism.Params[p]; !ok && slices.Contains(manifest.TieAllowedFor(s.Mechanism), p) {
			problems = append(problems, fmt.Sprintf("mechanism has no value for tied parameter %q", p))
		}
	}
	if s.R < 1 || s.R > 1<<40 {
		problems = append(problems, fmt.Sprintf("number of observations must be in [1, 2^40], got %d", s.R))
	}
	if !(s.Eps >= 0) || math.IsInf(s.Eps, 0) {
		problems = append(problems, fmt.Sprintf("target eps must be finite and >= 0, got %v", s.Eps))
	}
	if !(s.Delta > 0 && s.Delta < 1) {
		problems = append(problems, fmt.Sprintf("target delta must be in (0, 1), got %v", s.Delta))
	}
	if !(s.RelTol > 0) || math.IsInf(s.RelTol, 0) {
		problems = append(problems, fmt.Sprintf("relative tolerance must be positive and finite, got %v", s.RelTol))
	}
	if !(s.MinFactor > 0 && s.MinFactor <= 1 && s.MaxFactor >= 1) || math.IsInf(s.MaxFactor, 0) {
		problems = append(problems, fmt.Sprintf("factor range must satisfy 0 < min <= 1 <= max < inf, got [%v, %v]", s.MinFactor, s.MaxFactor))
	}
	if s.MaxProbes < 2 {
		problems = append(problems, fmt.Sprintf("max probes must be at least 2, got %d", s.MaxProbes))
	}
	if len(problems) > 0 {
		return s, fmt.Errorf("search %q: %s", s.Label, strings.Join(problems, "; "))
	}
	return s, nil
}

// At returns the mechanism at factor t: the tied parameters multiplied by t.
func (s Spec) At(t float64) manifest.MechanismSpec {
	m := s.Mechanism
	m.Params = make(map[string]float64, len(s.Mechanism.Params))
	for k, v := range s.Mechanism.Params {
		m.Params[k] = v
	}
	for _, p := range s.Tie {
		m.Params[p] = s.Mechanism.Params[p] * t
	}
	return m
}

// Verdicts of a probe.
const (
	// VerdictMeets: delta_up(eps) <= delta; the target is met (sound).
	VerdictMeets = "meets"
	// VerdictInsufficient: delta_low(eps) > delta; the target is missed
	// (sound).
	VerdictInsufficient = "insufficient"
	// VerdictUndecided: delta_low(eps) <= delta < delta_up(eps); the
	// buckets cannot tell.
	VerdictUndecided = "undecided"
)

// Probe is one composition of the search at one factor.
type Probe struct {
	// Factor is the multiplier of the tied parameters.
	Factor float64
	// Params are the mechanism's parameters at this factor.
	Params map[string]float64
	// Upper and Lower are delta_up(eps) and delta_low(eps) after R
	// observations (Lower is NaN without error correction).
	Upper, Lower float64
	// Cached is true when the composed state came from the cache (disk or
	// an earlier probe of the same search).
	Cached bool
	// Seconds is the wall time of the probe (0 when cached).
	Seconds float64
	// Order is the position of the probe in the search (1 = first).
	Order int
}

// Verdict classifies the probe against the target delta.
func (p Probe) Verdict(delta float64) string {
	switch {
	case p.Upper <= delta:
		return VerdictMeets
	case p.Lower > delta:
		return VerdictInsufficient
	}
	return VerdictUndecided
}

// Search statuses.
const (
	// StatusOK: both answers found and both bisections reached the
	// tolerance.
	StatusOK = "ok"
	// StatusPartial: at least one answer is missing or a bisection stopped
	// early (see Notes).
	StatusPartial = "partial"
	// StatusCancelled: the context was cancelled; the answers found so far
	// are reported.
	StatusCancelled = "cancelled"
)

// Result is the outcome of a search.
type Result struct {
	// Spec is the search with defaults filled in.
	Spec Spec
	// Meets is the least probed factor whose upper bound meets the target
	// (nil if none within the factor range).
	Meets *Probe
	// MeetsBelow is the largest probed factor below Meets whose upper bound
	// does not meet the target: by monotonicity the least factor meeting it
	// by the upper bound lies in (MeetsBelow, Meets]. Nil if none.
	MeetsBelow *Probe
	// Insufficient is the largest probed factor whose lower bound proves the
	// target missed (nil if none within the factor range).
	Insufficient *Probe
	// InsufficientAbove is the least probed factor above Insufficient that
	// the lower bound does not prove insufficient. Nil if none.
	InsufficientAbove *Probe
	// Probes are all probes, by factor.
	Probes []Probe
	// Status is StatusOK, StatusPartial or StatusCancelled.
	Status string
	// Notes explain a partial result or non-monotone probes.
	Notes []string
}

// Bracket returns Meets.Factor / Insufficient.Factor: by monotonicity the
// least sufficient noise of the real mechanism lies in (Insufficient,
// Meets]. It is NaN when an answer is missing.
func (r *Result) Bracket() float64 {
	if r.Meets == nil || r.Insufficient == nil {
		return math.NaN()
	}
	return r.Meets.Factor / r.Insufficient.Factor
}

// Searcher runs noise searches through a Backend.
type Searcher struct {
	// Backend computes the compositions (required).
	Backend backend.Backend
	// CacheDir, if not empty, holds composed states shared with Runner
	// (normally <out>/.cache); probes found there are not recomputed.
	CacheDir string
	// Log, if not nil, receives one line per probe.
	Log func(line string)
	// OnProbe, if not nil, is called after each probe of a search (for a
	// progress display; concurrent searches call it concurrently).
	OnProbe func(spec Spec, p Probe)

	mu    sync.Mutex
	cache map[string]Probe
}

// states returns the service the probes compose through: the backend
// and the cache folder of s, and the memory budget mem (nil: none).
func (s *Searcher) states(mem *states.Budget) *states.Service {
	return &states.Service{Backend: s.Backend, Dir: s.CacheDir, Memory: mem}
}

// Probe computes (or finds in the caches) delta_up(eps) and delta_low(eps)
// after spec.R observations of spec's mechanism at factor t, as one probe
// of a search would. A caller uses it to check a value of its own, e.g. an
// answer rounded for printing (pbuckets calibrate).
func (s *Searcher) Probe(ctx context.Context, spec Spec, t float64) (Probe, error) {
	if s.Backend == nil {
		return Probe{}, errors.New("search: Searcher.Backend is nil")
	}
	spec, err := spec.withDefaults()
	if err != nil {
		return Probe{}, err
	}
	return s.probe(ctx, spec, t, 1, s.states(nil))
}

// probe computes (or finds) delta_up and delta_low at factor t with the
// states of svc. Each probe composes spec.R alone (its own chain).
func (s *Searcher) probe(ctx context.Context, spec Spec, t float64, order int, svc *states.Service) (Probe, error) {
	ms := spec.At(t)
	p := Probe{Factor: t, Params: ms.Params, Order: order}
	mech, err := s.Backend.Mechanism(ms)
	if err != nil {
		return p, fmt.Errorf("%w: factor %g (%s): %v", errUnbuildable, t, formatParams(ms.Params, spec.Tie), err)
	}
	req := states.Request{Mechanism: mech, Spec: ms, R: []int{spec.R}}
	// the probe's answer is the state's delta bounds at eps: keyed by the
	// state's key and eps
	key := svc.Key(req, spec.R) + "|" + strconv.FormatFloat(spec.Eps, 'g', -1, 64)
	s.mu.Lock()
	if s.cache == nil {
		s.cache = map[string]Probe{}
	}
	prev, ok := s.cache[key]
	s.mu.Unlock()
	if ok {
		p.Upper, p.Lower, p.Cached = prev.Upper, prev.Lower, true
		return p, nil
	}
	start := time.Now()
	got, err := svc.Get(ctx, req)
	var over *states.OverBudgetError
	switch {
	case errors.As(err, &over):
		return p, fmt.Errorf("%w: factor %g (%s): %v", errOverBudget, t, formatParams(ms.Params, spec.Tie), over)
	case err != nil:
		return p, fmt.Errorf("factor %g (%s): r=%d: %w", t, formatParams(ms.Params, spec.Tie), spec.R, err)
	}
	p.Upper, p.Lower = got.States[0].DeltaBounds(spec.Eps)
	// the state is written to the cache while it answers
	if err := got.Stored(); err != nil {
		return p, err
	}
	if p.Cached = got.Cached[0]; !p.Cached {
		p.Seconds = time.Since(start).Seconds()
	}
	if math.IsNaN(p.Upper) {
		return p, fmt.Errorf("factor %g (%s): delta_up is NaN", t, formatParams(ms.Params, spec.Tie))
	}
	s.mu.Lock()
	s.cache[key] = p
	s.mu.Unlock()
	return p, nil
}

// formatParams renders the tied parameters, e.g. "mu=4100, scale=833".
func formatParams(params map[string]float64, tie []string) string {
	parts := make([]string, len(tie))
	for i, k := range tie {
		parts[i] = fmt.Sprintf("%s=%.6g", k, params[k])
	}
	return strings.Join(parts, ", ")
}

// search state: every probe by factor.
type searchRun struct {
	s      *Searcher
	spec   Spec
	probes map[float64]Probe
	n      int
	notes  []string
	states *states.Service
}

func (sr *searchRun) get(ctx context.Context, t float64) (Probe, error) {
	if p, ok := sr.probes[t]; ok {
		return p, nil
	}
	if sr.n >= sr.spec.MaxProbes {
		return Probe{}, errMaxProbes
	}
	sr.n++
	p, err := sr.s.probe(ctx, sr.spec, t, sr.n, sr.states)
	if err != nil {
		return p, err
	}
	sr.probes[t] = p
	if sr.s.OnProbe != nil {
		sr.s.OnProbe(sr.spec, p)
	}
	if sr.s.Log != nil {
		how := fmt.Sprintf("%.2f s", p.Seconds)
		if p.Cached {
			how = "cached"
		}
		sr.s.Log(fmt.Sprintf("search %s r=%d: probe %d: factor %.6g (%s): delta_up %.4g, delta_low %.4g: %s (%s)",
			sr.spec.Label, sr.spec.R, p.Order, t, formatParams(p.Params, sr.spec.Tie), p.Upper, p.Lower, p.Verdict(sr.spec.Delta), how))
	}
	return p, nil
}

var (
	errMaxProbes = errors.New("maximum number of probes reached")
	// errUnbuildable: the backend refuses the mechanism at a factor (e.g.
	// too large to enumerate); the walk ends there.
	errUnbuildable = errors.New("the mechanism cannot be built")
	// errOverBudget: the composition at a factor would need more memory
	// than SearchAll's budget; the walk ends there too.
	errOverBudget = fmt.Errorf("%w within the memory budget", errUnbuildable)
)

// sorted returns the probes by factor.
func (sr *searchRun) sorted() []Probe {
	out := make([]Probe, 0, len(sr.probes))
	for _, p := range sr.probes {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Factor < out[j].Factor })
	return out
}

// bisect narrows (lo, hi) in log space, where pred(lo) is false and
// pred(hi) true, until hi/lo <= 1 + tol. It returns the final bracket.
func (sr *searchRun) bisect(ctx context.Context, lo, hi float64, pred func(Probe) bool) (float64, float64, error) {
	for hi/lo > 1+sr.spec.RelTol {
		mid := math.Sqrt(lo * hi)
		if !(mid > lo && mid < hi) {
			break // floating-point resolution
		}
		p, err := sr.get(ctx, mid)
		if err != nil {
			return lo, hi, err
		}
		if pred(p) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo, hi, nil
}

// Search runs one noise search. It returns the result (also when cancelled
// or stopped early, with the answers found so far) and an error only for
// invalid specs, backend failures and cancellation.
func (s *Searcher) Search(ctx context.Context, spec Spec) (*Result, error) {
	return s.search(ctx, spec, nil)
}

// search is Search with the probes' compositions reserving memory from mem
// (if not nil).
func (s *Searcher) search(ctx context.Context, spec Spec, mem *states.Budget) (*Result, error) {
	if s.Backend == nil {
		return nil, errors.New("search: Searcher.Backend is nil")
	}
	spec, err := spec.withDefaults()
	if err != nil {
		return nil, err
	}
	sr := &searchRun{s: s, spec: spec, probes: map[float64]Probe{}, states: s.states(mem)}
	res := &Result{Spec: spec}
	err = sr.run(ctx, res)
	res.Notes = append(res.Notes, sr.notes...)
	sr.finish(res, err == nil)
	switch {
	case err == nil:
	case errors.Is(err, errMaxProbes):
		res.Status = StatusPartial
		res.Notes = append(res.Notes, fmt.Sprintf("stopped after %d probes (max_probes)", spec.MaxProbes))
		err = nil
	case ctx.Err() != nil:
		res.Status = StatusCancelled
		return res, fmt.Errorf("search %q r=%d: %w", spec.Label, spec.R, ctx.Err())
	default:
		res.Status = StatusPartial
		res.Notes = append(res.Notes, "stopped by an error: "+err.Error())
		return res, fmt.Errorf("search %q r=%d: %w", spec.Label, spec.R, err)
	}
	return res, nil
}

// walk probes from t in steps of searchGrow (upwards or downwards, clamped
// to the factor range) while pred keeps the value it has at t. It returns
// the last factor with that value and the first with the other one (NaN
// when the range ends first).
func (sr *searchRun) walk(ctx context.Context, t float64, up bool, pred func(Probe) bool) (same, flipped float64, err error) {
	p, err := sr.get(ctx, t)
	if err != nil {
		return t, math.NaN(), err
	}
	want := pred(p)
	for {
		next := t / searchGrow
		if up {
			next = t * searchGrow
		}
		next = math.Min(math.Max(next, sr.spec.MinFactor), sr.spec.MaxFactor)
		if next == t {
			return t, math.NaN(), nil
		}
		q, err := sr.get(ctx, next)
		if errors.Is(err, errUnbuildable) {
			sr.notes = append(sr.notes, fmt.Sprintf("the factor range ends at %g: %v", t, err))
			return t, math.NaN(), nil
		}
		if err != nil {
			return t, math.NaN(), err
		}
		if pred(q) != want {
			return t, next, nil
		}
		t = next
	}
}

func (sr *searchRun) run(ctx context.Context, res *Result) error {
	spec := sr.spec
	meets := func(p Probe) bool { return p.Upper <= spec.Delta }
	notProved := func(p Probe) bool { return !(p.Lower > spec.Delta) }

	// Phase 1: the least factor meeting the target by the upper bound.
	first, err := sr.get(ctx, 1)
	if err != nil {
		return err
	}
	var lo, hi float64
	if meets(first) {
		hi, lo, err = sr.walk(ctx, 1, false, meets)
	} else {
		lo, hi, err = sr.walk(ctx, 1, true, meets)
	}
	if err != nil {
		return err
	}
	upperDone := !math.IsNaN(lo) && !math.IsNaN(hi)
	if upperDone {
		if _, _, err := sr.bisect(ctx, lo, hi, meets); err != nil {
			return err
		}
	}

	// Phase 2: the largest factor the lower bound proves insufficient,
	// starting from the probes so far: the smallest probe not proved
	// insufficient bounds it from above.
	lowerDone := false
	if !math.IsNaN(first.Lower) {
		c, d := math.NaN(), math.NaN() // c proved insufficient, d not
		probes := sr.sorted()
		for _, q := range probes {
			if notProved(q) {
				d = q.Factor
				break
			}
			c = q.Factor
		}
		switch {
		case math.IsNaN(d): // every probe is proved insufficient: go up
			c, d, err = sr.walk(ctx, probes[len(probes)-1].Factor, true, notProved)
		case math.IsNaN(c): // no probe is: go down
			d, c, err = sr.walk(ctx, d, false, notProved)
		}
		if err != nil {
			return err
		}
		lowerDone = !math.IsNaN(c) && !math.IsNaN(d)
		if lowerDone {
			if _, _, err := sr.bisect(ctx, c, d, notProved); err != nil {
				return err
			}
		}
	}
	if !upperDone || !lowerDone {
		res.Status = StatusPartial
	}
	return nil
}

// finish fills the answers from the probes and checks monotonicity.
// complete is false when the search stopped early.
func (sr *searchRun) finish(res *Result, complete bool) {
	spec := sr.spec
	probes := sr.sorted()
	res.Probes = probes
	pick := func(i int) *Probe { p := probes[i]; return &p }
	for i := range probes {
		if probes[i].Upper <= spec.Delta {
			res.Meets = pick(i)
			if i > 0 {
				res.MeetsBelow = pick(i - 1)
			}
			break
		}
	}
	for i := len(probes) - 1; i >= 0; i-- {
		if probes[i].Lower > spec.Delta {
			res.Insufficient = pick(i)
			if i+1 < len(probes) {
				res.InsufficientAbove = pick(i + 1)
			}
			break
		}
	}
	if res.Status == "" {
		res.Status = StatusOK
	}
	if res.Meets == nil {
		res.Status = StatusPartial
		if complete {
			res.Notes = append(res.Notes, fmt.Sprintf("no probed factor (up to %g) meets the target by the upper bound", probes[len(probes)-1].Factor))
		}
	}
	if res.Insufficient == nil {
		res.Status = StatusPartial
		switch {
		case !complete:
		case len(probes) > 0 && math.IsNaN(probes[0].Lower):
			res.Notes = append(res.Notes, "no lower bounds (error correction disabled)")
		default:
			res.Notes = append(res.Notes, fmt.Sprintf("the lower bound proves no probed factor (down to %g) insufficient", probes[0].Factor))
		}
	}
	// Monotonicity: more noise should never raise the bounds.
	for i := 1; i < len(probes); i++ {
		a, b := probes[i-1], probes[i]
		if b.Upper > a.Upper*(1+1e-9) || b.Lower > a.Lower*(1+1e-9) {
			res.Notes = append(res.Notes, fmt.Sprintf("non-monotone bounds: factor %g gives delta_up %g, delta_low %g; factor %g gives %g, %g (each answer is still sound at its own factor, but the bracket may not be minimal)",
				a.Factor, a.Upper, a.Lower, b.Factor, b.Upper, b.Lower))
			break
		}
	}
}

// paramsJSON renders parameters as JSON with sorted keys.
func paramsJSON(params map[string]float64) string {
	b, err := json.Marshal(params)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// SearchAll runs the searches with at most jobs running at once (default:
// one per CPU) and a shared memory budget in bytes (default: the machine's
// available memory): each composition reserves the backend's estimate for
// its factor while it runs. A search whose base mechanism (factor 1) needs
// more than the budget is refused; for a larger factor that would, the
// factor range ends there. results[i] belongs to specs[i]; it is nil only
// when the search could not start (invalid spec, memory). errs holds one
// error per failed, refused or cancelled search.
//
// As in Runner.Run, the budget is also the Go runtime's soft memory limit
// while SearchAll runs (restored afterwards), unless GOMEMLIMIT is set or a
// lower limit is in place.
func (s *Searcher) SearchAll(ctx context.Context, specs []Spec, jobs int, budget int64) (results []*Result, errs []error) {
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	budget = resolveBudget(budget)
	defer memory.LimitRuntime(budget)()
	results = make([]*Result, len(specs))
	perSearch := make([]error, len(specs))
	mem := states.NewBudget(budget)
	var g errgroup.Group
	g.SetLimit(jobs)
	for i, spec := range specs {
		if err := s.checkMemory(spec, budget); err != nil {
			perSearch[i] = err
			continue
		}
		g.Go(func() error {
			results[i], perSearch[i] = s.search(ctx, spec, mem)
			return nil
		})
	}
	_ = g.Wait()
	for _, err := range perSearch {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return results, errs
}

// resolveBudget returns budget, or for budget <= 0 the machine's available
// memory (unlimited when unknown).
func resolveBudget(budget int64) int64 {
	if budget > 0 {
		return budget
	}
	if budget = memory.Available(); budget > 0 {
		return budget
	}
	return memory.Unlimited
}

// CheckMemory returns one error per search whose base mechanism (factor 1)
// needs more than the budget (as in SearchAll: budget <= 0 means the
// machine's available memory). Commands call it before any work, so that a
// budget that cannot hold one search is refused as invalid input.
func (s *Searcher) CheckMemory(specs []Spec, budget int64) []error {
	budget = resolveBudget(budget)
	var errs []error
	for _, spec := range specs {
		if err := s.checkMemory(spec, budget); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func (s *Searcher) checkMemory(spec Spec, budget int64) error {
	need := s.states(nil).MemoryNeed(spec.Mechanism)
	if need <= budget {
		return nil
	}
	return fmt.Errorf("search %q r=%d: refused: needs about %s with %d buckets, more than the %s available; lower --buckets or raise --memory",
		spec.Label, spec.R, memory.FormatBytes(need), spec.Mechanism.Engine.Buckets, memory.FormatBytes(budget))
}
