package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/methods"
	"github.com/pbuckets/pbuckets/pipeline/query"
)

const epsSynopsis = `--kind KIND [PARAMS] (--r R[,R...] | --epochs E[,E...]) --delta D[,D...] [options]

Prints sound bounds on eps(delta) after r observations of one mechanism,
one line per method, r and delta:

  pbuckets eps --kind sgd --sigma 1.1 --q 0.01 --r 10000 --delta 1e-5
  eps in [5.19246, 5.19274] (delta 1e-05, r 10000, sgd q=0.01 sigma=1.1, buckets, power path at 98304 points, accuracy 0.0001 met in 1 round)

By default the buckets method meets the accuracy target 1e-4 (relative
bracket width (upper - lower)/upper) from a cheap first round: the power
path at the length predicted for the target where that is at most 2^20
points (else at 16384), then the length its rate of narrowing predicts, or
the squaring chain at 100000 buckets for mechanisms without a power path;
each round is chosen by its predicted CPU cost (a model of the path and
size, so the same question gives the same bracket on any machine). A
round predicted above 4 s runs only when at most 8 times the cost so far; otherwise the
best bracket is printed with a note on what meeting the target would
cost. --accuracy sets another target; --buckets N composes by the chain
at N buckets (--buckets 100000: the paper's setting).

A training run is asked in epochs instead of --r: --epochs E is E/q steps
of Poisson sampling, E*dataset_size/batch of fixed-size batches, and E
observations of random_allocation (one an epoch of --steps-per-epoch
steps); epochs that make no whole number of steps are refused.

The mechanism flags are named like the manifest keys (experiments/README.md);
kind eps_delta takes --eps0 and --delta0. --r, --delta, --eps and --e-eps take
comma-separated lists and may be repeated. Composed states are cached in
the user cache folder (~/.cache/pbuckets/states on Linux), or in OUT/.cache
with --out (shared with run and search there), or in --cache DIR.`

const deltaSynopsis = `--kind KIND [PARAMS] (--r R[,R...] | --epochs E[,E...]) (--eps E[,E...] | --e-eps X[,X...]) [options]

Prints sound bounds on delta(eps) after r observations of one mechanism,
one line per method, r and eps:

  pbuckets delta --kind gauss --sigma 2 --r 16 --eps 1
  delta in [0.5098592, 0.5098642] (eps 1, r 16, gauss sensitivity=1 sigma=2 truncate=0, buckets, 4096 buckets, accuracy 0.0001 met in 1 round)

The flags are those of pbuckets eps (see pbuckets eps -h).`

const tprSynopsis = `--kind KIND [PARAMS] (--r R[,R...] | --epochs E[,E...]) --fpr F[,F...] [options]

Prints sound bounds on membership-inference risk after r observations of
one mechanism: the largest true-positive rate any test reaches at each
false-positive rate, over both neighbouring directions (the trade-off
function, certified from the buckets' delta bounds), one line per r and
fpr, with the mu of the Gaussian-DP curve through the upper bound (a
summary of the curve, not a bound):

  pbuckets tpr --kind gauss --sigma 20 --r 100 --fpr 1e-3
  tpr in [0.0047955588, 0.0047955596] (fpr 0.001, r 100, gauss sensitivity=1 sigma=20 truncate=0, buckets, 100000 buckets; mu-GDP 0.5)

The mechanism and engine flags are those of pbuckets eps (see pbuckets eps
-h); only the buckets method answers.`

func cmdTPR(args []string, stdout, stderr io.Writer) int {
	return cmdQuery(queryTPR, args, stdout, stderr)
}

func cmdEps(args []string, stdout, stderr io.Writer) int {
	return cmdQuery(queryEps, args, stdout, stderr)
}

func cmdDelta(args []string, stdout, stderr io.Writer) int {
	return cmdQuery(queryDelta, args, stdout, stderr)
}

// The two questions of the one-line query commands.
const (
	queryEps   = "eps"   // eps(delta)
	queryDelta = "delta" // delta(eps)
	queryTPR   = "tpr"   // the largest TPR at a false-positive rate
)

