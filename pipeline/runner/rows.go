package runner

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/methods"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

// Task status values of runs.parquet.
const (
	StatusOK        = "ok"
	StatusSkipped   = "skipped"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// sortKey orders rows deterministically: instance, method, r, query point.
type sortKey struct {
	instance, method, r, point int
}

func (a sortKey) less(b sortKey) bool {
	if a.instance != b.instance {
		return a.instance < b.instance
	}
	if a.method != b.method {
		return a.method < b.method
	}
	if a.r != b.r {
		return a.r < b.r
	}
	return a.point < b.point
}

type boundRow struct {
	key       sortKey
	mechanism string
	id, kind  string
	params    string
	r         int
	// ep is what r is in epochs and steps when the query gives epochs
	// (ok false otherwise: the columns epochs and steps are null).
	ep     manifest.EpochPoint
	epOK   bool
	method string
	at     float64
	bound  methods.Bound
}

// epochColumns returns the nullable columns epochs and steps of n rows:
// what each row's compositions are in training epochs and steps, null
// where the query gave r itself (query.compositions).
func epochColumns(n int, at func(i int) (manifest.EpochPoint, bool)) (epochs, steps *results.Column) {
	epochs = &results.Column{Name: "epochs", Type: results.Float64, Nullable: true, Floats: make([]float64, n)}
	steps = &results.Column{Name: "steps", Type: results.Int64, Nullable: true, Ints: make([]int64, n), Null: make([]bool, n)}
	for i := range n {
		p, ok := at(i)
		if !ok {
			epochs.Floats[i], steps.Null[i] = math.NaN(), true
			continue
		}
		epochs.Floats[i], steps.Ints[i] = p.Epochs, int64(p.Steps)
	}
	return epochs, steps
}

func (r boundRow) epochPoint() (manifest.EpochPoint, bool) { return r.ep, r.epOK }

type runRow struct {
	key          sortKey
	task         Task
	params       string
	buckets      int
	factor       float64
	infinityMass float64
	// accuracy and reached: the accuracy target of the buckets method and
	// the relative width it reached (NaN without a target).
	accuracy, reached float64
	seconds           float64
	cached            bool
	status            string
	note              string
	err               string
}

// collector gathers the rows of one manifest from concurrent jobs.
type collector struct {
	mu    sync.Mutex
	delta []boundRow
	eps   []boundRow
	runs  []runRow
	renyi []renyiRow
	// tradeoff: the buckets method's true-positive rates (tradeoff.parquet)
	tradeoff []tprRow
}

func methodIndex(m *manifest.Manifest, method string) int {
	for i, x := range m.Query.Methods {
		if x == method {
			return i
		}
	}
	return len(m.Query.Methods)
}

// failedTasks names the failed tasks of the rows collected, in task
// order ("mechanism \"g\": method buckets: r=8").
func (c *collector) failedTasks() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	rows := slices.Clone(c.runs)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].key.less(rows[j].key) })
	var names []string
	for _, r := range rows {
		if r.status == StatusFailed {
			names = append(names, fmt.Sprintf("mechanism %q: method %s: r=%d", r.task.Instance.Label, r.task.Method, r.task.R))
		}
	}
	return names
}

func (c *collector) addRun(row runRow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs = append(c.runs, row)
}

// addOutcome records the rows of one successful task.
func (c *collector) addOutcome(t Task, o methods.Outcome, eps, delta []float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	base := boundRow{
		mechanism: t.Instance.Label, id: t.Instance.Spec.ID, kind: t.Instance.Spec.Kind,
		params: t.Instance.ParamsJSON(), r: t.R, method: t.Method,
	}
	base.ep, base.epOK = t.Manifest.EpochsAt(t.Instance, t.R)
	key := sortKey{instance: t.Instance.Order, method: methodIndex(t.Manifest, t.Method), r: t.R}
	for i, b := range o.Delta {
		row := base
		row.key, row.key.point = key, i
		row.at, row.bound = eps[i], b
		c.delta = append(c.delta, row)
	}
	for i, b := range o.Eps {
		row := base
		row.key, row.key.point = key, i
		row.at, row.bound = delta[i], b
		c.eps = append(c.eps, row)
	}
	for i, b := range o.Renyi {
		row := base
		row.key, row.key.point = key, i
		c.renyi = append(c.renyi, renyiRow{boundRow: row, b: b})
	}
	for i, b := range o.TPR {
		row := base
		row.key, row.key.point = key, i
		c.tradeoff = append(c.tradeoff, tprRow{boundRow: row, b: b})
	}
}

