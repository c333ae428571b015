package runner

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

func TestRunWritesResults(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "m.toml", testfig.Valid)
	fb := &pipelinetest.Fake{}
	rn := &Runner{Backend: fb, Out: filepath.Join(dir, "out"), Jobs: 2, Version: "test"}
	rep, err := rn.Run(context.Background(), []*manifest.Manifest{m})
	if err != nil {
		t.Fatal(err)
	}
	// 3 instances x 2 methods x 4 r; "exact" is not available here.
	if rep.Tasks != 24 || rep.OK != 12 || rep.Skipped != 12 || rep.Failed != 0 {
		t.Fatalf("report %+v", rep)
	}
	delta := pipelinetest.ReadFrame(t, filepath.Join(dir, "out", "t1", "delta.parquet"))
	wantCols := []struct {
		name string
		typ  results.ColumnType
	}{{"mechanism", results.String}, {"compositions", results.Int64}, {"method", results.String}, {"eps", results.Float64}, {"delta_upper", results.Float64}, {"delta_lower", results.Float64}}
	for i, c := range wantCols {
		if got := delta.Columns[i]; got.Name != c.name || got.Type != c.typ {
			t.Errorf("delta column %d = %s/%v, want %s/%v", i, got.Name, got.Type, c.name, c.typ)
		}
	}
	if n := delta.Rows(); n != 3*4*2 {
		t.Errorf("delta rows = %d, want 24", n)
	}
	if got := delta.Column("mechanism").Strings[:3]; !reflect.DeepEqual(got, []string{"g[sigma=2]", "g[sigma=2]", "g[sigma=2]"}) {
		t.Errorf("first mechanisms %v", got)
	}
	eps := pipelinetest.ReadFrame(t, filepath.Join(dir, "out", "t1", "epsilon.parquet"))
	wantEps := []string{"mechanism", "compositions", "method", "delta", "eps_upper", "eps_lower"}
	for i, name := range wantEps {
		if eps.Columns[i].Name != name {
			t.Errorf("epsilon column %d = %s, want %s", i, eps.Columns[i].Name, name)
		}
	}
	if eps.Rows() != 3*4 {
		t.Errorf("epsilon rows = %d, want 12", eps.Rows())
	}
	runs := pipelinetest.ReadFrame(t, filepath.Join(dir, "out", "t1", "runs.parquet"))
	if runs.Rows() != 24 {
		t.Fatalf("runs rows = %d, want 24", runs.Rows())
	}
	for _, name := range []string{"mechanism", "compositions", "method", "params", "buckets", "factor", "infinity_mass", "job_seconds", "note", "manifest_hash", "program_version", "status"} {
		if runs.Column(name) == nil {
			t.Errorf("runs.parquet lacks column %s", name)
		}
	}
	for i := 0; i < runs.Rows(); i++ {
		meth, status, note := runs.Column("method").Strings[i], runs.Column("status").Strings[i], runs.Column("note").Strings[i]
		if meth == manifest.MethodExact && (status != StatusSkipped || !strings.Contains(note, "not available")) {
			t.Errorf("row %d: exact has status %q note %q", i, status, note)
		}
		if meth == manifest.MethodBuckets && status != StatusOK {
			t.Errorf("row %d: buckets has status %q", i, status)
		}
	}
	if got := runs.Column("manifest_hash").Strings[0]; got != m.Hash || len(got) != 64 {
		t.Errorf("manifest hash %q", got)
	}
	// ComposeMany is called once per instance with all r.
	if fb.Calls != 3 {
		t.Errorf("ComposeMany called %d times, want 3", fb.Calls)
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(filepath.Join(dir, "out", "t1"))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestRunDeterministicAndCached(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "m.toml", testfig.Valid)
	out1, out2 := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, out := range []string{out1, out2} {
		if _, err := (&Runner{Backend: &pipelinetest.Fake{}, Out: out, Jobs: 3}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"delta.parquet", "epsilon.parquet"} {
		pipelinetest.FramesEqual(t, pipelinetest.ReadFrame(t, filepath.Join(out1, "t1", f)), pipelinetest.ReadFrame(t, filepath.Join(out2, "t1", f)))
	}
	// A second run in the same folder takes every state from the cache.
	fb := &pipelinetest.Fake{}
	if _, err := (&Runner{Backend: fb, Out: out1, Jobs: 1}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
		t.Fatal(err)
	}
	if n := fb.ComposedCount(); n != 0 {
		t.Errorf("re-run composed %d states, want 0 (cache)", n)
	}
	runs := pipelinetest.ReadFrame(t, filepath.Join(out1, "t1", "runs.parquet"))
	for i := 0; i < runs.Rows(); i++ {
		if runs.Column("method").Strings[i] == manifest.MethodBuckets && !runs.Column("cached").Bools[i] {
			t.Errorf("row %d not marked cached", i)
		}
	}
	pipelinetest.FramesEqual(t, pipelinetest.ReadFrame(t, filepath.Join(out1, "t1", "delta.parquet")), pipelinetest.ReadFrame(t, filepath.Join(out2, "t1", "delta.parquet")))
}

func TestRunResumeRecomputesMissing(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "m.toml", testfig.Valid)
	out := filepath.Join(dir, "out")
	if _, err := (&Runner{Backend: &pipelinetest.Fake{}, Out: out}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
		t.Fatal(err)
	}
	// Lose one cached state, as if the run had crashed before storing it.
	files, _ := filepath.Glob(filepath.Join(out, ".cache", "*", "*.state"))
	if len(files) != 12 {
		t.Fatalf("%d cached states, want 12", len(files))
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	fb := &pipelinetest.Fake{}
	if _, err := (&Runner{Backend: fb, Out: out}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
		t.Fatal(err)
	}
	// The missing state is recomputed, together with the chain's shaping
	// counts (engine.ChainCounts of 1, 2, 4, 8: 1, 2 and the largest, 8,
	// which fixes the automatic factor).
	if n := fb.ComposedCount(); n < 1 || n > 4 {
		t.Errorf("recomputed %d states (%v), want 1 to 4", n, fb.Composed)
	}
}

func TestRunShardsMakeOneDataset(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "m.toml", testfig.Valid)
	full := filepath.Join(dir, "full")
	if _, err := (&Runner{Backend: &pipelinetest.Fake{}, Out: full}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
		t.Fatal(err)
	}
	parts := filepath.Join(dir, "parts")
	const n = 5
	for i := 1; i <= n; i++ {
		rep, err := (&Runner{Backend: &pipelinetest.Fake{}, Out: parts, Shard: Shard{Index: i, Count: n}}).Run(context.Background(), []*manifest.Manifest{m})
		if err != nil {
			t.Fatal(err)
		}
		// The dataset becomes the manifest's when its last part is written.
		_, err = results.ReadIndex(filepath.Join(parts, "t1"))
		if indexed := err == nil; indexed != (i == n) {
			t.Errorf("after part %d of %d: index written %v (%v); notes %q", i, n, indexed, err, rep.Notes)
		}
		if want := map[bool]string{false: "not complete yet: 4-i of 5 parts missing", true: "the dataset is complete"}[i == n]; len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], strings.Replace(want, "4-i", strconv.Itoa(n-i), 1)) {
			t.Errorf("after part %d: notes %q, want one saying %q", i, rep.Notes, want)
		}
	}
	st, err := results.Scan(filepath.Join(parts, "t1"))
	if err != nil || st.Usable() != nil || st.Current.Shards != n || len(st.Stale) != 0 {
		t.Fatalf("scan %+v, %v", st, err)
	}
	for _, name := range []string{"delta", "epsilon", "runs"} {
		want := pipelinetest.ReadFrame(t, filepath.Join(full, "t1", name+".parquet"))
		merged := pipelinetest.ReadParts(t, st.Current.Files[name])
		if merged.Rows() != want.Rows() {
			t.Fatalf("%s: parts hold %d rows, full run %d", name, merged.Rows(), want.Rows())
		}
		pipelinetest.FramesEqual(t, merged, want, "job_seconds", "shard", "cached")
	}
}

