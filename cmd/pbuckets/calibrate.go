package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pbuckets/pbuckets/internal/outward"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/query"
	"github.com/pbuckets/pbuckets/pipeline/results"
	"github.com/pbuckets/pbuckets/pipeline/search"
)

const calibrateSynopsis = `--kind KIND [PARAMS] (--r R[,R...] | --epochs E[,E...]) (--eps E | --e-eps X) --delta D [options]

Finds the least noise meeting a target: the least sigma (scale for Laplace;
mu and scale for Vuvuzela; see --tie) whose sound upper bound gives
delta_up(eps) <= delta after r observations, e.g. for DP-SGD:

  pbuckets calibrate --kind sgd --q 0.01 --r 10000 --eps 3 --delta 1e-5

or, for a whole training run counted in epochs (r as in pbuckets eps -h):

  pbuckets calibrate --kind random_allocation --steps-per-epoch 1000 --epochs 20 --eps 1 --delta 1e-6

It runs the noise search of pbuckets search (bisection in log space,
starting at the value given, or 1) and rounds the answer up to a few
digits; the rounded value is checked by the upper bound again before it is
printed (if it failed, the unrounded answer, itself checked, is printed).
The second line gives the most noise that the lower bound proves
insufficient: the least sufficient noise of the mechanism lies between the
two. Composed states are cached in the user cache folder
(~/.cache/pbuckets/states on Linux), or in OUT/.cache with --out.`

// calibrateRelTol is the default relative tolerance of calibrate's
// bisection (search's default is 0.01).
const calibrateRelTol = 0.002

func cmdCalibrate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("calibrate", calibrateSynopsis, stderr)
	mf := addMechFlags(fs)
	sf := addSearchFlags(fs)
	fs.Lookup("rel-tol").Usage = fmt.Sprintf("stop bisecting when hi/lo <= 1 + rel-tol (default %g)", calibrateRelTol)
	out := fs.String("out", "results", "results folder: when given, composed states are cached in DIR/.cache (default: the user cache folder)")
	noCache := fs.Bool("no-cache", false, "neither read nor write cached states")
	jobs := fs.Int("jobs", runtime.NumCPU(), "number of searches running at once (one per r)")
	memFlag := fs.String("memory", "", "memory budget shared by running searches, e.g. 8GiB (default: the machine's available memory)")
	verbose := fs.Bool("verbose", false, "print every probe on stderr")
	asJSON := fs.Bool("json", false, "print a JSON array instead of text")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageStatus(err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case len(set) == 0:
		fs.Usage()
		return exitUsage
	case len(pos) > 0:
		fmt.Fprintf(stderr, "error: unexpected argument %q: pbuckets calibrate takes flags only (for manifests with [search], use pbuckets search)\n", pos[0])
		return exitUsage
	case !set["kind"]:
		fmt.Fprintf(stderr, "error: --kind is required (one of %s)\n", strings.Join(manifest.Kinds(), ", "))
		return exitUsage
	case *jobs < 1:
		fmt.Fprintf(stderr, "error: --jobs must be at least 1, got %d\n", *jobs)
		return exitUsage
	}
	if set["accuracy"] {
		fmt.Fprintln(stderr, "error: --accuracy: "+errSearchAccuracy)
		return exitUsage
	}
	budget, ok := parseMemory(*memFlag, stderr)
	if !ok {
		return exitUsage
	}
	if !set["rel-tol"] {
		*sf.relTol = calibrateRelTol
		set["rel-tol"] = true
	}
	m, err := searchFlagManifest(set, mf, sf, true)
	if err != nil {
		printErrors(stderr, err)
		return exitUsage
	}
	specs := search.Specs(m)
	be := backend.Engine{}
	searcher := &search.Searcher{Backend: be}
	if !*noCache {
		var flagName string
		searcher.CacheDir, flagName = oneLinerCache(fs, *out, "")
		// The cache must be writable before any work.
		if err := results.CheckWritable(searcher.CacheDir); err != nil {
			fmt.Fprintf(stderr, "error: %s: %v\n", flagName, err)
			return exitUsage
		}
	}
	if errs := searcher.CheckMemory(specs, budget); len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintf(stderr, "error: %v\n", e)
		}
		return exitUsage
	}
	var progress *statusLine
	switch {
	case *verbose:
		searcher.Log = lineLogger(stderr)
	case stderr == io.Writer(os.Stderr) && isTerminal(os.Stderr):
		progress = &statusLine{w: stderr}
		start := time.Now()
		var probes atomic.Int64
		searcher.OnProbe = func(spec search.Spec, p search.Probe) {
			var tied []string
			for _, k := range spec.Tie {
				tied = append(tied, k+" "+strconv.FormatFloat(p.Params[k], 'g', 5, 64))
			}
			progress.show("calibrate r %d: probe %d: %s %s (%s); %.0f s",
				spec.R, probes.Add(1), strings.Join(tied, ", "), p.Verdict(spec.Delta), probeBound(p, spec.Delta), time.Since(start).Seconds())
		}
		progress.show("calibrate: searching %s for r %s (each probe composes r times; Ctrl-C stops, concluding nothing)", strings.Join(specs[0].Tie, ", "), joinR(specs))
	}
	ctx, stop := interruptContext()
	defer stop()
	found, errs := searcher.SearchAll(ctx, specs, *jobs, budget)
	if progress != nil {
		progress.clear()
	}
	if ctx.Err() != nil {
		// An interrupted search concludes nothing: no answer is printed,
		// not even for the searches that ended, whose rounded answers
		// would still need their check.
		fmt.Fprintln(stderr, "interrupted: the search was stopped before it concluded, so nothing is concluded; run again to continue (states are cached)")
		return exitInterrupted
	}
	status := exitOK
	for _, e := range errs {
		fmt.Fprintf(stderr, "error: %v\n", e)
		status = exitFailed
	}
	var answers []query.Calibration
	for _, res := range found {
		if res == nil {
			continue
		}
		c, err := query.Calibrate(ctx, searcher, res)
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "interrupted: the search was stopped before it concluded, so nothing is concluded; run again to continue (states are cached)")
			return exitInterrupted
		}
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			status = exitFailed
			continue
		}
		if c.Meets == nil {
			status = exitFailed
		}
		answers = append(answers, c)
	}
	epochsAt := func(s search.Spec) manifest.EpochPoint {
		p, _ := m.SearchEpochsAt(&manifest.Instance{Spec: s.Mechanism}, s.R)
		return p
	}
	if *asJSON {
		err = writeCalibrationJSON(stdout, answers, epochsAt)
	} else {
		err = writeCalibrationText(stdout, answers, epochsAt)
	}
	return exitAfterOutput(ctx, stderr, err, status, "interrupted")
}

