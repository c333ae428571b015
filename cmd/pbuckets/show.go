package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/pbuckets/pbuckets/pipeline/results"
)

func cmdShow(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("show", "[--format csv|json|table] [--partial] FILE.parquet...", stderr)
	format := fs.String("format", "table", "output format: csv, json or table")
	partial := fs.Bool("partial", false, "show the rows of an incomplete set too (missing or interrupted parts, failed tasks); a mixed set is always refused")
	paths, status, ok := parsePaths(fs, args)
	if !ok {
		return status
	}
	if *format != "csv" && *format != "json" && *format != "table" {
		fmt.Fprintf(stderr, "error: --format must be csv, json or table, got %q\n", *format)
		return exitUsage
	}
	if err := results.CheckFiles(paths, *partial); err != nil {
		printErrors(stderr, err)
		return exitUsage
	}
	frames := make([]*results.Frame, 0, len(paths))
	for _, p := range paths {
		f, err := results.ReadParquet(p)
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return exitFailed
		}
		if len(frames) > 0 && !sameColumns(frames[0], f) {
			fmt.Fprintf(stderr, "error: %s has other columns than %s; show them separately\n", p, paths[0])
			return exitUsage
		}
		frames = append(frames, f)
	}
	var err error
	switch *format {
	case "csv":
		err = writeCSV(stdout, frames)
	case "json":
		err = writeJSON(stdout, frames)
	default:
		err = writeTable(stdout, frames)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailed
	}
	return exitOK
}

func sameColumns(a, b *results.Frame) bool {
	if len(a.Columns) != len(b.Columns) {
		return false
	}
	for i := range a.Columns {
		if a.Columns[i].Name != b.Columns[i].Name || a.Columns[i].Type != b.Columns[i].Type {
			return false
		}
	}
	return true
}

// cell renders a value as text for the table; null is reported
// separately.
func cell(c *results.Column, i int) (string, bool) {
	if c.IsNull(i) {
		return "", true
	}
	switch c.Type {
	case results.String:
		return c.Strings[i], false
	case results.Int64:
		return strconv.FormatInt(c.Ints[i], 10), false
	case results.Float64:
		return strconv.FormatFloat(c.Floats[i], 'g', -1, 64), false
	default:
		return strconv.FormatBool(c.Bools[i]), false
	}
}

// dataCell renders a value for CSV and JSON: numbers as dataFloat writes
// them (+Inf as 1e999, NaN null); null is reported separately.
func dataCell(c *results.Column, i int) (string, bool) {
	if c.Type == results.Float64 && !c.IsNull(i) {
		return dataFloat(c.Floats[i])
	}
	return cell(c, i)
}

func header(f *results.Frame) []string {
	names := make([]string, len(f.Columns))
	for i, c := range f.Columns {
		names[i] = c.Name
	}
	return names
}

func writeCSV(w io.Writer, frames []*results.Frame) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header(frames[0])); err != nil {
		return err
	}
	for _, f := range frames {
		for i := 0; i < f.Rows(); i++ {
			rec := make([]string, len(f.Columns))
			for j, c := range f.Columns {
				rec[j], _ = dataCell(c, i)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// maxTableCell is the widest cell of the table format; csv and json
// print values in full.
const maxTableCell = 48

func writeTable(w io.Writer, frames []*results.Frame) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for j, name := range header(frames[0]) {
		if j > 0 {
			fmt.Fprint(tw, "\t")
		}
		fmt.Fprint(tw, name)
	}
	fmt.Fprintln(tw)
	for _, f := range frames {
		for i := 0; i < f.Rows(); i++ {
			for j, c := range f.Columns {
				if j > 0 {
					fmt.Fprint(tw, "\t")
				}
				s, null := cell(c, i)
				if null {
					s = "null"
				}
				if len(s) > maxTableCell {
					s = s[:maxTableCell-3] + "..."
				}
				fmt.Fprint(tw, s)
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}

// writeJSON writes a JSON array with one object per row and per line.
// Numbers are written as dataFloat says (+Inf as 1e999, NaN as null), the
// mechanism parameters (jsonColumn) as JSON objects, nulls as null.
func writeJSON(w io.Writer, frames []*results.Frame) error {
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	first := true
	for _, f := range frames {
		for i := 0; i < f.Rows(); i++ {
			sep := ",\n"
			if first {
				sep, first = "\n", false
			}
			buf := []byte(sep + "{")
			for j, c := range f.Columns {
				if j > 0 {
					buf = append(buf, ',')
				}
				key, _ := json.Marshal(c.Name)
				buf = append(append(buf, key...), ':')
				text, null := dataCell(c, i)
				switch {
				case null:
					buf = append(buf, "null"...)
				case c.Type == results.String:
					if obj := jsonObject(text); obj != nil && jsonColumn(c.Name) {
						buf = append(buf, obj...)
						break
					}
					val, err := json.Marshal(text)
					if err != nil {
						return err
					}
					buf = append(buf, val...)
				default: // numbers and booleans: their text is JSON
					buf = append(buf, text...)
				}
			}
			buf = append(buf, '}')
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
	_, err := io.WriteString(w, "\n]\n")
	return err
}