// TestRunStaleSetsAreNotMixed checks the layout of issue 14: a sharded run
// of another N, or an unsharded run, in the same folder never mixes its
// files with those of the current dataset, the index names the dataset
// completed last, and the others are reported as stale.
func TestRunStaleSetsAreNotMixed(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "m.toml", testfig.Valid)
	out := filepath.Join(dir, "out")
	res := filepath.Join(out, "t1")
	run := func(i, n int) *Report {
		t.Helper()
		rep, err := (&Runner{Backend: &pipelinetest.Fake{}, Out: out, Shard: Shard{Index: i, Count: n}}).Run(context.Background(), []*manifest.Manifest{m})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	scan := func() *results.Status {
		t.Helper()
		st, err := results.Scan(res)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	for i := 1; i <= 3; i++ {
		run(i, 3)
	}
	// Two of two parts make the 2-way set current; the 3-way set is stale.
	run(1, 2)
	if st := scan(); st.Current.Shards != 3 || len(st.Stale) != 1 || st.Stale[0].Complete() {
		t.Errorf("after part 1 of 2: current %v, stale %v", st.Current.Describe(), st.Stale)
	}
	rep := run(2, 2)
	if st := scan(); st.Usable() != nil || st.Current.Shards != 2 || len(st.Stale) != 1 || st.Stale[0].Shards != 3 {
		t.Errorf("after part 2 of 2: current %v, stale %v", st.Current.Describe(), st.Stale)
	}
	if len(rep.Notes) != 2 || !strings.Contains(rep.Notes[1], "stale") || !strings.Contains(rep.Notes[1], "shards-of-3") {
		t.Errorf("notes %q, want the 3-way set reported stale", rep.Notes)
	}
	// No glob of one folder reads two sets: each has its own.
	for _, pattern := range []string{"*.parquet", "shards-of-2/epsilon*.parquet"} {
		files, _ := filepath.Glob(filepath.Join(res, pattern))
		rows := 0
		for _, f := range files {
			rows += pipelinetest.ReadFrame(t, f).Rows()
		}
		if want := map[string]int{"*.parquet": 0, "shards-of-2/epsilon*.parquet": 12}[pattern]; rows != want {
			t.Errorf("glob %s reads %d rows, want %d", pattern, rows, want)
		}
	}
	// An unsharded run becomes current.
	run(0, 0)
	st := scan()
	if st.Usable() != nil || st.Current.Shards != 0 || len(st.Stale) != 2 {
		t.Errorf("after an unsharded run: current %v, %d stale", st.Current.Describe(), len(st.Stale))
	}
	// A stale part of the right N but another manifest makes the set mixed.
	other := pipelinetest.LoadManifest(t, dir, "m2.toml", strings.Replace(testfig.Valid, `title = "test"`, `title = "changed"`, 1))
	if _, err := (&Runner{Backend: &pipelinetest.Fake{}, Out: out, Shard: Shard{Index: 1, Count: 2}}).Run(context.Background(), []*manifest.Manifest{other}); err != nil {
		t.Fatal(err)
	}
	for _, s := range scan().Stale {
		if s.Shards == 2 && (s.Complete() || !strings.Contains(strings.Join(s.Problems, ";"), "different versions of the manifest")) {
			t.Errorf("2-way set with a part of another manifest: %s", s.Describe())
		}
	}
}

func TestShardSelect(t *testing.T) {
	tasks := make([]Task, 17)
	for i := range tasks {
		tasks[i].R = i
	}
	for _, n := range []int{1, 2, 3, 16, 17, 40} {
		seen := 0
		for i := 1; i <= n; i++ {
			for _, tk := range (Shard{Index: i, Count: n}).Select(tasks) {
				if tk.R != seen {
					t.Fatalf("n=%d: task %d out of order", n, tk.R)
				}
				seen++
			}
		}
		if seen != len(tasks) {
			t.Errorf("n=%d: shards cover %d of %d tasks", n, seen, len(tasks))
		}
	}
	for _, bad := range []string{"0/3", "4/3", "1", "a/b", "1/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	if s, err := ParseShard("2/7"); err != nil || s != (Shard{2, 7}) {
		t.Errorf("ParseShard(2/7) = %v, %v", s, err)
	}
}

const twoMechanisms = `name = "iso"
[engine]
buckets = 2000
[[mechanism]]
id = "bad"
kind = "gauss"
sigma = SIGMA
[[mechanism]]
id = "good"
kind = "gauss"
sigma = 2.0
[query]
compositions = [1, 4]
eps = [0.1]
`

func TestRunFailureIsolated(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "iso.toml", strings.Replace(twoMechanisms, "SIGMA", "13.0", 1))
	rep, err := (&Runner{Backend: &pipelinetest.Fake{}, Out: filepath.Join(dir, "out")}).Run(context.Background(), []*manifest.Manifest{m})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 2 || rep.OK != 2 || len(rep.Failures) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, f := range rep.Failures {
		msg := f.Error()
		for _, want := range []string{"iso.toml", `mechanism "bad"`, "r=", "blew up"} {
			if !strings.Contains(msg, want) {
				t.Errorf("failure %q lacks %q", msg, want)
			}
		}
	}
	delta := pipelinetest.ReadFrame(t, filepath.Join(dir, "out", "iso", "delta.parquet"))
	if delta.Rows() != 2 || delta.Column("mechanism").Strings[0] != "good" {
		t.Errorf("delta rows %d %v", delta.Rows(), delta.Column("mechanism").Strings)
	}
	runs := pipelinetest.ReadFrame(t, filepath.Join(dir, "out", "iso", "runs.parquet"))
	if runs.Column("status").Strings[0] != StatusFailed || !strings.Contains(runs.Column("error").Strings[0], "blew up") {
		t.Errorf("runs row 0: %q %q", runs.Column("status").Strings[0], runs.Column("error").Strings[0])
	}
}

