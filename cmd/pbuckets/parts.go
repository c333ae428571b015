package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

// cmdParts reports, for each manifest (or results folder), whether its
// results are a complete dataset, and the stale sets beside it. Exit
// status 0 when every dataset is complete (with the expected number of
// parts, if given), 1 when one is not, 2 for invalid input.
func cmdParts(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("parts", "[--out DIR] [--shards N [--rerun-list]] MANIFEST|FOLDER...", stderr)
	out := fs.String("out", "results", "results folder (--out of pbuckets run): a manifest's results are in DIR/<name>/")
	shards := fs.Int("shards", -1, "the number of parts the dataset must have: 0 for an unsharded run, -1 for any")
	rerunList := fs.Bool("rerun-list", false, "print only the parts to run again (missing, interrupted, or with failed tasks) of all the datasets, as one comma list for a Slurm --array (nothing when none); needs --shards N")
	paths, status, ok := parsePaths(fs, args)
	if !ok {
		return status
	}
	if *shards < -1 {
		fmt.Fprintf(stderr, "error: --shards must be at least 0, got %d\n", *shards)
		return exitUsage
	}
	if *rerunList && *shards < 1 {
		fmt.Fprintln(stderr, "error: --rerun-list needs --shards N with N >= 1")
		return exitUsage
	}
	report := stdout // the verdicts; with --rerun-list stdout holds the list only
	if *rerunList {
		report = io.Discard
	}
	rerun := map[int]bool{}
	rerunAll := func() {
		for i := 1; i <= *shards; i++ {
			rerun[i] = true
		}
	}
	type target struct {
		dir string
		m   *manifest.Manifest
	}
	var targets []target
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			targets = append(targets, target{dir: p})
			continue
		}
		ms, ok := loadManifests([]string{p}, stderr)
		if !ok {
			return exitUsage
		}
		targets = append(targets, target{dir: filepath.Join(*out, ms[0].Name), m: ms[0]})
	}
	status = exitOK
	for _, t := range targets {
		st, err := results.Scan(t.dir)
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			status = exitFailed
			continue
		}
		// The set of the expected number of parts, current or not, says
		// which parts to run again.
		var expected *results.Set
		for _, s := range append(st.Stale, st.Current) {
			if s != nil && !s.Legacy && s.Shards == *shards {
				expected = s
			}
		}
		switch {
		case expected == nil || len(expected.Problems) > 0:
			rerunAll()
		default:
			for _, i := range expected.Rerun {
				rerun[i] = true
			}
		}
		if err := st.Usable(); err != nil {
			fmt.Fprintf(report, "%s: NOT COMPLETE: %v\n", t.dir, err)
			status = exitFailed
		} else {
			c := st.Current
			fmt.Fprintf(report, "%s: complete: %s, manifest %.12s, %s\n", t.dir, describeSet(c), c.ManifestHash, c.Version)
			if *shards >= 0 && c.Shards != *shards {
				fmt.Fprintf(report, "%s: NOT COMPLETE: the dataset has %s, not the %s expected (--shards %d)\n", t.dir, countParts(c.Shards), countParts(*shards), *shards)
				status = exitFailed
			}
			if t.m != nil && c.ManifestHash != t.m.Hash {
				fmt.Fprintf(report, "%s: note: computed from another version of %s\n", t.dir, t.m.File)
			}
		}
		for _, s := range st.Stale {
			fmt.Fprintf(report, "%s: stale, never read with the dataset: %s; remove with: %s\n", t.dir, s.Describe(), removeCommand(s))
		}
	}
	if *rerunList && len(rerun) > 0 {
		var parts []string
		for _, i := range slices.Sorted(maps.Keys(rerun)) {
			parts = append(parts, strconv.Itoa(i))
		}
		fmt.Fprintln(stdout, strings.Join(parts, ","))
	}
	return status
}

func describeSet(s *results.Set) string {
	if s.Shards == 0 {
		return "an unsharded run (" + s.Dir + ")"
	}
	return fmt.Sprintf("%s in %s", countParts(s.Shards), s.Dir)
}

func countParts(n int) string {
	switch n {
	case 0:
		return "an unsharded run"
	case 1:
		return "1 part"
	}
	return fmt.Sprintf("%d parts", n)
}

// removeCommand returns a shell command that removes the files of a stale
// set.
func removeCommand(s *results.Set) string {
	if s.Shards > 0 && !s.Legacy {
		return "rm -r " + shellQuote(s.Dir)
	}
	var files []string
	for _, table := range results.Tables() {
		for _, f := range s.Files[table] {
			if f != "" {
				files = append(files, shellQuote(f))
			}
		}
	}
	return "rm " + strings.Join(files, " ")
}

func shellQuote(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
