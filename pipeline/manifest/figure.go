package manifest

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Figure kinds understood in [[figure]] tables.
const (
	// FigureDeltaEEps plots delta (log10 axis) over e^eps at one r.
	FigureDeltaEEps = "delta-eeps"
	// FigureEEpsR plots e^eps (upper and lower bounds of eps(delta)) over
	// r (log2 axis) at one delta.
	FigureEEpsR = "eeps-r"
	// FigureDeltaR plots delta (log10 axis) over r (log2 axis), one series
	// per e^eps value.
	FigureDeltaR = "delta-r"
	// FigureHeatmap shows one bound over two swept parameters at one r.
	FigureHeatmap = "heatmap"
	// FigureRenyi plots the Renyi divergence D_alpha over alpha at one r:
	// the bucket bracket, the bucket estimate and the analytic value.
	FigureRenyi = "renyi"
	// FigureTable writes a Markdown and a CSV table of the mechanisms'
	// parameters and their eps bounds at one delta.
	FigureTable = "table"
	// FigureTradeoff plots the largest true-positive rate of a
	// membership-inference test over the false-positive rate at one r
	// (ROC, log-log axes): the buckets' upper and lower bounds and the
	// line TPR = FPR.
	FigureTradeoff = "tradeoff"
)

// FigureKinds returns the figure kinds a manifest may declare.
func FigureKinds() []string {
	return []string{FigureDeltaEEps, FigureEEpsR, FigureDeltaR, FigureHeatmap, FigureRenyi, FigureTable, FigureTradeoff}
}

// Heatmap values: the bound shown in each cell.
var heatmapValues = []string{"eps_upper", "eps_lower", "e_eps_upper", "delta_upper", "delta_lower"}

// Figure is one [[figure]] table of a manifest: what `pbuckets plot` draws
// from the manifest's results.
type Figure struct {
	// ID names the image files <out>/<name>/<ID>.png and .svg.
	ID string
	// Kind is one of FigureKinds.
	Kind string
	// Title is drawn above the plot; Note (e.g. "SYNTHETIC data") below
	// the title.
	Title, Note string
	// R selects the number of compositions (delta-eeps, heatmap, renyi;
	// for table, 0 means every r of the query).
	R int
	// Delta selects the eps(delta) query (eeps-r, table, heatmap of eps);
	// Deltas lists every delta given (eeps-r: one series each).
	Delta  float64
	Deltas []float64
	// EEps lists the e^eps values (delta-r: one series each; heatmap of
	// delta: the one value shown).
	EEps []float64
	// Mechanisms lists the mechanism ids shown (all when empty), in legend
	// order; Methods the methods (all of the query when empty).
	Mechanisms, Methods []string
	// Series, when not empty, lists the "<mechanism id>:<method>" pairs
	// shown (a finer filter than Mechanisms x Methods).
	Series []string
	// Bounds is "both" (default), "upper" or "lower".
	Bounds string
	// Target shades the Vuvuzela privacy target e^eps <= 2, delta <= 1e-4.
	Target bool
	// Points are single marked points, e.g. a previously published bound.
	Points []FigurePoint
	// Labels maps mechanism ids to legend names.
	Labels map[string]string
	// PerRound maps mechanism ids to the number of observations per round:
	// their r is divided by it on the r axis (e.g. 2 when a round is the
	// composition of two observations).
	PerRound map[string]int
	// XRange and YRange fix the axis limits; zero values mean automatic.
	XRange, YRange [2]float64
	// X and Y name the swept parameters of a heatmap ("<id>.<param>");
	// Value the bound shown (see heatmapValues). Method defaults to buckets.
	X, Y, Value string
	// Line is the line of the [[figure]] header.
	Line int
}

// FigurePoint is a marked point: either given by value (EEps, Delta), or
// taken from the results (Mechanism, Method, R, Delta: the point
// (e^eps_upper(Delta), Delta) of that task).
type FigurePoint struct {
	EEps, Delta       float64
	Mechanism, Method string
	R                 int
	Label             string
}

// FromResults reports whether the point is looked up in the results.
func (p FigurePoint) FromResults() bool { return p.Mechanism != "" }

