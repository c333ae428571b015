package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pbuckets/pbuckets/engine"
	"github.com/pbuckets/pbuckets/internal/testfig"
)

func loadTestManifest(t *testing.T, dir, name, content string) *Manifest {
	t.Helper()
	m, err := LoadManifest(testfig.WriteFile(t, dir, name, content))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func readFrame(t *testing.T, path string) *Frame {
	t.Helper()
	f, err := ReadParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRunWritesResults(t *testing.T) {
	dir := t.TempDir()
	m := loadTestManifest(t, dir, "m.toml", validManifest)
	fb := &fakeBackend{}
	rn := &Runner{Backend: fb, Out: filepath.Join(dir, "out"), Jobs: 2, Version: "test"}
	rep, err := rn.Run(context.Background(), []*Manifest{m})
	if err != nil {
		t.Fatal(err)
	}
	// 3 instances x 2 methods x 4 r; "exact" is not available here.
	if rep.Tasks != 24 || rep.OK != 12 || rep.Skipped != 12 || rep.Failed != 0 {
		t.Fatalf("report %+v", rep)
	}
	delta := readFrame(t, filepath.Join(dir, "out", "t1", "delta.parquet"))
	wantCols := []struct {
		name string
		typ  ColumnType
	}{{"mechanism", String}, {"compositions", Int64}, {"method", String}, {"eps", Float64}, {"delta_upper", Float64}, {"delta_lower", Float64}}
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
	eps := readFrame(t, filepath.Join(dir, "out", "t1", "epsilon.parquet"))
	wantEps := []string{"mechanism", "compositions", "method", "delta", "eps_upper", "eps_lower"}
	for i, name := range wantEps {
		if eps.Columns[i].Name != name {
			t.Errorf("epsilon column %d = %s, want %s", i, eps.Columns[i].Name, name)
		}
	}
	if eps.Rows() != 3*4 {
		t.Errorf("epsilon rows = %d, want 12", eps.Rows())
	}
	runs := readFrame(t, filepath.Join(dir, "out", "t1", "runs.parquet"))
	if runs.Rows() != 24 {
		t.Fatalf("runs rows = %d, want 24", runs.Rows())
	}
	for _, name := range []string{"mechanism", "compositions", "method", "params", "buckets", "factor", "infinity_mass", "seconds", "note", "manifest_hash", "program_version", "status"} {
		if runs.Column(name) == nil {
			t.Errorf("runs.parquet lacks column %s", name)
		}
	}
	for i := 0; i < runs.Rows(); i++ {
		meth, status, note := runs.Column("method").Strings[i], runs.Column("status").Strings[i], runs.Column("note").Strings[i]
		if meth == MethodExact && (status != StatusSkipped || !strings.Contains(note, "not available")) {
			t.Errorf("row %d: exact has status %q note %q", i, status, note)
		}
		if meth == MethodBuckets && status != StatusOK {
			t.Errorf("row %d: buckets has status %q", i, status)
		}
	}
	if got := runs.Column("manifest_hash").Strings[0]; got != m.Hash || len(got) != 64 {
		t.Errorf("manifest hash %q", got)
	}
	// ComposeMany is called once per instance with all r.
	if fb.calls != 3 {
		t.Errorf("ComposeMany called %d times, want 3", fb.calls)
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(filepath.Join(dir, "out", "t1"))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func framesEqual(t *testing.T, a, b *Frame, skip ...string) {
	t.Helper()
	if len(a.Columns) != len(b.Columns) {
		t.Fatalf("column counts differ: %d vs %d", len(a.Columns), len(b.Columns))
	}
	for i := range a.Columns {
		ca, cb := *a.Columns[i], *b.Columns[i]
		if contains(skip, ca.Name) {
			continue
		}
		if !reflect.DeepEqual(ca.Strings, cb.Strings) || !reflect.DeepEqual(ca.Ints, cb.Ints) || !reflect.DeepEqual(ca.Bools, cb.Bools) || len(ca.Floats) != len(cb.Floats) {
			t.Fatalf("column %s differs", ca.Name)
		}
		for j := range ca.Floats {
			if ca.Floats[j] != cb.Floats[j] && !(ca.IsNull(j) && cb.IsNull(j)) {
				t.Fatalf("column %s row %d: %v vs %v", ca.Name, j, ca.Floats[j], cb.Floats[j])
			}
		}
	}
}

func TestRunDeterministicAndCached(t *testing.T) {
	dir := t.TempDir()
	m := loadTestManifest(t, dir, "m.toml", validManifest)
	out1, out2 := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, out := range []string{out1, out2} {
		if _, err := (&Runner{Backend: &fakeBackend{}, Out: out, Jobs: 3}).Run(context.Background(), []*Manifest{m}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"delta.parquet", "epsilon.parquet"} {
		framesEqual(t, readFrame(t, filepath.Join(out1, "t1", f)), readFrame(t, filepath.Join(out2, "t1", f)))
	}
	// A second run in the same folder takes every state from the cache.
	fb := &fakeBackend{}
	if _, err := (&Runner{Backend: fb, Out: out1, Jobs: 1}).Run(context.Background(), []*Manifest{m}); err != nil {
		t.Fatal(err)
	}
	if n := fb.composedCount(); n != 0 {
		t.Errorf("re-run composed %d states, want 0 (cache)", n)
	}
	runs := readFrame(t, filepath.Join(out1, "t1", "runs.parquet"))
	for i := 0; i < runs.Rows(); i++ {
		if runs.Column("method").Strings[i] == MethodBuckets && !runs.Column("cached").Bools[i] {
			t.Errorf("row %d not marked cached", i)
		}
	}
	framesEqual(t, readFrame(t, filepath.Join(out1, "t1", "delta.parquet")), readFrame(t, filepath.Join(out2, "t1", "delta.parquet")))
}

func TestRunResumeRecomputesMissing(t *testing.T) {
	dir := t.TempDir()
	m := loadTestManifest(t, dir, "m.toml", validManifest)
	out := filepath.Join(dir, "out")
	if _, err := (&Runner{Backend: &fakeBackend{}, Out: out}).Run(context.Background(), []*Manifest{m}); err != nil {
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
	fb := &fakeBackend{}
	if _, err := (&Runner{Backend: fb, Out: out}).Run(context.Background(), []*Manifest{m}); err != nil {
		t.Fatal(err)
	}
	// The missing state is recomputed, together with the largest r that
	// fixes the automatic factor (unless it is the missing one).
	if n := fb.composedCount(); n < 1 || n > 2 {
		t.Errorf("recomputed %d states (%v), want 1 or 2", n, fb.composed)
	}
}

func TestRunShardsMakeOneDataset(t *testing.T) {
	dir := t.TempDir()
	m := loadTestManifest(t, dir, "m.toml", validManifest)
	full := filepath.Join(dir, "full")
	if _, err := (&Runner{Backend: &fakeBackend{}, Out: full}).Run(context.Background(), []*Manifest{m}); err != nil {
		t.Fatal(err)
	}
	parts := filepath.Join(dir, "parts")
	const n = 5
	for i := 1; i <= n; i++ {
		if _, err := (&Runner{Backend: &fakeBackend{}, Out: parts, Shard: Shard{Index: i, Count: n}}).Run(context.Background(), []*Manifest{m}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"delta", "epsilon", "runs"} {
		want := readFrame(t, filepath.Join(full, "t1", name+".parquet"))
		var merged *Frame
		for i := 1; i <= n; i++ {
			p := filepath.Join(parts, "t1", name+"-part-"+strconv.Itoa(i)+"-of-5.parquet")
			f := readFrame(t, p)
			if merged == nil {
				merged = f
				continue
			}
			for c := range merged.Columns {
				mc, fc := merged.Columns[c], f.Columns[c]
				mc.Strings, mc.Ints, mc.Floats, mc.Bools = append(mc.Strings, fc.Strings...), append(mc.Ints, fc.Ints...), append(mc.Floats, fc.Floats...), append(mc.Bools, fc.Bools...)
				mc.Null = append(mc.Null, fc.Null...)
			}
		}
		if merged.Rows() != want.Rows() {
			t.Fatalf("%s: parts hold %d rows, full run %d", name, merged.Rows(), want.Rows())
		}
		framesEqual(t, merged, want, "seconds", "shard", "cached")
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
	m := loadTestManifest(t, dir, "iso.toml", strings.Replace(twoMechanisms, "SIGMA", "13.0", 1))
	rep, err := (&Runner{Backend: &fakeBackend{}, Out: filepath.Join(dir, "out")}).Run(context.Background(), []*Manifest{m})
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
	delta := readFrame(t, filepath.Join(dir, "out", "iso", "delta.parquet"))
	if delta.Rows() != 2 || delta.Column("mechanism").Strings[0] != "good" {
		t.Errorf("delta rows %d %v", delta.Rows(), delta.Column("mechanism").Strings)
	}
	runs := readFrame(t, filepath.Join(dir, "out", "iso", "runs.parquet"))
	if runs.Column("status").Strings[0] != StatusFailed || !strings.Contains(runs.Column("error").Strings[0], "blew up") {
		t.Errorf("runs row 0: %q %q", runs.Column("status").Strings[0], runs.Column("error").Strings[0])
	}
}

func TestRunBackendRejectsBeforeComputing(t *testing.T) {
	dir := t.TempDir()
	m := loadTestManifest(t, dir, "iso.toml", strings.Replace(twoMechanisms, "SIGMA", "99.0", 1))
	fb := &fakeBackend{}
	_, err := (&Runner{Backend: fb, Out: filepath.Join(dir, "out")}).Run(context.Background(), []*Manifest{m})
	var me *ManifestError
	if !errors.As(err, &me) || me.Line != 4 || !strings.Contains(err.Error(), "iso.toml:4") {
		t.Fatalf("error %v, want a ManifestError at iso.toml:4", err)
	}
	if fb.calls != 0 {
		t.Error("computed despite invalid input")
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Error("output written despite invalid input")
	}
}

func TestRunRefusesTooLarge(t *testing.T) {
	dir := t.TempDir()
	m := loadTestManifest(t, dir, "iso.toml", strings.Replace(twoMechanisms, "SIGMA", "1.0", 1))
	fb := &fakeBackend{memory: 1 << 40}
	rn := &Runner{Backend: fb, Out: filepath.Join(dir, "out"), MemoryBudget: 1 << 30}
	if _, memErrs := rn.Check([]*Manifest{m}); len(memErrs) != 2 || !strings.Contains(memErrs[0].Error(), "1024.0 GiB") {
		t.Errorf("Check memory errors %v", memErrs)
	}
	rep, err := rn.Run(context.Background(), []*Manifest{m})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 4 || fb.calls != 0 {
		t.Errorf("report %+v, %d calls; want all 4 tasks refused before computing", rep, fb.calls)
	}
	if !strings.Contains(rep.Failures[0].Error(), "refused") {
		t.Errorf("failure %v", rep.Failures[0])
	}
}

func TestRunCancelKeepsFinished(t *testing.T) {
	dir := t.TempDir()
	m := loadTestManifest(t, dir, "iso.toml", strings.Replace(twoMechanisms, "SIGMA", "17.0", 1))
	ctx, cancel := context.WithCancel(context.Background())
	fb := &fakeBackend{}
	done := make(chan struct{})
	var rep *Report
	var err error
	go func() {
		defer close(done)
		rep, err = (&Runner{Backend: fb, Out: filepath.Join(dir, "out"), Jobs: 2}).Run(ctx, []*Manifest{m})
	}()
	// Wait until both jobs have started, then interrupt.
	deadline := time.Now().Add(5 * time.Second)
	for fb.composedCount() < 4 && time.Now().Before(deadline) {
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
	delta := readFrame(t, filepath.Join(dir, "out", "iso", "delta.parquet"))
	if delta.Rows() != 2 {
		t.Errorf("finished rows not kept: %d", delta.Rows())
	}
}

// TestShardsComposeWithTheManifestBasis checks that with the automatic
// factor every shard composes up to the manifest's largest r (the factor
// depends on it), so shards compute the states of the unsplit run.
func TestShardsComposeWithTheManifestBasis(t *testing.T) {
	dir := t.TempDir()
	m := loadTestManifest(t, dir, "m.toml", validManifest)
	want := slices.Max(m.Query.Compositions)
	const n = 5
	for i := 1; i <= n; i++ {
		fb := &fakeBackend{}
		if _, err := (&Runner{Backend: fb, Out: filepath.Join(dir, "out"), Shard: Shard{Index: i, Count: n}}).Run(context.Background(), []*Manifest{m}); err != nil {
			t.Fatal(err)
		}
		if len(fb.composed) > 0 && slices.Max(fb.composed) != want {
			t.Errorf("shard %d/%d composed up to r=%d, want the manifest's largest r=%d", i, n, slices.Max(fb.composed), want)
		}
	}
}

// TestStateKeyIncludesBackendVersion checks that states cached by another
// build of the engine are not reused.
func TestStateKeyIncludesBackendVersion(t *testing.T) {
	mech := fakeMech{desc: "x"}
	a := stateKey("engine-a", mech, MechanismSpec{}, EngineOptions{}, 4, 4)
	b := stateKey("engine-b", mech, MechanismSpec{}, EngineOptions{}, 4, 4)
	if a == b {
		t.Fatal("stateKey ignores the backend version")
	}
	if v := backendVersion(EngineBackend{}); !strings.HasPrefix(v, engine.Version+"/") || len(v) <= len(engine.Version)+1 {
		t.Errorf("EngineBackend version %q: want %s/<build>", v, engine.Version)
	}
	if v := backendVersion(&fakeBackend{}); v != "" {
		t.Errorf("fake backend version %q, want empty", v)
	}
}
