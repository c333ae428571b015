package methods

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/cache"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"golang.org/x/sync/semaphore"
)

// Buckets computes the privacy-buckets bounds through a Backend,
// reusing cached states and sharing a memory budget between jobs.
type Buckets struct {
	Backend backend.Backend
	Cache   cache.States
	Mem     *semaphore.Weighted
	Budget  int64
}

// memoryNeed returns the bytes a job of spec reserves from the budget.
func (b *Buckets) MemoryNeed(spec manifest.MechanismSpec) int64 {
	n := b.Backend.EstimateMemory(spec)
	if n < 1 {
		n = 1
	}
	return n
}

// Run computes the job's bounds: at the bucket count of the spec's engine
// options, or, with an accuracy target (EngineOptions.Accuracy), at
// growing bucket counts until the brackets meet it (refine, accuracy.go).
func (b *Buckets) Run(ctx context.Context, job Job) ([]Outcome, error) {
	spec := job.Instance.Spec
	mech, err := b.Backend.Mechanism(spec)
	if err != nil {
		return nil, fmt.Errorf("mechanism %q: %w", job.Instance.Label, err)
	}
	if spec.Engine.Accuracy > 0 {
		return b.refine(ctx, job, mech)
	}
	return b.round(ctx, job, mech, spec, job.Compositions)
}

// round computes the outcomes of the job at the numbers of compositions
// rs with the engine options of spec (which may differ from the job's in
// the bucket count), reusing and filling the state cache.
func (b *Buckets) round(ctx context.Context, job Job, mech backend.Mechanism, spec manifest.MechanismSpec, rs []int) (out []Outcome, retErr error) {
	opt := spec.Engine
	// A state's bits depend on the ComposeMany call that composed it
	// through its shaping counts (engine.ChainCounts: the largest r, which
	// fixes the automatic factor and the final tilts, and the r at most
	// 1/64 of it, whose saddle tilts the shared levels carry). The chain
	// is the whole query's, so that every shard of a manifest, a rerun
	// after an interruption and the unsplit run compute the same states;
	// the shaping counts are in the cache key, so a state written by a
	// chain of another shape (another manifest) is not taken for this
	// one's.
	chainRs := slices.Clone(job.Compositions)
	if job.Manifest != nil {
		chainRs = append(chainRs, job.Manifest.Compositions(job.Instance)...)
	}
	chain := backend.ChainCounts(chainRs)
	version := cache.BackendVersion(b.Backend)
	states := make([]backend.State, len(rs))
	cached := make([]bool, len(rs))
	var missing []int
	for i, r := range rs {
		data, ok := b.Cache.Load(cache.Key(version, mech, spec, opt, r, chain))
		if ok {
			if st, err := b.Backend.DecodeState(data); err == nil {
				states[i], cached[i] = st, true
				continue
			}
		}
		missing = append(missing, r)
	}
	if len(missing) > 0 {
		// the shaping counts are composed too (their accumulations are
		// the cheap ones, the largest one's levels are needed anyway), so
		// the call has the chain's shape and the states their bits
		compute := slices.Clone(missing)
		for _, r := range chain {
			if !slices.Contains(compute, r) {
				compute = append(compute, r)
			}
		}
		need := min(b.MemoryNeed(spec), b.Budget)
		if err := b.Mem.Acquire(ctx, need); err != nil {
			return nil, err
		}
		got, err := b.Backend.ComposeMany(ctx, mech, compute, opt, job.Progress)
		b.Mem.Release(need)
		if err != nil {
			return nil, err
		}
		if len(got) != len(compute) {
			return nil, fmt.Errorf("backend returned %d states for %d compositions", len(got), len(compute))
		}
		byR := make(map[int]backend.State, len(compute))
		for i, r := range compute {
			byR[r] = got[i]
		}
		// The states are encoded and written to the cache while the
		// queries below are answered (a few MB each: 5-10% of a short
		// run); the round waits for it before it returns.
		stored := make(chan error, 1)
		go func() {
			for i, r := range compute {
				if data, err := got[i].MarshalBinary(); err == nil {
					if err := b.Cache.Store(cache.Key(version, mech, spec, opt, r, chain), data); err != nil {
						stored <- fmt.Errorf("caching state: %w", err)
						return
					}
				}
			}
			stored <- nil
		}()
		defer func() {
			if err := <-stored; err != nil && retErr == nil {
				out, retErr = nil, err
			}
		}()
		for i, r := range rs {
			if states[i] == nil {
				states[i] = byR[r]
			}
		}
	}
	out = make([]Outcome, len(rs))
	others := newOtherBounds(spec)
	for i, r := range rs {
		st := states[i]
		sum := st.Summary()
		o := Outcome{R: r, Buckets: sum.Buckets, Factor: sum.Factor, InfinityMass: sum.InfinityMass, Cached: cached[i]}
		for _, eps := range job.Eps {
			up, lo := st.DeltaBounds(eps)
			o.Delta = append(o.Delta, Bound{Upper: up, Lower: lo})
		}
		for _, d := range job.Delta {
			up, lo := st.EpsBounds(d)
			o.Eps = append(o.Eps, Bound{Upper: up, Lower: lo})
		}
		o.Renyi = renyiBounds(st, spec, r, job.Alpha)
		o.TPR = tprBounds(st, job.FPR)
		var notes []string
		if !spec.Engine.ErrorCorrection {
			notes = append(notes, "error correction disabled: no lower bounds")
		}
		if n, ok := st.(noter); ok {
			// why bounds are trivial (delta_up = 1, eps_up = +Inf) or
			// loose, as the backend explains them
			notes = append(notes, n.Notes()...)
		}
		if others != nil {
			// the tighter of the buckets' and other methods' sound
			// bounds, with a note for each the others set
			notes = append(notes, others.apply(&o, r, job.Eps, job.Delta)...)
		}
		o.Note = strings.Join(notes, "; ")
		if math.IsNaN(sum.InfinityMass) {
			o.Err = fmt.Errorf("corner mass is NaN")
		}
		out[i] = o
	}
	return out, nil
}

// noter is implemented by states that explain their trivial or loose
// bounds (engine notes): the composition's and those of the queries
// answered so far. They go to the note column of runs.parquet.
type noter interface {
	Notes() []string
}