// figures parses the [[figure]] tables; it runs after mechanisms, query and
// sweep, which it is checked against.
func (p *parser) figures(v any, m *Manifest) {
	list, ok := v.([]map[string]any)
	if !ok {
		if _, isTable := v.(map[string]any); isTable {
			p.el.add(p.line("figure"), "figure", "must be an array of tables: write [[figure]], not [figure]")
		} else {
			p.el.add(p.line("figure"), "figure", "must be an array of tables ([[figure]]), got %s", typeName(v))
		}
		return
	}
	keys := []string{"id", "kind", "title", "note", "r", "delta", "e_eps", "mechanisms", "methods", "bounds",
		"target", "points", "labels", "per_round", "x_range", "y_range", "x", "y", "value", "series"}
	seen := map[string]bool{}
	for i, t := range list {
		idx := strconv.Itoa(i)
		f := Figure{Line: p.line("figure", idx), Bounds: "both"}
		disp := fmt.Sprintf("figure[%d]", i)
		// A key's line, or the figure's when the key's is unknown.
		at := func(k string) (int, string) {
			l := p.line("figure", idx, k)
			if l == 0 {
				l = f.Line
			}
			return l, disp + ": " + k
		}
		bad := func(k, format string, args ...any) {
			l, d := at(k)
			p.el.add(l, d, format, args...)
		}
		tb := table{p: p, t: t, at: at}
		str := tb.str
		strs := func(k string) []string {
			out, _ := tb.strs(k, false, "")
			return out
		}
		tb.unknown(keys, "figure key", true)
		if id, ok := str("id"); ok {
			switch {
			case !idPattern.MatchString(id):
				bad("id", "%q is not a valid id (letters, digits, '_', '-')", id)
			case seen[id]:
				bad("id", "duplicate figure id %q", id)
			}
			seen[id] = true
			f.ID = id
			disp = fmt.Sprintf("figure %q", id)
		} else if t["id"] == nil {
			bad("id", "missing required key")
		}
		if kind, ok := str("kind"); ok {
			if !slices.Contains(FigureKinds(), kind) {
				bad("kind", "unknown figure kind %q%s (one of %s)", kind, suggest(kind, FigureKinds()), quoteList(FigureKinds()))
			}
			f.Kind = kind
		} else if t["kind"] == nil {
			bad("kind", "missing required key (one of %s)", quoteList(FigureKinds()))
		}
		f.Title, _ = str("title")
		f.Note, _ = str("note")
		if x, present := t["r"]; present {
			n, isInt := asInt(x)
			switch {
			case !isInt:
				bad("r", "must be an integer, got %s", typeName(x))
			case !slices.Contains(m.allCompositions(), int(n)):
				bad("r", "r = %d is not in query.compositions (nor the r of query.epochs)", n)
			default:
				f.R = int(n)
			}
		}
		if x, present := t["delta"]; present {
			items, isArr := x.([]any)
			if !isArr {
				items = []any{x}
			}
			for _, item := range items {
				d, isNum := asFloat(item)
				switch {
				case !isNum:
					bad("delta", "must be a number or an array of numbers, got %s", typeName(item))
				case !containsClose(m.Query.Delta, d):
					bad("delta", "delta = %v is not in query.delta", d)
				default:
					f.Deltas = append(f.Deltas, d)
				}
			}
			if len(f.Deltas) > 0 {
				f.Delta = f.Deltas[0]
			}
		}
		if x, present := t["e_eps"]; present {
			vals, err := floatGrid(x)
			if err != nil {
				l, d := at("e_eps")
				p.el.addErr(l, d, err)
			}
			for _, e := range vals {
				if !containsClose(m.Query.Eps, math.Log(e)) {
					bad("e_eps", "e_eps = %v is not in the query's e_eps/eps grid", e)
					break
				}
			}
			f.EEps = vals
		}
		f.Mechanisms = strs("mechanisms")
		for _, id := range f.Mechanisms {
			if msg := m.unqueried(id); msg != "" {
				bad("mechanisms", "%s", msg)
			}
		}
		f.Series = strs("series")
		for _, s := range f.Series {
			id, method, ok := strings.Cut(s, ":")
			if !ok || m.unqueried(id) != "" || !slices.Contains(m.Query.Methods, method) {
				bad("series", "%q: must be \"<mechanism id>:<method>\" with a mechanism of the manifest and a method of query.methods", s)
			}
		}
		f.Methods = strs("methods")
		for _, name := range f.Methods {
			if !slices.Contains(m.Query.Methods, name) {
				bad("methods", "method %q is not in query.methods (%s)", name, quoteList(m.Query.Methods))
			}
		}
		if b, ok := str("bounds"); ok {
			if !slices.Contains([]string{"both", "upper", "lower"}, b) {
				bad("bounds", "must be \"both\", \"upper\" or \"lower\", got %q", b)
			}
			f.Bounds = b
		}
		if x, present := t["target"]; present {
			if b, isBool := x.(bool); isBool {
				f.Target = b
			} else {
				bad("target", "must be true or false, got %s", typeName(x))
			}
		}
		f.Labels = p.figureStringMap(t, "labels", m, bad)
		for id, s := range p.figureStringMap(t, "per_round", m, bad) {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				bad("per_round", "%s: must be a positive integer", id)
				continue
			}
			if f.PerRound == nil {
				f.PerRound = map[string]int{}
			}
			f.PerRound[id] = n
		}
		f.XRange = p.figureRange(t, "x_range", bad)
		f.YRange = p.figureRange(t, "y_range", bad)
		f.X, _ = str("x")
		f.Y, _ = str("y")
		f.Value, _ = str("value")
		f.Points = p.figurePoints(t, m, bad)
		p.checkFigure(&f, m, bad)
		m.Figures = append(m.Figures, f)
	}
}

