package methods

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

// Buckets computes the privacy-buckets bounds with the composed states of
// a states.Service (the cache, the memory budget and the backend shared
// between jobs). A composition whose memory estimate exceeds the whole
// budget is refused (*states.OverBudgetError): the runner and query.Ask
// refuse such a job before any work, and the refinement of an accuracy
// target stops before such a round.
type Buckets struct {
	// States gives the composed states. Required.
	States *states.Service
}

// MemoryNeed returns the bytes a job of spec reserves from the budget
// (states.Service.MemoryNeed).
func (b *Buckets) MemoryNeed(spec manifest.MechanismSpec) int64 {
	return b.States.MemoryNeed(spec)
}

// budget returns the size of the memory budget in bytes, or 0 for none.
func (b *Buckets) budget() int64 {
	if b.States.Memory == nil {
		return 0
	}
	return b.States.Memory.Total()
}

// Run computes the job's bounds: at the bucket count of the spec's engine
// options, or, with an accuracy target (EngineOptions.Accuracy), at
// growing bucket counts until the brackets meet it (refine, accuracy.go).
// It composes job.Mechanism, or when that is nil the mechanism it builds
// from the instance's spec.
func (b *Buckets) Run(ctx context.Context, job Job) ([]Outcome, error) {
	spec := job.Instance.Spec
	mech, err := job.mechanism(b.States.Backend)
	if err != nil {
		return nil, fmt.Errorf("mechanism %q: %w", job.Instance.Label, err)
	}
	if spec.Engine.Accuracy > 0 {
		return b.refine(ctx, job, mech)
	}
	return b.round(ctx, job, mech, spec, job.Compositions, true)
}

