package main

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/compare"
)

// TestCalibrateGauss calibrates the Gauss mechanism and checks the answer
// against the closed form: the least sigma meeting the target lies in the
// printed bracket (insufficient, meets], the printed sigma is checked by
// the upper bound (delta_up <= delta), and it is rounded to a few digits.
func TestCalibrateGauss(t *testing.T) {
	const r, eps, delta = 16, 1.0, 1e-3
	// The least sigma meeting the target exactly, by bisection on the
	// closed form (delta decreases in sigma).
	lo, hi := 0.5, 20.0
	for hi-lo > 1e-12 {
		mid := (lo + hi) / 2
		c, err := compare.ExactGauss(mid, 1, r)
		if err != nil {
			t.Fatal(err)
		}
		if c.Delta(eps) <= delta {
			hi = mid
		} else {
			lo = mid
		}
	}
	exact := hi
	out := t.TempDir()
	args := []string{"calibrate", "--kind", "gauss", "--r", "16", "--eps", "1", "--delta", "1e-3", "--buckets", "20000", "--out", out}
	code, stdout, stderr := runCmd(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	m := regexp.MustCompile(`^sigma (\S+) meets eps 1, delta 0.001 after r 16 \(delta_up (\S+); gauss sensitivity=1 truncate=0; buckets, 20000 buckets\)\n  sigma (\S+) is insufficient \(delta_low (\S+) > 0.001\): the least sufficient sigma lies in \((\S+), (\S+)\]\n$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("output:\n%s", stdout)
	}
	meets, _ := strconv.ParseFloat(m[1], 64)
	insufficient, _ := strconv.ParseFloat(m[3], 64)
	if !(insufficient < exact && exact <= meets) || meets/insufficient > 1.01 {
		t.Errorf("bracket (%g, %g] does not enclose the exact least sigma %g tightly", insufficient, meets, exact)
	}
	if len(strings.TrimLeft(strings.Replace(m[1], ".", "", 1), "0")) > 4 {
		t.Errorf("answer %s not rounded to 4 digits (rel-tol 0.002)", m[1])
	}
	// JSON, from the cache: the check's delta_up meets the target.
	code, stdout, stderr = runCmd(t, append(args, "--json")...)
	var answers []map[string]any
	if err := json.Unmarshal([]byte(stdout), &answers); code != exitOK || err != nil || len(answers) != 1 {
		t.Fatalf("json: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	a := answers[0]
	if a["meets"].(map[string]any)["sigma"].(float64) != meets || !(a["delta_upper_meets"].(float64) <= delta) || a["rounded"] != true || a["status"] != "ok" {
		t.Errorf("json answer %v", a)
	}
}

func TestCalibrateUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"calibrate"}, "Usage: pbuckets calibrate"},
		{[]string{"calibrate", "--q", "0.01", "--r", "8", "--eps", "1", "--delta", "1e-5"}, "--kind is required"},
		{[]string{"calibrate", "--kind", "sgd", "--r", "8", "--eps", "1", "--delta", "1e-5"}, "--q: missing required key for kind sgd"},
		{[]string{"calibrate", "--kind", "sgd", "--q", "0.01", "--eps", "1", "--delta", "1e-5"}, "--r is required"},
		{[]string{"calibrate", "--kind", "sgd", "--q", "0.01", "--r", "8", "--delta", "1e-5"}, "--e-eps (or --eps) is required"},
		{[]string{"calibrate", "--kind", "sgd", "--q", "0.01", "--r", "8", "--eps", "1"}, "--delta is required"},
		{[]string{"calibrate", "--kind", "randomized_response", "--p", "0.6", "--r", "8", "--eps", "1", "--delta", "1e-5"}, "has no noise parameter to search"},
		{[]string{"calibrate", "--kind", "sgd", "--q", "0.01", "--tie", "q", "--r", "8", "--eps", "1", "--delta", "1e-5"}, `parameter "q" cannot be tied`},
		{[]string{"calibrate", "--kind", "sgd", "--q", "0.01", "--r", "8", "--eps", "1", "--delta", "1e-5", "--rel-tol", "-1"}, "--rel-tol: must be positive"},
		{[]string{"calibrate", "--kind", "sgd", "--q", "0.01", "--r", "8", "--eps", "1", "--delta", "1e-5", "x"}, `unexpected argument "x"`},
		{[]string{"calibrate", "--kind", "sgd", "--q", "0.01", "--r", "8", "--eps", "1", "--delta", "1e-5", "--jobs", "0"}, "--jobs must be at least 1"},
	}
	for _, c := range cases {
		code, _, stderr := runCmd(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant %q", c.args, code, stderr, c.want)
		}
	}
}

// cancelWriter records what is written and cancels a context when a line
// containing at appears: a Ctrl-C at a chosen point of a command.
type cancelWriter struct {
	buf    strings.Builder
	at     string
	cancel context.CancelFunc
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	if strings.Contains(string(p), w.at) {
		w.cancel()
	}
	return len(p), nil
}

// An interrupted calibrate concludes nothing: Ctrl-C after the first probe
// prints no answer (before, "no sigma up to ... meets") and exits 130.
func TestCalibrateInterruptedConcludesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	saved := interruptContext
	interruptContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { interruptContext = saved }()
	stderr := &cancelWriter{at: "probe 1:", cancel: cancel}
	var stdout strings.Builder
	code := run([]string{"calibrate", "--verbose", "--kind", "gauss", "--r", "16", "--eps", "1", "--delta", "1e-3", "--buckets", "2000", "--no-cache"}, &stdout, stderr)
	if code != exitInterrupted || stdout.String() != "" || !strings.Contains(stderr.buf.String(), "nothing is concluded") {
		t.Errorf("exit %d, stdout %q\nstderr:\n%s", code, stdout.String(), stderr.buf.String())
	}
}

// TestCalibrateEpochs checks calibrate --epochs, the noise for a whole
// training run: the epochs make the same searches as the r they stand for
// (random allocation: an observation is an epoch; Poisson: 1/q steps an
// epoch), the lines name r, epochs and steps, and epochs that make no
// whole r, kinds without epochs and --epochs with --r are refused.
func TestCalibrateEpochs(t *testing.T) {
	common := []string{"--eps", "2", "--delta", "1e-5", "--buckets", "4000", "--no-cache"}
	for _, tc := range []struct {
		name         string
		mech         []string
		epochs, r    string
		line         string
		epochs0      float64
		steps0, code int
		err          string
	}{
		{"random allocation", []string{"--kind", "random_allocation", "--steps-per-epoch", "10"}, "3", "3",
			"after r 3 = 3 epochs of 10 steps (", 3, 30, exitOK, ""},
		{"poisson", []string{"--kind", "sgd", "--q", "0.1"}, "2", "20",
			"after r 20 steps = 2 epochs (", 2, 20, exitOK, ""},
		{"fixed size", []string{"--kind", "sgd", "--sampling", "fixed_size", "--batch", "25", "--dataset-size", "100"}, "1", "4",
			"after r 4 steps = 1 epoch (", 1, 4, exitOK, ""},
		{"half an epoch of allocation", []string{"--kind", "random_allocation", "--steps-per-epoch", "10"}, "2.5", "",
			"", 0, 0, exitUsage, "--epochs: mechanism \"random_allocation\": 2.5 epochs are not a whole number"},
		{"steps not whole", []string{"--kind", "sgd", "--q", "0.03"}, "1", "",
			"", 0, 0, exitUsage, "r = 33 is 0.99 epochs, r = 34 is 1.02 epochs"},
		{"no epochs", []string{"--kind", "gauss"}, "1", "",
			"", 0, 0, exitUsage, "has no epochs"},
		{"epochs and r", []string{"--kind", "sgd", "--q", "0.1", "--r", "10"}, "1", "",
			"", 0, 0, exitUsage, "give either --r or --epochs, not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"calibrate"}, tc.mech...), common...)
			code, byEpochs, stderr := runCmd(t, append(args, "--epochs", tc.epochs)...)
			if code != tc.code || !strings.Contains(stderr, tc.err) {
				t.Fatalf("exit %d, want %d; stderr %q lacks %q", code, tc.code, stderr, tc.err)
			}
			if tc.code != exitOK {
				return
			}
			if !strings.Contains(byEpochs, tc.line) {
				t.Errorf("output lacks %q:\n%s", tc.line, byEpochs)
			}
			code, byR, stderr := runCmd(t, append(args, "--r", tc.r)...)
			if code != exitOK {
				t.Fatalf("--r %s: exit %d\n%s", tc.r, code, stderr)
			}
			// The same search: the lines differ only in how r is named.
			if strings.Replace(byEpochs, tc.line, "after r "+tc.r+" (", 1) != byR {
				t.Errorf("--epochs %s\n%s differs from --r %s\n%s", tc.epochs, byEpochs, tc.r, byR)
			}
			code, js, _ := runCmd(t, append(args, "--epochs", tc.epochs, "--json")...)
			var answers []map[string]any
			if err := json.Unmarshal([]byte(js), &answers); code != exitOK || err != nil || len(answers) != 1 ||
				answers[0]["epochs"] != tc.epochs0 || answers[0]["steps"] != float64(tc.steps0) {
				t.Errorf("json: exit %d, %v\n%s", code, err, js)
			}
		})
	}
}
