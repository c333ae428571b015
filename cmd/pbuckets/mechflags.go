package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// The one-line commands (eps, delta, calibrate and search without a
// manifest) describe one mechanism with flags named like the manifest keys.
// They build a manifest's values from the flags and parse them with
// manifest.ParseValues, so that flags are checked exactly like manifests;
// the errors' keys are then rewritten to the flags (flagKey).

// mechFlags holds the flags of one mechanism and of its engine options.
type mechFlags struct {
	kind, name *string
	// params and strings hold the flags of the mechanism keys
	// (manifest.KeyFlags), by flag name.
	params  map[string]*float64
	strings map[string]*string
	// Engine options ([engine] keys).
	buckets, tilts                                *int
	factor, tailBudget, squaring, freeInftyBudget *float64
	noErrorCorrection                             *bool
	// accuracy is the accuracy target (eps and delta only; calibrate and
	// search refuse it, see refuseAccuracy).
	accuracy *float64
}

// addMechFlags registers the mechanism and engine flags on fs.
func addMechFlags(fs *flag.FlagSet) *mechFlags {
	f := &mechFlags{params: map[string]*float64{}, strings: map[string]*string{}}
	f.kind = fs.String("kind", "", manifest.KindHelp())
	f.name = fs.String("name", "", "label of the mechanism in the output (default: the kind)")
	for _, k := range manifest.KeyFlags() {
		if k.Numeric {
			f.params[k.Flag] = fs.Float64(k.Flag, 0, k.Help+" (manifest key "+k.Key+")")
		} else {
			f.strings[k.Flag] = fs.String(k.Flag, "", k.Help)
		}
	}
	f.buckets = intFlag(fs, "buckets", 0, "number of buckets `N` of the squaring chain, e.g. 200000, 200_000 or 2e5 (eps and delta default: none, the accuracy target 1e-4; calibrate, search and tpr: 100000); 0 lets the engine choose per composition between the chain at 100000 buckets and the power path, whichever it predicts cheaper at a bracket at least as tight")
	f.factor = fs.Float64("factor", 0, "bucket factor (default automatic)")
	f.tilts = intFlag(fs, "tilts", 0, "`N` exponential tilts per convolution, 1-5 (default: the engine's, 3)")
	f.tailBudget = fs.Float64("tail-budget", 0, "corner mass the automatic factor may leave, in (0, 1) (default 1e-22)")
	f.squaring = fs.Float64("squaring-threshold", 0, "corner-mass growth that triggers a squaring, > 1 (default 2.2)")
	f.freeInftyBudget = fs.Float64("free-infty-budget", 0, "corner mass below which no squaring is triggered (default: the tail budget)")
	f.noErrorCorrection = fs.Bool("no-error-correction", false, "disable the error correction (no lower bounds)")
	f.accuracy = fs.Float64("accuracy", 0, "target relative width of the brackets, in (0, 1) (eps and delta only; default 1e-4 without --buckets, --factor and --no-error-correction): rounds from a cheap first one (the power path at the length predicted for the target up to 1048576 points, else at 16384, or the chain at 100000 buckets for mechanisms without it; with --buckets, the chain from that count) grow to the size the brackets' rate of narrowing predicts, on the path predicted cheapest, until every bracket meets it, the memory budget ends it or the next round is predicted above 4 s of CPU and 8 times the CPU spent")
	return f
}

// mechFlagNames lists the flags of addMechFlags other than --kind.
func mechFlagNames() []string {
	names := []string{"name", "buckets", "factor", "tilts", "tail-budget", "squaring-threshold", "free-infty-budget", "no-error-correction", "accuracy"}
	for _, k := range manifest.KeyFlags() {
		names = append(names, k.Flag)
	}
	return names
}

// flagProblems collects the problems of flag values found before the
// manifest is parsed.
type flagProblems []error

func (p *flagProblems) add(format string, args ...any) {
	*p = append(*p, fmt.Errorf(format, args...))
}

// finite records a problem if the value of --name is not finite (TOML
// could encode it, but the message would name a manifest key).
func (p *flagProblems) finite(name string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		p.add("--%s must be finite, got %v", name, v)
	}
}

// tables returns the [[mechanism]] table (with id = --name or the kind)
// and the [engine] table (nil when no engine flag is set) of the flags.
func (f *mechFlags) tables(set map[string]bool, problems *flagProblems) (mech, engine map[string]any) {
	name := *f.name
	if name == "" {
		name = *f.kind
	}
	mech = map[string]any{"id": name, "kind": *f.kind}
	for _, k := range manifest.KeyFlags() {
		switch {
		case !set[k.Flag]:
		case k.Numeric:
			v := *f.params[k.Flag]
			problems.finite(k.Flag, v)
			mech[k.Key] = v
		default:
			mech[k.Key] = *f.strings[k.Flag]
		}
	}
	engine = map[string]any{}
	if set["buckets"] {
		engine["buckets"] = *f.buckets
	}
	if set["tilts"] {
		engine["tilts"] = *f.tilts
	}
	for flagName, kv := range map[string]struct {
		key string
		v   float64
	}{"factor": {"factor", *f.factor}, "tail-budget": {"tail_budget", *f.tailBudget},
		"squaring-threshold": {"squaring_threshold", *f.squaring}, "free-infty-budget": {"free_infty_budget", *f.freeInftyBudget},
		"accuracy": {"accuracy", *f.accuracy}} {
		if set[flagName] {
			problems.finite(flagName, kv.v)
			engine[kv.key] = kv.v
		}
	}
	if set["no-error-correction"] {
		engine["error_correction"] = !*f.noErrorCorrection
	}
	if len(engine) == 0 {
		engine = nil
	}
	return mech, engine
}

