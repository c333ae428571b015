package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// bracketLine matches a text answer of eps or delta.
var bracketLine = regexp.MustCompile(`^(eps|delta) in \[(\S+), (\S+)\] \((eps|delta|e\^eps) (\S+), r (\d+), .*, (\w+)(, \d+ buckets|, power path at \d+ points)?(, accuracy .*)?\)$`)

// parseBrackets parses the text output of eps or delta into
// [query point, r, lower, upper] per line.
func parseBrackets(t *testing.T, out string) [][4]float64 {
	t.Helper()
	var rows [][4]float64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		m := bracketLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("unexpected line %q", line)
		}
		var row [4]float64
		for i, s := range []string{m[5], m[6], m[2], m[3]} {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			row[i] = v
		}
		rows = append(rows, row)
	}
	return rows
}

// TestEpsDeltaCommandsGauss runs pbuckets eps and delta on the Gauss
// mechanism and checks that every printed bracket encloses the closed form
// (compare.ExactGauss), for several r and query points at once, in text and
// JSON, and that the second run takes every state from the cache.
func TestEpsDeltaCommandsGauss(t *testing.T) {
	const sigma = 2.0
	out := t.TempDir()
	exact := func(r int) *compare.GaussCurve {
		c, err := compare.ExactGauss(sigma, 1, r)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	args := []string{"--kind", "gauss", "--sigma", "2", "--r", "4,16", "--buckets", "20000", "--out", out}
	code, stdout, stderr := runCmd(t, append([]string{"eps", "--delta", "1e-3", "--delta", "1e-6"}, args...)...)
	if code != exitOK {
		t.Fatalf("eps: exit %d\n%s", code, stderr)
	}
	rows := parseBrackets(t, stdout)
	if len(rows) != 4 {
		t.Fatalf("eps printed %d lines, want 4 (2 r x 2 delta):\n%s", len(rows), stdout)
	}
	for _, row := range rows {
		want := exact(int(row[1])).Eps(row[0])
		if !(row[2] <= want && want <= row[3]) || row[3]-row[2] > 1e-3*want {
			t.Errorf("eps at delta %g, r %g: [%g, %g] does not enclose the exact %g tightly", row[0], row[1], row[2], row[3], want)
		}
	}
	code, stdout, stderr = runCmd(t, append([]string{"delta", "--eps", "0.5,1", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("delta: exit %d\n%s", code, stderr)
	}
	var answers []map[string]any
	if err := json.Unmarshal([]byte(stdout), &answers); err != nil {
		t.Fatalf("delta --json: %v\n%s", err, stdout)
	}
	if len(answers) != 4 {
		t.Fatalf("delta --json: %d answers, want 4", len(answers))
	}
	for _, a := range answers {
		r, eps := int(a["r"].(float64)), a["eps"].(float64)
		lo, up := a["delta_lower"].(float64), a["delta_upper"].(float64)
		want := exact(r).Delta(eps)
		if !(lo <= want && want <= up) || up-lo > 1e-4*want {
			t.Errorf("delta at eps %g, r %d: [%g, %g] does not enclose the exact %g tightly", eps, r, lo, up, want)
		}
		if a["cached"] != true {
			t.Errorf("delta after eps: state for r %d not from the cache", r)
		}
	}
	// Methods side by side; exact prints the closed form as its bracket.
	code, stdout, stderr = runCmd(t, append([]string{"delta", "--e-eps", "2", "--methods", "buckets,exact"}, args...)...)
	if code != exitOK || strings.Count(stdout, "\n") != 4 || !strings.Contains(stdout, "(e^eps 2, r 16, gauss sensitivity=1 sigma=2 truncate=0, exact)") {
		t.Errorf("delta --methods buckets,exact: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestEpsCommandSGD is the one-liner of the README: the bracket must
// contain eps = 5.1926 (prv_accountant and dp_accounting agree on 5.1926
// for sigma 1.1, q 0.01, r 10000, delta 1e-5).
func TestEpsCommandSGD(t *testing.T) {
	if testing.Short() {
		t.Skip("composes 10000 rounds to the default accuracy target")
	}
	code, stdout, stderr := runCmd(t, "eps", "--kind", "sgd", "--sigma", "1.1", "--q", "0.01", "--r", "10000", "--delta", "1e-5", "--no-cache")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rows := parseBrackets(t, stdout)
	if len(rows) != 1 || !(rows[0][2] <= 5.1926 && 5.1926 <= rows[0][3]) {
		t.Errorf("bracket does not contain 5.1926:\n%s", stdout)
	}
}

func TestEpsDeltaUsageErrors(t *testing.T) {
	gauss := []string{"--kind", "gauss", "--sigma", "1", "--r", "8"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"eps"}, "Usage: pbuckets eps"},
		{[]string{"delta"}, "Usage: pbuckets delta"},
		{[]string{"eps", "--sigma", "1", "--r", "8", "--delta", "1e-5"}, "--kind is required"},
		{[]string{"eps", "--kind", "gauss", "--sigma", "1", "--delta", "1e-5"}, "--r is required"},
		{append([]string{"eps"}, gauss...), "--delta is required"},
		{append([]string{"delta"}, gauss...), "--eps (or --e-eps) is required"},
		{append([]string{"delta", "--eps", "1", "--e-eps", "2"}, gauss...), "not both"},
		{append([]string{"eps", "--delta", "2"}, gauss...), "--delta: values must be in (0, 1), got 2"},
		{append([]string{"eps", "--delta", "x"}, gauss...), `"x" is not a finite number`},
		{append([]string{"delta", "--eps", "-1"}, gauss...), "--eps: values must be >= 0, got -1"},
		{append([]string{"delta", "--e-eps", "0.5"}, gauss...), "--e-eps: values must be >= 1, got 0.5"},
		{[]string{"eps", "--kind", "gauss", "--sigma", "1", "--r", "0", "--delta", "1e-5"}, "--r: numbers of compositions must be >= 1, got 0"},
		{[]string{"eps", "--kind", "gauss", "--sigma", "1", "--r", "1.5", "--delta", "1e-5"}, `"1.5" is not a whole number`},
		{[]string{"eps", "--kind", "gaus", "--sigma", "1", "--r", "8", "--delta", "1e-5"}, `--kind: unknown kind "gaus" (did you mean "gauss"?)`},
		{[]string{"eps", "--kind", "gauss", "--r", "8", "--delta", "1e-5"}, "--sigma: missing required key for kind gauss"},
		{[]string{"eps", "--kind", "gauss", "--sigma", "-1", "--r", "8", "--delta", "1e-5"}, "--sigma: must be positive and finite, got -1"},
		{[]string{"eps", "--kind", "gauss", "--sigma", "NaN", "--r", "8", "--delta", "1e-5"}, "--sigma must be finite"},
		{[]string{"eps", "--kind", "sgd", "--sigma", "1", "--q", "1.5", "--r", "8", "--delta", "1e-5"}, "--q: must be in (0, 1], got 1.5"},
		{[]string{"eps", "--kind", "sgd", "--sigma", "1", "--q", "0.1", "--scale", "2", "--r", "8", "--delta", "1e-5"}, "--scale: unknown key for kind sgd"},
		{[]string{"eps", "--kind", "eps_delta", "--eps0", "1", "--r", "8", "--delta", "1e-5"}, "--delta0: missing required key for kind eps_delta"},
		{[]string{"eps", "--kind", "vuvuzela_dialing", "--noise", "cauchy", "--mu", "1", "--scale", "1", "--r", "8", "--delta", "1e-5"}, `noise must be "laplace" or "gauss", got "cauchy"`},
		{[]string{"eps", "--kind", "histogram", "--file", "missing.csv", "--r", "8", "--delta", "1e-5"}, "--file: "},
		{append([]string{"eps", "--delta", "1e-5", "--buckets", "7"}, gauss...), "--buckets: must be a multiple of 4"},
		{append([]string{"eps", "--delta", "1e-5", "--tilts", "6"}, gauss...), "--tilts: must be between 1 and 5, got 6"},
		{append([]string{"eps", "--delta", "1e-5", "--factor", "0.5"}, gauss...), "--factor: must be > 1 and finite (or 0 for automatic), got 0.5"},
		{append([]string{"eps", "--delta", "1e-5", "--methods", "bukets"}, gauss...), `--methods: unknown method "bukets" (did you mean "buckets"?)`},
		{append([]string{"eps", "--delta", "1e-5", "--memory", "lots"}, gauss...), "--memory:"},
		{append([]string{"eps", "--delta", "1e-5", "--memory", "1KiB"}, gauss...), "lower --buckets or raise --memory"},
		{append([]string{"eps", "--delta", "1e-5", "--eps", "1"}, gauss...), "flag provided but not defined: -eps"},
		{append([]string{"eps", "--delta", "1e-5", "x.toml"}, gauss...), `unexpected argument "x.toml"`},
	}
	for _, c := range cases {
		code, _, stderr := runCmd(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant %q", c.args, code, stderr, c.want)
		}
	}
}

func TestFlagKey(t *testing.T) {
	cases := []struct{ key, kind, want string }{
		{`mechanism "sgd": sigma`, "sgd", "--sigma"},
		{`mechanism[0]: kind`, "sgdd", "--kind"},
		{`mechanism "x": id`, "gauss", "--name"},
		{`mechanism "eps_delta": eps`, "eps_delta", "--eps0"},
		{`mechanism "eps_delta": delta`, "eps_delta", "--delta0"},
		{`mechanism "v": noise`, "vuvuzela_dialing", "--noise"},
		{"query.compositions", "gauss", "--r"},
		{"query.e_eps", "gauss", "--e-eps"},
		{"search.rel_tol", "gauss", "--rel-tol"},
		{"engine.tail_budget", "gauss", "--tail-budget"},
		{"engine.error_correction", "gauss", "--no-error-correction"},
		{"query", "gauss", ""},
		{"name", "gauss", ""},
		{`mechanism "x"`, "gauss", ""},
	}
	for _, c := range cases {
		if got := flagKey(c.key); got != c.want {
			t.Errorf("flagKey(%q) [kind %s] = %q, want %q", c.key, c.kind, got, c.want)
		}
	}
}

func TestListFlag(t *testing.T) {
	l := intList()
	for _, s := range []string{"1000,10000", " 5 ", "7,,8"} {
		if err := l.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	if got := l.String(); got != "1000,10000,5,7,8" {
		t.Errorf("int list %q", got)
	}
	f := floatList()
	if err := f.Set("1e-5,0.5"); err != nil || len(f.vals) != 2 || f.vals[0] != 1e-5 {
		t.Errorf("float list %v, %v", f.vals, err)
	}
	for _, bad := range []string{"inf", "NaN", "1,x"} {
		if err := floatList().Set(bad); err == nil {
			t.Errorf("float list accepted %q", bad)
		}
	}
}

func TestFormatBracket(t *testing.T) {
	cases := []struct {
		lo, up float64
		want   string
	}{
		{5.192531026751473, 6.505078596301244, "in [5.1925, 6.5051]"},
		{5.19253, 5.19268, "in [5.19252, 5.19269]"}, // 5.19253 is 5.19252999... in binary
		{0.509861660054670, 0.509861660054670, "in [0.509861660054, 0.509861660055]"},
		{math.NaN(), 6.278628767100839, "<= 6.2787"},
		{5.7168, math.Inf(1), "in [5.7168, +Inf]"},
		{0, 1e-5, "in [0, 1.0001e-05]"},
		{1e-300, 1e-300, "in [1e-300, 1.00000000001e-300]"},
	}
	for _, c := range cases {
		if got := formatBracket(c.lo, c.up); got != c.want {
			t.Errorf("formatBracket(%v, %v) = %q, want %q", c.lo, c.up, got, c.want)
		}
	}
}

// TestRoundDecimal checks, with exact rational arithmetic, that the
// printed number is on the right side of x and within one unit of the
// d-th digit, over random magnitudes, signs and digit counts.
func TestRoundDecimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	for i := 0; i < 20000; i++ {
		x := math.Float64frombits(rng.Uint64())
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		if i%3 == 0 { // decimals with few digits, whose rounding is exact
			x = float64(rng.IntN(100000)) * math.Pow(10, float64(rng.IntN(20)-10))
		}
		d := 1 + rng.IntN(15)
		for _, up := range []bool{false, true} {
			s := roundDecimal(x, d, up)
			if s == "+Inf" && up || s == "-Inf" && !up {
				if math.Abs(x) < 1.7e308 {
					t.Fatalf("roundDecimal(%v, %d, %v) = %s", x, d, up, s)
				}
				continue // beyond the largest float64
			}
			got, ok := new(big.Rat).SetString(s)
			if !ok {
				t.Fatalf("roundDecimal(%v, %d, %v) = %q: not a number", x, d, up, s)
			}
			c := got.Cmp(new(big.Rat).SetFloat64(x))
			if up && c < 0 || !up && c > 0 {
				t.Fatalf("roundDecimal(%v, %d, up=%v) = %s is on the wrong side", x, d, up, s)
			}
			v, _ := got.Float64()
			if x != 0 && math.Abs(v-x) > 1.1*math.Pow(10, math.Floor(math.Log10(math.Abs(x)))-float64(d-1)) {
				t.Fatalf("roundDecimal(%v, %d, up=%v) = %s is more than one unit away", x, d, up, s)
			}
		}
	}
}

// TestEpsEveryKind runs pbuckets eps on the mechanisms of
// experiments/all-kinds.toml (one of every kind: TestParseManifestEveryKind),
// each given by the flags of its keys (manifest.FlagOfKey), and checks that
// each prints one sound-looking bracket. A new kind is tested here by its
// entry in that manifest.
func TestEpsEveryKind(t *testing.T) {
	m, err := manifest.Load(filepath.Join("..", "..", "experiments", "all-kinds.toml"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, spec := range m.Mechanisms {
		seen[spec.Kind] = true
		args := []string{"eps", "--kind", spec.Kind, "--r", "4", "--delta", "1e-3", "--buckets", "4000", "--no-cache"}
		for key, v := range spec.Params {
			args = append(args, "--"+manifest.FlagOfKey(key), strconv.FormatFloat(v, 'g', -1, 64))
		}
		for key, v := range map[string]string{"noise": spec.Noise, "file": spec.File, "sampling": spec.Sampling, "relation": spec.Relation} {
			if v != "" {
				args = append(args, "--"+manifest.FlagOfKey(key), v)
			}
		}
		code, stdout, stderr := runCmd(t, args...)
		if code != exitOK {
			t.Errorf("%s: exit %d\n%s", strings.Join(args, " "), code, stderr)
			continue
		}
		rows := parseBrackets(t, stdout)
		if len(rows) != 1 || !(rows[0][2] <= rows[0][3]) || rows[0][2] < 0 {
			t.Errorf("%s: %s", strings.Join(args, " "), stdout)
		}
	}
	for _, kind := range manifest.Kinds() {
		if !seen[kind] {
			t.Errorf("experiments/all-kinds.toml has no mechanism of kind %s", kind)
		}
	}
}

// TestQueryTextNotesAbsentLowerBound checks that the text line says why a
// lower bound is absent (fixed-size add/remove with q = 1 has no worst-case
// instance at a known rate) instead of printing a bare 0.
func TestQueryTextNotesAbsentLowerBound(t *testing.T) {
	code, stdout, stderr := runCmd(t, "eps", "--kind", "sgd", "--sigma", "1", "--q", "1", "--sampling", "fixed_size",
		"--r", "4", "--delta", "1e-5", "--buckets", "4000", "--no-cache")
	if code != exitOK || !strings.Contains(stdout, "eps in [0, ") || !strings.Contains(stdout, "\n  note: no lower bound: fixed-size add/remove") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestTPRCommand checks pbuckets tpr against the exact trade-off curve of
// composed Gaussian mechanisms (mu-GDP: TPR = Phi(Phi^-1(fpr) + mu), Dong,
// Roth, Su 2022): the printed brackets (rounded outwards) and the JSON
// bounds hold it, and a missing --fpr is refused.
func TestTPRCommand(t *testing.T) {
	mu := math.Sqrt(16) / 8 // r 16, sigma 8
	exact := func(fpr float64) float64 {
		z := -math.Sqrt2*math.Erfcinv(2*fpr) + mu
		return 0.5 * math.Erfc(-z/math.Sqrt2)
	}
	args := []string{"tpr", "--kind", "gauss", "--sigma", "8", "--r", "16", "--fpr", "1e-4,0.01,0.3", "--buckets", "8000", "--no-cache"}
	code, stdout, stderr := runCmd(t, args...)
	if code != exitOK || strings.Count(stdout, "\n") != 3 || !strings.Contains(stdout, "(fpr 0.01, r 16, gauss") || !strings.Contains(stdout, "mu-GDP 0.5") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for i, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var lo, up float64
		if _, err := fmt.Sscanf(line, "tpr in [%g, %g]", &lo, &up); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		fpr := []float64{1e-4, 0.01, 0.3}[i]
		if want := exact(fpr); !(lo <= want && want <= up) || up-lo > 1e-4*want {
			t.Errorf("fpr %g: printed [%g, %g] does not hold the exact %g tightly", fpr, lo, up, want)
		}
	}
	code, stdout, stderr = runCmd(t, append(args, "--json")...)
	var answers []map[string]any
	if code != exitOK || json.Unmarshal([]byte(stdout), &answers) != nil || len(answers) != 3 {
		t.Fatalf("--json: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, a := range answers {
		fpr, lo, up := a["fpr"].(float64), a["tpr_lower"].(float64), a["tpr_upper"].(float64)
		if want := exact(fpr); !(lo <= want && want <= up) || a["query"] != "tpr" {
			t.Errorf("--json fpr %g: [%g, %g] misses %g (%v)", fpr, lo, up, want, a)
		}
	}
	if code, _, stderr := runCmd(t, "tpr", "--kind", "gauss", "--sigma", "8", "--r", "16"); code != exitUsage || !strings.Contains(stderr, "--fpr is required") {
		t.Errorf("without --fpr: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "tpr", "--kind", "gauss", "--sigma", "8", "--r", "16", "--fpr", "1.5"); code != exitUsage || !strings.Contains(stderr, "fpr") {
		t.Errorf("--fpr 1.5: exit %d, %s", code, stderr)
	}
}

// TestEpochsFlag checks --epochs: Poisson epochs are 1/q steps each (the
// same bracket as --r), random allocation counts epochs as observations,
// lines and JSON name both, and epochs that are not whole steps, or
// --epochs with --r, are refused.
func TestEpochsFlag(t *testing.T) {
	base := []string{"eps", "--kind", "sgd", "--sigma", "1.1", "--q", "0.01", "--delta", "1e-5", "--buckets", "4000", "--no-cache"}
	code, byEpochs, stderr := runCmd(t, append(base, "--epochs", "2")...)
	if code != exitOK || !strings.Contains(byEpochs, "r 200 steps = 2 epochs") {
		t.Fatalf("--epochs 2: exit %d\n%s%s", code, byEpochs, stderr)
	}
	_, byR, _ := runCmd(t, append(base, "--r", "200")...)
	if strings.SplitN(byEpochs, " (", 2)[0] != strings.SplitN(byR, " (", 2)[0] {
		t.Errorf("--epochs 2 %q differs from --r 200 %q", byEpochs, byR)
	}
	code, stdout, stderr := runCmd(t, "eps", "--kind", "random_allocation", "--sigma", "1", "--steps-per-epoch", "10",
		"--epochs", "3", "--delta", "1e-5", "--buckets", "4000", "--no-cache", "--json")
	var answers []map[string]any
	if code != exitOK || json.Unmarshal([]byte(stdout), &answers) != nil || len(answers) != 1 ||
		answers[0]["r"] != 3.0 || answers[0]["epochs"] != 3.0 || answers[0]["steps"] != 30.0 {
		t.Errorf("random_allocation --epochs 3: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, bad := range [][]string{{"--epochs", "1", "--q", "0.03"}, {"--epochs", "1", "--r", "5"}} {
		args := []string{"eps", "--kind", "sgd", "--sigma", "1", "--delta", "1e-5"}
		if !slices.Contains(bad, "--q") {
			args = append(args, "--q", "0.01")
		}
		if code, _, stderr := runCmd(t, append(args, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", bad, code, exitUsage, stderr)
		}
	}
}

// TestDefaultAccuracyTarget checks the engine options the flags of eps,
// delta and tpr give: the accuracy target 1e-4 from a cheap start
// (buckets 0) by default for eps and delta; an explicit --buckets keeps
// its meaning (the chain at that count, the first round of --accuracy);
// --accuracy alone starts cheap; --factor and --no-error-correction, and
// tpr, keep 100,000 buckets without a target.
func TestDefaultAccuracyTarget(t *testing.T) {
	base := []string{"--kind", "gauss", "--sigma", "2", "--r", "16"}
	for _, c := range []struct {
		name     string
		what     string
		args     []string
		buckets  int
		accuracy float64
	}{
		{"eps default", queryEps, []string{"--delta", "1e-5"}, 0, defaultAccuracy},
		{"delta default", queryDelta, []string{"--eps", "1"}, 0, defaultAccuracy},
		{"explicit buckets", queryEps, []string{"--delta", "1e-5", "--buckets", "100000"}, 100000, 0},
		{"engine's choice", queryEps, []string{"--delta", "1e-5", "--buckets", "0"}, 0, 0},
		{"accuracy alone", queryEps, []string{"--delta", "1e-5", "--accuracy", "1e-3"}, 0, 1e-3},
		{"accuracy from a bucket count", queryEps, []string{"--delta", "1e-5", "--accuracy", "1e-3", "--buckets", "8000"}, 8000, 1e-3},
		{"explicit factor", queryEps, []string{"--delta", "1e-5", "--factor", "1.001"}, 100000, 0},
		{"no error correction", queryDelta, []string{"--eps", "1", "--no-error-correction"}, 100000, 0},
		{"tpr", queryTPR, []string{"--fpr", "1e-3"}, 100000, 0},
	} {
		var stderr strings.Builder
		m, _, _, _, ok := parseQuery(c.what, append(slices.Clone(base), c.args...), &stderr)
		if !ok {
			t.Fatalf("%s: %s", c.name, stderr.String())
		}
		e := m.Mechanisms[0].Engine
		if e.Buckets != c.buckets || e.Accuracy != c.accuracy {
			t.Errorf("%s: buckets %d, accuracy %v; want %d, %v", c.name, e.Buckets, e.Accuracy, c.buckets, c.accuracy)
		}
	}
}
