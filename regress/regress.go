// Package regress guards the bounds of the project against regressions.
// A golden set (results/golden/) holds small, fast manifests and the
// delta(eps) and eps(delta) bounds they produced, as CSV files checked once
// by hand against exact values. Check re-runs the manifests and fails when
//
//   - a row appears or disappears,
//   - a bound moves by more than the tolerance (relative, default 1e-6;
//     changes below 1e-200 are ignored), or
//     changes between finite and infinite/undefined,
//   - an upper bound falls below an exact value, or a lower bound rises above
//     one (exact values: the "exact" method rows of the same run, computed by
//     package compare, and the reference file reference-exact.csv).
package regress

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/methods"
	"github.com/pbuckets/pbuckets/pipeline/results"
	"github.com/pbuckets/pbuckets/pipeline/runner"
)

// DefaultTolerance is the relative change of a bound that Check accepts.
// The computation is deterministic on one platform; the slack covers
// floating-point differences between platforms and Go versions (FMA).
const DefaultTolerance = 1e-6

// absoluteFloor: changes smaller than this are ignored (values near the
// floating-point underflow, e.g. 3e-300 becoming 0).
const absoluteFloor = 1e-200

// exactSlack is the relative slack of the soundness checks against exact
// values (the closed forms themselves carry rounding errors of about 1e-14).
const exactSlack = 1e-9

// Tables compared, with the column that names the query point.
var tables = []struct{ name, at, up, lo string }{
	{"delta", "eps", "delta_upper", "delta_lower"},
	{"epsilon", "delta", "eps_upper", "eps_lower"},
}

// Options configure Check.
type Options struct {
	// Golden is the golden folder: *.toml manifests, <name>/delta.csv and
	// <name>/epsilon.csv, and optionally reference-exact.csv.
	Golden string
	// Work is where the manifests are re-run (a temporary folder if empty).
	Work string
	// Tolerance is the accepted relative change (DefaultTolerance if 0).
	Tolerance float64
	// Jobs is the number of parallel jobs (default 2).
	Jobs int
}

// Violation is one failed check.
type Violation struct {
	// Where names the table and row (manifest/table: mechanism, method, r,
	// query point).
	Where string
	// What describes the problem.
	What string
}

func (v Violation) String() string { return v.Where + ": " + v.What }

// Row is one bound row of a delta or epsilon table.
type Row struct {
	Mechanism, Method string
	R                 int64
	At, Upper, Lower  float64
}

func (r Row) key() string {
	return fmt.Sprintf("%s|%s|%d|%s", r.Mechanism, r.Method, r.R, strconv.FormatFloat(r.At, 'g', -1, 64))
}

func (r Row) where(manifest, table string) string {
	return fmt.Sprintf("%s/%s: %s, %s, r=%d, %s", manifest, table, r.Mechanism, r.Method, r.R, strconv.FormatFloat(r.At, 'g', 10, 64))
}

// Manifests lists the golden manifests.
func Manifests(golden string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(golden, "*.toml"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("golden folder %s: no *.toml manifests", golden)
	}
	sort.Strings(paths)
	return paths, nil
}

// Run re-runs the golden manifests into work and returns the fresh tables
// by manifest name and table name.
func Run(ctx context.Context, golden, work string, jobs int) (map[string]map[string][]Row, []*manifest.Manifest, error) {
	paths, err := Manifests(golden)
	if err != nil {
		return nil, nil, err
	}
	var ms []*manifest.Manifest
	for _, p := range paths {
		m, err := manifest.Load(p)
		if err != nil {
			return nil, nil, err
		}
		ms = append(ms, m)
	}
	if jobs < 1 {
		jobs = 2
	}
	rn := &runner.Runner{Backend: backend.Engine{}, Methods: methods.CompareWith, Out: work, Jobs: jobs, Version: "regress"}
	rep, err := rn.Run(ctx, ms)
	if err != nil {
		return nil, nil, fmt.Errorf("running the golden manifests: %w", err)
	}
	if rep.Failed > 0 || rep.Cancelled > 0 {
		return nil, nil, fmt.Errorf("running the golden manifests: %d tasks failed, %d cancelled: %w", rep.Failed, rep.Cancelled, errors.Join(rep.Failures...))
	}
	out := map[string]map[string][]Row{}
	for _, m := range ms {
		out[m.Name] = map[string][]Row{}
		for _, t := range tables {
			f, err := results.ReadParquet(filepath.Join(work, m.Name, t.name+".parquet"))
			if err != nil {
				return nil, nil, err
			}
			rows, err := frameRows(f, t.at, t.up, t.lo)
			if err != nil {
				return nil, nil, fmt.Errorf("manifest %s: %s: %w", m.File, t.name, err)
			}
			out[m.Name][t.name] = rows
		}
	}
	return out, ms, nil
}

