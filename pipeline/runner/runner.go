package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/memory"
	"github.com/pbuckets/pbuckets/pipeline/methods"
	"github.com/pbuckets/pbuckets/pipeline/results"
	"github.com/pbuckets/pbuckets/pipeline/states"
	"golang.org/x/sync/errgroup"
)

// Runner runs the tasks of manifests and writes their results.
type Runner struct {
	// Backend computes bucket states (required).
	Backend backend.Backend
	// Methods returns the comparison methods, composing through the
	// runner's states.Service (its cache folder and memory budget, shared
	// with the buckets method): methods.CompareWith. "buckets" is built
	// in. Defaults to nil: every other method of manifest.MethodNames is
	// skipped as "not available in this build", as is one missing from
	// the registry it returns.
	Methods func(*states.Service) methods.Registry
	// Out is the results folder (default "results").
	Out string
	// Jobs bounds the jobs running at once (default: number of CPUs).
	Jobs int
	// Shard selects a part of the task list (inactive by default); its
	// results go to the shards-of-N folder (see results.Part).
	Shard Shard
	// MemoryBudget is the memory in bytes that concurrent jobs share
	// (default: the machine's available memory). Run also sets it as the
	// Go runtime's soft memory limit while it runs, unless GOMEMLIMIT is
	// set or a lower limit is in place (see Run).
	MemoryBudget int64
	// NoCache neither reads nor writes composed states (by default they
	// are cached in <Out>/.cache).
	NoCache bool
	// Version is written to runs.parquet as program_version.
	Version string
	// Progress, if not nil, shows progress.
	Progress *Progress
	// Log, if not nil, receives failures and notes as they happen.
	Log io.Writer
}

// Report summarizes a run.
type Report struct {
	Tasks, OK, Skipped, Failed, Cancelled int
	// Failures holds one error per failed task, naming manifest,
	// mechanism, method and r.
	Failures []error
	// Files lists the result files written.
	Files []string
	// Notes describe the datasets written: whether a sharded dataset is
	// complete, and the stale result sets left beside them.
	Notes []string
}

func (rn *Runner) budget() int64 {
	if rn.MemoryBudget > 0 {
		return rn.MemoryBudget
	}
	if m := memory.Available(); m > 0 {
		return m
	}
	return memory.Unlimited
}

// Check validates what parsing cannot: every mechanism instance (including
// sweep points) is built by the backend, and every bucket job's memory
// estimate is compared with the budget. It computes nothing. Errors about
// mechanisms are *ManifestErrors; memory refusals name the task.
func (rn *Runner) Check(manifests []*manifest.Manifest) (inputErrs, memErrs []error) {
	names := map[string]string{}
	for _, m := range manifests {
		if other, dup := names[m.Name]; dup {
			inputErrs = append(inputErrs, &manifest.Error{File: m.File, Key: "name", Err: fmt.Errorf("name %q is also used by %s; results would collide", m.Name, other)})
		}
		names[m.Name] = m.File
		for _, in := range m.Instances() {
			if _, err := rn.Backend.Mechanism(in.Spec); err != nil && !errors.Is(err, methods.ErrNotAvailable) {
				// (A mechanism this build lacks is skipped at run time.)
				what := "mechanism"
				if in.Spec.Kind == manifest.KindSequence {
					what = "sequence"
				}
				inputErrs = append(inputErrs, &manifest.Error{File: m.File, Line: in.Spec.Line, Key: fmt.Sprintf("%s %q", what, in.Label), Err: err})
				continue
			}
			if slices.Contains(m.Query.Methods, manifest.MethodBuckets) {
				if need := rn.Backend.EstimateMemory(in.Spec); need > rn.budget() {
					memErrs = append(memErrs, fmt.Errorf("manifest %s: mechanism %q: method buckets: needs about %s with %d buckets, more than the %s available; lower buckets or raise --memory",
						m.File, in.Label, memory.FormatBytes(need), in.Spec.Engine.Buckets, memory.FormatBytes(rn.budget())))
				}
			}
		}
	}
	return inputErrs, memErrs
}

