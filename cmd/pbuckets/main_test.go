package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

var example = filepath.Join("..", "..", "experiments", "example.toml")

func TestRunExampleAndShow(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "run", "--quiet", "--jobs", "2", example, "--out", out)
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("--quiet printed %q", stdout)
	}
	delta := filepath.Join(out, "example", "delta.parquet")
	code, csv, stderr := runCmd(t, "show", "--format", "csv", delta)
	if code != exitOK {
		t.Fatalf("show: exit %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if !strings.HasPrefix(lines[0], "mechanism,compositions,method,eps,delta_upper,delta_lower") {
		t.Errorf("csv header %q", lines[0])
	}
	if len(lines) != 1+2*7*4*6 { // 2 mechanisms x 7 r x 4 eps x 6 methods
		t.Errorf("csv has %d lines", len(lines))
	}
	code, js, _ := runCmd(t, "show", "--format", "json", filepath.Join(out, "example", "runs.parquet"))
	var rows []map[string]any
	if err := json.Unmarshal([]byte(js), &rows); code != exitOK || err != nil {
		t.Fatalf("json: exit %d, %v", code, err)
	}
	if len(rows) != 2*7*6 || rows[0]["status"] != "ok" {
		t.Errorf("runs: %d rows, first %v", len(rows), rows[0])
	}
	if code, table, _ := runCmd(t, "show", filepath.Join(out, "example", "epsilon.parquet")); code != exitOK || !strings.Contains(table, "eps_upper") {
		t.Errorf("table: exit %d\n%s", code, table)
	}
}

