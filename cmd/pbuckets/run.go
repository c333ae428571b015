package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/methods"
	"github.com/pbuckets/pbuckets/pipeline/runner"
)

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", "[--out DIR] [--jobs N] [--shard I/N] [--memory SIZE] [--accuracy A] [--no-cache] [--quiet] MANIFEST...", stderr)
	out := fs.String("out", "results", "results folder; each manifest writes to DIR/<name>/")
	jobs := fs.Int("jobs", runtime.NumCPU(), "number of jobs running at once")
	shard := fs.String("shard", "", "run only part I of N of the task list (1 <= I <= N), e.g. $SLURM_ARRAY_TASK_ID/10")
	memFlag := fs.String("memory", "", "memory budget shared by running jobs, also the Go soft memory limit while they run unless GOMEMLIMIT is set, e.g. 8GiB (default: the machine's available memory)")
	quiet := fs.Bool("quiet", false, "no progress display and no summary")
	noCache := fs.Bool("no-cache", false, "neither read nor write cached states (default: cached in DIR/.cache)")
	accuracy := fs.Float64("accuracy", 0, "accuracy target for every mechanism of the manifests, in (0, 1), overriding their [engine] accuracy: the buckets method doubles the bucket count (from the manifest's buckets) until every bracket's relative width meets it or the memory budget ends it")
	paths, status, ok := parsePaths(fs, args)
	if !ok {
		return status
	}
	if *jobs < 1 {
		fmt.Fprintf(stderr, "error: --jobs must be at least 1, got %d\n", *jobs)
		return exitUsage
	}
	rn := &runner.Runner{
		Backend: backend.Engine{},
		Methods: methods.CompareWith,
		Out:     *out,
		Jobs:    *jobs,
		NoCache: *noCache,
		Version: version(),
		Log:     stderr,
	}
	if *shard != "" {
		var err error
		if rn.Shard, err = runner.ParseShard(*shard); err != nil {
			fmt.Fprintf(stderr, "error: --shard: %v\n", err)
			return exitUsage
		}
	}
	if rn.MemoryBudget, ok = parseMemory(*memFlag, stderr); !ok {
		return exitUsage
	}
	manifests, ok := loadManifests(paths, stderr)
	if !ok {
		return exitUsage
	}
	accuracySet := false
	fs.Visit(func(f *flag.Flag) { accuracySet = accuracySet || f.Name == "accuracy" })
	if accuracySet {
		for _, m := range manifests {
			if err := m.SetAccuracy(*accuracy); err != nil {
				printErrors(stderr, prefixErrors("--accuracy", err))
				return exitUsage
			}
		}
	}
	if !*quiet && isTerminal(os.Stderr) && stderr == io.Writer(os.Stderr) {
		rn.Progress = runner.NewProgress(stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := rn.Run(ctx, manifests)
	if err != nil {
		printErrors(stderr, err)
		if rep == nil {
			return exitUsage
		}
		return exitFailed
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	if !*quiet {
		fmt.Fprintf(stderr, "%d tasks: %d ok, %d skipped, %d failed, %d cancelled\n", rep.Tasks, rep.OK, rep.Skipped, rep.Failed, rep.Cancelled)
		for _, f := range rep.Files {
			fmt.Fprintf(stdout, "wrote %s\n", f)
		}
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "interrupted: finished tasks were written; run again to continue (states are cached)")
		return exitInterrupted
	case rep.Failed > 0:
		fmt.Fprintf(stderr, "%d tasks failed\n", rep.Failed)
		return exitFailed
	}
	return exitOK
}
