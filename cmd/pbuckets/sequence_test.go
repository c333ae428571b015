package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

// sequencePlots is testfig.Sequence swept over both parts' noise, with a
// heat map of the schedule over them, a delta-eeps figure and a table.
const sequencePlots = testfig.Sequence + `[sweep]
"main.sigma" = [2.0, 3.0]
"warmup.sigma" = [4.0, 5.0]
[[figure]]
id = "hm"
kind = "heatmap"
r = 2
x = "sched.main.sigma"
y = "sched.warmup.sigma"
value = "eps_upper"
delta = 1e-3
[[figure]]
id = "de"
kind = "delta-eeps"
r = 1
mechanisms = ["sched", "const"]
methods = ["buckets", "exact"]
[[figure]]
id = "tab"
kind = "table"
delta = 1e-3
`

// TestSequenceRunValidatePlot runs a manifest of sequences through the
// commands: validate, run, show and plot (a heat map over two parts'
// parameters, a line plot and a table), with nothing skipped.
func TestSequenceRunValidatePlot(t *testing.T) {
	dir := t.TempDir()
	man := testfig.WriteFile(t, dir, "seq.toml", sequencePlots)
	out := filepath.Join(dir, "out")
	// sched: 4 sweep points, const: 2 (warmup is not its part); 3 methods, 2 r.
	if code, stdout, stderr := runCmd(t, "validate", man); code != exitOK || !strings.Contains(stdout, "36 tasks") {
		t.Fatalf("validate: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runCmd(t, "run", "--quiet", "--out", out, man); code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	runs, err := results.ReadParquet(filepath.Join(out, "schedule", "runs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < runs.Rows(); i++ {
		if s := runs.Column("status").Strings[i]; s != "ok" {
			t.Errorf("%s %s r=%d: %s %s", runs.Column("mechanism").Strings[i], runs.Column("method").Strings[i], runs.Column("compositions").Ints[i], s, runs.Column("note").Strings[i])
		}
	}
	code, stdout, stderr := runCmd(t, "plot", "--out", out, man)
	if code != exitOK || strings.Contains(stderr, "no results") {
		t.Fatalf("plot: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, f := range []string{"hm.png", "de.png", "tab.md"} {
		if st, err := os.Stat(filepath.Join(out, "schedule", f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "schedule", "tab.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| sched[main.sigma=3,warmup.sigma=5] |  | main.sensitivity=1 main.sigma=3 main.truncate=0 warmup.sensitivity=1 warmup.sigma=5 warmup.truncate=0 | buckets |") {
		t.Errorf("table:\n%s", md)
	}
	svg, err := os.ReadFile(filepath.Join(out, "schedule", "hm.svg"))
	if err != nil || !strings.Contains(string(svg), "main.sigma") {
		t.Errorf("heat map axis: %v", err)
	}
}