func TestRunBackendRejectsBeforeComputing(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "iso.toml", strings.Replace(twoMechanisms, "SIGMA", "99.0", 1))
	fb := &pipelinetest.Fake{}
	_, err := (&Runner{Backend: fb, Out: filepath.Join(dir, "out")}).Run(context.Background(), []*manifest.Manifest{m})
	var me *manifest.Error
	if !errors.As(err, &me) || me.Line != 4 || !strings.Contains(err.Error(), "iso.toml:4") {
		t.Fatalf("error %v, want a ManifestError at iso.toml:4", err)
	}
	if fb.Calls != 0 {
		t.Error("computed despite invalid input")
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Error("output written despite invalid input")
	}
}

func TestRunRefusesTooLarge(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "iso.toml", strings.Replace(twoMechanisms, "SIGMA", "1.0", 1))
	fb := &pipelinetest.Fake{Memory: 1 << 40}
	rn := &Runner{Backend: fb, Out: filepath.Join(dir, "out"), MemoryBudget: 1 << 30}
	if _, memErrs := rn.Check([]*manifest.Manifest{m}); len(memErrs) != 2 || !strings.Contains(memErrs[0].Error(), "1024.0 GiB") {
		t.Errorf("Check memory errors %v", memErrs)
	}
	// Run refuses the manifest before any work, as invalid input.
	rep, err := rn.Run(context.Background(), []*manifest.Manifest{m})
	if rep != nil || err == nil || !strings.Contains(err.Error(), "more than the 1.0 GiB available") || fb.Calls != 0 {
		t.Errorf("report %+v, error %v, %d calls; want the run refused before computing", rep, err, fb.Calls)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("output written despite a refused budget: %v", err)
	}
}

