package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// helpLine returns the help of flag name in the -h output of a command.
func helpLine(t *testing.T, help, name string) string {
	t.Helper()
	lines := strings.Split(help, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "-"+name+" ") || strings.TrimSpace(l) == "-"+name {
			return l + "\n" + lines[i+1]
		}
	}
	t.Fatalf("no -%s in\n%s", name, help)
	return ""
}

// The help says what each flag is: the mechanism parameters what they
// mean (not "mechanism parameter q", and --dataset-size is not a
// parameter of eps_delta), no backquoted words turned into argument names
// ("-out pbuckets run"), no default said twice.
func TestHelpTexts(t *testing.T) {
	_, _, eps := runCmd(t, "eps", "-h")
	for name, want := range map[string]string{"q": "sampling rate", "sigma": "noise multiplier", "dataset-size": "number of records", "eps0": "eps_delta", "buckets": "-buckets N"} {
		if l := helpLine(t, eps, name); !strings.Contains(l, want) || strings.Contains(l, "mechanism parameter") {
			t.Errorf("eps -h: %s, want %q", l, want)
		}
	}
	if l := helpLine(t, eps, "dataset-size"); strings.Contains(l, "eps_delta") {
		t.Errorf("eps -h: %s", l)
	}
	for _, cmd := range []string{"parts", "plot"} {
		_, _, help := runCmd(t, cmd, "-h")
		if l := helpLine(t, help, "out"); strings.Contains(l, "-out pbuckets") || !strings.Contains(l, "-out string") {
			t.Errorf("%s -h: %s", cmd, l)
		}
	}
	_, _, parts := runCmd(t, "parts", "-h")
	if l := helpLine(t, parts, "shards"); strings.Count(l, "default") > 1 {
		t.Errorf("parts -h: %s", l)
	}
}

// An unknown flag prints a few lines with the flag meant, not the whole
// usage.
func TestUnknownFlag(t *testing.T) {
	code, _, stderr := runCmd(t, "eps", "--kind", "gauss", "--sigam", "2", "--r", "10", "--delta", "1e-5")
	if code != exitUsage || !strings.Contains(stderr, "did you mean --sigma?") || strings.Count(stderr, "\n") > 4 {
		t.Errorf("exit %d, %d lines:\n%s", code, strings.Count(stderr, "\n"), stderr)
	}
	if code, _, stderr := runCmd(t, "run", "--no-cach", example); code != exitUsage || !strings.Contains(stderr, "did you mean --no-cache?") {
		t.Errorf("run --no-cach: exit %d\n%s", code, stderr)
	}
}

// A one-liner caches its states in the user cache folder, not in
// ./results/.cache of wherever it runs; --out puts them in OUT/.cache;
// run --no-cache writes none.
func TestCacheFolders(t *testing.T) {
	dir := t.TempDir()
	exampleAbs, err := filepath.Abs(example)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "xdg"))
	args := []string{"eps", "--kind", "gauss", "--sigma", "2", "--r", "10", "--delta", "1e-5", "--buckets", "2000"}
	if code, _, stderr := runCmd(t, args...); code != exitOK {
		t.Fatalf("eps: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); !os.IsNotExist(err) {
		t.Errorf("eps created ./results: %v", err)
	}
	if states, _ := filepath.Glob(filepath.Join(dir, "xdg", "pbuckets", "states", "*", "*.state")); len(states) != 1 {
		t.Errorf("%d states in the user cache folder, want 1", len(states))
	}
	if code, _, stderr := runCmd(t, append(args, "--out", "o")...); code != exitOK {
		t.Fatalf("eps --out: exit %d\n%s", code, stderr)
	}
	if states, _ := filepath.Glob(filepath.Join(dir, "o", ".cache", "*", "*.state")); len(states) != 1 {
		t.Errorf("%d states in o/.cache, want 1", len(states))
	}
	if code, _, stderr := runCmd(t, "run", "--quiet", "--no-cache", "--out", "r", exampleAbs); code != exitOK {
		t.Fatalf("run --no-cache: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "r", ".cache")); !os.IsNotExist(err) {
		t.Errorf("run --no-cache wrote a cache: %v", err)
	}
}