// figureStringMap reads a table mapping mechanism ids to strings (numbers
// are formatted).
func (p *parser) figureStringMap(t map[string]any, k string, m *Manifest, bad func(string, string, ...any)) map[string]string {
	x, present := t[k]
	if !present {
		return nil
	}
	tab, isTab := x.(map[string]any)
	if !isTab {
		bad(k, "must be a table { <mechanism id> = ... }, got %s", typeName(x))
		return nil
	}
	out := map[string]string{}
	for id, v := range tab {
		if msg := m.unqueried(id); msg != "" {
			bad(k, "%s", msg)
			continue
		}
		switch s := v.(type) {
		case string:
			out[id] = s
		case int64:
			out[id] = strconv.FormatInt(s, 10)
		default:
			bad(k, "%s: must be a string or an integer, got %s", id, typeName(v))
		}
	}
	return out
}

func (p *parser) figureRange(t map[string]any, k string, bad func(string, string, ...any)) [2]float64 {
	x, present := t[k]
	if !present {
		return [2]float64{}
	}
	arr, isArr := x.([]any)
	if isArr && len(arr) == 2 {
		lo, ok1 := asFloat(arr[0])
		hi, ok2 := asFloat(arr[1])
		if ok1 && ok2 && finite(lo) && finite(hi) && lo < hi {
			return [2]float64{lo, hi}
		}
	}
	bad(k, "must be [low, high] with finite numbers, low < high")
	return [2]float64{}
}

func (p *parser) figurePoints(t map[string]any, m *Manifest, bad func(string, string, ...any)) []FigurePoint {
	x, present := t["points"]
	if !present {
		return nil
	}
	var list []map[string]any
	switch v := x.(type) {
	case []map[string]any:
		list = v
	case []any:
		for _, item := range v {
			tab, isTab := item.(map[string]any)
			if !isTab {
				bad("points", "must be an array of tables { e_eps, delta, label } or { mechanism, method, r, delta, label }")
				return nil
			}
			list = append(list, tab)
		}
	default:
		bad("points", "must be an array of tables, got %s", typeName(x))
		return nil
	}
	var out []FigurePoint
	for j, tab := range list {
		where := fmt.Sprintf("points[%d]", j)
		if u := unknownKeys(tab, "e_eps", "delta", "mechanism", "method", "r", "label"); len(u) > 0 {
			bad("points", "%s: unknown key %q (known: e_eps, delta, mechanism, method, r, label)", where, u[0])
			continue
		}
		var pt FigurePoint
		pt.Label, _ = tab["label"].(string)
		d, ok := asFloat(tab["delta"])
		if !ok || !(d > 0 && d < 1) {
			bad("points", "%s: delta must be a number in (0, 1)", where)
			continue
		}
		pt.Delta = d
		if id, isStr := tab["mechanism"].(string); isStr {
			pt.Mechanism = id
			pt.Method, _ = tab["method"].(string)
			r, isInt := asInt(tab["r"])
			switch {
			case m.unqueried(id) != "":
				bad("points", "%s: %s", where, m.unqueried(id))
			case !slices.Contains(m.Query.Methods, pt.Method):
				bad("points", "%s: method %q is not in query.methods", where, pt.Method)
			case !isInt || !slices.Contains(m.allCompositions(), int(r)):
				bad("points", "%s: r must be one of query.compositions (or the r of query.epochs)", where)
			case !containsClose(m.Query.Delta, d):
				bad("points", "%s: delta = %v is not in query.delta", where, d)
			}
			pt.R = int(r)
		} else {
			e, ok := asFloat(tab["e_eps"])
			if !ok || !(e >= 1) || !finite(e) {
				bad("points", "%s: give e_eps (>= 1) and delta, or mechanism, method, r and delta", where)
				continue
			}
			pt.EEps = e
		}
		out = append(out, pt)
	}
	return out
}