// queryFlags are the flags of eps and delta beside the mechanism's.
type queryFlags struct {
	deltas, eps, eEps *listFlag[float64]
	fpr               *listFlag[float64]
	// epochs, instead of --r, and what each r is in epochs and steps
	// (manifest.MechanismSpec.Epochs)
	epochs        *listFlag[float64]
	byR           map[int]epochSteps
	methods       *string
	json          *bool
	out, cacheDir *string
	noCache       *bool
	memory        *string
	// cache is the state cache folder (oneLinerCache) and cacheFlag the
	// flag that chose it.
	cache, cacheFlag string
}

// epochSteps is what one r of an --epochs query is: epochs and steps.
type epochSteps struct {
	epochs float64
	steps  int
}

// cmdQuery runs pbuckets eps (what = queryEps) or pbuckets delta: the
// flags' manifest asked with query.Ask, its answer printed.
func cmdQuery(what string, args []string, stdout, stderr io.Writer) int {
	m, qf, budget, status, ok := parseQuery(what, args, stderr)
	if !ok {
		return status
	}
	opt := query.Options{Budget: budget, BeforeCompose: prepareHeap}
	if !*qf.noCache {
		opt.CacheDir = qf.cache
	}
	if acc := m.Mechanisms[0].Engine.Accuracy; acc > 0 && isTerminal(os.Stderr) && stderr == io.Writer(os.Stderr) {
		opt.Round = func(round, size int, unit string) {
			fmt.Fprintf(stderr, "accuracy %g: round %d, %d %s\n", acc, round, size, unit)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ans, err := query.Ask(ctx, m, opt)
	var qe *query.Error
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "interrupted")
		return exitInterrupted
	case errors.As(err, &qe) && qe.Key == "cache":
		fmt.Fprintf(stderr, "error: %s: %v\n", qf.cacheFlag, qe.Err)
		return exitUsage
	case errors.As(err, &qe) && qe.Key == "memory":
		fmt.Fprintf(stderr, "error: %v; lower --buckets or raise --memory\n", qe.Err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailed
	}
	status = exitOK
	for _, p := range ans.Problems {
		word := "note"
		if p.Failed {
			word, status = "error", exitFailed
		}
		if p.R > 0 {
			fmt.Fprintf(stderr, "%s: %s r=%d: %v\n", word, p.Method, p.R, p.Err)
		} else {
			fmt.Fprintf(stderr, "%s: %s: %v\n", word, p.Method, p.Err)
		}
	}
	var answers []queryAnswer
	for _, o := range ans.Outcomes {
		as := queryAnswers(what, o.Method, ans.Instance, o.Outcome, ans.Job, len(qf.eEps.vals) > 0)
		if es, ok := qf.byR[o.R]; ok {
			for i := range as {
				as[i].Epochs, as[i].Steps = es.epochs, es.steps
			}
		}
		answers = append(answers, as...)
	}
	if *qf.json {
		err = writeQueryJSON(stdout, answers)
	} else {
		err = writeQueryText(stdout, answers)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailed
	}
	return status
}

// parseQuery parses the arguments of eps or delta into the manifest of the
// query and the other flags; when ok is false, the problem was reported to
// stderr and the command returns status. Nothing is computed.
func parseQuery(what string, args []string, stderr io.Writer) (m *manifest.Manifest, qf queryFlags, budget int64, status int, ok bool) {
	synopsis := epsSynopsis
	switch what {
	case queryDelta:
		synopsis = deltaSynopsis
	case queryTPR:
		synopsis = tprSynopsis
	}
	fs := newFlagSet(what, synopsis, stderr)
	mf := addMechFlags(fs)
	rs := intList()
	fs.Var(rs, "r", "number(s) of observations r: comma-separated or repeated; 10000, 10_000 or 1e4")
	qf = queryFlags{deltas: floatList(), eps: floatList(), eEps: floatList(), fpr: floatList(), epochs: floatList()}
	fs.Var(qf.epochs, "epochs", "number(s) of epochs, instead of --r: r = epochs/q steps (Poisson), epochs*dataset_size/batch (fixed size), or epochs (random_allocation, whose observation is an epoch)")
	switch what {
	case queryEps:
		fs.Var(qf.deltas, "delta", "delta value(s), in (0, 1): comma-separated or repeated")
	case queryTPR:
		fs.Var(qf.fpr, "fpr", "false-positive rate(s), in (0, 1): comma-separated or repeated")
	default:
		fs.Var(qf.eps, "eps", "eps value(s) (natural log, >= 0): comma-separated or repeated")
		fs.Var(qf.eEps, "e-eps", "e^eps value(s) (>= 1), instead of --eps")
	}
	qf.methods = fs.String("methods", manifest.MethodBuckets, "comma-separated methods: "+strings.Join(manifest.MethodNames(), ", "))
	qf.json = fs.Bool("json", false, "print a JSON array instead of text")
	qf.out = fs.String("out", "results", "results folder: when given, composed states are cached in DIR/.cache")
	qf.cacheDir = fs.String("cache", "", "cache folder (default: DIR/.cache with --out, else the user cache folder, e.g. ~/.cache/pbuckets/states)")
	qf.noCache = fs.Bool("no-cache", false, "neither read nor write cached states")
	qf.memory = fs.String("memory", "", "memory budget, also the Go soft memory limit while computing unless GOMEMLIMIT is set, e.g. 8GiB (default: the machine's available memory)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, qf, 0, usageStatus(err), false
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "error: unexpected argument %q: pbuckets %s takes flags only (for manifests, use pbuckets run)\n", pos[0], what)
		return nil, qf, 0, exitUsage, false
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if len(set) == 0 {
		fs.Usage()
		return nil, qf, 0, exitUsage, false
	}
	if budget, ok = parseMemory(*qf.memory, stderr); !ok {
		return nil, qf, 0, exitUsage, false
	}
	if m, err = queryFlagManifest(what, set, mf, rs, qf); err != nil {
		printErrors(stderr, err)
		return nil, qf, 0, exitUsage, false
	}
	if len(qf.epochs.vals) > 0 {
		qf.byR = epochCompositions(m)
	}
	qf.cache, qf.cacheFlag = oneLinerCache(fs, *qf.out, *qf.cacheDir)
	return m, qf, budget, exitOK, true
}

// queryFlagManifest builds the manifest of a one-line query: the mechanism
// of the flags and a [query] table with the flags' r, delta or eps values
// and methods.
func queryFlagManifest(what string, set map[string]bool, mf *mechFlags, rs *listFlag[int64], qf queryFlags) (*manifest.Manifest, error) {
	var problems flagProblems
	if !set["kind"] {
		problems.add("--kind is required (one of %s)", strings.Join(manifest.Kinds(), ", "))
	}
	mech, engine := mf.tables(set, &problems)
	if what != queryTPR {
		engine = withDefaultTarget(engine, set)
	}
	query := map[string]any{"methods": splitList(*qf.methods)}
	switch {
	case len(rs.vals) > 0 && len(qf.epochs.vals) > 0:
		problems.add("give either --r or --epochs, not both")
	case len(qf.epochs.vals) > 0:
		query["epochs"] = qf.epochs.vals
	case len(rs.vals) == 0:
		problems.add("--r is required (the number of observations, e.g. --r 1000 or --r 100,1000; or --epochs)")
	default:
		query["compositions"] = rs.vals
	}
	switch what {
	case queryEps:
		if len(qf.deltas.vals) == 0 {
			problems.add("--delta is required (eps is bounded at each delta, e.g. --delta 1e-5)")
		} else {
			query["delta"] = qf.deltas.vals
		}
	case queryTPR:
		if len(qf.fpr.vals) == 0 {
			problems.add("--fpr is required (the true-positive rate is bounded at each false-positive rate, e.g. --fpr 1e-3,1e-2)")
		} else {
			query["fpr"] = qf.fpr.vals
		}
	default:
		switch {
		case len(qf.eps.vals) > 0 && len(qf.eEps.vals) > 0:
			problems.add("give either --eps or --e-eps, not both")
		case len(qf.eps.vals) > 0:
			query["eps"] = qf.eps.vals
		case len(qf.eEps.vals) > 0:
			query["e_eps"] = qf.eEps.vals
		default:
			problems.add("--eps (or --e-eps) is required (delta is bounded at each eps, e.g. --eps 1)")
		}
	}
	if len(problems) > 0 {
		return nil, joinProblems(problems)
	}
	doc := map[string]any{"name": what, "mechanism": []map[string]any{mech}, "query": query}
	if engine != nil {
		doc["engine"] = engine
	}
	return parseFlagManifest(doc)
}

// epochCompositions sets the compositions of m's query (of one mechanism
// instance, with query.epochs) to the r its epochs make
// (manifest.Manifest.Compositions) and returns what each r is.
func epochCompositions(m *manifest.Manifest) map[int]epochSteps {
	in := &m.Instances()[0]
	byR := map[int]epochSteps{}
	for _, p := range m.EpochPoints(in) {
		byR[p.R] = epochSteps{p.Epochs, p.Steps}
	}
	m.Query.Compositions = m.Compositions(in)
	return byR
}

// queryAnswer is one line of the output of eps or delta: a bound on eps at
// a delta (or on delta at an eps) after R observations by one method.
type queryAnswer struct {
	Method string             `json:"method"`
	Kind   string             `json:"kind"`
	Label  string             `json:"mechanism"`
	Params map[string]float64 `json:"params"`
	Noise  string             `json:"noise,omitempty"`
	// Sampling and Relation of the subsampled kinds, when not the
	// defaults (poisson, add_remove).
	Sampling string `json:"sampling,omitempty"`
	Relation string `json:"relation,omitempty"`
	R        int    `json:"r"`
	// Epochs and Steps, with --epochs: what R is (steps = R except for
	// random_allocation, whose observation is an epoch).
	Epochs float64 `json:"epochs,omitempty"`
	Steps  int     `json:"steps,omitempty"`
	// Query is "eps" (eps at Delta) or "delta" (delta at Eps).
	Query string `json:"query"`
	// Eps (natural log) and Delta: the query point and the bounds.
	Eps, Delta jsonFloat `json:"-"`
	// FPR is the query point of a tpr query and Mu the mu of the
	// Gaussian-DP curve through the upper bound (a summary).
	FPR, Mu      jsonFloat `json:"-"`
	Upper, Lower jsonFloat `json:"-"`
	EEps         bool      `json:"-"`
	Buckets      int       `json:"buckets,omitempty"`
	// Path is the composition path of an accuracy target's round
	// reported, what composed it: "power" (Buckets is then the transform
	// length), "chain" or "closed form" (one leaf of Buckets buckets); ""
	// without a target.
	Path   string  `json:"path,omitempty"`
	Factor float64 `json:"factor,omitempty"`
	Cached bool    `json:"cached,omitempty"`
	Note   string  `json:"note,omitempty"`
	// Accuracy is what an accuracy target reached (buckets with
	// --accuracy; nil otherwise).
	Accuracy *methods.Accuracy `json:"-"`
}

// jsonFloat is a float64 that encodes NaN (no bound) as null and the
// infinities as 1e999 and -1e999 (dataFloat).
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	text, null := dataFloat(float64(f))
	if null {
		return []byte("null"), nil
	}
	return []byte(text), nil
}

