package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/pbuckets/pbuckets/internal/outward"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/memory"
	"github.com/pbuckets/pbuckets/pipeline/results"
	"github.com/pbuckets/pbuckets/pipeline/search"
)

const searchSynopsis = `[options] MANIFEST...
       pbuckets search [options] --kind KIND [--noise N] [--mu X] [--scale X] [--sigma X] [--q X]
                       [--tie P,P] --r R[,R...] (--e-eps X | --eps X) --delta X

Finds the least noise whose buckets upper bound meets the target
(delta_up(eps) <= delta after r observations) and the most noise whose
buckets lower bound proves it insufficient (delta_low(eps) > delta), by
bisection in log space over a factor t that multiplies the tied parameters
(t = 1 is the mechanism given). Each probe is a full composition; states are
cached in OUT/.cache. With manifests, the [search] table says what to search
and the results go to OUT/<name>/search.parquet and search-probes.parquet.`

// errSearchAccuracy is why search and calibrate refuse an accuracy target
// (the library refuses it too: search.ErrAccuracy).
var errSearchAccuracy = search.ErrAccuracy.Error()

func cmdSearch(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("search", searchSynopsis, stderr)
	out := fs.String("out", "results", "results folder: manifest results in DIR/<name>/, the cache in DIR/.cache (with --kind, the user cache folder unless --out is given)")
	noCache := fs.Bool("no-cache", false, "neither read nor write cached states")
	jobs := fs.Int("jobs", runtime.NumCPU(), "number of searches running at once")
	memFlag := fs.String("memory", "", "memory budget shared by running searches, also the Go soft memory limit while they run unless GOMEMLIMIT is set, e.g. 8GiB (default: the machine's available memory)")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	format := fs.String("format", "table", "stdout format: table or csv")
	parquetOut := fs.String("parquet", "", "also write the results table to this Parquet file (probes to FILE without .parquet + -probes.parquet)")
	csvOut := fs.String("csv", "", "also write the results table to this CSV file")
	// Flag mode.
	mf := addMechFlags(fs)
	sf := addSearchFlags(fs)
	paths, err := parseArgs(fs, args)
	if err != nil {
		return usageStatus(err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *jobs < 1 {
		fmt.Fprintf(stderr, "error: --jobs must be at least 1, got %d\n", *jobs)
		return exitUsage
	}
	if *format != "table" && *format != "csv" {
		fmt.Fprintf(stderr, "error: --format must be table or csv, got %q\n", *format)
		return exitUsage
	}
	var budget int64
	if *memFlag != "" {
		if budget, err = memory.ParseBytes(*memFlag); err != nil {
			fmt.Fprintf(stderr, "error: --memory: %v\n", err)
			return exitUsage
		}
	}
	flagMode := set["kind"]
	if flagMode && set["accuracy"] {
		fmt.Fprintln(stderr, "error: --accuracy: "+errSearchAccuracy)
		return exitUsage
	}
	var manifests []*manifest.Manifest
	switch {
	case flagMode && len(paths) > 0:
		fmt.Fprintln(stderr, "error: give either --kind and its flags or manifests, not both")
		return exitUsage
	case flagMode:
		m, err := searchFlagManifest(set, mf, sf, false)
		if err != nil {
			printErrors(stderr, err)
			return exitUsage
		}
		manifests = []*manifest.Manifest{m}
	case len(paths) == 0:
		fs.Usage()
		return exitUsage
	default:
		for _, f := range append(mechFlagNames(), searchFlagNames...) {
			if set[f] {
				fmt.Fprintf(stderr, "error: --%s needs --kind; with manifests, set it in the manifest\n", f)
				return exitUsage
			}
		}
		var ok bool
		if manifests, ok = loadManifests(paths, stderr); !ok {
			return exitUsage
		}
		for _, m := range manifests {
			if m.Search == nil {
				fmt.Fprintf(stderr, "error: %s: no [search] table (see experiments/README.md)\n", m.File)
				return exitUsage
			}
			for _, spec := range m.Mechanisms {
				if spec.Engine.Accuracy > 0 {
					fmt.Fprintf(stderr, "error: %s: mechanism %q: engine accuracy: %s\n", m.File, spec.ID, errSearchAccuracy)
					return exitUsage
				}
			}
		}
	}

	searcher := &search.Searcher{Backend: backend.Engine{}}
	if !*noCache {
		searcher.CacheDir = filepath.Join(*out, ".cache")
		if flagMode {
			// a one-liner leaves no results/.cache where it runs
			searcher.CacheDir, _ = oneLinerCache(fs, *out, "")
		}
	}
	// The folders written must be writable before any work.
	dirs := []string{searcher.CacheDir}
	for _, m := range manifests {
		if !flagMode {
			dirs = append(dirs, filepath.Join(*out, m.Name))
		}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if err := results.CheckWritable(d); err != nil {
			fmt.Fprintf(stderr, "error: --out: %v\n", err)
			return exitUsage
		}
	}
	// A budget that cannot hold one search is refused before any work.
	refused := false
	for _, m := range manifests {
		for _, e := range searcher.CheckMemory(search.Specs(m), budget) {
			fmt.Fprintf(stderr, "error: %s: %v\n", m.File, e)
			refused = true
		}
	}
	if refused {
		return exitUsage
	}
	if !*quiet {
		searcher.Log = lineLogger(stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	status := exitOK
	var all []*search.Result
	for _, m := range manifests {
		specs := search.Specs(m)
		if len(specs) == 0 {
			fmt.Fprintf(stderr, "error: %s: the [search] table selects no mechanism\n", m.File)
			return exitUsage
		}
		found, errs := searcher.SearchAll(ctx, specs, *jobs, budget)
		for _, e := range errs {
			fmt.Fprintf(stderr, "error: %s: %v\n", m.File, e)
			status = exitFailed
		}
		var done []*search.Result
		for _, r := range found {
			if r != nil {
				done = append(done, r)
			}
		}
		all = append(all, done...)
		if !flagMode {
			dir := filepath.Join(*out, m.Name)
			meta := map[string]string{
				"pbuckets.manifest":      m.File,
				"pbuckets.name":          m.Name,
				"pbuckets.title":         m.Title,
				"pbuckets.manifest_hash": m.Hash,
				"pbuckets.version":       version(),
				"pbuckets.complete":      fmt.Sprint(ctx.Err() == nil && len(errs) == 0),
			}
			for file, frame := range map[string]*results.Frame{
				"search.parquet":        search.ResultsFrame(done),
				"search-probes.parquet": search.ProbesFrame(done),
			} {
				path := filepath.Join(dir, file)
				if err := results.WriteParquet(path, frame, meta); err != nil {
					fmt.Fprintf(stderr, "error: %s: %v\n", m.File, err)
					return exitFailed
				}
				if !*quiet {
					fmt.Fprintf(stderr, "wrote %s\n", path)
				}
			}
		}
	}
	if *parquetOut != "" {
		meta := map[string]string{"pbuckets.version": version()}
		if err := results.WriteParquet(*parquetOut, search.ResultsFrame(all), meta); err != nil {
			fmt.Fprintf(stderr, "error: --parquet: %v\n", err)
			return exitFailed
		}
		probes := strings.TrimSuffix(*parquetOut, ".parquet") + "-probes.parquet"
		if err := results.WriteParquet(probes, search.ProbesFrame(all), meta); err != nil {
			fmt.Fprintf(stderr, "error: --parquet: %v\n", err)
			return exitFailed
		}
	}
	if *csvOut != "" {
		var buf bytes.Buffer
		if err := writeCSV(&buf, []*results.Frame{search.ResultsFrame(all)}); err != nil {
			fmt.Fprintf(stderr, "error: --csv: %v\n", err)
			return exitFailed
		}
		if err := os.WriteFile(*csvOut, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "error: --csv: %v\n", err)
			return exitFailed
		}
	}
	if *format == "csv" {
		err = writeCSV(stdout, []*results.Frame{search.ResultsFrame(all)})
	} else {
		err = writeSearchTable(stdout, all)
	}
	return exitAfterOutput(ctx, stderr, err, status, "interrupted: the answers found so far were written; run again to continue (states are cached)")
}

// writeSearchTable prints one line per search: target, the least noise
// meeting it (by the upper bound) and the most noise proved insufficient
// (by the lower bound), each with both bounds, and the bracket.
func writeSearchTable(w io.Writer, results []*search.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "search\tr\te^eps\tdelta\t| meets: factor\tparams\tdelta_up\tdelta_low\t| insufficient: factor\tparams\tdelta_up\tdelta_low\t| bracket\tprobes\tstatus")
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	for _, r := range results {
		s := r.Spec
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s", s.Label, s.R, g(math.Exp(s.Eps)), g(s.Delta))
		// Bounds round outwards (outward.Decimal): delta_up up and
		// delta_low down; the noise that meets the target is an upper
		// bound on the least sufficient noise (up), the noise proved
		// insufficient a lower bound (down), their ratio an upper bound.
		for i, p := range []*search.Probe{r.Meets, r.Insufficient} {
			if p == nil {
				fmt.Fprint(tw, "\t| -\t-\t-\t-")
				continue
			}
			meets := i == 0
			var parts []string
			for _, k := range s.Tie {
				parts = append(parts, k+"="+outward.Decimal(p.Params[k], 5, meets))
			}
			fmt.Fprintf(tw, "\t| %s\t%s\t%s\t%s", outward.Decimal(p.Factor, 4, meets), strings.Join(parts, ","), outward.Upper(p.Upper, 4), outward.Lower(p.Lower, 4))
		}
		fmt.Fprintf(tw, "\t| %s\t%d\t%s\n", outward.Upper(r.Bracket(), 4), len(r.Probes), r.Status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		for _, n := range r.Notes {
			fmt.Fprintf(w, "note: %s r=%d: %s\n", r.Spec.Label, r.Spec.R, n)
		}
	}
	return nil
}