// probeBound is the bound that decided a probe's verdict: delta_up when it
// meets the target, delta_low when it proves it missed, else both.
func probeBound(p search.Probe, delta float64) string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }
	switch {
	case p.Upper <= delta:
		return "delta_up " + g(p.Upper)
	case p.Lower > delta:
		return "delta_low " + g(p.Lower)
	}
	return "delta_low " + g(p.Lower) + ", delta_up " + g(p.Upper)
}

// joinR lists the r of the searches: "10000" or "100, 1000".
func joinR(specs []search.Spec) string {
	rs := make([]string, len(specs))
	for i, s := range specs {
		rs[i] = strconv.Itoa(s.R)
	}
	return strings.Join(rs, ", ")
}

// writeCalibrationText prints, per r, the answer and the noise proved
// insufficient:
//
//	sigma 1.523 meets eps 3, delta 1e-05 after r 10000 (delta_up 9.87e-06; sgd q=0.01; buckets, 100000 buckets)
//	  sigma 1.498 is insufficient (delta_low 1.02e-05 > 1e-05): the least sufficient sigma lies in (1.498, 1.523]
//
// r is named in epochs and steps too when the search gave epochs
// (epochsAt: "after r 20 = 20 epochs of 1000 steps").
func writeCalibrationText(w io.Writer, cs []query.Calibration, epochsAt func(search.Spec) manifest.EpochPoint) error {
	// bounds rounded outwards (3 digits, more where needed to keep their
	// side of the target delta)
	up := func(v, target float64) string { return outward.Against(v, 3, true, target) }
	low := func(v, target float64) string { return outward.Against(v, 3, false, target) }
	for _, c := range cs {
		s := c.Spec
		fixed := fixedParams(s)
		target := fmt.Sprintf("eps %s, delta %s after %s", strconv.FormatFloat(s.Eps, 'g', -1, 64), strconv.FormatFloat(s.Delta, 'g', -1, 64), observationsText(s.R, epochsAt(s)))
		what := fmt.Sprintf("%s %s; buckets, %d buckets", s.Mechanism.Kind, formatMechParams(fixed, mechWords(s.Mechanism.Noise, s.Mechanism.Sampling, s.Mechanism.Relation)...), s.Mechanism.Engine.Buckets)
		if c.Meets == nil {
			top := c.Result.Probes[len(c.Result.Probes)-1]
			fmt.Fprintf(w, "no %s up to %s meets %s (%s)\n", strings.Join(s.Tie, ", "), query.FormatTied(top.Params, s.Tie), target, what)
		} else {
			fmt.Fprintf(w, "%s meets %s (delta_up %s; %s)\n", query.FormatTied(c.Meets, s.Tie), target, up(c.MeetsProbe.Upper, s.Delta), what)
		}
		if c.Insufficient != nil {
			fmt.Fprintf(w, "  %s is insufficient (delta_low %s > %s)", query.FormatTied(c.Insufficient, s.Tie), low(c.InsufficientProbe.Lower, s.Delta), strconv.FormatFloat(s.Delta, 'g', -1, 64))
			if c.Meets != nil && len(s.Tie) == 1 {
				k := s.Tie[0]
				fmt.Fprintf(w, ": the least sufficient %s lies in (%s, %s]", k, strconv.FormatFloat(c.Insufficient[k], 'g', -1, 64), strconv.FormatFloat(c.Meets[k], 'g', -1, 64))
			}
			fmt.Fprintln(w)
		}
		for _, n := range c.Result.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	}
	return nil
}

