package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
)

// TestEpsAccuracy: pbuckets eps --accuracy refines the Gauss mechanism
// (sigma 2, truncated at 100, r 64: composed by the chain; the untruncated
// one is one leaf in closed form and meets the target at once) from 8000
// buckets until the eps bracket is within 1e-5 relative, which 8000 buckets
// do not reach, says so on the line, reports the target and the width
// reached in JSON, and a rerun takes every round from the cache.
func TestEpsAccuracy(t *testing.T) {
	out := t.TempDir()
	args := []string{"eps", "--kind", "gauss", "--sigma", "2", "--truncate", "100", "--r", "64", "--delta", "1e-5", "--buckets", "8000", "--out", out}
	code, plain, stderr := runCmd(t, args...)
	if code != exitOK || !strings.Contains(plain, ", 8000 buckets)") {
		t.Fatalf("without --accuracy: exit %d\n%s%s", code, plain, stderr)
	}
	code, text, stderr := runCmd(t, append(args, "--accuracy", "1e-5")...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(text, ", 16000 buckets, accuracy 1e-05 met in 2 rounds)") {
		t.Errorf("text %q: want 16000 buckets, met in 2 rounds", text)
	}
	rows := parseBrackets(t, strings.Replace(text, ", accuracy 1e-05 met in 2 rounds", "", 1))
	if lo, up := rows[0][2], rows[0][3]; !((up-lo)/up <= 1.5e-5) { // printed rounded outwards
		t.Errorf("bracket [%v, %v] is wider than the target", lo, up)
	}
	code, js, stderr := runCmd(t, append(args, "--accuracy", "1e-5", "--json")...)
	if code != exitOK {
		t.Fatalf("json: exit %d\n%s", code, stderr)
	}
	var answers []map[string]any
	if err := json.Unmarshal([]byte(js), &answers); err != nil || len(answers) != 1 {
		t.Fatalf("json %q: %v", js, err)
	}
	a := answers[0]
	reached, _ := a["accuracy_reached"].(float64)
	if a["accuracy"] != 1e-5 || !(reached > 0 && reached <= 1e-5) || a["buckets"] != 16000.0 || a["cached"] != true ||
		a["note"] != "accuracy 1e-05 met at 16000 buckets (2 rounds)" {
		t.Errorf("json answer %v", a)
	}
}

// TestAccuracyFlagErrors: out-of-range targets, a target without lower
// bounds, and the noise searches refuse --accuracy with a message naming
// it.
func TestAccuracyFlagErrors(t *testing.T) {
	dir := t.TempDir()
	manifest := testfig.WriteFile(t, dir, "m.toml", "name = \"m\"\n[[mechanism]]\nid = \"g\"\nkind = \"gauss\"\nsigma = 2.0\n[mechanism.engine]\nerror_correction = false\n[query]\ncompositions = [4]\neps = [1.0]\n")
	searchManifest := testfig.WriteFile(t, dir, "s.toml", "name = \"s\"\n[engine]\naccuracy = 1e-3\n[[mechanism]]\nid = \"g\"\nkind = \"gauss\"\nsigma = 2.0\n[search]\ntie = [\"sigma\"]\ncompositions = [4]\neps = 1.0\ndelta = 1e-5\n")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"eps", "--kind", "gauss", "--sigma", "2", "--r", "4", "--delta", "1e-5", "--accuracy", "1"}, []string{"--accuracy: must be in (0, 1)"}},
		{[]string{"delta", "--kind", "gauss", "--sigma", "2", "--r", "4", "--eps", "1", "--accuracy", "-1e-3"}, []string{"--accuracy: must be in (0, 1)"}},
		{[]string{"eps", "--kind", "gauss", "--sigma", "2", "--r", "4", "--delta", "1e-5", "--accuracy", "1e-3", "--no-error-correction"}, []string{"--accuracy", "lower bounds"}},
		{[]string{"calibrate", "--kind", "sgd", "--q", "0.01", "--r", "100", "--eps", "3", "--delta", "1e-5", "--accuracy", "1e-3"}, []string{"--accuracy: not supported by noise searches"}},
		{[]string{"search", "--kind", "gauss", "--sigma", "2", "--r", "4", "--eps", "1", "--delta", "1e-5", "--accuracy", "1e-3"}, []string{"--accuracy: not supported by noise searches"}},
		{[]string{"search", "--out", dir, searchManifest}, []string{"s.toml", `mechanism "g"`, "not supported by noise searches"}},
		{[]string{"run", "--out", dir, "--accuracy", "1e-3", manifest}, []string{"--accuracy", "m.toml:2", `mechanism "g"`, "error_correction = false"}},
		{[]string{"run", "--out", dir, "--accuracy", "2", manifest}, []string{"--accuracy", "(0, 1)"}},
	}
	for _, tc := range tests {
		code, _, stderr := runCmd(t, tc.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, exitUsage, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, stderr, w)
			}
		}
	}
}

