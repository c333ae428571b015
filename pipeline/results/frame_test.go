package results_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

func TestParquetRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.parquet")
	f := &results.Frame{Columns: []*results.Column{
		{Name: "s", Type: results.String, Strings: []string{"a", "b", ""}},
		{Name: "i", Type: results.Int64, Ints: []int64{1, -2, 3}},
		{Name: "f", Type: results.Float64, Nullable: true, Floats: []float64{0.5, math.NaN(), math.Inf(1)}},
		{Name: "b", Type: results.Bool, Bools: []bool{true, false, true}},
		{Name: "n", Type: results.Int64, Nullable: true, Ints: []int64{7, 0, 9}, Null: []bool{false, true, false}},
	}}
	for round := 0; round < 2; round++ { // the second write replaces the file
		if err := results.WriteParquet(path, f, map[string]string{"k": "v"}); err != nil {
			t.Fatal(err)
		}
	}
	g, err := results.ReadParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	pipelinetest.FramesEqual(t, f, g)
	if !g.Column("f").IsNull(1) || g.Column("f").IsNull(2) || !math.IsInf(g.Column("f").Floats[2], 1) {
		t.Errorf("null handling: %v", g.Column("f").Floats)
	}
	if n := g.Column("n"); !n.IsNull(1) || n.IsNull(0) || n.IsNull(2) || n.Ints[2] != 9 {
		t.Errorf("nullable integers: %v %v", n.Ints, n.Null)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in folder, want 1 (no temporary files)", len(entries))
	}
	// An empty frame keeps its column types.
	empty := &results.Frame{Columns: []*results.Column{{Name: "i", Type: results.Int64}, {Name: "f", Type: results.Float64}}}
	if err := results.WriteParquet(path, empty, nil); err != nil {
		t.Fatal(err)
	}
	if g, err = results.ReadParquet(path); err != nil || g.Rows() != 0 || g.Columns[0].Type != results.Int64 || g.Columns[1].Type != results.Float64 {
		t.Errorf("empty frame: %+v, %v", g, err)
	}
}

func TestWriteAtomicLeavesOldFileOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.parquet")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := &results.Frame{Columns: []*results.Column{{Name: "a", Type: results.Int64, Ints: []int64{1}}, {Name: "b", Type: results.Int64}}}
	if err := results.WriteParquet(path, bad, nil); err == nil {
		t.Fatal("ragged frame written")
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Error("old file damaged")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in folder, want 1", len(entries))
	}
}

// The root of the schema is REQUIRED: strict readers (hyparquet) refuse
// the REPEATED root that arrow-go v15 writes by default.
func TestParquetRootRequired(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	f := &results.Frame{Columns: []*results.Column{{Name: "i", Type: results.Int64, Ints: []int64{1}}}}
	if err := results.WriteParquet(path, f, nil); err != nil {
		t.Fatal(err)
	}
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.MetaData().Schema.Root().RepetitionType(); got != parquet.Repetitions.Required {
		t.Errorf("root repetition %v, want REQUIRED", got)
	}
}
