package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
)

const plotManifest = `name = "plotted"
[engine]
buckets = 2000
[[mechanism]]
id = "gauss"
kind = "gauss"
sigma = 10.0
[query]
compositions = [1, 4]
e_eps = [1.0, 1.5, 2.0]
delta = [1e-3]
[[figure]]
id = "d"
kind = "delta-eeps"
r = 4
[[figure]]
id = "e"
kind = "eeps-r"
delta = 1e-3
`

func TestPlot(t *testing.T) {
	dir := t.TempDir()
	manifest := testfig.WriteFile(t, dir, "m.toml", plotManifest)
	out := filepath.Join(dir, "out")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr string
	}{
		{"before run", []string{"plot", "--out", out, manifest}, exitFailed, nil, "run `pbuckets run"},
		{"run", []string{"run", "--quiet", "--out", out, manifest}, exitOK, nil, ""},
		{"all figures", []string{"plot", "--out", out, manifest}, exitOK, []string{"d.png", "d.svg", "e.png", "e.svg"}, ""},
		{"one figure", []string{"plot", "--out", out, "--figure", "e", manifest}, exitOK, []string{"e.png"}, ""},
		{"unknown figure", []string{"plot", "--out", out, "--figure", "x", manifest}, exitUsage, nil, `no figure with id "x"`},
		{"no manifest", []string{"plot"}, exitUsage, nil, "Usage: pbuckets plot"},
		{"bad manifest", []string{"plot", filepath.Join(dir, "missing.toml")}, exitUsage, nil, "missing.toml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.wantCode, stdout, stderr)
			}
			for _, f := range tc.wantStdout {
				if !strings.Contains(stdout, f) {
					t.Errorf("stdout %q lacks %s", stdout, f)
				}
			}
			if tc.wantStderr != "" && !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.wantStderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(out, "plotted", "d.png")); err != nil {
		t.Fatal(err)
	}
}

// TestPlotShards draws from the parts of a sharded run, and refuses an
// incomplete set of parts.
func TestPlotShards(t *testing.T) {
	dir := t.TempDir()
	manifest := testfig.WriteFile(t, dir, "m.toml", plotManifest)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCmd(t, "run", "--quiet", "--out", out, "--shard", "1/2", manifest); code != exitOK {
		t.Fatalf("shard 1: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "plot", "--out", out, manifest); code != exitFailed || !strings.Contains(stderr, "1 of 2 parts missing (2)") {
		t.Fatalf("plot with one part: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "run", "--quiet", "--out", out, "--shard", "2/2", manifest); code != exitOK {
		t.Fatalf("shard 2: exit %d\n%s", code, stderr)
	}
	if code, stdout, stderr := runCmd(t, "plot", "--out", out, manifest); code != exitOK || !strings.Contains(stdout, "d.png") {
		t.Fatalf("plot: exit %d\n%s%s", code, stdout, stderr)
	}
}