func TestRunCancelKeepsFinished(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "iso.toml", strings.Replace(twoMechanisms, "SIGMA", "17.0", 1))
	ctx, cancel := context.WithCancel(context.Background())
	fb := &pipelinetest.Fake{}
	done := make(chan struct{})
	var rep *Report
	var err error
	go func() {
		defer close(done)
		rep, err = (&Runner{Backend: fb, Out: filepath.Join(dir, "out"), Jobs: 2}).Run(ctx, []*manifest.Manifest{m})
	}()
	// Wait until both jobs have started, then interrupt.
	deadline := time.Now().Add(5 * time.Second)
	for fb.ComposedCount() < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop after cancellation")
	}
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK != 2 || rep.Cancelled != 2 || rep.Failed != 0 {
		t.Errorf("report %+v", rep)
	}
	delta := pipelinetest.ReadFrame(t, filepath.Join(dir, "out", "iso", "delta.parquet"))
	if delta.Rows() != 2 {
		t.Errorf("finished rows not kept: %d", delta.Rows())
	}
}

// TestShardsComposeWithTheManifestBasis checks that with the automatic
// factor every shard composes up to the manifest's largest r (the factor
// depends on it), so shards compute the states of the unsplit run.
func TestShardsComposeWithTheManifestBasis(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "m.toml", testfig.Valid)
	want := slices.Max(m.Query.Compositions)
	const n = 5
	for i := 1; i <= n; i++ {
		fb := &pipelinetest.Fake{}
		if _, err := (&Runner{Backend: fb, Out: filepath.Join(dir, "out"), Shard: Shard{Index: i, Count: n}}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
			t.Fatal(err)
		}
		if len(fb.Composed) > 0 && slices.Max(fb.Composed) != want {
			t.Errorf("shard %d/%d composed up to r=%d, want the manifest's largest r=%d", i, n, slices.Max(fb.Composed), want)
		}
	}
}

