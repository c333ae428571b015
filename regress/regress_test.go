package regress

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMoved(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name     string
		old, new float64
		wantMove bool
	}{
		{"equal", 0.25, 0.25, false},
		{"within tolerance", 0.25, 0.25 * (1 + 5e-7), false},
		{"beyond tolerance", 0.25, 0.25 * (1 + 2e-6), true},
		{"tiny values, relative", 1e-20, 1.00001e-20, true},
		{"both null", nan, nan, false},
		{"null appears", 0.1, nan, true},
		{"null disappears", nan, 0.1, true},
		{"both infinite", inf, inf, false},
		{"becomes infinite", 3, inf, true},
		{"zero stays zero", 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := moved(tc.old, tc.new, 1e-6) != ""; got != tc.wantMove {
				t.Fatalf("moved(%v, %v) = %v, want %v", tc.old, tc.new, got, tc.wantMove)
			}
		})
	}
}

func TestCompareAndSound(t *testing.T) {
	row := func(method string, up, lo float64) Row {
		return Row{Mechanism: "g", Method: method, R: 8, At: 0.1, Upper: up, Lower: lo}
	}
	exact := row("exact", 0.5, 0.5)
	tests := []struct {
		name          string
		golden, fresh []Row
		wantCompare   int
		wantSound     int
		wantSubstring string
	}{
		{"identical", []Row{row("buckets", 0.6, 0.4), exact}, []Row{row("buckets", 0.6, 0.4), exact}, 0, 0, ""},
		{"upper moved", []Row{row("buckets", 0.6, 0.4)}, []Row{row("buckets", 0.61, 0.4)}, 1, 0, "upper bound moved"},
		{"row missing", []Row{row("buckets", 0.6, 0.4), exact}, []Row{exact}, 1, 0, "missing"},
		{"row added", []Row{exact}, []Row{row("buckets", 0.6, 0.4), exact}, 1, 0, "not in the golden"},
		{"upper below exact", []Row{row("buckets", 0.49, 0.4), exact}, []Row{row("buckets", 0.49, 0.4), exact}, 0, 2, "below the exact value"},
		{"lower above exact", []Row{row("buckets", 0.6, 0.51), exact}, []Row{row("buckets", 0.6, 0.4), exact}, 1, 1, "above the exact value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cv := Compare("m", "delta", tc.golden, tc.fresh, 1e-6)
			sv := Sound("m", "delta", tc.golden, tc.fresh, nil)
			if len(cv) != tc.wantCompare || len(sv) != tc.wantSound {
				t.Fatalf("got %d compare and %d sound violations (%v %v), want %d and %d", len(cv), len(sv), cv, sv, tc.wantCompare, tc.wantSound)
			}
			all := append(cv, sv...)
			if tc.wantSubstring != "" && !strings.Contains(all[len(all)-1].String()+all[0].String(), tc.wantSubstring) {
				t.Fatalf("violations %v do not mention %q", all, tc.wantSubstring)
			}
		})
	}
}

// TestCheckFailsOnPerturbedGolden regenerates the golden set's files in a
// copy (a few seconds), perturbs them (a bound moved by 1e-3, a reference
// exact value raised above the buckets upper bound) and checks that Check
// reports exactly these.
func TestCheckFailsOnPerturbedGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the golden manifests")
	}
	src := filepath.Join("..", "results", "golden")
	dst := t.TempDir()
	if err := copyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	// Golden files from the current engine, so that this test does not
	// depend on the committed ones being up to date (make regress checks those).
	if _, err := Update(context.Background(), dst, 2); err != nil {
		t.Fatal(err)
	}
	// Move one golden bound.
	path := filepath.Join(dst, "golden-rr", "delta.csv")
	rows, err := ReadCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	target := -1
	for i, r := range rows {
		if r.Method == "buckets" && r.Upper > 0.01 {
			target = i
			break
		}
	}
	if target < 0 {
		t.Fatal("no row to perturb")
	}
	rows[target].Upper *= 1.001
	if err := WriteCSV(path, "eps", "delta_upper", "delta_lower", rows); err != nil {
		t.Fatal(err)
	}
	// Raise one reference exact value above the buckets upper bound.
	refPath := filepath.Join(dst, "reference-exact.csv")
	ref, err := os.ReadFile(refPath)
	if err != nil {
		t.Fatal(err)
	}
	perturbed := strings.Replace(string(ref), ",0.34899947006044516,", ",0.36,", 1)
	if perturbed == string(ref) {
		t.Fatal("reference value to perturb not found")
	}
	if err := os.WriteFile(refPath, []byte(perturbed), 0o644); err != nil {
		t.Fatal(err)
	}

	vs, err := Check(context.Background(), Options{Golden: dst, Work: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var moved, crossed int
	for _, v := range vs {
		switch {
		case strings.Contains(v.What, "upper bound moved"):
			moved++
		case strings.Contains(v.What, "below the exact value 0.35999999999999999"):
			crossed++
		default:
			t.Errorf("unexpected violation: %v", v)
		}
	}
	// The crossed reference value is reported for the golden and the new rows.
	if moved != 1 || crossed != 2 {
		t.Fatalf("got %d moved and %d crossed violations, want 1 and 2: %v", moved, crossed, vs)
	}
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".toml") {
			// Histogram paths are relative to the manifest: make them absolute.
			abs, _ := filepath.Abs(filepath.Join(src, "..", "..", "experiments"))
			data = []byte(strings.ReplaceAll(string(data), `"../../experiments/`, `"`+filepath.ToSlash(abs)+`/`))
		}
		return os.WriteFile(target, data, 0o644)
	})
}