func frameRows(f *results.Frame, at, up, lo string) ([]Row, error) {
	names := []string{"mechanism", "method", "compositions", at, up, lo}
	cols := make([]*results.Column, len(names))
	for i, n := range names {
		if cols[i] = f.Column(n); cols[i] == nil {
			return nil, fmt.Errorf("missing column %q", n)
		}
	}
	rows := make([]Row, f.Rows())
	for i := range rows {
		rows[i] = Row{cols[0].Strings[i], cols[1].Strings[i], cols[2].Ints[i], cols[3].Floats[i], cols[4].Floats[i], cols[5].Floats[i]}
	}
	return rows, nil
}

// Check re-runs the golden manifests and compares them with the golden
// files. It returns the violations found (none: the bounds did not
// regress); the error is for failures to run or read.
func Check(ctx context.Context, opt Options) ([]Violation, error) {
	work := opt.Work
	if work == "" {
		dir, err := os.MkdirTemp("", "pbuckets-regress-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	tol := opt.Tolerance
	if tol == 0 {
		tol = DefaultTolerance
	}
	fresh, ms, err := Run(ctx, opt.Golden, work, opt.Jobs)
	if err != nil {
		return nil, err
	}
	ref, err := readReference(filepath.Join(opt.Golden, "reference-exact.csv"))
	if err != nil {
		return nil, err
	}
	var vs []Violation
	for _, m := range ms {
		for _, t := range tables {
			path := filepath.Join(opt.Golden, m.Name, t.name+".csv")
			golden, err := ReadCSV(path)
			if err != nil {
				return nil, err
			}
			vs = append(vs, Compare(m.Name, t.name, golden, fresh[m.Name][t.name], tol)...)
			vs = append(vs, Sound(m.Name, t.name, golden, fresh[m.Name][t.name], ref)...)
		}
	}
	return vs, nil
}

// Update re-runs the golden manifests and rewrites the golden CSV files.
// The new files must be reviewed (git diff) before they are committed.
func Update(ctx context.Context, golden string, jobs int) ([]string, error) {
	work, err := os.MkdirTemp("", "pbuckets-regress-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	fresh, ms, err := Run(ctx, golden, work, jobs)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, m := range ms {
		for _, t := range tables {
			path := filepath.Join(golden, m.Name, t.name+".csv")
			if err := WriteCSV(path, t.at, t.up, t.lo, fresh[m.Name][t.name]); err != nil {
				return files, err
			}
			files = append(files, path)
		}
	}
	return files, nil
}

// Compare checks fresh rows against golden rows: same rows, bounds within
// the relative tolerance, same finiteness.
func Compare(manifest, table string, golden, fresh []Row, tol float64) []Violation {
	var vs []Violation
	byKey := map[string]Row{}
	for _, r := range fresh {
		byKey[r.key()] = r
	}
	seen := map[string]bool{}
	for _, g := range golden {
		k := g.key()
		seen[k] = true
		f, ok := byKey[k]
		if !ok {
			vs = append(vs, Violation{g.where(manifest, table), "row missing from the new results"})
			continue
		}
		for _, b := range []struct {
			name     string
			old, new float64
		}{{"upper", g.Upper, f.Upper}, {"lower", g.Lower, f.Lower}} {
			if msg := moved(b.old, b.new, tol); msg != "" {
				vs = append(vs, Violation{g.where(manifest, table), b.name + " bound " + msg})
			}
		}
	}
	for _, f := range fresh {
		if !seen[f.key()] {
			vs = append(vs, Violation{f.where(manifest, table), "row not in the golden file"})
		}
	}
	return vs
}

// moved describes a change of a bound beyond tol ("" if none).
func moved(old, new, tol float64) string {
	switch {
	case math.IsNaN(old) && math.IsNaN(new):
		return ""
	case math.IsNaN(old) != math.IsNaN(new), math.IsInf(old, 0) || math.IsInf(new, 0):
		if old == new {
			return ""
		}
		return fmt.Sprintf("changed from %v to %v", old, new)
	}
	diff := math.Abs(new - old)
	if diff <= tol*math.Max(math.Abs(old), math.Abs(new)) || diff <= absoluteFloor {
		return ""
	}
	return fmt.Sprintf("moved from %.17g to %.17g (relative change %.3g > %.3g)", old, new, diff/math.Max(math.Abs(old), math.Abs(new)), tol)
}

// Exact is an exact value of a delta(eps) or eps(delta) query.
type Exact struct {
	Row
	Source string
}

// Sound checks that buckets upper bounds are not below exact values and
// lower bounds not above them, for the golden and the fresh rows. Exact
// values come from the exact-method rows of the same table and from ref
// (delta table only).
func Sound(name, table string, golden, fresh []Row, ref []Exact) []Violation {
	var vs []Violation
	exact := map[string][]Exact{}
	pointKey := func(r Row) string {
		return fmt.Sprintf("%s|%d|%s", r.Mechanism, r.R, strconv.FormatFloat(r.At, 'g', 12, 64))
	}
	dup := map[string]bool{}
	for _, rows := range [][]Row{golden, fresh} {
		for _, r := range rows {
			k := pointKey(r)
			if r.Method == manifest.MethodExact && !math.IsNaN(r.Upper) && !dup[k+"|"+strconv.FormatFloat(r.Upper, 'g', -1, 64)] {
				dup[k+"|"+strconv.FormatFloat(r.Upper, 'g', -1, 64)] = true
				exact[k] = append(exact[k], Exact{r, "method exact"})
			}
		}
	}
	if table == "delta" {
		for _, e := range ref {
			exact[pointKey(e.Row)] = append(exact[pointKey(e.Row)], e)
		}
	}
	for which, rows := range map[string][]Row{"golden": golden, "new": fresh} {
		for _, r := range rows {
			if r.Method != manifest.MethodBuckets {
				continue
			}
			for _, e := range exact[pointKey(r)] {
				slack := exactSlack * math.Abs(e.Upper)
				if r.Upper < e.Upper-slack {
					vs = append(vs, Violation{r.where(name, table), fmt.Sprintf("%s upper bound %.17g is below the exact value %.17g (%s)", which, r.Upper, e.Upper, e.Source)})
				}
				if !math.IsNaN(r.Lower) && r.Lower > e.Upper+slack {
					vs = append(vs, Violation{r.where(name, table), fmt.Sprintf("%s lower bound %.17g is above the exact value %.17g (%s)", which, r.Lower, e.Upper, e.Source)})
				}
			}
		}
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].String() < vs[j].String() })
	return vs
}

