package main

import (
	"strings"
	"testing"
)

// TestEpsCommandSGDReplaceOne checks the Poisson replace-one pair through
// the one-liner against dp_accounting's PLD accountant (REPLACE_ONE,
// sigma 1.1, q 0.01, r 1000, delta 1e-5: eps 2.477805).
func TestEpsCommandSGDReplaceOne(t *testing.T) {
	code, stdout, stderr := runCmd(t, "eps", "--kind", "sgd", "--sigma", "1.1", "--q", "0.01", "--r", "1000", "--delta", "1e-5",
		"--relation", "replace_one", "--no-cache")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rows := parseBrackets(t, stdout)
	if len(rows) != 1 || !(rows[0][2] <= 2.477805 && 2.477805 <= rows[0][3]) || !strings.Contains(stdout, "relation=replace_one") {
		t.Errorf("bracket does not contain 2.477805 or does not name the relation:\n%s", stdout)
	}
}

// TestEpsCommandFixedSizeBatch checks that --batch and --dataset-size give
// the rate batch/dataset_size: the same bracket as --q when the quotient
// is exact, and a different one from Poisson sampling.
func TestEpsCommandFixedSizeBatch(t *testing.T) {
	run := func(args ...string) [4]float64 {
		t.Helper()
		base := []string{"eps", "--kind", "sgd", "--sigma", "1.5", "--r", "50", "--delta", "1e-5", "--buckets", "20000", "--no-cache"}
		code, stdout, stderr := runCmd(t, append(base, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		rows := parseBrackets(t, stdout)
		if len(rows) != 1 || !(rows[0][2] <= rows[0][3]) {
			t.Fatalf("%v: %s", args, stdout)
		}
		return rows[0]
	}
	for _, rel := range []string{"add_remove", "replace_one"} {
		byBatch := run("--sampling", "fixed_size", "--relation", rel, "--batch", "64", "--dataset-size", "1024")
		byRate := run("--sampling", "fixed_size", "--relation", rel, "--q", "0.0625")
		poisson := run("--relation", rel, "--q", "0.0625")
		if byBatch != byRate {
			t.Errorf("%s: batch 64 of 1024 gives %v, q 0.0625 gives %v", rel, byBatch, byRate)
		}
		// Fixed-size sampling doubles the shift: it must cost more than Poisson.
		if !(byRate[2] > poisson[3]) {
			t.Errorf("%s: fixed size %v not above Poisson %v", rel, byRate, poisson)
		}
	}
}

func TestSubsamplingFlagErrors(t *testing.T) {
	sgd := []string{"eps", "--kind", "sgd", "--sigma", "1", "--r", "8", "--delta", "1e-5"}
	cases := []struct {
		args []string
		want string
	}{
		{append(sgd, "--q", "0.1", "--sampling", "fixedsize"), `--sampling: unknown sampling "fixedsize" (did you mean "fixed_size"?)`},
		{append(sgd, "--q", "0.1", "--relation", "replace"), `--relation: unknown relation "replace"`},
		{append(sgd, "--q", "0.1", "--sampling", "fixed_size", "--batch", "4", "--dataset-size", "8"), "--batch: give either the rate q or batch and dataset_size, not both"},
		{append(sgd, "--batch", "4", "--dataset-size", "8"), `--batch: batch and dataset_size need sampling = "fixed_size"`},
		{append(sgd, "--sampling", "fixed_size", "--batch", "9", "--dataset-size", "8"), "--batch: must be in [1, 8] (the data set size n), got 9"},
		{append(sgd, "--sampling", "fixed_size", "--batch", "2.5", "--dataset-size", "8"), "--batch: must be a positive integer, got 2.5"},
		{append(sgd, "--sampling", "fixed_size", "--dataset-size", "8"), "--dataset-size: give batch too"},
		{sgd, "--q: missing required key for kind sgd"},
		{[]string{"eps", "--kind", "laplace", "--scale", "1", "--relation", "replace_one", "--r", "8", "--delta", "1e-5"}, "--relation: applies to a subsampled Laplace mechanism only"},
		{[]string{"eps", "--kind", "laplace", "--scale", "1", "--q", "0.1", "--truncate", "3", "--r", "8", "--delta", "1e-5"}, "--q: a subsampled Laplace mechanism (q given) cannot be truncated"},
		{[]string{"eps", "--kind", "gauss", "--sigma", "1", "--sampling", "poisson", "--r", "8", "--delta", "1e-5"}, "--sampling: unknown key for kind gauss"},
	}
	for _, c := range cases {
		code, _, stderr := runCmd(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant %q", c.args, code, stderr, c.want)
		}
	}
}
