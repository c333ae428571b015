package states

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/memory"
	"golang.org/x/sync/semaphore"
)

// Service gives the composed states of mechanisms: from the cache folder
// when a state with the same bits is there, else composed through the
// Backend within the memory Budget and written to the cache. The buckets
// method (pbuckets run, eps, delta, tpr), the noise search (pbuckets
// search, calibrate) and the comparison methods' single-round inputs all
// compose through it, so that the cache key and the rule that fixes a
// state's bits (the shaping counts of the composition chain, see
// Request.Basis) have one owner.
//
// A Service is safe for concurrent use; its fields must not change while
// it is used.
type Service struct {
	// Backend composes and decodes the states. Required.
	Backend backend.Backend
	// Dir is the cache folder (normally <out>/.cache, shared by run,
	// search and the one-line commands). Defaults to "": nothing is read
	// or written.
	Dir string
	// Memory is the budget that compositions reserve their memory
	// estimate from while they run (MemoryNeed). Defaults to nil: nothing
	// is reserved.
	Memory *Budget
	// BeforeCompose, if not nil, is called before each composition (once
	// its memory is reserved), e.g. to prepare the heap for the
	// composition's arrays (memory.HugePages), so that states read from
	// the cache do not pay for it. Defaults to nil.
	BeforeCompose func()
}

// Request asks for the states after each number of compositions in R of
// one mechanism.
type Request struct {
	// Mechanism is Spec's mechanism, built by Backend.Mechanism (built
	// once by the caller that validated the spec, and handed on).
	// Required.
	Mechanism backend.Mechanism
	// Spec is the mechanism's spec: its engine options (Spec.Engine) are
	// those of the composition, its data hash enters the key, and its
	// memory estimate is reserved. Required.
	Spec manifest.MechanismSpec
	// R holds the numbers of compositions wanted (at least one, each >= 1).
	R []int
	// Basis holds the other numbers of compositions of the question that R
	// belongs to (the whole query of a manifest, over every shard and
	// batch). A state's bits depend on the shaping counts of the
	// ComposeMany call that made it (engine.ChainCounts of R and Basis:
	// the largest r, which fixes the automatic factor and the final tilts,
	// and one r per group of results at most half of it, whose tilts the
	// shared levels carry), so every part of a question composes the same chain and
	// gets the same bits, and the shaping counts enter the key. Defaults
	// to nil: the chain of R alone.
	Basis []int
	// Progress, if not nil, receives the composition's progress steps
	// (done, total). Defaults to nil.
	Progress func(done, total int)
	// Eps (in nats) and Delta are the question's delta(eps) and
	// eps(delta) queries. Where the spec leaves the tail budget and the
	// factor to the engine, Get sets Spec.Engine.DeltaFloor from them
	// (withDeltaFloor) so that the engine resolves the deltas asked, and
	// the floor enters the key. Default to nil: the default tail budget.
	Eps, Delta []float64
}

// deltaFloorer is implemented by backends that choose a delta floor for a
// question (backend.Engine.DeltaFloor).
type deltaFloorer interface {
	DeltaFloor(ctx context.Context, m backend.Mechanism, r int, eps, deltas []float64, opt manifest.EngineOptions) (float64, error)
}

// withDeltaFloor returns req with Spec.Engine.DeltaFloor set for its
// questions at the largest r of its chain (which fixes the automatic
// factor; every part of a question has the same chain and questions, so
// the same floor and bits), when the backend chooses one and the spec
// leaves the tail budget and factor to the engine; req unchanged
// otherwise.
func (s *Service) withDeltaFloor(ctx context.Context, req Request) (Request, error) {
	df, ok := s.Backend.(deltaFloorer)
	e := req.Spec.Engine
	if !ok || (len(req.Eps) == 0 && len(req.Delta) == 0) || e.TailBudget != 0 || e.Factor != 0 || e.DeltaFloor != 0 {
		return req, nil
	}
	chain := s.chain(req)
	floor, err := df.DeltaFloor(ctx, req.Mechanism, slices.Max(chain), req.Eps, req.Delta, e)
	if err != nil {
		return req, fmt.Errorf("choosing the tail budget: %w", err)
	}
	req.Spec.Engine.DeltaFloor = floor
	return req, nil
}