// fixedParams returns the parameters of the search's mechanism that the
// factor does not multiply.
func fixedParams(s search.Spec) map[string]float64 {
	fixed := map[string]float64{}
	for k, v := range s.Mechanism.Params {
		if !slices.Contains(s.Tie, k) {
			fixed[k] = v
		}
	}
	return fixed
}

// writeCalibrationJSON prints the answers as a JSON array (with epochs
// and steps when the search gave epochs, epochsAt).
func writeCalibrationJSON(w io.Writer, cs []query.Calibration, epochsAt func(search.Spec) manifest.EpochPoint) error {
	type answer struct {
		Kind         string             `json:"kind"`
		Params       map[string]float64 `json:"params"`
		Noise        string             `json:"noise,omitempty"`
		Sampling     string             `json:"sampling,omitempty"`
		Relation     string             `json:"relation,omitempty"`
		Tie          []string           `json:"tie"`
		R            int                `json:"r"`
		Epochs       float64            `json:"epochs,omitempty"`
		Steps        int                `json:"steps,omitempty"`
		Eps          float64            `json:"eps"`
		Delta        float64            `json:"delta"`
		Meets        map[string]float64 `json:"meets"`
		DeltaUpper   jsonFloat          `json:"delta_upper_meets"`
		Rounded      bool               `json:"rounded"`
		Insufficient map[string]float64 `json:"insufficient"`
		DeltaLower   jsonFloat          `json:"delta_lower_insufficient"`
		Buckets      int                `json:"buckets"`
		Status       string             `json:"status"`
		Probes       int                `json:"probes"`
		Notes        []string           `json:"notes,omitempty"`
	}
	out := []answer{}
	for _, c := range cs {
		s := c.Spec
		a := answer{Kind: s.Mechanism.Kind, Params: fixedParams(s), Noise: s.Mechanism.Noise, Sampling: s.Mechanism.Sampling, Relation: s.Mechanism.Relation, Tie: s.Tie, R: s.R, Eps: s.Eps, Delta: s.Delta,
			Meets: c.Meets, Rounded: c.Rounded, Insufficient: c.Insufficient, Buckets: s.Mechanism.Engine.Buckets,
			Status: c.Result.Status, Probes: len(c.Result.Probes), Notes: c.Result.Notes,
			DeltaUpper: jsonFloat(math.NaN()), DeltaLower: jsonFloat(math.NaN())}
		if p := epochsAt(s); p.Epochs > 0 {
			a.Epochs, a.Steps = p.Epochs, p.Steps
		}
		if c.MeetsProbe != nil {
			a.DeltaUpper = jsonFloat(c.MeetsProbe.Upper)
		}
		if c.InsufficientProbe != nil {
			a.DeltaLower = jsonFloat(c.InsufficientProbe.Lower)
		}
		out = append(out, a)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
