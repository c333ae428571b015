package main

import (
	"fmt"
	"io"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/runner"
)

func cmdValidate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("validate", "[--memory SIZE] MANIFEST...", stderr)
	memFlag := fs.String("memory", "", "memory budget, e.g. 8GiB (default: the machine's available memory)")
	paths, status, ok := parsePaths(fs, args)
	if !ok {
		return status
	}
	rn := &runner.Runner{Backend: backend.Engine{}}
	if rn.MemoryBudget, ok = parseMemory(*memFlag, stderr); !ok {
		return exitUsage
	}
	manifests, ok := loadManifests(paths, stderr)
	inputErrs, memErrs := rn.Check(manifests)
	for _, e := range inputErrs {
		fmt.Fprintf(stderr, "error: %v\n", e)
	}
	for _, e := range memErrs {
		fmt.Fprintf(stderr, "error: %v\n", e)
	}
	if !ok || len(inputErrs) > 0 || len(memErrs) > 0 {
		// a budget that cannot hold a task is refused by run too
		return exitUsage
	}
	for _, m := range manifests {
		fmt.Fprintf(stdout, "ok: %s (%q: %d tasks)\n", m.File, m.Name, len(runner.Expand([]*manifest.Manifest{m})))
	}
	return exitOK
}