// Run expands the manifests into tasks, runs this runner's shard of them
// and writes <Out>/<name>/{delta,epsilon,runs}.parquet for each manifest
// (the parts of a shard in <Out>/<name>/shards-of-N/, see results.Part).
// Failed tasks do not stop the others. When ctx is cancelled, running jobs
// stop, and what finished is written. The error is non-nil only when the
// input is invalid (Check: also a bucket job whose memory estimate exceeds
// the budget) or results cannot be written; task failures are in the
// Report. Before any work, Run checks that the result folders and the
// cache can be written; when not, the Report is nil, as for invalid input.
//
// While it runs, the memory budget (MemoryBudget or the machine's available
// memory) is also the Go runtime's soft memory limit
// (runtime/debug.SetMemoryLimit), so that the garbage collector keeps the
// heap of the admitted jobs within the budget instead of letting it grow to
// about twice their live bytes (GOGC); the previous limit is restored when
// Run returns. A limit set through the GOMEMLIMIT environment variable is
// left alone, as is a lower limit already in place. The limit is
// process-wide: concurrent Runs (or SearchAlls) in one process should share
// one budget.
func (rn *Runner) Run(ctx context.Context, manifests []*manifest.Manifest) (*Report, error) {
	if rn.Backend == nil {
		return nil, errors.New("runner: Runner.Backend is nil")
	}
	// A bucket job that cannot fit in the budget is refused before any
	// work, as invalid input: its task could only fail.
	if inputErrs, memErrs := rn.Check(manifests); len(inputErrs)+len(memErrs) > 0 {
		return nil, errors.Join(append(inputErrs, memErrs...)...)
	}
	out := rn.Out
	if out == "" {
		out = "results"
	}
	cacheDir := filepath.Join(out, ".cache")
	dirs := append([]string{out, cacheDir}, resultDirs(out, manifests, rn.Shard.Part())...)
	if rn.NoCache {
		cacheDir, dirs = "", slices.Delete(dirs, 1, 2)
	}
	for _, dir := range dirs {
		if err := results.CheckWritable(dir); err != nil {
			return nil, err
		}
	}
	jobs := rn.Jobs
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	budget := rn.budget()
	defer memory.LimitRuntime(budget)()
	svc := &states.Service{Backend: rn.Backend, Dir: cacheDir, Memory: states.NewBudget(budget)}
	bm := &methods.Buckets{States: svc}
	var others methods.Registry
	if rn.Methods != nil {
		others = rn.Methods(svc)
	}
	registry := methods.Registry{manifest.MethodBuckets: bm.Run}
	for _, name := range manifest.MethodNames() {
		if name == manifest.MethodBuckets {
			continue
		}
		if fn, ok := others[name]; ok && fn != nil {
			registry[name] = fn
		} else {
			registry[name] = methods.Unavailable(name)
		}
	}

	tasks := rn.Shard.Select(Expand(manifests))
	collectors := make(map[*manifest.Manifest]*collector, len(manifests))
	for _, m := range manifests {
		collectors[m] = &collector{}
	}
	rep := &Report{Tasks: len(tasks)}
	var repMu sync.Mutex
	record := func(status string, failure error) {
		repMu.Lock()
		defer repMu.Unlock()
		switch status {
		case StatusOK:
			rep.OK++
		case StatusSkipped:
			rep.Skipped++
		case StatusCancelled:
			rep.Cancelled++
		case StatusFailed:
			rep.Failed++
			rep.Failures = append(rep.Failures, failure)
			rn.logf("FAILED %v", failure)
		}
	}

	rn.Progress.begin(len(tasks))
	var g errgroup.Group
	g.SetLimit(jobs)
	for id, b := range batches(tasks) {
		g.Go(func() error {
			rn.Progress.jobStarted(id, b.label())
			rn.runBatch(ctx, id, b, registry[b.method], bm, budget, collectors[b.manifest], record)
			rn.Progress.jobDone(id, len(b.rs))
			return nil
		})
	}
	_ = g.Wait()
	rn.Progress.end()

	for _, m := range manifests {
		files, notes, err := rn.write(out, m, collectors[m], ctx.Err() != nil)
		rep.Files = append(rep.Files, files...)
		rep.Notes = append(rep.Notes, notes...)
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func (rn *Runner) logf(format string, args ...any) {
	if rn.Log == nil {
		return
	}
	if rn.Progress != nil {
		fmt.Fprint(rn.Log, "\r\x1b[K")
	}
	fmt.Fprintf(rn.Log, format+"\n", args...)
}

func (rn *Runner) runBatch(ctx context.Context, id int, b *batch, fn methods.Func, bm *methods.Buckets, budget int64, c *collector, record func(string, error)) {
	params := b.instance.ParamsJSON()
	key := func(r int) sortKey {
		return sortKey{instance: b.instance.Order, method: methodIndex(b.manifest, b.method), r: r}
	}
	finish := func(status, note string, err error, secs float64) {
		for _, r := range b.rs {
			t := b.task(r)
			row := runRow{key: key(r), task: t, params: params, status: status, note: note, seconds: secs, accuracy: math.NaN(), reached: math.NaN()}
			var failure error
			if err != nil {
				row.err = err.Error()
				failure = fmt.Errorf("%v: %w", t, err)
			}
			c.addRun(row)
			record(status, failure)
		}
	}
	if ctx.Err() != nil {
		finish(StatusCancelled, "interrupted before start", nil, 0)
		return
	}
	if b.method == manifest.MethodBuckets {
		if need := bm.MemoryNeed(b.instance.Spec); need > budget {
			finish(StatusFailed, "", fmt.Errorf("refused: needs about %s with %d buckets, more than the %s available",
				memory.FormatBytes(need), b.instance.Spec.Engine.Buckets, memory.FormatBytes(budget)), 0)
			return
		}
	}
	m := b.manifest
	job := methods.Job{
		Manifest: m, Instance: b.instance, Compositions: b.rs, Eps: m.Query.Eps, Delta: m.Query.Delta, Alpha: m.Query.Alpha, FPR: m.Query.FPR,
		Progress: func(done, total int) { rn.Progress.jobStep(id, done, total) },
		Round:    func(round, size int, unit string) { rn.Progress.jobRound(id, round, size, unit) },
	}
	start := time.Now()
	outs, err := fn(ctx, job)
	secs := time.Since(start).Seconds()
	switch {
	case err == nil:
	case errors.Is(err, methods.ErrNotApplicable) || errors.Is(err, methods.ErrNotAvailable):
		finish(StatusSkipped, err.Error(), nil, secs)
		return
	case ctx.Err() != nil:
		finish(StatusCancelled, "interrupted", nil, secs)
		return
	default:
		finish(StatusFailed, "", err, secs)
		return
	}
	byR := make(map[int]methods.Outcome, len(outs))
	for _, o := range outs {
		byR[o.R] = o
	}
	for _, r := range b.rs {
		t := b.task(r)
		o, ok := byR[r]
		row := runRow{key: key(r), task: t, params: params, seconds: secs, accuracy: math.NaN(), reached: math.NaN()}
		if a := o.Accuracy; a != nil {
			row.accuracy, row.reached = a.Target, a.Reached
		}
		switch {
		case !ok:
			o.Err = errors.New("the method returned no result for this r")
		case len(o.Delta) != len(job.Eps) || len(o.Eps) != len(job.Delta):
			o.Err = fmt.Errorf("the method returned %d/%d delta and %d/%d eps values", len(o.Delta), len(job.Eps), len(o.Eps), len(job.Delta))
		}
		row.buckets, row.factor, row.infinityMass, row.cached, row.note = o.Buckets, o.Factor, o.InfinityMass, o.Cached, o.Note
		if o.Cached {
			row.seconds = 0
		}
		if errors.Is(o.Err, methods.ErrNotApplicable) || errors.Is(o.Err, methods.ErrNotAvailable) {
			row.status, row.note = StatusSkipped, o.Err.Error()
			c.addRun(row)
			record(StatusSkipped, nil)
			continue
		}
		if o.Err != nil {
			row.status, row.err = StatusFailed, o.Err.Error()
			c.addRun(row)
			record(StatusFailed, fmt.Errorf("%v: %w", t, o.Err))
			continue
		}
		row.status = StatusOK
		c.addRun(row)
		c.addOutcome(t, o, job.Eps, job.Delta)
		record(StatusOK, nil)
	}
}

// write writes the result files of manifest m: the whole dataset, or this
// runner's part of it in the folder of its shards (results.Part). When the
// dataset is then complete (an unsharded run that finished, or the last
// part of a sharded one), it becomes the manifest's current dataset
// (results.IndexFile). The notes say how complete a sharded dataset is and
// which stale result sets lie beside it.
func (rn *Runner) write(out string, m *manifest.Manifest, c *collector, interrupted bool) (files, notes []string, err error) {
	dir := filepath.Join(out, m.Name)
	part := rn.Shard.Part()
	meta := map[string]string{
		results.MetaManifest: m.File,
		results.MetaName:     m.Name,
		results.MetaTitle:    m.Title,
		results.MetaHash:     m.Hash,
		results.MetaVersion:  rn.Version,
		results.MetaShard:    part.String(),
		results.MetaComplete: fmt.Sprint(!interrupted),
		results.MetaAccuracy: m.AccuracyTargets(),
	}
	maps.Copy(meta, results.FailedMeta(c.failedTasks()))
	frames := []struct {
		table string
		frame *results.Frame
	}{
		{results.TableDelta, boundFrame(c.delta, "eps", "delta_upper", "delta_lower", true)},
		{results.TableEpsilon, boundFrame(c.eps, "delta", "eps_upper", "eps_lower", false)},
		{results.TableRuns, c.runsFrame(rn.Version, part.String())},
	}
	if len(m.Query.Alpha) > 0 {
		frames = append(frames, struct {
			table string
			frame *results.Frame
		}{results.TableRenyi, renyiFrame(c.renyi)})
	}
	if len(m.Query.FPR) > 0 {
		frames = append(frames, struct {
			table string
			frame *results.Frame
		}{results.TableTradeoff, tradeoffFrame(c.tradeoff)})
	}
	for _, f := range frames {
		path := part.Path(dir, f.table)
		if err := results.WriteParquet(path, f.frame, meta); err != nil {
			return files, nil, fmt.Errorf("manifest %s: %w", m.File, err)
		}
		files = append(files, path)
	}
	st, err := results.Scan(dir)
	if err != nil {
		return files, nil, fmt.Errorf("manifest %s: %w", m.File, err)
	}
	var mine *results.Set
	for _, s := range append(st.Stale, st.Current) {
		if s != nil && !s.Legacy && s.Shards == part.Count {
			mine = s
		}
	}
	switch {
	case mine == nil:
		return files, nil, fmt.Errorf("manifest %s: results %s: the files just written are missing", m.File, dir)
	case mine.Complete():
		if err := results.WriteIndex(dir, mine); err != nil {
			return files, nil, fmt.Errorf("manifest %s: %w", m.File, err)
		}
		if part.Sharded() {
			notes = append(notes, fmt.Sprintf("%s: all %d parts are there: the dataset is complete (%s)", mine.Dir, part.Count, filepath.Join(dir, results.IndexFile)))
		}
	case part.Sharded():
		notes = append(notes, fmt.Sprintf("%s: part %d of %d written; the dataset is not complete yet: %s", mine.Dir, part.Index, part.Count, strings.Join(append(slices.Clone(mine.Problems), mine.Gaps...), "; ")))
	default:
		notes = append(notes, fmt.Sprintf("%s: the dataset is not complete: %s", mine.Dir, strings.Join(append(slices.Clone(mine.Problems), mine.Gaps...), "; ")))
	}
	for _, s := range append(st.Stale, st.Current) {
		if s != nil && s != mine {
			notes = append(notes, fmt.Sprintf("stale results beside the dataset, never read with it: %s; remove them when no longer needed", s.Describe()))
		}
	}
	return files, notes, nil
}

// resultDirs returns the folders the part p of each manifest's results
// goes to.
func resultDirs(out string, manifests []*manifest.Manifest, p results.Part) []string {
	dirs := make([]string, len(manifests))
	for i, m := range manifests {
		dirs[i] = results.SetDir(filepath.Join(out, m.Name), p.Count)
	}
	return dirs
}