// checkFigure checks the keys each kind needs.
func (p *parser) checkFigure(f *Figure, m *Manifest, bad func(string, string, ...any)) {
	need := func(k string, ok bool) {
		if !ok {
			bad(k, "figure kind %s needs %s", f.Kind, k)
		}
	}
	switch f.Kind {
	case FigureTradeoff:
		need("r", f.R > 0)
		if len(m.Query.FPR) == 0 {
			bad("kind", "figure kind %s needs query.fpr", f.Kind)
		}
	case FigureDeltaEEps, FigureRenyi:
		need("r", f.R > 0)
		if f.Kind == FigureDeltaEEps && len(m.Query.Eps) == 0 {
			bad("kind", "figure kind %s needs query.e_eps (or eps)", f.Kind)
		}
		if f.Kind == FigureRenyi && len(m.Query.Alpha) == 0 {
			bad("kind", "figure kind %s needs query.alpha", f.Kind)
		}
	case FigureEEpsR:
		need("delta", f.Delta > 0)
	case FigureTable:
		need("delta", len(f.Deltas) == 1)
	case FigureDeltaR:
		need("e_eps", len(f.EEps) > 0)
	case FigureHeatmap:
		need("r", f.R > 0)
		if !slices.Contains(heatmapValues, f.Value) {
			bad("value", "heatmap value must be one of %s, got %q", quoteList(heatmapValues), f.Value)
		}
		if strings.HasPrefix(f.Value, "delta") {
			need("e_eps", len(f.EEps) == 1)
		} else {
			need("delta", len(f.Deltas) == 1)
		}
		var mechs []string
		for _, k := range []string{"x", "y"} {
			v := f.X
			if k == "y" {
				v = f.Y
			}
			id, param, ok := strings.Cut(v, ".")
			found := false
			if spec := m.mechanism(id); spec != nil && len(spec.InSequences) == 0 {
				for _, a := range m.axes(*spec) {
					if a.Mechanism == id && a.Param == param || spec.Kind == KindSequence && a.Mechanism+"."+a.Param == param {
						found = true
					}
				}
			}
			if !ok || !found {
				bad(k, "must name a swept parameter \"<mechanism id>.<parameter>\" of [sweep] (of a sequence: \"<sequence id>.<part id>.<parameter>\"), got %q", v)
			}
			mechs = append(mechs, id)
		}
		if mechs[0] != mechs[1] || f.X == f.Y {
			bad("y", "x and y must be two different swept parameters of the same mechanism")
		}
		if len(f.Methods) > 1 {
			bad("methods", "a heatmap shows one method")
		}
	}
}

// containsClose reports whether list holds x up to a relative 1e-9 (grid
// values pass through logarithms and range arithmetic).
func containsClose(list []float64, x float64) bool {
	for _, v := range list {
		if math.Abs(v-x) <= 1e-9*math.Max(math.Abs(v), math.Abs(x)) || v == x {
			return true
		}
	}
	return false
}

// queryFPR parses query.fpr: the false-positive rates, in (0, 1), at
// which the buckets method bounds the largest true-positive rate
// (tradeoff.parquet).
func (p *parser) queryFPR(t map[string]any, q *Query) {
	x, present := t["fpr"]
	if !present {
		return
	}
	l, d := p.line("query", "fpr"), "query.fpr"
	vals, err := floatGrid(x)
	if err != nil {
		p.el.addErr(l, d, err)
		return
	}
	for _, a := range vals {
		if !(a > 0 && a < 1) {
			p.el.add(l, d, "false-positive rates must be in (0, 1), got %v", a)
			return
		}
	}
	sort.Float64s(vals)
	q.FPR = slices.Compact(vals)
}

// queryAlpha parses query.alpha: the Renyi orders (> 1) at which the
// buckets method reports D_alpha bounds (renyi.parquet).
func (p *parser) queryAlpha(t map[string]any, q *Query) {
	x, present := t["alpha"]
	if !present {
		return
	}
	l, d := p.line("query", "alpha"), "query.alpha"
	vals, err := floatGrid(x)
	if err != nil {
		p.el.addErr(l, d, err)
		return
	}
	for _, a := range vals {
		if !(a > 1) {
			p.el.add(l, d, "Renyi orders must be > 1, got %v", a)
			return
		}
	}
	sort.Float64s(vals)
	q.Alpha = vals
}
