package methods

import (
	"context"
	"errors"
	"fmt"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// ErrNotApplicable is wrapped by method errors meaning the method has no
// answer for the mechanism (e.g. no closed form): the task is skipped with a
// note, not failed.
var ErrNotApplicable = errors.New("method not applicable")

// ErrNotAvailable is wrapped by method errors meaning the method is not part
// of this build; the task is skipped with a note.
var ErrNotAvailable = errors.New("method not available in this build")

// Job is the work of one method on one mechanism instance: every number
// of compositions of a batch, with the manifest's eps and delta grids.
type Job struct {
	Manifest *manifest.Manifest
	Instance *manifest.Instance
	// Mechanism is the instance's mechanism, built from Instance.Spec by
	// the backend's Mechanism once, where the spec was validated, and
	// handed on to every method of the question. Defaults to nil: a
	// method that composes builds it.
	Mechanism    backend.Mechanism
	Compositions []int
	// Eps holds the eps values of delta(eps) queries; Delta the delta
	// values of eps(delta) queries.
	Eps, Delta []float64
	// Progress, if not nil, receives the method's own progress steps.
	Progress func(done, total int)
	// Alpha holds the Renyi orders of D_alpha queries (answered by the
	// buckets method only).
	Alpha []float64
	// FPR holds the false-positive rates of membership-inference queries
	// (answered by the buckets method only).
	FPR []float64
	// Round, if not nil, is called when the buckets method starts a round
	// of an accuracy target (1, 2, ...) with the round's size and its unit:
	// "buckets" of the squaring chain or "points" of the power path's
	// transform. A round asked of the power path that the chain composed
	// (the power path did not qualify at its length) is announced again,
	// with the same number, in "buckets (the chain: ...)".
	Round func(round, size int, unit string)
}

// mechanism returns job.Mechanism, or the instance's mechanism built by
// be when the job carries none.
func (job Job) mechanism(be backend.Backend) (backend.Mechanism, error) {
	if job.Mechanism != nil {
		return job.Mechanism, nil
	}
	return be.Mechanism(job.Instance.Spec)
}

// Bound is an upper and a lower bound at one query point; Lower is NaN when
// the method has no lower bound.
type Bound struct {
	Upper, Lower float64
}

// Outcome is what a method found for one number of compositions.
type Outcome struct {
	R int
	// Delta holds delta(eps) for each of Job.Eps; Eps holds eps(delta) for
	// each of Job.Delta.
	Delta, Eps []Bound
	// Renyi holds D_alpha for each of Job.Alpha (buckets method only).
	Renyi []RenyiBound
	// TPR holds the largest true-positive rate for each of Job.FPR
	// (buckets method only).
	TPR []TPRBound
	// Buckets, Factor and InfinityMass describe a bucket computation (zero
	// for other methods).
	Buckets      int
	Factor       float64
	InfinityMass float64
	// Cached is true when the state came from the cache.
	Cached bool
	// Note is a remark for runs.parquet.
	Note string
	// Accuracy, when the job had an accuracy target, says what it reached
	// (buckets method only; nil otherwise).
	Accuracy *Accuracy
	// path is the computation that composed the buckets' state
	// (backend.StateSummary.Path; "" when the state does not say).
	path string
	// Err, if not nil, fails this task alone (or skips it, when it wraps
	// ErrNotApplicable or ErrNotAvailable).
	Err error
}

// Func computes a method for a job and returns one Outcome per
// number of compositions, in the order of Job.Compositions. An error
// wrapping ErrNotApplicable or ErrNotAvailable skips the job's tasks with
// the error as note; any other error fails them.
type Func func(ctx context.Context, job Job) ([]Outcome, error)

// Registry maps method names to their implementations.
type Registry map[string]Func

// Unavailable is the Func of a method that this build lacks.
func Unavailable(name string) Func {
	return func(context.Context, Job) ([]Outcome, error) {
		return nil, fmt.Errorf("%w: %s (package compare is not wired in)", ErrNotAvailable, name)
	}
}