// defaultAccuracy is the accuracy target of eps and delta without
// --buckets, --accuracy, --factor or --no-error-correction: a relative
// bracket width of 1e-4, met by the refinement from a cheap first round
// (the power path at its predicted length up to 2^20 points, or at 2^14,
// where the mechanism qualifies, the chain
// at 100,000 buckets where it does not).
const defaultAccuracy = 1e-4

// withDefaultTarget returns the [engine] table of eps and delta (engine,
// nil for none) with the default accuracy target: without --buckets,
// --accuracy, --factor and --no-error-correction, buckets = 0 and
// accuracy = defaultAccuracy; with --accuracy and no --buckets, buckets =
// 0 (the refinement starts cheap, not at 100,000 buckets on the chain).
// An explicit --buckets keeps its meaning (the chain at that count, or
// the first round of --accuracy on the chain).
func withDefaultTarget(engine map[string]any, set map[string]bool) map[string]any {
	if set["buckets"] || set["factor"] || set["no-error-correction"] {
		return engine
	}
	if engine == nil {
		engine = map[string]any{}
	}
	engine["buckets"] = 0
	if !set["accuracy"] {
		engine["accuracy"] = defaultAccuracy
	}
	return engine
}

// parseFlagManifest parses doc, the flags' values, as a manifest
// (manifest.ParseValues), so that the flags are checked exactly like a
// manifest. The errors' keys are rewritten to the flags that set them
// (flagKey).
func parseFlagManifest(doc map[string]any) (*manifest.Manifest, error) {
	m, err := manifest.ParseValues("flags", doc)
	if err == nil {
		return m, nil
	}
	var multi interface{ Unwrap() []error }
	list := []error{err}
	if errors.As(err, &multi) {
		list = multi.Unwrap()
	}
	out := make([]error, 0, len(list))
	for _, e := range list {
		var me *manifest.Error
		if !errors.As(e, &me) {
			out = append(out, e)
			continue
		}
		if k := flagKey(me.Key); k != "" {
			out = append(out, fmt.Errorf("%s: %w", k, me.Err))
		} else {
			out = append(out, me.Err)
		}
	}
	return nil, errors.Join(out...)
}

// flagKey returns the flag ("--sigma") that sets the manifest key named in
// an error (`mechanism "sgd": sigma`, "query.delta", "engine.buckets"), or
// "" when no single flag does ("query", "name").
func flagKey(key string) string {
	k := key
	switch {
	case strings.HasPrefix(k, "mechanism"):
		_, after, ok := strings.Cut(k, ": ")
		if !ok {
			return ""
		}
		k = after
		if k == "id" {
			return "--name"
		}
		if f := manifest.FlagOfKey(k); f != "" {
			return "--" + f
		}
	case strings.HasPrefix(k, "query."), strings.HasPrefix(k, "search."), strings.HasPrefix(k, "engine."):
		_, k, _ = strings.Cut(k, ".")
	default:
		return ""
	}
	switch k {
	case "compositions":
		k = "r"
	case "error_correction":
		k = "no-error-correction"
	}
	return "--" + strings.ReplaceAll(k, "_", "-")
}

// listFlag is a flag taking a list of values: comma-separated, repeated, or
// both (--r 1000,10000 --r 100000).
type listFlag[T any] struct {
	vals  []T
	parse func(string) (T, error)
}

func (l *listFlag[T]) String() string {
	parts := make([]string, len(l.vals))
	for i, v := range l.vals {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ",")
}

func (l *listFlag[T]) Set(s string) error {
	if err := checkAmbiguousList(s); err != nil {
		return err
	}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		v, err := l.parse(item)
		if err != nil {
			return err
		}
		l.vals = append(l.vals, v)
	}
	return nil
}

// intList returns a list flag of integers (parseInteger: 10000, 10_000
// or 1e4).
func intList() *listFlag[int64] {
	return &listFlag[int64]{parse: parseInteger}
}

// floatList returns a list flag of finite numbers.
func floatList() *listFlag[float64] {
	return &listFlag[float64]{parse: func(s string) (float64, error) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is not a finite number", s)
		}
		return v, nil
	}}
}

// joinProblems joins the problems found in the flags.
func joinProblems(p flagProblems) error { return errors.Join(p...) }

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