// MarshalJSON adds the query point and the bounds under names that say
// what they are: delta, eps_upper, eps_lower for eps; eps, e_eps,
// delta_upper, delta_lower for delta.
func (a queryAnswer) MarshalJSON() ([]byte, error) {
	type plain queryAnswer
	b, err := json.Marshal(plain(a))
	if err != nil {
		return nil, err
	}
	var extra map[string]jsonFloat
	switch a.Query {
	case queryEps:
		extra = map[string]jsonFloat{"delta": a.Delta, "eps_upper": a.Upper, "eps_lower": a.Lower}
	case queryTPR:
		extra = map[string]jsonFloat{"fpr": a.FPR, "tpr_upper": a.Upper, "tpr_lower": a.Lower, "gdp_mu": a.Mu}
	default:
		extra = map[string]jsonFloat{"eps": a.Eps, "e_eps": jsonFloat(math.Exp(float64(a.Eps))), "delta_upper": a.Upper, "delta_lower": a.Lower}
	}
	if a.Accuracy != nil {
		extra["accuracy"], extra["accuracy_reached"] = jsonFloat(a.Accuracy.Target), jsonFloat(a.Accuracy.Reached)
	}
	e, err := json.Marshal(extra)
	if err != nil {
		return nil, err
	}
	// Splice: {...plain fields..., ...extra...}.
	return append(append(b[:len(b)-1:len(b)-1], ','), e[1:]...), nil
}