// ReadCSV reads a golden table written by WriteCSV.
func ReadCSV(path string) ([]Row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("golden file: %w", err)
	}
	rd := csv.NewReader(bytes.NewReader(data))
	rd.Comment = '#'
	header, err := rd.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(header) != 6 || header[0] != "mechanism" || header[1] != "method" || header[2] != "compositions" {
		return nil, fmt.Errorf("%s: unexpected header %v", path, header)
	}
	var rows []Row
	for line := 2; ; line++ {
		rec, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var r Row
		r.Mechanism, r.Method = rec[0], rec[1]
		var perr error
		num := func(s string) float64 {
			if s == "" {
				return math.NaN()
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil && perr == nil {
				perr = err
			}
			return v
		}
		if r.R, err = strconv.ParseInt(rec[2], 10, 64); err != nil {
			return nil, fmt.Errorf("%s: row %d: compositions: %w", path, line, err)
		}
		r.At, r.Upper, r.Lower = num(rec[3]), num(rec[4]), num(rec[5])
		if perr != nil {
			return nil, fmt.Errorf("%s: row %d: %w", path, line, perr)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// WriteCSV writes rows as a golden table (full precision; empty = null).
func WriteCSV(path, at, up, lo string, rows []Row) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"mechanism", "method", "compositions", at, up, lo})
	f := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, r := range rows {
		_ = w.Write([]string{r.Mechanism, r.Method, strconv.FormatInt(r.R, 10), f(r.At), f(r.Upper), f(r.Lower)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// readReference reads reference-exact.csv (columns mechanism_label,
// compositions, eps, delta_exact, source); a missing file means no
// reference values.
func readReference(path string) ([]Exact, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rd := csv.NewReader(bytes.NewReader(data))
	rd.Comment = '#'
	recs, err := rd.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Exact
	for i, rec := range recs {
		if i == 0 {
			continue
		}
		if len(rec) < 5 {
			return nil, fmt.Errorf("%s: row %d: want 5 columns", path, i+1)
		}
		r, err1 := strconv.ParseInt(rec[1], 10, 64)
		eps, err2 := strconv.ParseFloat(rec[2], 64)
		d, err3 := strconv.ParseFloat(rec[3], 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", path, i+1, err)
		}
		out = append(out, Exact{Row{Mechanism: rec[0], Method: manifest.MethodExact, R: r, At: eps, Upper: d, Lower: d}, strings.TrimSpace(rec[4])})
	}
	return out, nil
}