// round computes the outcomes of the job at the numbers of compositions
// rs with the engine options of spec (which may differ from the job's in
// the bucket count and path), intersected with the other methods' bounds
// (otherBounds) when withOthers is set (the refinement applies them to
// the round it reports only: applyOthers). The chain of the states is the
// whole question's (the job's and its manifest's numbers of
// compositions: Request.Basis), so
// that every shard of a manifest, a rerun after an interruption and the
// unsplit run compute the same states; on the power path each r is
// composed alone, for the same reason.
func (b *Buckets) round(ctx context.Context, job Job, mech backend.Mechanism, spec manifest.MechanismSpec, rs []int, withOthers bool) (out []Outcome, retErr error) {
	basis := slices.Clone(job.Compositions)
	if job.Manifest != nil {
		basis = append(basis, job.Manifest.Compositions(job.Instance)...)
	}
	// the power path composes every r on its own (each r's range is its
	// own): each r alone, so that its bits depend on r only, not on the
	// question's other r (which the chain's shaping counts fix)
	groups := [][]int{rs}
	if spec.Engine.Path == manifest.PathPower {
		groups, basis = nil, nil
		for _, r := range rs {
			groups = append(groups, []int{r})
		}
	}
	var got states.Result
	for _, g := range groups {
		res, err := b.States.Get(ctx, states.Request{Mechanism: mech, Spec: spec, R: g, Basis: basis, Progress: job.Progress, Eps: job.Eps, Delta: job.Delta})
		if err != nil {
			return nil, err
		}
		defer func() {
			if err := res.Stored(); err != nil && retErr == nil {
				out, retErr = nil, err
			}
		}()
		got.States = append(got.States, res.States...)
		got.Cached = append(got.Cached, res.Cached...)
	}
	out = make([]Outcome, len(rs))
	var others *otherBounds
	if withOthers {
		others = newOtherBounds(spec)
	}
	for i, r := range rs {
		st := got.States[i]
		sum := st.Summary()
		o := Outcome{R: r, Buckets: sum.Buckets, Factor: sum.Factor, InfinityMass: sum.InfinityMass, Cached: got.Cached[i], path: sum.Path}
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
	aligned, err := b.alignedDeltas(ctx, job, mech, spec, rs, basis, out)
	for _, res := range aligned {
		defer func() {
			if err := res.Stored(); err != nil && retErr == nil {
				out, retErr = nil, err
			}
		}()
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// maxAlignedEps is the number of a job's delta(eps) queries, the largest
// eps first, at which a composition in closed form is composed again with
// its spacing aligned (alignedDeltas).
const maxAlignedEps = 4

// alignedDeltas narrows the delta(eps) brackets of out (the round's
// outcomes for rs) where the backend composes every r in closed form with
// the spec's options and the factor is the engine's: it composes rs again
// with EngineOptions.AlignEps at each of the largest maxAlignedEps eps of
// the job whose bracket is wider than the target in some outcome (every
// one without a target), and intersects the outcomes' brackets at that eps
// with those compositions' (both sound: no bracket widens). A closed
// form's one leaf is exact at its aligned eps up to rounding
// (engine.Options.AlignEps; Gauss sigma 200 sqrt2, r 512 at e^eps 1.5:
// 2.1e-5 wide at 4,096 buckets, 4e-12 aligned). Each is a leaf of the
// round's size, cached under its own key; it returns their results, whose
// storing the caller waits for.
func (b *Buckets) alignedDeltas(ctx context.Context, job Job, mech backend.Mechanism, spec manifest.MechanismSpec, rs []int, basis []int, out []Outcome) ([]*states.Result, error) {
	cf, ok := b.States.Backend.(closedFormer)
	if !ok || len(job.Eps) == 0 || spec.Engine.Factor != 0 || spec.Engine.AlignEps != 0 {
		return nil, nil
	}
	for _, r := range rs {
		if !cf.ClosedForm(mech, r, spec.Engine) {
			return nil, nil
		}
	}
	target := spec.Engine.Accuracy
	wide := func(e float64) bool { // a bracket at e wider than the target
		for _, o := range out {
			for j, x := range job.Eps {
				if x == e && j < len(o.Delta) && !(target > 0 && RelativeWidth(o.Delta[j].Upper, o.Delta[j].Lower, true) <= target) {
					return true
				}
			}
		}
		return false
	}
	var order []float64 // the eps to align, the largest first
	for _, e := range job.Eps {
		if e > 0 && !math.IsInf(e, 1) && !slices.Contains(order, e) && wide(e) {
			order = append(order, e)
		}
	}
	slices.SortFunc(order, func(x, y float64) int { return cmpDesc(x, y) })
	order = order[:min(len(order), maxAlignedEps)]
	var results []*states.Result
	for _, e := range order {
		aspec := spec
		aspec.Engine.AlignEps = e
		res, err := b.States.Get(ctx, states.Request{Mechanism: mech, Spec: aspec, R: rs, Basis: basis, Eps: job.Eps, Delta: job.Delta})
		if err != nil {
			return results, fmt.Errorf("composing aligned at eps %g: %w", e, err)
		}
		results = append(results, res)
		for i := range rs {
			up, lo := res.States[i].DeltaBounds(e)
			for j, x := range job.Eps {
				if x == e && j < len(out[i].Delta) {
					out[i].Delta[j] = intersectBound(out[i].Delta[j], Bound{Upper: up, Lower: lo})
				}
			}
		}
	}
	return results, nil
}

// cmpDesc orders floats from the largest.
func cmpDesc(x, y float64) int {
	switch {
	case x > y:
		return -1
	case x < y:
		return 1
	}
	return 0
}

// intersectBound returns the intersection of two sound brackets: the
// smaller upper and the larger lower bound (a missing lower bound, NaN,
// is replaced).
func intersectBound(b, x Bound) Bound {
	if x.Upper < b.Upper {
		b.Upper = x.Upper
	}
	if !math.IsNaN(x.Lower) && (math.IsNaN(b.Lower) || x.Lower > b.Lower) {
		b.Lower = x.Lower
	}
	return b
}

// applyOthers intersects the outcomes' brackets with the other methods'
// bounds of spec (otherBounds), appending their notes, as round does with
// withOthers set.
func applyOthers(spec manifest.MechanismSpec, job Job, outs []Outcome) {
	others := newOtherBounds(spec)
	if others == nil {
		return
	}
	for i := range outs {
		o := &outs[i]
		if o.Err != nil {
			continue
		}
		for _, n := range others.apply(o, o.R, job.Eps, job.Delta) {
			o.Note = joinNote(o.Note, n)
		}
	}
}

// noter is implemented by states that explain their trivial or loose
// bounds (engine notes): the composition's and those of the queries
// answered so far. They go to the note column of runs.parquet.
type noter interface {
	Notes() []string
}
