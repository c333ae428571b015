// Package plots draws the figures that manifests declare in [[figure]]
// tables from the result files of `pbuckets run`: delta over e^eps (log10
// axis), e^eps over r (log2 axis), delta over r, heatmaps over two swept
// parameters, Renyi divergences over alpha, and tables (Markdown and CSV).
// Images are written as PNG, SVG and PDF with gonum.org/v1/plot. A lower
// bound is drawn beneath its upper bound and wider, so that neither hides
// the other; bounds that coincide share a legend entry (bounds.go).
package plots

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/pbuckets/pbuckets/pipeline/results"
)

// Results holds the result tables of one manifest. Renyi is nil when the
// manifest has no Renyi queries, Tradeoff when it has no fpr queries.
type Results struct {
	Delta, Eps, Renyi, Tradeoff []Row
	// Notes describe what Load found but did not read (stale sets).
	Notes []string
	// ManifestHash is the SHA-256 of the manifest the results were
	// computed from.
	ManifestHash string
}

// Row is one row of delta.parquet, epsilon.parquet or renyi.parquet, in a
// common shape: At is eps (delta table), delta (epsilon table) or alpha
// (renyi table); Upper and Lower the bounds (NaN when absent).
type Row struct {
	Mechanism, ID, Method string
	R                     int
	At                    float64
	Upper, Lower          float64
	// Estimate and Analytic are set for Renyi rows only.
	Estimate, Analytic float64
	// Params holds the instance's numeric parameters.
	Params map[string]float64
}

// Load reads the current dataset of a manifest's results folder dir
// (results.Scan): delta.parquet, epsilon.parquet and, when present,
// renyi.parquet of an unsharded run, or all the parts of a sharded one
// (shards-of-N/). It refuses an incomplete or mixed set (missing or
// interrupted parts, parts of different manifests or builds) with the
// reason; Notes list the stale sets beside the dataset, which are not
// read.
func Load(dir string) (*Results, error) { return load(dir, false) }

// LoadPartial is Load for a set with gaps (missing parts, interrupted runs,
// failed tasks): it reads the parts present, and its Notes say what is
// missing. It still refuses a mixed set.
func LoadPartial(dir string) (*Results, error) { return load(dir, true) }

func load(dir string, partial bool) (*Results, error) {
	st, err := results.Scan(dir)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	usable := st.Usable
	if partial {
		usable = st.UsablePartial
	}
	if err := usable(); err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	res := &Results{ManifestHash: st.Current.ManifestHash}
	for _, g := range st.Current.Gaps {
		res.Notes = append(res.Notes, "incomplete results, drawn anyway (--partial): "+g)
	}
	for _, s := range st.Stale {
		res.Notes = append(res.Notes, "not read: stale results "+s.Describe())
	}
	files := st.Current.Files
	if res.Delta, err = readTable(files[results.TableDelta], "eps", "delta_upper", "delta_lower"); err != nil {
		return nil, err
	}
	if res.Eps, err = readTable(files[results.TableEpsilon], "delta", "eps_upper", "eps_lower"); err != nil {
		return nil, err
	}
	if res.Renyi, err = readTable(files[results.TableRenyi], "alpha", "renyi_upper", "renyi_lower"); err != nil {
		return nil, err
	}
	if res.Tradeoff, err = readTable(files[results.TableTradeoff], "fpr", "tpr_upper", "tpr_lower"); err != nil {
		return nil, err
	}
	return res, nil
}

// readTable reads the rows of a table's files, in part order (nil when the
// table has no files).
func readTable(paths []string, at, up, lo string) ([]Row, error) {
	var rows []Row
	for _, p := range paths {
		if p == "" { // a missing part of a partial set
			continue
		}
		r, err := readRows(p, at, up, lo)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

func readRows(path, at, up, lo string) ([]Row, error) {
	f, err := results.ReadParquet(path)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	col := func(name string) (*results.Column, error) {
		c := f.Column(name)
		if c == nil {
			return nil, fmt.Errorf("%s: missing column %q", path, name)
		}
		return c, nil
	}
	names := []string{"mechanism", "mechanism_id", "method", "compositions", "params", at, up, lo}
	cols := make([]*results.Column, len(names))
	for i, n := range names {
		if cols[i], err = col(n); err != nil {
			return nil, err
		}
	}
	est, ana := f.Column("renyi_estimate"), f.Column("renyi_analytic")
	rows := make([]Row, f.Rows())
	paramCache := map[string]map[string]float64{}
	for i := range rows {
		r := Row{
			Mechanism: cols[0].Strings[i], ID: cols[1].Strings[i], Method: cols[2].Strings[i],
			R: int(cols[3].Ints[i]), At: cols[5].Floats[i], Upper: cols[6].Floats[i], Lower: cols[7].Floats[i],
			Estimate: math.NaN(), Analytic: math.NaN(),
		}
		if est != nil && ana != nil {
			r.Estimate, r.Analytic = est.Floats[i], ana.Floats[i]
		}
		pj := cols[4].Strings[i]
		p, ok := paramCache[pj]
		if !ok {
			var desc struct {
				Params map[string]float64 `json:"params"`
			}
			if err := json.Unmarshal([]byte(pj), &desc); err != nil {
				return nil, fmt.Errorf("%s: row %d: params: %w", path, i, err)
			}
			p = desc.Params
			paramCache[pj] = p
		}
		r.Params = p
		rows[i] = r
	}
	return rows, nil
}

// near reports whether a and b agree to a relative 1e-9.
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}