// TestRunAccuracy: pbuckets run --accuracy refines every mechanism of the
// manifest and records the target and the width reached in runs.parquet
// (a truncated Gauss, composed by the chain, as in TestEpsAccuracy).
func TestRunAccuracy(t *testing.T) {
	dir := t.TempDir()
	m := testfig.WriteFile(t, dir, "m.toml", "name = \"m\"\n[engine]\nbuckets = 8000\n[[mechanism]]\nid = \"g\"\nkind = \"gauss\"\nsigma = 2.0\ntruncate = 100.0\n[query]\ncompositions = [64]\ndelta = [1e-5]\n")
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCmd(t, "run", "--quiet", "--out", out, "--accuracy", "1e-5", m); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	code, js, stderr := runCmd(t, "show", "--format", "json", filepath.Join(out, "m", "runs.parquet"))
	var rows []map[string]any
	if err := json.Unmarshal([]byte(js), &rows); code != exitOK || err != nil || len(rows) != 1 {
		t.Fatalf("show: exit %d, %v\n%s", code, err, stderr)
	}
	r := rows[0]
	reached, _ := r["accuracy_reached"].(float64)
	if r["buckets"] != 16000.0 || r["accuracy"] != 1e-5 || !(reached > 0 && reached <= 1e-5) || r["note"] != "accuracy 1e-05 met at 16000 buckets (2 rounds)" {
		t.Errorf("runs row %v", r)
	}
}

// TestShardsMixedAccuracy: parts of one manifest run with different
// --accuracy (the manifest hash does not cover it) are not one dataset:
// the second part does not complete it, and parts, show and plot refuse
// the set with the reason; rerunning the odd part with the same target
// completes it.
func TestShardsMixedAccuracy(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	m := testfig.WriteFile(t, dir, "mix.toml", `name = "mix"
[engine]
buckets = 2000
[[mechanism]]
id = "g"
kind = "gauss"
sigma = 2.0
[[mechanism]]
id = "h"
kind = "gauss"
sigma = 4.0
[query]
compositions = [1, 2]
e_eps = [1.5]
[[figure]]
id = "f"
kind = "delta-eeps"
r = 2
`)
	if code, _, stderr := runCmd(t, "run", "--quiet", "--shard", "1/2", "--accuracy", "0.5", "--out", out, m); code != exitOK {
		t.Fatalf("shard 1: exit %d\n%s", code, stderr)
	}
	code, _, stderr := runCmd(t, "run", "--shard", "2/2", "--out", out, m)
	if code != exitOK || !strings.Contains(stderr, "the dataset is not complete yet") || !strings.Contains(stderr, "different accuracy targets") {
		t.Fatalf("shard 2: exit %d\n%s", code, stderr)
	}
	const why = `parts run with different accuracy targets (pbuckets run --accuracy, which the manifest hash does not cover): "0.5" in`
	code, stdout, _ := runCmd(t, "parts", "--out", out, m)
	if code != exitFailed || !strings.Contains(stdout, why) || !strings.Contains(stdout, `"none" in delta-part-2-of-2.parquet`) {
		t.Errorf("parts: exit %d\n%s", code, stdout)
	}
	set := filepath.Join(out, "mix", "shards-of-2")
	code, _, stderr = runCmd(t, "show", filepath.Join(set, "delta-part-1-of-2.parquet"), filepath.Join(set, "delta-part-2-of-2.parquet"))
	if code != exitUsage || !strings.Contains(stderr, "mixed: "+why) {
		t.Errorf("show: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "plot", "--quiet", "--out", out, m); code == exitOK || !strings.Contains(stderr, why) {
		t.Errorf("plot: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "run", "--quiet", "--shard", "2/2", "--accuracy", "0.5", "--out", out, m); code != exitOK {
		t.Fatalf("shard 2 again: exit %d\n%s", code, stderr)
	}
	if code, stdout, _ := runCmd(t, "parts", "--out", out, m); code != exitOK || !strings.Contains(stdout, "complete") {
		t.Errorf("parts after the rerun: exit %d\n%s", code, stdout)
	}
}
