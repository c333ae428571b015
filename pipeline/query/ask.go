package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/memory"
	"github.com/pbuckets/pbuckets/pipeline/methods"
	"github.com/pbuckets/pbuckets/pipeline/results"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

// Options are the settings of Ask beside the question.
type Options struct {
	// Budget is the memory budget in bytes, also the Go soft memory limit
	// while computing (memory.LimitRuntime). Defaults to the machine's
	// available memory, or no limit when that is unknown.
	Budget int64
	// CacheDir is the folder of cached composed states; it must be
	// writable. Defaults to "": no cache.
	CacheDir string
	// Round is called at each round of an accuracy target (round 1, 2,
	// ..., its size and unit: methods.Job.Round). Defaults to nil: not
	// called.
	Round func(round, size int, unit string)
	// BeforeCompose, if not nil, is called once, before the first
	// composition of the question (states.Service.BeforeCompose): a
	// question answered from the cache, or by methods that compose
	// nothing (closed forms), does not call it. The one-line commands can
	// prepare the heap with it (memory.HugePages: about 10 ms of CPU, half
	// of a cached one-liner). Defaults to nil.
	BeforeCompose func()
}

// Error is a refusal of Ask before any work. Key names the setting that
// caused it: "cache" (Options.CacheDir is not writable), "mechanism" (the
// backend refuses the mechanism that manifest.Parse accepted) or "memory"
// (the buckets need more than Options.Budget).
type Error struct {
	Key string
	Err error
}

func (e *Error) Error() string { return e.Key + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Answer holds what Ask found: the outcomes of the methods, in the order
// the manifest names them, and the problems met on the way.
type Answer struct {
	// Instance is the mechanism asked about; Job the question as the
	// methods received it (Job.Eps or Job.Delta are the query points).
	Instance manifest.Instance
	Job      methods.Job
	// Outcomes are the methods' outcomes without an error, one per method
	// and r.
	Outcomes []Outcome
	// Problems are the methods (or a method's r) that gave no outcome, in
	// the order met.
	Problems []Problem
}

// Outcome is the outcome of one method at one r (methods.Outcome: the
// bounds at every query point).
type Outcome struct {
	Method string
	methods.Outcome
}

// Problem is a method, or one r of it (R > 0), that gave no outcome.
// Failed is false when the method does not apply to the mechanism or is
// not in this build (methods.ErrNotApplicable, methods.ErrNotAvailable: a
// note), true when it failed.
type Problem struct {
	Method string
	R      int
	Err    error
	Failed bool
}

// Ask bounds eps(delta) or delta(eps) (the manifest's query) after each r
// of the query for the manifest's first mechanism instance, by each method
// of the query. The mechanism is built once: manifest.Parse built it to
// check its ranges (Manifest.Built), or, for a sequence or a swept
// instance, it is built here;
// it is handed to every method; the buckets and the comparison methods
// compose through one states.Service (the cache folder and the memory
// budget). An error is an *Error refusing the question before any work,
// or ctx's error when ctx ended (nothing is concluded then).
func Ask(ctx context.Context, m *manifest.Manifest, opt Options) (*Answer, error) {
	in := m.Instances()[0]
	budget := opt.Budget
	if budget <= 0 {
		if budget = memory.Available(); budget <= 0 {
			budget = memory.Unlimited
		}
	}
	svc := &states.Service{Backend: backend.Engine{}, Memory: states.NewBudget(budget)}
	if opt.BeforeCompose != nil {
		svc.BeforeCompose = sync.OnceFunc(opt.BeforeCompose)
	}
	if opt.CacheDir != "" {
		if err := results.CheckWritable(opt.CacheDir); err != nil {
			return nil, &Error{Key: "cache", Err: err}
		}
		svc.Dir = opt.CacheDir
	}
	var mech backend.Mechanism
	if built, ok := m.Built(in); ok {
		mech = built // checked and built by manifest.Parse
	} else {
		var err error
		if mech, err = svc.Backend.Mechanism(in.Spec); err != nil {
			return nil, &Error{Key: "mechanism", Err: err}
		}
	}
	if slices.Contains(m.Query.Methods, manifest.MethodBuckets) {
		if need := svc.MemoryNeed(in.Spec); need > budget {
			return nil, &Error{Key: "memory", Err: fmt.Errorf("the buckets need about %s with %d buckets, more than the %s available",
				memory.FormatBytes(need), in.Spec.Engine.Buckets, memory.FormatBytes(budget))}
		}
	}
	registry := methods.CompareWith(svc)
	registry[manifest.MethodBuckets] = (&methods.Buckets{States: svc}).Run
	defer memory.LimitRuntime(budget)()

	a := &Answer{Instance: in, Job: methods.Job{Manifest: m, Instance: &in, Mechanism: mech, Compositions: m.Compositions(&in), Eps: m.Query.Eps, Delta: m.Query.Delta, FPR: m.Query.FPR, Round: opt.Round}}
	for _, meth := range m.Query.Methods {
		outs, err := registry[meth](ctx, a.Job)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, methods.ErrNotApplicable) || errors.Is(err, methods.ErrNotAvailable):
			a.Problems = append(a.Problems, Problem{Method: meth, Err: err})
			continue
		case err != nil:
			a.Problems = append(a.Problems, Problem{Method: meth, Err: err, Failed: true})
			continue
		}
		for _, o := range outs {
			switch {
			case errors.Is(o.Err, methods.ErrNotApplicable):
				a.Problems = append(a.Problems, Problem{Method: meth, R: o.R, Err: o.Err})
			case o.Err != nil:
				a.Problems = append(a.Problems, Problem{Method: meth, R: o.R, Err: o.Err, Failed: true})
			default:
				a.Outcomes = append(a.Outcomes, Outcome{Method: meth, Outcome: o})
			}
		}
	}
	return a, nil
}