// Result holds the states of a Request.
type Result struct {
	// States[i] is the state after Request.R[i] compositions.
	States []backend.State
	// Cached[i] is true when States[i] came from the cache.
	Cached []bool

	// done is closed when the composed states are in the cache (nil:
	// nothing was composed); storeErr says why they are not.
	done     chan struct{}
	storeErr error
	// dir is the cache folder; memo and memoKey the states whose answers
	// are cached (answers.go) and their keys, written by Stored.
	dir     disk
	memo    []*memoState
	memoKey []string
	once    sync.Once
}

// memos collects the memoStates of res.States (of rs, keyed by key) for
// Stored.
func (res *Result) memos(rs []int, key func(int) string) {
	if res.dir == "" {
		return
	}
	for i, st := range res.States {
		if m, ok := st.(*memoState); ok && !slices.Contains(res.memo, m) {
			res.memo, res.memoKey = append(res.memo, m), append(res.memoKey, key(rs[i]))
		}
	}
}

// Stored waits until the states that Get composed are written to the
// cache (Get writes them while the caller queries the states) and returns
// the error of writing them ("caching state: ..."). Callers call it before
// they return, so that a cache that cannot be written fails the work
// instead of being lost silently.
//
// It also caches the answers the states gave so far (answers.go), once:
// answers given after the first call of Stored are not cached. A cached
// state that could not be read back when a query needed it (nor composed
// again) answered trivially, and Stored returns why.
func (r *Result) Stored() error {
	if r.done != nil {
		<-r.done
		if r.storeErr != nil {
			return r.storeErr
		}
	}
	var err error
	r.once.Do(func() {
		for i, m := range r.memo {
			ts, changed, lerr := m.transcripts()
			if lerr != nil {
				err = fmt.Errorf("reading cached state: %w", lerr)
				return
			}
			if !changed {
				continue
			}
			data, eerr := encodeAnswers(ts)
			if eerr != nil {
				continue // answers that cannot be encoded are not cached
			}
			if werr := r.dir.storeAnswers(r.memoKey[i], data); werr != nil {
				err = fmt.Errorf("caching answers: %w", werr)
				return
			}
		}
	})
	return err
}

// OverBudgetError refuses a composition whose memory estimate exceeds
// the budget.
type OverBudgetError struct {
	// Need and Budget are in bytes; Buckets is the bucket count of the
	// composition.
	Need, Budget int64
	Buckets      int
}

func (e *OverBudgetError) Error() string {
	return fmt.Sprintf("needs about %s with %d buckets, more than the %s available",
		memory.FormatBytes(e.Need), e.Buckets, memory.FormatBytes(e.Budget))
}

// Budget is memory in bytes that concurrent compositions share: each
// reserves its estimate while it runs.
type Budget struct {
	sem   *semaphore.Weighted
	total int64
}

// NewBudget returns a budget of total bytes (memory.Unlimited for none).
func NewBudget(total int64) *Budget {
	return &Budget{sem: semaphore.NewWeighted(total), total: total}
}

// Total returns the budget's size in bytes.
func (b *Budget) Total() int64 { return b.total }

// MemoryNeed returns the bytes a composition of spec (with spec.Engine)
// reserves from the budget: the backend's estimate, at least 1.
func (s *Service) MemoryNeed(spec manifest.MechanismSpec) int64 {
	return max(s.Backend.EstimateMemory(spec), 1)
}

// Key returns the cache key of the state after r compositions of req's
// mechanism in req's chain: it names everything that fixes the state's
// bits (the backend's build, the mechanism, its data, the engine options
// but the accuracy target, r and the chain's shaping counts). Callers
// that keep what they derive from a state in memory (a search's probes)
// key it by this too.
func (s *Service) Key(req Request, r int) string {
	return stateKey(backendVersion(s.Backend), req.Mechanism, req.Spec, req.Spec.Engine, r, s.chain(req))
}

