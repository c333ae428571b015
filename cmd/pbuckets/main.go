// Command pbuckets computes provable (eps, delta) differential-privacy
// bounds after r-fold composition with privacy buckets, for the experiments
// described in TOML manifests.
//
// Usage:
//
//	pbuckets run [--out DIR] [--jobs N] [--shard I/N] [--memory SIZE] [--quiet] MANIFEST...
//	pbuckets show [--format csv|json|table] [--partial] FILE.parquet...
//	pbuckets parts [--out DIR] [--shards N] MANIFEST|FOLDER...
//	pbuckets validate [--memory SIZE] MANIFEST...
//	pbuckets plot [--out DIR] [--figure ID] MANIFEST...
//	pbuckets search [OPTIONS] MANIFEST...
//	pbuckets search [OPTIONS] --kind KIND [PARAMS] --r R (--e-eps X | --eps X) --delta X
//	pbuckets eps --kind KIND [PARAMS] --r R[,R...] --delta D[,D...] [OPTIONS]
//	pbuckets delta --kind KIND [PARAMS] --r R[,R...] (--eps E[,E...] | --e-eps X[,X...]) [OPTIONS]
//	pbuckets calibrate --kind KIND [PARAMS] --r R (--eps E | --e-eps X) --delta D [OPTIONS]
//	pbuckets tpr --kind KIND [PARAMS] --r R[,R...] --fpr F[,F...] [OPTIONS]
//	pbuckets version
//
// Exit status: 0 when everything succeeded, 1 when a task failed, 2 for
// invalid input or usage, 130 when interrupted.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/pbuckets/pbuckets/pipeline/memory"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

const usage = `pbuckets computes provable (eps, delta)-DP bounds after r-fold composition.

Usage:
  pbuckets run [--out DIR] [--jobs N] [--shard I/N] [--memory SIZE] [--quiet] MANIFEST...
  pbuckets show [--format csv|json|table] [--partial] FILE.parquet...
  pbuckets parts [--out DIR] [--shards N] MANIFEST|FOLDER...
  pbuckets validate [--memory SIZE] MANIFEST...
  pbuckets plot [--out DIR] [--figure ID] MANIFEST...
  pbuckets search [OPTIONS] MANIFEST...
  pbuckets search [OPTIONS] --kind KIND [PARAMS] --r R (--e-eps X | --eps X) --delta X
  pbuckets eps --kind KIND [PARAMS] --r R[,R...] --delta D[,D...] [OPTIONS]
  pbuckets delta --kind KIND [PARAMS] --r R[,R...] (--eps E[,E...] | --e-eps X[,X...]) [OPTIONS]
  pbuckets calibrate --kind KIND [PARAMS] --r R (--eps E | --e-eps X) --delta D [OPTIONS]
  pbuckets tpr --kind KIND [PARAMS] --r R[,R...] --fpr F[,F...] [OPTIONS]
  pbuckets version

Manifests are described in experiments/README.md.
Run "pbuckets COMMAND -h" for the options of a command.
`

func main() {
	onDemand := len(os.Args) >= 2 && composesOnDemand(os.Args[1])
	if os.Getenv("GOGC") == "" {
		if onDemand {
			debug.SetGCPercent(oneLinerGCPercent)
		} else {
			debug.SetGCPercent(gcPercent)
		}
	}
	if !onDemand {
		prepareHeap()
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// prepareHeap puts the engine's arrays on transparent huge pages where the
// kernel offers them on request (a no-op elsewhere; PBUCKETS_HUGEPAGES=0
// turns it off). It costs about 10 ms of CPU, so the one-line queries call
// it only before they compose (composesOnDemand).
func prepareHeap() {
	memory.HugePages(memory.HugePageReserve(memory.Available()))
}

// composesOnDemand reports whether the command prepares the heap itself,
// only when it composes (query.Options.BeforeCompose): the one-line
// queries, whose repeated questions are answered from the cache.
func composesOnDemand(cmd string) bool {
	switch cmd {
	case "eps", "delta", "tpr":
		return true
	}
	return false
}

// gcPercent is the garbage collector's target (GOGC) of the command unless
// the environment sets GOGC. The engine's heap is mostly float64 arrays
// without pointers, so a collection costs little, while every page the
// heap grows by costs a page fault: with Go's default 100 a DP-SGD run
// (sigma 4, q 0.01, r 65,536) peaked at 210 MB and 47,000 faults, with 25
// at 155 MB and 33,000, and took less CPU time.
const gcPercent = 25

// oneLinerGCPercent is gcPercent of the one-line queries (composesOnDemand):
// one question, whose heap the power path keeps small (its arrays reused
// within a composition, huge pages prepared before it composes), so that
// collections cost more than the pages the heap grows by. CPU of whole
// processes, medians, 2-core VM at load 1: DP-SGD 4/0.01/65,536 at the
// default target 0.075 s at 100 against 0.092 s at 25; 1/0.001/250,000 at
// 9.6e-6 1.4 s against 1.8 s, peak RSS 335 against 310 MB.
const oneLinerGCPercent = 100

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "show":
		return cmdShow(args[1:], stdout, stderr)
	case "parts":
		return cmdParts(args[1:], stdout, stderr)
	case "validate":
		return cmdValidate(args[1:], stdout, stderr)
	case "plot":
		return cmdPlot(args[1:], stdout, stderr)
	case "search":
		return cmdSearch(args[1:], stdout, stderr)
	case "eps":
		return cmdEps(args[1:], stdout, stderr)
	case "delta":
		return cmdDelta(args[1:], stdout, stderr)
	case "tpr":
		return cmdTPR(args[1:], stdout, stderr)
	case "calibrate":
		return cmdCalibrate(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, version())
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "pbuckets: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

// exitAfterOutput returns the exit status of a command that has written its
// answers with error err: exitFailed (the error printed) when writing
// failed, exitInterrupted (interrupted printed) when ctx was cancelled,
// status otherwise.
func exitAfterOutput(ctx context.Context, stderr io.Writer, err error, status int, interrupted string) int {
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailed
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, interrupted)
		return exitInterrupted
	}
	return status
}