// TestRunFilesReadableByGroup checks that result, index and cache files
// get 0666 less the umask (0644 under umask 022), like the images, so that
// collaborators on a shared file system can read them.
func TestRunFilesReadableByGroup(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "m.toml", testfig.Valid)
	out := filepath.Join(dir, "out")
	for _, shard := range []Shard{{}, {Index: 1, Count: 1}} {
		if _, err := (&Runner{Backend: &pipelinetest.Fake{}, Out: out, Shard: shard}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
			t.Fatal(err)
		}
	}
	kinds := map[string]int{}
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if got := info.Mode().Perm(); got != 0o644 {
			t.Errorf("%s: mode %03o, want 0644", path, got)
		}
		kinds[filepath.Ext(path)]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if kinds[".parquet"] != 6 || kinds[".state"] == 0 || kinds[".json"] != 1 {
		t.Errorf("files seen by extension %v, want 6 parquet, cached states and the index", kinds)
	}
}

// TestRunRefusesUnwritableOut checks that an --out that cannot be written
// is reported before any work, with the folder and the reason, as invalid
// input (no report).
func TestRunRefusesUnwritableOut(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "m.toml", testfig.Valid)
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fb := &pipelinetest.Fake{}
	rep, err := (&Runner{Backend: fb, Out: filepath.Join(file, "out")}).Run(context.Background(), []*manifest.Manifest{m})
	if rep != nil || err == nil || !strings.Contains(err.Error(), "cannot write results to "+filepath.Join(file, "out")) || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("report %v, error %v", rep, err)
	}
	if fb.Calls != 0 {
		t.Errorf("%d compositions before the check", fb.Calls)
	}
}
