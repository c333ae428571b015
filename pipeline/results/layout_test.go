package results_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/results"
)

// writeSet writes the delta, epsilon and runs files of the given parts of
// a run sharded n ways (n = 0: unsharded) of manifest hash in dir;
// complete marks the runs as finished.
func writeSet(t *testing.T, dir string, n int, parts []int, hash string, complete bool) {
	t.Helper()
	if n == 0 {
		parts = []int{0}
	}
	for _, i := range parts {
		p := results.Part{Index: i, Count: n}
		meta := map[string]string{results.MetaName: "x", results.MetaHash: hash, results.MetaVersion: "v1",
			results.MetaShard: p.String(), results.MetaComplete: map[bool]string{true: "true", false: "false"}[complete]}
		for _, table := range []string{results.TableDelta, results.TableEpsilon, results.TableRuns} {
			f := &results.Frame{Columns: []*results.Column{{Name: "r", Type: results.Int64, Ints: []int64{int64(i)}}}}
			if err := results.WriteParquet(p.Path(dir, table), f, meta); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestScan checks how a results folder's sets are found and judged.
func TestScan(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		current int    // shards of the current set; -1: none
		problem string // in Usable's error; "" when usable
		stale   int
	}{
		{"unsharded", func(t *testing.T, dir string) { writeSet(t, dir, 0, nil, "h", true) }, 0, "", 0},
		{"interrupted", func(t *testing.T, dir string) { writeSet(t, dir, 0, nil, "h", false) }, 0, "the run was interrupted", 0},
		{"all parts", func(t *testing.T, dir string) { writeSet(t, dir, 3, []int{1, 2, 3}, "h", true) }, 3, "", 0},
		{"missing parts", func(t *testing.T, dir string) { writeSet(t, dir, 4, []int{1, 3}, "h", true) }, 4, "2 of 4 parts missing (2, 4)", 0},
		{"interrupted part", func(t *testing.T, dir string) {
			writeSet(t, dir, 2, []int{1}, "h", true)
			writeSet(t, dir, 2, []int{2}, "h", false)
		}, 2, "part 2 interrupted", 0},
		{"parts of two manifests", func(t *testing.T, dir string) {
			writeSet(t, dir, 2, []int{1}, "aaaa", true)
			writeSet(t, dir, 2, []int{2}, "bbbb", true)
		}, 2, "files of different versions of the manifest", 0},
		{"a table missing in one part", func(t *testing.T, dir string) {
			writeSet(t, dir, 2, []int{1, 2}, "h", true)
			os.Remove(results.Part{Index: 2, Count: 2}.Path(dir, results.TableEpsilon))
		}, 2, "part 2 lacks epsilon", 0},
		{"two sets, no index", func(t *testing.T, dir string) {
			writeSet(t, dir, 0, nil, "h", true)
			writeSet(t, dir, 2, []int{1, 2}, "h", true)
		}, -1, "several result sets and no index", 2},
		{"legacy parts are stale", func(t *testing.T, dir string) {
			writeSet(t, dir, 0, nil, "h", true)
			for _, table := range []string{"delta", "epsilon", "runs"} {
				os.WriteFile(filepath.Join(dir, table+"-part-1-of-2.parquet"), nil, 0o644)
			}
		}, 0, "", 1},
		{"empty", func(t *testing.T, dir string) {}, -1, "no result files", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			st, err := results.Scan(dir)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.current < 0 && st.Current != nil:
				t.Errorf("current %s, want none", st.Current.Describe())
			case tc.current >= 0 && (st.Current == nil || st.Current.Shards != tc.current):
				t.Errorf("current %+v, want %d shards (problem %v)", st.Current, tc.current, st.Problem)
			}
			err = st.Usable()
			if tc.problem == "" && err != nil || tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)) {
				t.Errorf("usable: %v, want %q", err, tc.problem)
			}
			if len(st.Stale) != tc.stale {
				t.Errorf("%d stale sets, want %d", len(st.Stale), tc.stale)
			}
		})
	}
}

// TestIndexChoosesTheCurrentSet checks that the index names the current
// set among several, the others being stale, and that only complete sets
// are indexed.
func TestIndexChoosesTheCurrentSet(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, 0, nil, "h", true)
	writeSet(t, dir, 2, []int{1, 2}, "h", true)
	writeSet(t, dir, 3, []int{1}, "h", true)
	st, _ := results.Scan(dir)
	for _, s := range st.Stale {
		err := results.WriteIndex(dir, s)
		if s.Shards == 3 && err == nil {
			t.Error("an incomplete set was indexed")
		}
		if s.Shards == 2 && err != nil {
			t.Fatal(err)
		}
	}
	st, _ = results.Scan(dir)
	if st.Usable() != nil || st.Current.Shards != 2 || len(st.Stale) != 2 {
		t.Fatalf("current %v, %d stale, %v", st.Current, len(st.Stale), st.Usable())
	}
	idx, err := results.ReadIndex(dir)
	if err != nil || idx.Set != "shards-of-2" || len(idx.Files["delta"]) != 2 || idx.Files["delta"][1] != "shards-of-2/delta-part-2-of-2.parquet" {
		t.Errorf("index %+v, %v", idx, err)
	}
	// An index naming a set that is gone: no dataset.
	os.RemoveAll(results.SetDir(dir, 2))
	if st, _ := results.Scan(dir); st.Usable() == nil || !strings.Contains(st.Usable().Error(), "which is missing") {
		t.Errorf("index of a removed set: %v", st.Usable())
	}
}

// TestCheckFiles checks what `pbuckets show` accepts read together.
func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, 0, nil, "h", true)
	writeSet(t, dir, 3, []int{1, 2, 3}, "h", true)
	other := filepath.Join(dir, "other")
	writeSet(t, other, 3, []int{2}, "zz", true)
	part := func(d string, i int) string { return results.Part{Index: i, Count: 3}.Path(d, "delta") }
	whole := results.Part{}.Path(dir, "delta")
	tests := []struct {
		files   []string
		partial bool
		problem string
	}{
		{[]string{whole}, false, ""},
		{[]string{part(dir, 1), part(dir, 2), part(dir, 3)}, false, ""},
		{[]string{part(dir, 1), part(dir, 3)}, false, "1 of 3 parts missing (2)"},
		{[]string{part(dir, 1), part(dir, 3)}, true, ""},
		{[]string{whole, part(dir, 1)}, true, "mixed sets: an unsharded run with parts of 3"},
		{[]string{part(dir, 1), part(other, 2), part(dir, 3)}, true, "different versions of the manifest"},
		{[]string{part(dir, 1), part(dir, 1), part(dir, 2), part(dir, 3)}, false, "part 1 given more than once"},
	}
	for _, tc := range tests {
		err := results.CheckFiles(tc.files, tc.partial)
		if tc.problem == "" && err != nil || tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)) {
			t.Errorf("%v (partial %v): %v, want %q", tc.files, tc.partial, err, tc.problem)
		}
	}
}