// queryAnswers returns the answers of one outcome of a method.
func queryAnswers(what, method string, in manifest.Instance, o methods.Outcome, job methods.Job, eEps bool) []queryAnswer {
	base := queryAnswer{Method: method, Kind: in.Spec.Kind, Label: in.Label, Params: in.Spec.Params, Noise: in.Spec.Noise,
		Sampling: in.Spec.Sampling, Relation: in.Spec.Relation,
		R: o.R, Query: what, EEps: eEps, Buckets: o.Buckets, Factor: o.Factor, Cached: o.Cached, Note: o.Note, Accuracy: o.Accuracy}
	if o.Accuracy != nil {
		base.Path = o.Accuracy.Path
	}
	var out []queryAnswer
	if what == queryTPR {
		for _, b := range o.TPR {
			a := base
			a.FPR, a.Mu, a.Eps, a.Delta = jsonFloat(b.FPR), jsonFloat(b.Mu), jsonFloat(math.NaN()), jsonFloat(math.NaN())
			a.Upper, a.Lower = jsonFloat(b.Upper), jsonFloat(b.Lower)
			out = append(out, a)
		}
		return out
	}
	if what == queryEps {
		for i, d := range job.Delta {
			a := base
			a.Delta, a.Eps = jsonFloat(d), jsonFloat(math.NaN())
			a.Upper, a.Lower = jsonFloat(o.Eps[i].Upper), jsonFloat(o.Eps[i].Lower)
			out = append(out, a)
		}
		return out
	}
	for i, e := range job.Eps {
		a := base
		a.Eps, a.Delta = jsonFloat(e), jsonFloat(math.NaN())
		a.Upper, a.Lower = jsonFloat(o.Delta[i].Upper), jsonFloat(o.Delta[i].Lower)
		out = append(out, a)
	}
	return out
}

