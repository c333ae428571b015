package results_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/results"
)

// accuracyPart is one part of a run sharded n ways: its accuracy metadata
// (recorded false: a file written before the key existed) and its runs
// rows (mechanism, method, status, accuracy target; NaN is null).
type accuracyPart struct {
	meta     string
	recorded bool
	rows     []accuracyRow
}

type accuracyRow struct {
	mech, method, status string
	accuracy             float64
}

// writeAccuracySet writes the delta, epsilon and runs files of the parts of
// a run sharded len(parts) ways (one manifest hash and build) in dir.
func writeAccuracySet(t *testing.T, dir string, parts []accuracyPart) {
	t.Helper()
	for i, ap := range parts {
		p := results.Part{Index: i + 1, Count: len(parts)}
		meta := map[string]string{results.MetaName: "x", results.MetaHash: "h", results.MetaVersion: "v1", results.MetaShard: p.String(), results.MetaComplete: "true"}
		if ap.recorded {
			meta[results.MetaAccuracy] = ap.meta
		}
		runs := &results.Frame{Columns: []*results.Column{
			{Name: "mechanism", Type: results.String},
			{Name: "method", Type: results.String},
			{Name: "status", Type: results.String},
			{Name: "accuracy", Type: results.Float64, Nullable: true},
		}}
		for _, r := range ap.rows {
			runs.Columns[0].Strings = append(runs.Columns[0].Strings, r.mech)
			runs.Columns[1].Strings = append(runs.Columns[1].Strings, r.method)
			runs.Columns[2].Strings = append(runs.Columns[2].Strings, r.status)
			runs.Columns[3].Floats = append(runs.Columns[3].Floats, r.accuracy)
		}
		for _, table := range []string{results.TableDelta, results.TableEpsilon, results.TableRuns} {
			f := &results.Frame{Columns: []*results.Column{{Name: "r", Type: results.Int64, Ints: []int64{int64(i)}}}}
			if table == results.TableRuns {
				f = runs
			}
			if err := results.WriteParquet(p.Path(dir, table), f, meta); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestMixedAccuracy: parts of one manifest version and build run with
// different accuracy targets (pbuckets run --accuracy, not in the manifest
// hash) are a mixed set for Scan (pbuckets parts, plot) and CheckFiles
// (pbuckets show): by the pbuckets.accuracy metadata, and for files
// written before it by the runs tables' accuracy column.
func TestMixedAccuracy(t *testing.T) {
	nan := math.NaN()
	row := func(mech string, acc float64) accuracyRow { return accuracyRow{mech, "buckets", "ok", acc} }
	tests := []struct {
		name    string
		parts   []accuracyPart
		problem string // "" when the set is complete
	}{
		{"one target", []accuracyPart{{"0.001", true, []accuracyRow{row("g", 1e-3)}}, {"0.001", true, []accuracyRow{row("g", 1e-3)}}}, ""},
		{"no target", []accuracyPart{{"", true, []accuracyRow{row("g", nan)}}, {"", true, []accuracyRow{row("g", nan)}}}, ""},
		{"target and none", []accuracyPart{{"0.001", true, []accuracyRow{row("g", 1e-3)}}, {"", true, []accuracyRow{row("s", nan)}}},
			`parts run with different accuracy targets (pbuckets run --accuracy, which the manifest hash does not cover): "0.001" in delta-part-1-of-2.parquet, epsilon-part-1-of-2.parquet, runs-part-1-of-2.parquet; "none" in delta-part-2-of-2.parquet`},
		{"two targets", []accuracyPart{{"0.001", true, nil}, {"0.01", true, nil}, {"0.001", true, nil}}, `"0.01" in delta-part-2-of-3.parquet`},
		// Per-mechanism targets of the manifest itself are one target set.
		{"per-mechanism targets", []accuracyPart{{"g=0.001, s=none", true, []accuracyRow{row("g", 1e-3)}}, {"g=0.001, s=none", true, []accuracyRow{row("s", nan)}}}, ""},
		// Files written before the key: the runs column, per mechanism.
		{"unrecorded, same mechanism", []accuracyPart{{"", false, []accuracyRow{row("g", 1e-3), row("s", nan)}}, {"", false, []accuracyRow{row("g", 1e-2)}}},
			`runs.parquet column accuracy): mechanism "g": "0.001" in runs-part-1-of-2.parquet; "0.01" in runs-part-2-of-2.parquet`},
		{"unrecorded, target and none", []accuracyPart{{"", false, []accuracyRow{row("g", 1e-3)}}, {"", false, []accuracyRow{row("g", nan)}}},
			`mechanism "g": "0.001" in runs-part-1-of-2.parquet; "none" in runs-part-2-of-2.parquet`},
		{"unrecorded, one target", []accuracyPart{{"", false, []accuracyRow{row("g", 1e-3)}}, {"", false, []accuracyRow{row("g", 1e-3), {"g", "kov", "ok", nan}, {"g", "buckets", "failed", nan}}}}, ""},
		// Different mechanisms cannot be told from per-mechanism targets.
		{"unrecorded, different mechanisms", []accuracyPart{{"", false, []accuracyRow{row("g", 1e-3)}}, {"", false, []accuracyRow{row("s", nan)}}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeAccuracySet(t, dir, tc.parts)
			st, err := results.Scan(dir)
			if err != nil {
				t.Fatal(err)
			}
			err = st.Usable()
			if tc.problem == "" && err != nil || tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)) {
				t.Errorf("Scan: %v, want %q", err, tc.problem)
			}
			// pbuckets show reads the parts of one table together: the
			// runs tables, and (by the metadata alone) the delta tables.
			tables := []string{results.TableRuns}
			if tc.parts[0].recorded {
				tables = append(tables, results.TableDelta)
			}
			for _, table := range tables {
				var files []string
				for i := range tc.parts {
					files = append(files, results.Part{Index: i + 1, Count: len(tc.parts)}.Path(dir, table))
				}
				err = results.CheckFiles(files, false)
				if tc.problem == "" && err != nil || tc.problem != "" && (err == nil || !strings.Contains(err.Error(), "mixed: parts run with different accuracy targets")) {
					t.Errorf("CheckFiles %s: %v, want a mix: %v", table, err, tc.problem != "")
				}
			}
		})
	}
}
