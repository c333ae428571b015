package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/results"
)

// show --format csv and json write one value the same way, loadable as a
// number by DuckDB and pandas: +Inf as 1e999 (not "+Inf", a string in
// JSON and text to DuckDB's CSV sniffer), a null bound as null or an
// empty field, integral floats as 2.0, params as a JSON object (not a string holding JSON); and
// eps --json writes +Inf as show does.
func TestShowDataFormats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	f := &results.Frame{Columns: []*results.Column{
		{Name: "eps_upper", Type: results.Float64, Floats: []float64{math.Inf(1), 2}},
		{Name: "eps_lower", Type: results.Float64, Nullable: true, Floats: []float64{math.NaN(), math.Inf(-1)}},
		{Name: "params", Type: results.String, Strings: []string{`{"sigma":2}`, `{"sigma":4}`}},
		{Name: "note", Type: results.String, Strings: []string{`{"not":"params"}`, ""}},
	}}
	if err := results.WriteParquet(path, f, nil); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCmd(t, "show", "--format", "csv", path)
	if code != exitOK {
		t.Fatalf("csv: exit %d\n%s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("csv: %v\n%s", err, out)
	}
	if got := recs[1][:2]; got[0] != "1e999" || got[1] != "" {
		t.Errorf("csv row 1 = %q, want 1e999 and an empty field", got)
	}
	if got := recs[2][:2]; got[0] != "2.0" || got[1] != "-1e999" {
		t.Errorf("csv row 2 = %q, want 2.0 (a float to type guessers) and -1e999", got)
	}
	code, out, stderr = runCmd(t, "show", "--format", "json", path)
	if code != exitOK {
		t.Fatalf("json: exit %d\n%s", code, stderr)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber() // Go refuses 1e999 into a float64
	var rows []map[string]any
	if err := dec.Decode(&rows); err != nil || len(rows) != 2 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if rows[0]["eps_upper"] != json.Number("1e999") || rows[0]["eps_lower"] != nil || rows[1]["eps_lower"] != json.Number("-1e999") {
		t.Errorf("json numbers: %v", rows)
	}
	if p, ok := rows[0]["params"].(map[string]any); !ok || p["sigma"] != json.Number("2") {
		t.Errorf("json params = %#v, want an object", rows[0]["params"])
	}
	if rows[0]["note"] != `{"not":"params"}` {
		t.Errorf("json note = %#v, want the string", rows[0]["note"])
	}
	// The same value from eps --json: the KOV bound of a Gauss mechanism
	// with sigma 0.1 at delta 1e-10 is +Inf.
	code, out, stderr = runCmd(t, "eps", "--json", "--kind", "gauss", "--sigma", "0.1", "--r", "1", "--delta", "1e-10", "--methods", "kov", "--no-cache")
	if code != exitOK || !bytes.Contains([]byte(out), []byte(`"eps_upper": 1e999`)) {
		t.Errorf("eps --json: exit %d\n%s%s", code, out, stderr)
	}
}