func writeQueryJSON(w io.Writer, answers []queryAnswer) error {
	if answers == nil {
		answers = []queryAnswer{}
	}
	b, err := json.MarshalIndent(answers, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// writeQueryText prints one line per answer:
//
//	eps in [5.19254, 5.19263] (delta 1e-05, r 10000, sgd q=0.01 sigma=1.1, buckets, 100000 buckets)
//	eps <= 6.2787 (delta 1e-05, r 10000, sgd q=0.01 sigma=1.1, rdp)
//
// With an accuracy target, the buckets lines say the path and size of the
// round reported and what the target reached ("..., 400000 buckets,
// accuracy 0.0001 met in 3 rounds", "..., power path at 131072 points,
// accuracy 0.0001 met in 2 rounds").
//
// The bracket is rounded outwards (see formatBracket), so the printed
// numbers are bounds too.
func writeQueryText(w io.Writer, answers []queryAnswer) error {
	stopSaid := map[int]string{}
	for _, a := range answers {
		var at string
		if a.Query == queryTPR {
			at = "fpr " + strconv.FormatFloat(float64(a.FPR), 'g', -1, 64)
		} else if a.Query == queryEps {
			at = "delta " + strconv.FormatFloat(float64(a.Delta), 'g', -1, 64)
		} else if a.EEps {
			at = "e^eps " + strconv.FormatFloat(math.Exp(float64(a.Eps)), 'g', 12, 64)
		} else {
			at = "eps " + strconv.FormatFloat(float64(a.Eps), 'g', -1, 64)
		}
		what := fmt.Sprintf("%s %s", a.Label, formatMechParams(a.Params, mechWords(a.Noise, a.Sampling, a.Relation)...))
		if a.Label != a.Kind {
			what = fmt.Sprintf("%s (%s) %s", a.Label, a.Kind, formatMechParams(a.Params, mechWords(a.Noise, a.Sampling, a.Relation)...))
		}
		how := a.Method
		if a.Buckets > 0 {
			how = fmt.Sprintf("%s, %d buckets", a.Method, a.Buckets)
			if a.Accuracy != nil && a.Accuracy.Path == manifest.PathPower {
				how = fmt.Sprintf("%s, power path at %d points", a.Method, a.Buckets)
			}
		}
		if acc := a.Accuracy; acc != nil {
			how += ", " + acc.Short()
		}
		if a.Query == queryTPR && !math.IsNaN(float64(a.Mu)) {
			// a summary of the curve, not a bound: rounded to nearest
			how += "; mu-GDP " + strconv.FormatFloat(float64(a.Mu), 'g', 4, 64)
		}
		rText := observationsText(a.R, manifest.EpochPoint{R: a.R, Epochs: a.Epochs, Steps: a.Steps})
		if _, err := fmt.Fprintf(w, "%s %s (%s, %s, %s, %s)\n", a.Query, formatBracket(float64(a.Lower), float64(a.Upper)), at, rText, what, how); err != nil {
			return err
		}
		// why a bound is trivial or absent (an infinite eps, a lower bound
		// of 0 because no pair the mechanism dominates is known); other
		// notes (closed forms, accuracy rounds) are in --json
		lo, up := float64(a.Lower), float64(a.Upper)
		trivial := lo == 0 || math.IsInf(up, 1) || (a.Query == queryDelta && up >= 1)
		if a.Note != "" && trivial {
			if _, err := fmt.Fprintf(w, "  note: %s\n", a.Note); err != nil {
				return err
			}
		}
		// why an accuracy target was not met (what the next round would
		// cost), once per number of compositions
		if acc := a.Accuracy; acc != nil && !acc.Met && acc.Stop != "" && stopSaid[a.R] != acc.Stop {
			stopSaid[a.R] = acc.Stop
			if _, err := fmt.Fprintf(w, "  note: accuracy %s not met: %s\n", strconv.FormatFloat(acc.Target, 'g', -1, 64), acc.Stop); err != nil {
				return err
			}
		}
	}
	return nil
}

// observationsText renders r and, when p has epochs (p.Epochs > 0), what
// r is in epochs and steps: "r 200", "r 200 steps = 2 epochs" (one
// observation a step), "r 20 = 20 epochs of 1000 steps" (random
// allocation, one observation an epoch).
func observationsText(r int, p manifest.EpochPoint) string {
	text := "r " + strconv.Itoa(r)
	word := "epochs"
	if p.Epochs == 1 {
		word = "epoch"
	}
	switch {
	case p.Epochs > 0 && p.Steps != r: // an observation is an epoch
		text += fmt.Sprintf(" = %g %s of %d steps", p.Epochs, word, p.Steps/r)
	case p.Epochs > 0:
		text += fmt.Sprintf(" steps = %g %s", p.Epochs, word)
	}
	return text
}

// mechWords returns the string settings of a mechanism that are set, as
// "noise=gauss", "sampling=fixed_size", "relation=replace_one".
func mechWords(noise, sampling, relation string) []string {
	var out []string
	for _, kv := range [][2]string{{"noise", noise}, {"sampling", sampling}, {"relation", relation}} {
		if kv[1] != "" {
			out = append(out, kv[0]+"="+kv[1])
		}
	}
	return out
}

// formatMechParams renders the words (mechWords) followed by the
// parameters as "k=v" pairs, sorted by key.
func formatMechParams(params map[string]float64, words ...string) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := append(make([]string, 0, len(keys)+len(words)), words...)
	for _, k := range keys {
		parts = append(parts, k+"="+strconv.FormatFloat(params[k], 'g', -1, 64))
	}
	return strings.Join(parts, " ")
}