// chain returns the shaping counts of req's composition chain.
func (s *Service) chain(req Request) []int {
	return backend.ChainCounts(append(slices.Clone(req.R), req.Basis...))
}

// Get returns the states after each number of compositions of req: those
// in the cache as they are there, the others composed in one ComposeMany
// call of the chain's shape (the missing r and the shaping counts, whose
// accumulations are cheap and whose largest one's levels are needed
// anyway) and written to the cache while the caller queries them (see
// Result.Stored). A composition reserves MemoryNeed(req.Spec) from the
// budget while it runs; one that needs more than the whole budget is
// refused with an *OverBudgetError, one that waits for memory ends with
// ctx. A state in the cache that cannot be decoded is composed again.
//
// With a cache folder, the engine's states (those that answer every query
// the methods ask) record the calls made on them, and Result.Stored caches
// them as the state's answers; a state whose answers are cached is
// returned unread, answering from them while the calls follow them and
// read (decoded, or composed again) at the first call that does not
// (answers.go). Either way a state answers a sequence of calls as the
// state composed afresh does.
func (s *Service) Get(ctx context.Context, req Request) (*Result, error) {
	if s.Backend == nil {
		return nil, errors.New("states: Service.Backend is nil")
	}
	if req.Mechanism == nil {
		return nil, errors.New("states: Request.Mechanism is nil")
	}
	if len(req.R) == 0 {
		return nil, errors.New("states: Request.R is empty")
	}
	req, err := s.withDeltaFloor(ctx, req)
	if err != nil {
		return nil, err
	}
	version := backendVersion(s.Backend)
	chain := s.chain(req)
	opt := req.Spec.Engine
	key := func(r int) string { return stateKey(version, req.Mechanism, req.Spec, opt, r, chain) }
	res := &Result{States: make([]backend.State, len(req.R)), Cached: make([]bool, len(req.R)), dir: disk(s.Dir)}
	var missing []int
	for i, r := range req.R {
		if j := slices.Index(req.R, r); j < i && res.Cached[j] {
			res.States[i], res.Cached[i] = res.States[j], true // one state per r
			continue
		}
		if st, ok := s.cached(ctx, req, key(r), r, chain); ok {
			res.States[i], res.Cached[i] = st, true
			continue
		}
		if !slices.Contains(missing, r) {
			missing = append(missing, r)
		}
	}
	defer res.memos(req.R, key)
	if len(missing) == 0 {
		return res, nil
	}
	compute := withChain(missing, chain)
	got, err := s.compose(ctx, req, compute)
	if err != nil {
		return nil, err
	}
	for i, r := range req.R {
		switch j := slices.Index(req.R, r); {
		case res.States[i] != nil:
		case j < i:
			res.States[i] = res.States[j] // one state per r
		case s.Dir != "":
			res.States[i] = recording(got[slices.Index(compute, r)])
		default:
			res.States[i] = got[slices.Index(compute, r)]
		}
	}
	if s.Dir == "" {
		return res, nil
	}
	// The states are encoded and written while the caller answers its
	// queries (a few MB each: 5-10% of a short run).
	res.done = make(chan struct{})
	go func() {
		defer close(res.done)
		for i, r := range compute {
			data, err := got[i].MarshalBinary()
			if err != nil {
				continue // a state that cannot be encoded is not cached
			}
			if err := disk(s.Dir).store(key(r), data); err != nil {
				res.storeErr = fmt.Errorf("caching state: %w", err)
				return
			}
		}
	}()
	return res, nil
}

// withChain returns rs and the chain's shaping counts not in rs: what one
// ComposeMany call of the chain's shape computes for rs.
func withChain(rs, chain []int) []int {
	compute := slices.Clone(rs)
	for _, r := range chain {
		if !slices.Contains(compute, r) {
			compute = append(compute, r)
		}
	}
	return compute
}