func sortRows(rows []boundRow) {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].key.less(rows[j].key) })
}

func boundFrame(rows []boundRow, atName, upName, loName string, withEEps bool) *results.Frame {
	sortRows(rows)
	n := len(rows)
	mech := &results.Column{Name: "mechanism", Type: results.String, Strings: make([]string, n)}
	comp := &results.Column{Name: "compositions", Type: results.Int64, Ints: make([]int64, n)}
	meth := &results.Column{Name: "method", Type: results.String, Strings: make([]string, n)}
	at := &results.Column{Name: atName, Type: results.Float64, Floats: make([]float64, n)}
	up := &results.Column{Name: upName, Type: results.Float64, Floats: make([]float64, n)}
	lo := &results.Column{Name: loName, Type: results.Float64, Nullable: true, Floats: make([]float64, n)}
	eeps := &results.Column{Name: "e_eps", Type: results.Float64, Floats: make([]float64, n)}
	id := &results.Column{Name: "mechanism_id", Type: results.String, Strings: make([]string, n)}
	kind := &results.Column{Name: "kind", Type: results.String, Strings: make([]string, n)}
	params := &results.Column{Name: "params", Type: results.String, Strings: make([]string, n)}
	for i, r := range rows {
		mech.Strings[i], comp.Ints[i], meth.Strings[i] = r.mechanism, int64(r.r), r.method
		at.Floats[i], up.Floats[i], lo.Floats[i] = r.at, r.bound.Upper, r.bound.Lower
		id.Strings[i], kind.Strings[i], params.Strings[i] = r.id, r.kind, r.params
		if withEEps {
			eeps.Floats[i] = math.Exp(r.at)
		} else {
			eeps.Floats[i] = math.Exp(r.bound.Upper)
		}
	}
	if !withEEps {
		eeps.Name = "e_eps_upper"
	}
	epochs, steps := epochColumns(n, func(i int) (manifest.EpochPoint, bool) { return rows[i].epochPoint() })
	return &results.Frame{Columns: []*results.Column{mech, comp, meth, at, up, lo, eeps, id, kind, params, epochs, steps}}
}

func (c *collector) runsFrame(version, shard string) *results.Frame {
	rows := c.runs
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].key.less(rows[j].key) })
	n := len(rows)
	str := func(name string) *results.Column {
		return &results.Column{Name: name, Type: results.String, Strings: make([]string, n)}
	}
	mech, meth, params, note := str("mechanism"), str("method"), str("params"), str("note")
	hash, ver, status, errc := str("manifest_hash"), str("program_version"), str("status"), str("error")
	id, kind, file, shardc := str("mechanism_id"), str("kind"), str("manifest"), str("shard")
	comp := &results.Column{Name: "compositions", Type: results.Int64, Ints: make([]int64, n)}
	buckets := &results.Column{Name: "buckets", Type: results.Int64, Ints: make([]int64, n)}
	factor := &results.Column{Name: "factor", Type: results.Float64, Nullable: true, Floats: make([]float64, n)}
	inf := &results.Column{Name: "infinity_mass", Type: results.Float64, Nullable: true, Floats: make([]float64, n)}
	// job_seconds: the wall time of the method call that computed the
	// task; one call covers every r of a mechanism and method, so its rows
	// repeat it (0 when taken from the cache).
	secs := &results.Column{Name: "job_seconds", Type: results.Float64, Floats: make([]float64, n)}
	cached := &results.Column{Name: "cached", Type: results.Bool, Bools: make([]bool, n)}
	acc := &results.Column{Name: "accuracy", Type: results.Float64, Nullable: true, Floats: make([]float64, n)}
	reached := &results.Column{Name: "accuracy_reached", Type: results.Float64, Nullable: true, Floats: make([]float64, n)}
	for i, r := range rows {
		mech.Strings[i], comp.Ints[i], meth.Strings[i] = r.task.Instance.Label, int64(r.task.R), r.task.Method
		params.Strings[i], note.Strings[i] = r.params, r.note
		hash.Strings[i], ver.Strings[i], status.Strings[i], errc.Strings[i] = r.task.Manifest.Hash, version, r.status, r.err
		id.Strings[i], kind.Strings[i], file.Strings[i], shardc.Strings[i] = r.task.Instance.Spec.ID, r.task.Instance.Spec.Kind, filepath.ToSlash(r.task.Manifest.File), shard
		buckets.Ints[i], secs.Floats[i], cached.Bools[i] = int64(r.buckets), r.seconds, r.cached
		factor.Floats[i], inf.Floats[i] = math.NaN(), math.NaN()
		if r.buckets > 0 {
			factor.Floats[i], inf.Floats[i] = r.factor, r.infinityMass
		}
		acc.Floats[i], reached.Floats[i] = r.accuracy, r.reached
	}
	epochs, steps := epochColumns(n, func(i int) (manifest.EpochPoint, bool) {
		t := rows[i].task
		return t.Manifest.EpochsAt(t.Instance, t.R)
	})
	return &results.Frame{Columns: []*results.Column{mech, comp, meth, params, buckets, factor, inf, secs, note, hash, ver, status, cached, errc, id, kind, file, shardc, acc, reached, epochs, steps}}
}

