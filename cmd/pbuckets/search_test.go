package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

func TestSearchFlags(t *testing.T) {
	out := t.TempDir()
	args := []string{"search", "--out", out, "--kind", "gauss", "--sigma", "2", "--r", "16", "--e-eps", "2.718281828459045", "--delta", "1e-3", "--buckets", "4000", "--rel-tol", "0.05"}
	code, stdout, stderr := runCmd(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "meets: factor") || !strings.Contains(stdout, "sigma=") || !strings.Contains(stdout, " ok") {
		t.Errorf("table:\n%s", stdout)
	}
	if !strings.Contains(stderr, "probe 1: factor 1 (sigma=2)") {
		t.Errorf("no progress on stderr:\n%s", stderr)
	}
	// Again, with every state from the cache, as CSV and Parquet.
	pq := filepath.Join(out, "s.parquet")
	code, csv, stderr := runCmd(t, append(args, "--format", "csv", "--quiet", "--parquet", pq)...)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "search,compositions,eps,delta,status,factor_meets") {
		t.Errorf("csv:\n%s", csv)
	}
	f, err := results.ReadParquet(pq)
	if err != nil {
		t.Fatal(err)
	}
	if c := f.Column("computed"); f.Rows() != 1 || c.Ints[0] != 0 {
		t.Errorf("second run computed %v states (want all cached)", c.Ints)
	}
	if _, err := os.Stat(filepath.Join(out, "s-probes.parquet")); err != nil {
		t.Error(err)
	}
}

func TestSearchManifestCommand(t *testing.T) {
	dir := t.TempDir()
	man := testfig.WriteFile(t, dir, "s.toml", `
name = "srch"
[engine]
buckets = 4000
[[mechanism]]
id = "lap"
kind = "laplace"
scale = 4.0
[search]
compositions = [8]
eps = 1.0
delta = 1e-3
rel_tol = 0.05
`)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCmd(t, "search", "--quiet", "--out", out, man)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "lap") {
		t.Errorf("table:\n%s", stdout)
	}
	f, err := results.ReadParquet(filepath.Join(out, "srch", "search.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Rows() != 1 || f.Column("status").Strings[0] != "ok" || f.Column("tie").Strings[0] != "scale" {
		t.Errorf("search.parquet: %d rows", f.Rows())
	}
	up := f.Column("delta_upper_meets").Floats[0]
	lo := f.Column("delta_lower_insufficient").Floats[0]
	if !(up <= 1e-3) || !(lo > 1e-3) {
		t.Errorf("answers: delta_up at meets %g, delta_low at insufficient %g", up, lo)
	}
	if _, err := results.ReadParquet(filepath.Join(out, "srch", "search-probes.parquet")); err != nil {
		t.Error(err)
	}
}

func TestSearchUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"search"}, "Usage: pbuckets search"},
		{[]string{"search", "--kind", "gauss", "--sigma", "1", "--e-eps", "2", "--delta", "1e-4"}, "--r is required"},
		{[]string{"search", "--kind", "gauss", "--sigma", "1", "--r", "8", "--delta", "1e-4"}, "--e-eps (or --eps) is required"},
		{[]string{"search", "--kind", "gauss", "--sigma", "1", "--r", "8", "--e-eps", "2", "--eps", "1", "--delta", "1e-4"}, "not both"},
		{[]string{"search", "--kind", "gauss", "--sigma", "1", "--r", "x", "--e-eps", "2", "--delta", "1e-4"}, `"x" is not an integer`},
		{[]string{"search", "--kind", "gauss", "--sigma", "-1", "--r", "8", "--e-eps", "2", "--delta", "1e-4"}, "sigma: must be positive"},
		{[]string{"search", "--kind", "gauss", "--r", "8", "--e-eps", "2", "--delta", "1e-4"}, "sigma: missing required key"},
		{[]string{"search", "--kind", "gaus", "--sigma", "1", "--r", "8", "--e-eps", "2", "--delta", "1e-4"}, `did you mean "gauss"`},
		{[]string{"search", "--kind", "gauss", "--sigma", "1", "--tie", "mu", "--r", "8", "--e-eps", "2", "--delta", "1e-4"}, `parameter "mu" cannot be tied`},
		{[]string{"search", "--kind", "gauss", "--sigma", "1", "--r", "8", "--e-eps", "2", "--delta", "2"}, "values must be in (0, 1)"},
		{[]string{"search", "--sigma", "1", example}, "--sigma needs --kind"},
		{[]string{"search", example}, "no [search] table"},
		{[]string{"search", "--kind", "gauss", example}, "not both"},
	}
	for _, c := range cases {
		code, _, stderr := runCmd(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant %q", c.args, code, stderr, c.want)
		}
	}
}
