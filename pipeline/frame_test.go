package pipeline

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestParquetRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.parquet")
	f := &Frame{Columns: []*Column{
		{Name: "s", Type: String, Strings: []string{"a", "b", ""}},
		{Name: "i", Type: Int64, Ints: []int64{1, -2, 3}},
		{Name: "f", Type: Float64, Nullable: true, Floats: []float64{0.5, math.NaN(), math.Inf(1)}},
		{Name: "b", Type: Bool, Bools: []bool{true, false, true}},
	}}
	for round := 0; round < 2; round++ { // the second write replaces the file
		if err := WriteParquet(path, f, map[string]string{"k": "v"}); err != nil {
			t.Fatal(err)
		}
	}
	g, err := ReadParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	framesEqual(t, f, g)
	if !g.Column("f").IsNull(1) || g.Column("f").IsNull(2) || !math.IsInf(g.Column("f").Floats[2], 1) {
		t.Errorf("null handling: %v", g.Column("f").Floats)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in folder, want 1 (no temporary files)", len(entries))
	}
	// An empty frame keeps its column types.
	empty := &Frame{Columns: []*Column{{Name: "i", Type: Int64}, {Name: "f", Type: Float64}}}
	if err := WriteParquet(path, empty, nil); err != nil {
		t.Fatal(err)
	}
	if g, err = ReadParquet(path); err != nil || g.Rows() != 0 || g.Columns[0].Type != Int64 || g.Columns[1].Type != Float64 {
		t.Errorf("empty frame: %+v, %v", g, err)
	}
}

func TestWriteAtomicLeavesOldFileOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.parquet")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := &Frame{Columns: []*Column{{Name: "a", Type: Int64, Ints: []int64{1}}, {Name: "b", Type: Int64}}}
	if err := WriteParquet(path, bad, nil); err == nil {
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

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"512MiB", 512 << 20, false}, {"8GiB", 8 << 30, false}, {"2G", 2e9, false}, {"1000", 1000, false},
		{"-1G", 0, true}, {"lots", 0, true}, {"", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseBytes(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v", tc.in, got, err)
		}
	}
}
