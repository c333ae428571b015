package pipeline

import (
	"math"
	"path/filepath"
	"sort"
	"sync"
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
	method    string
	at        float64
	bound     Bound
}

type runRow struct {
	key          sortKey
	task         Task
	params       string
	buckets      int
	factor       float64
	infinityMass float64
	seconds      float64
	cached       bool
	status       string
	note         string
	err          string
}

// collector gathers the rows of one manifest from concurrent jobs.
type collector struct {
	mu    sync.Mutex
	delta []boundRow
	eps   []boundRow
	runs  []runRow
	renyi []renyiRow
}

func methodIndex(m *Manifest, method string) int {
	for i, x := range m.Query.Methods {
		if x == method {
			return i
		}
	}
	return len(m.Query.Methods)
}

func (c *collector) addRun(row runRow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs = append(c.runs, row)
}

// addOutcome records the rows of one successful task.
func (c *collector) addOutcome(t Task, o Outcome, eps, delta []float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	base := boundRow{
		mechanism: t.Instance.Label, id: t.Instance.Spec.ID, kind: t.Instance.Spec.Kind,
		params: t.Instance.ParamsJSON(), r: t.R, method: t.Method,
	}
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
}

func sortRows(rows []boundRow) {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].key.less(rows[j].key) })
}

func boundFrame(rows []boundRow, atName, upName, loName string, withEEps bool) *Frame {
	sortRows(rows)
	n := len(rows)
	mech := &Column{Name: "mechanism", Type: String, Strings: make([]string, n)}
	comp := &Column{Name: "compositions", Type: Int64, Ints: make([]int64, n)}
	meth := &Column{Name: "method", Type: String, Strings: make([]string, n)}
	at := &Column{Name: atName, Type: Float64, Floats: make([]float64, n)}
	up := &Column{Name: upName, Type: Float64, Floats: make([]float64, n)}
	lo := &Column{Name: loName, Type: Float64, Nullable: true, Floats: make([]float64, n)}
	eeps := &Column{Name: "e_eps", Type: Float64, Floats: make([]float64, n)}
	id := &Column{Name: "mechanism_id", Type: String, Strings: make([]string, n)}
	kind := &Column{Name: "kind", Type: String, Strings: make([]string, n)}
	params := &Column{Name: "params", Type: String, Strings: make([]string, n)}
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
	return &Frame{Columns: []*Column{mech, comp, meth, at, up, lo, eeps, id, kind, params}}
}

func (c *collector) runsFrame(version, shard string) *Frame {
	rows := c.runs
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].key.less(rows[j].key) })
	n := len(rows)
	str := func(name string) *Column { return &Column{Name: name, Type: String, Strings: make([]string, n)} }
	mech, meth, params, note := str("mechanism"), str("method"), str("params"), str("note")
	hash, ver, status, errc := str("manifest_hash"), str("program_version"), str("status"), str("error")
	id, kind, file, shardc := str("mechanism_id"), str("kind"), str("manifest"), str("shard")
	comp := &Column{Name: "compositions", Type: Int64, Ints: make([]int64, n)}
	buckets := &Column{Name: "buckets", Type: Int64, Ints: make([]int64, n)}
	factor := &Column{Name: "factor", Type: Float64, Nullable: true, Floats: make([]float64, n)}
	inf := &Column{Name: "infinity_mass", Type: Float64, Nullable: true, Floats: make([]float64, n)}
	secs := &Column{Name: "seconds", Type: Float64, Floats: make([]float64, n)}
	cached := &Column{Name: "cached", Type: Bool, Bools: make([]bool, n)}
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
	}
	return &Frame{Columns: []*Column{mech, comp, meth, params, buckets, factor, inf, secs, note, hash, ver, status, cached, errc, id, kind, file, shardc}}
}
