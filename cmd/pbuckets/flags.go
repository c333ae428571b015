package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/pbuckets/pbuckets/pipeline/memory"
)

// parseArgs parses flags that may appear before, between or after the
// positional arguments, and returns the positional arguments. -h prints
// the command's usage; a bad flag prints one error line (with the flag it
// may have meant) and where to find the options, not the whole usage.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	usage := fs.Usage
	fs.Usage = func() {} // the flag package calls it on every error
	defer func() { fs.Usage = usage }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usage()
			} else {
				// the flag package has printed err itself
				if hint := didYouMean(fs, err); hint != "" {
					fmt.Fprintln(fs.Output(), hint)
				}
				fmt.Fprintf(fs.Output(), "(pbuckets %s -h lists the options)\n", fs.Name())
			}
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parsePaths parses args with parseArgs and requires at least one
// positional argument (printing the usage if there is none). When ok is
// false the command returns status.
func parsePaths(fs *flag.FlagSet, args []string) (paths []string, status int, ok bool) {
	paths, err := parseArgs(fs, args)
	if err != nil {
		return nil, usageStatus(err), false
	}
	if len(paths) == 0 {
		fs.Usage()
		return nil, exitUsage, false
	}
	return paths, exitOK, true
}

// parseMemory parses the value of a --memory flag: "" means the default
// (0), anything else a size such as 8GiB. It reports a bad value to stderr;
// the command then returns exitUsage.
func parseMemory(value string, stderr io.Writer) (int64, bool) {
	if value == "" {
		return 0, true
	}
	n, err := memory.ParseBytes(value)
	if err != nil {
		fmt.Fprintf(stderr, "error: --memory: %v\n", err)
		return 0, false
	}
	return n, true
}

// newFlagSet returns a FlagSet that reports errors to stderr without
// exiting.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: pbuckets %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// usageStatus maps a flag parsing error to an exit status.
func usageStatus(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// lineLogger returns a function printing lines to w, safe for concurrent
// use (the probes of searches running at once).
func lineLogger(w io.Writer) func(line string) {
	var mu sync.Mutex
	return func(line string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(w, line)
	}
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// version describes the build: module version and VCS revision if known.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "pbuckets (unknown version)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev
		if dirty {
			v += "-dirty"
		}
	}
	return "pbuckets " + v
}

// didYouMean returns "did you mean --x?" for the error of an unknown flag
// when a defined flag is close to it (a prefix of the other, or at most two
// edits away), else "".
func didYouMean(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	name = strings.TrimLeft(name, "-")
	best, bestDist := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(name, f.Name)
		if len(name) >= 3 && (strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name)) {
			d = min(d, 1)
		}
		if d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	if best == "" {
		return ""
	}
	return fmt.Sprintf("did you mean --%s?", best)
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