func TestValidate(t *testing.T) {
	code, stdout, stderr := runCmd(t, "validate", example)
	if code != exitOK || !strings.Contains(stdout, "ok: ") {
		t.Errorf("validate example: exit %d\n%s%s", code, stdout, stderr)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bad, bytes.Replace(data, []byte("sigma = 10.0"), []byte("sigam = 10.0"), 1), 0o644)
	code, _, stderr = runCmd(t, "validate", bad)
	if code != exitUsage || !strings.Contains(stderr, "bad.toml:13") || !strings.Contains(stderr, "sigam") {
		t.Errorf("validate bad: exit %d\n%s", code, stderr)
	}
	// run refuses the same manifest before computing anything.
	out := filepath.Join(dir, "out")
	code, _, stderr = runCmd(t, "run", "--out", out, example, bad)
	if code != exitUsage || !strings.Contains(stderr, "sigam") {
		t.Errorf("run bad: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("run wrote results despite an invalid manifest")
	}
}

// A memory budget that cannot hold one task is refused before any work
// (exit 2) by every command that takes --memory.
func TestMemoryBudgetTooSmallRefusedFirst(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	flagMode := []string{"--kind", "gauss", "--sigma", "2", "--r", "10", "--out", out}
	for _, args := range [][]string{
		{"run", "--quiet", "--memory", "1KiB", "--out", out, example},
		{"run", "--quiet", "--memory", "1KB", "--shard", "1/2", "--out", out, example},
		{"validate", "--memory", "1KiB", example},
		append([]string{"eps", "--memory", "1KiB", "--delta", "1e-5"}, flagMode...),
		append([]string{"delta", "--memory", "1KiB", "--eps", "1"}, flagMode...),
		append([]string{"calibrate", "--memory", "1KiB", "--eps", "1", "--delta", "1e-5"}, flagMode...),
		append([]string{"search", "--memory", "1KiB", "--eps", "1", "--delta", "1e-5"}, flagMode...),
	} {
		code, _, stderr := runCmd(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "more than the 1") {
			t.Errorf("%q: exit %d, want %d\n%s", args, code, exitUsage, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "example")); !os.IsNotExist(err) {
		t.Errorf("results written despite a refused budget: %v", err)
	}
	// SI and IEC spellings are accepted.
	for _, size := range []string{"8GB", "8GiB", "8000MB", "8gib"} {
		if code, _, stderr := runCmd(t, "validate", "--memory", size, example); code != exitOK {
			t.Errorf("--memory %s: exit %d\n%s", size, code, stderr)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := [][]string{
		{},
		{"frobnicate"},
		{"run"},
		{"run", "--shard", "0/2", example},
		{"run", "--jobs", "0", example},
		{"run", "--memory", "lots", example},
		{"validate", "--memory", "lots", example},
		{"validate"}, {"show"}, {"plot"},
		{"plot", "--no-such-flag", example},
		{"show", "--format", "xml", "x.parquet"},
		{"run", "--no-such-flag", example},
	}
	for _, args := range tests {
		if code, _, _ := runCmd(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
	for _, cmd := range []string{"run", "show", "validate", "plot"} {
		if code, _, stderr := runCmd(t, cmd, "--help"); code != exitOK || !strings.Contains(stderr, "Usage: pbuckets "+cmd) {
			t.Errorf("%s --help: exit %d, stderr %q", cmd, code, stderr)
		}
	}
	if code, _, _ := runCmd(t, "show", "missing.parquet"); code != exitFailed {
		t.Errorf("show missing file: exit %d", code)
	}
}

func TestShardedRun(t *testing.T) {
	out := t.TempDir()
	for _, s := range []string{"1/2", "2/2"} {
		if code, _, stderr := runCmd(t, "run", "--quiet", "--shard", s, "--out", out, example); code != exitOK {
			t.Fatalf("shard %s: exit %d\n%s", s, code, stderr)
		}
	}
	a := filepath.Join(out, "example", "shards-of-2", "delta-part-1-of-2.parquet")
	b := filepath.Join(out, "example", "shards-of-2", "delta-part-2-of-2.parquet")
	code, csv, stderr := runCmd(t, "show", "--format", "csv", a, b)
	if code != exitOK {
		t.Fatalf("show parts: %s", stderr)
	}
	if n := len(strings.Split(strings.TrimSpace(csv), "\n")); n != 1+2*7*4*6 {
		t.Errorf("parts hold %d lines, want %d", n, 1+2*7*4*6)
	}
	// One part alone is refused, unless --partial; a part with an unsharded
	// run's file always.
	if code, _, stderr := runCmd(t, "show", a); code != exitUsage || !strings.Contains(stderr, "1 of 2 parts missing (2)") {
		t.Errorf("show one part: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "show", "--partial", a); code != exitOK {
		t.Errorf("show --partial one part: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "run", "--quiet", "--out", out, example); code != exitOK {
		t.Fatalf("unsharded run: exit %d\n%s", code, stderr)
	}
	whole := filepath.Join(out, "example", "delta.parquet")
	if code, _, stderr := runCmd(t, "show", "--partial", whole, a, b); code != exitUsage || !strings.Contains(stderr, "mixed sets: an unsharded run with parts of 2") {
		t.Errorf("show an unsharded run with parts: exit %d\n%s", code, stderr)
	}
	// parts names the current dataset (the unsharded run, completed last)
	// and the stale one.
	code, stdout, _ := runCmd(t, "parts", "--out", out, example)
	if code != exitOK || !strings.Contains(stdout, "complete: an unsharded run") || !strings.Contains(stdout, "stale, never read with the dataset: shards-of-2") || !strings.Contains(stdout, "rm -r ") {
		t.Errorf("parts: exit %d\n%s", code, stdout)
	}
	if code, stdout, _ := runCmd(t, "parts", "--out", out, "--shards", "2", example); code != exitFailed || !strings.Contains(stdout, "not the 2 parts expected") {
		t.Errorf("parts --shards 2: exit %d\n%s", code, stdout)
	}
}

// TestUnwritableOut checks that run, search and the one-line commands refuse an --out that cannot
// be written before any work, with the folder and the reason (exit 2).
func TestUnwritableOut(t *testing.T) {
	file := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(file, "results")
	for _, args := range [][]string{
		{"run", "--out", out, example},
		{"search", "--out", out, "--kind", "gauss", "--sigma", "1", "--r", "8", "--e-eps", "2", "--delta", "1e-4"},
		{"eps", "--out", out, "--kind", "gauss", "--sigma", "1", "--r", "8", "--delta", "1e-4"},
		{"delta", "--cache", out, "--kind", "gauss", "--sigma", "1", "--r", "8", "--eps", "1"},
		{"calibrate", "--out", out, "--kind", "gauss", "--r", "8", "--e-eps", "2", "--delta", "1e-4"},
	} {
		code, stdout, stderr := runCmd(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "cannot write results to "+out) || !strings.Contains(stderr, "not a directory") || stdout != "" {
			t.Errorf("%s: exit %d\n%s%s", args[0], code, stdout, stderr)
		}
	}
}