// renyiFrame builds renyi.parquet: one row per mechanism instance x r x
// alpha of the buckets method.
func renyiFrame(rows []renyiRow) *results.Frame {
	sortRenyi(rows)
	n := len(rows)
	str := func(name string) *results.Column {
		return &results.Column{Name: name, Type: results.String, Strings: make([]string, n)}
	}
	flt := func(name string, nullable bool) *results.Column {
		return &results.Column{Name: name, Type: results.Float64, Nullable: nullable, Floats: make([]float64, n)}
	}
	mech, meth, id, kind, params := str("mechanism"), str("method"), str("mechanism_id"), str("kind"), str("params")
	comp := &results.Column{Name: "compositions", Type: results.Int64, Ints: make([]int64, n)}
	alpha, lo, up, est, an := flt("alpha", false), flt("renyi_lower", true), flt("renyi_upper", true), flt("renyi_estimate", true), flt("renyi_analytic", true)
	for i, r := range rows {
		mech.Strings[i], comp.Ints[i], meth.Strings[i] = r.mechanism, int64(r.r), r.method
		id.Strings[i], kind.Strings[i], params.Strings[i] = r.id, r.kind, r.params
		alpha.Floats[i], lo.Floats[i], up.Floats[i] = r.b.Alpha, r.b.Lower, r.b.Upper
		est.Floats[i], an.Floats[i] = r.b.Estimate, r.b.Analytic
	}
	epochs, steps := epochColumns(n, func(i int) (manifest.EpochPoint, bool) { return rows[i].epochPoint() })
	return &results.Frame{Columns: []*results.Column{mech, comp, meth, alpha, lo, up, est, an, id, kind, params, epochs, steps}}
}

type renyiRow struct {
	boundRow
	b methods.RenyiBound
}

func sortRenyi(rows []renyiRow) {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].key.less(rows[j].key) })
}

// tradeoffFrame builds tradeoff.parquet: one row per mechanism instance x
// r x false-positive rate of the buckets method, with sound bounds on the
// largest true-positive rate of a membership-inference test (both
// directions) and the mu of the Gaussian-DP curve through the upper bound
// (a summary, not a bound).
func tradeoffFrame(rows []tprRow) *results.Frame {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].key.less(rows[j].key) })
	n := len(rows)
	str := func(name string) *results.Column {
		return &results.Column{Name: name, Type: results.String, Strings: make([]string, n)}
	}
	flt := func(name string, nullable bool) *results.Column {
		return &results.Column{Name: name, Type: results.Float64, Nullable: nullable, Floats: make([]float64, n)}
	}
	mech, meth, id, kind, params := str("mechanism"), str("method"), str("mechanism_id"), str("kind"), str("params")
	comp := &results.Column{Name: "compositions", Type: results.Int64, Ints: make([]int64, n)}
	fpr, lo, up, mu := flt("fpr", false), flt("tpr_lower", true), flt("tpr_upper", true), flt("gdp_mu", true)
	for i, r := range rows {
		mech.Strings[i], comp.Ints[i], meth.Strings[i] = r.mechanism, int64(r.r), r.method
		id.Strings[i], kind.Strings[i], params.Strings[i] = r.id, r.kind, r.params
		fpr.Floats[i], lo.Floats[i], up.Floats[i], mu.Floats[i] = r.b.FPR, r.b.Lower, r.b.Upper, r.b.Mu
	}
	epochs, steps := epochColumns(n, func(i int) (manifest.EpochPoint, bool) { return rows[i].epochPoint() })
	return &results.Frame{Columns: []*results.Column{mech, comp, meth, fpr, lo, up, mu, id, kind, params, epochs, steps}}
}

type tprRow struct {
	boundRow
	b methods.TPRBound
}