// cached returns the state after r compositions of req from the cache
// (key: its key; chain: the chain's shaping counts), if there: a
// memoState over its cached answers that reads the state only when a
// query leaves them, or the decoded state (recording its answers when it
// answers every query). A state that cannot be decoded is not there.
func (s *Service) cached(ctx context.Context, req Request, key string, r int, chain []int) (backend.State, bool) {
	d := disk(s.Dir)
	if data, ok := d.loadAnswers(key); ok && d.has(key) {
		if ts := decodeAnswers(data); ts != nil {
			return &memoState{known: ts, load: func() (fullState, error) {
				return s.reload(ctx, req, key, r, chain)
			}}, true
		}
	}
	st, err := s.decode(req, key, r)
	if err != nil {
		return nil, false
	}
	return recording(st), true
}

// decode reads and decodes the cached state of key, the state after r
// compositions of req's mechanism, and gives it its mechanism back.
func (s *Service) decode(req Request, key string, r int) (backend.State, error) {
	data, ok := disk(s.Dir).load(key)
	if !ok {
		return nil, errors.New("not in the cache")
	}
	st, err := s.Backend.DecodeState(data)
	if err != nil {
		return nil, err
	}
	if err := reattach(st, req.Mechanism, r); err != nil {
		return nil, err
	}
	return st, nil
}

// reload returns the cached state of key for a memoState whose queries
// left its transcripts: decoded, or, when that fails, composed again (in
// the chain's ComposeMany call, so with the same bits).
func (s *Service) reload(ctx context.Context, req Request, key string, r int, chain []int) (fullState, error) {
	st, err := s.decode(req, key, r)
	if err != nil {
		compute := withChain([]int{r}, chain)
		got, cerr := s.compose(ctx, req, compute)
		if cerr != nil {
			return nil, fmt.Errorf("state %s: %v; composing it again: %w", key, err, cerr)
		}
		st = got[0]
		if data, err := st.MarshalBinary(); err == nil {
			// best effort: a state that cannot be cached is composed
			// again by the next Get that needs it
			_ = disk(s.Dir).store(key, data)
		}
	}
	full, ok := st.(fullState)
	if !ok {
		return nil, fmt.Errorf("state %s: %w", key, errNotFull)
	}
	return full, nil
}

// recording returns st as a memoState that records its answers for the
// cache when st answers every query the methods ask (fullState), st
// itself otherwise.
func recording(st backend.State) backend.State {
	if full, ok := st.(fullState); ok {
		return &memoState{st: full}
	}
	return st
}

// compose runs one ComposeMany call of rs within the budget.
func (s *Service) compose(ctx context.Context, req Request, rs []int) ([]backend.State, error) {
	if b := s.Memory; b != nil {
		need := s.MemoryNeed(req.Spec)
		if need > b.total {
			return nil, &OverBudgetError{Need: need, Budget: b.total, Buckets: req.Spec.Engine.Buckets}
		}
		if err := b.sem.Acquire(ctx, need); err != nil {
			return nil, err
		}
		defer b.sem.Release(need)
	}
	if s.BeforeCompose != nil {
		s.BeforeCompose()
	}
	got, err := s.Backend.ComposeMany(ctx, req.Mechanism, rs, req.Spec.Engine, req.Progress)
	if err != nil {
		return nil, err
	}
	if len(got) != len(rs) {
		return nil, fmt.Errorf("backend returned %d states for %d compositions", len(got), len(rs))
	}
	return got, nil
}

// reattacher is implemented by states whose queries use their mechanism's
// events, which their encoding does not carry (backend's engine states).
type reattacher interface {
	Reattach(m backend.Mechanism, r int) error
}

// reattach gives a decoded state its mechanism back (an error means the
// state is not m's after r observations: it is composed again).
func reattach(st backend.State, m backend.Mechanism, r int) error {
	if ra, ok := st.(reattacher); ok {
		return ra.Reattach(m, r)
	}
	return nil
}
