package pipeline

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Instance is one mechanism of a manifest at one point of its sweep.
type Instance struct {
	// Label names the instance in result files: the mechanism id, followed
	// by the swept values in brackets when the mechanism is swept, e.g.
	// "gauss[sigma=200]".
	Label string
	// Spec is the mechanism with the swept values applied.
	Spec MechanismSpec
	// Order is the position of the instance in the manifest's expansion.
	Order int
}

// Instances expands the sweep: every mechanism once per combination of its
// swept values (axes in the order of Manifest.Sweep, last axis fastest).
func (m *Manifest) Instances() []Instance {
	var out []Instance
	for _, spec := range m.Mechanisms {
		var axes []SweepAxis
		for _, a := range m.Sweep {
			if a.Mechanism == spec.ID {
				axes = append(axes, a)
			}
		}
		idx := make([]int, len(axes))
		for {
			s := spec
			s.Params = make(map[string]float64, len(spec.Params))
			for k, v := range spec.Params {
				s.Params[k] = v
			}
			var parts []string
			for i, a := range axes {
				s.Params[a.Param] = a.Values[idx[i]]
				parts = append(parts, a.Param+"="+strconv.FormatFloat(a.Values[idx[i]], 'g', -1, 64))
			}
			label := spec.ID
			if len(parts) > 0 {
				label += "[" + strings.Join(parts, ",") + "]"
			}
			out = append(out, Instance{Label: label, Spec: s, Order: len(out)})
			// Advance the odometer.
			k := len(axes) - 1
			for ; k >= 0; k-- {
				idx[k]++
				if idx[k] < len(axes[k].Values) {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
	}
	return out
}

// ParamsJSON describes the instance's mechanism and engine options as JSON
// (keys sorted), for the params column of the results.
func (in Instance) ParamsJSON() string {
	type desc struct {
		Kind     string             `json:"kind"`
		Params   map[string]float64 `json:"params,omitempty"`
		Noise    string             `json:"noise,omitempty"`
		File     string             `json:"file,omitempty"`
		DataHash string             `json:"data_sha256,omitempty"`
		Engine   EngineOptions      `json:"engine"`
	}
	b, err := json.Marshal(desc{in.Spec.Kind, in.Spec.Params, in.Spec.Noise, in.Spec.File, in.Spec.DataHash, in.Spec.Engine})
	if err != nil {
		return fmt.Sprintf("{%q: %q}", "error", err.Error())
	}
	return string(b)
}

// Task is one unit of work: one method for one mechanism instance and one
// number of compositions.
type Task struct {
	Manifest *Manifest
	Instance *Instance
	Method   string
	R        int
}

func (t Task) String() string {
	return fmt.Sprintf("manifest %s: mechanism %q: method %s: r=%d", t.Manifest.File, t.Instance.Label, t.Method, t.R)
}

// Expand lists the tasks of the manifests in a deterministic order:
// manifest, mechanism instance, method, r.
func Expand(manifests []*Manifest) []Task {
	var tasks []Task
	for _, m := range manifests {
		insts := m.Instances()
		for i := range insts {
			for _, meth := range m.Query.Methods {
				for _, r := range m.Query.Compositions {
					tasks = append(tasks, Task{Manifest: m, Instance: &insts[i], Method: meth, R: r})
				}
			}
		}
	}
	return tasks
}

// Shard selects part Index (1-based) of Count of a task list. Parts are
// contiguous slices of the list, so the numbers of compositions of one
// mechanism stay together and share their squarings.
type Shard struct {
	Index, Count int
}

// ParseShard parses "I/N" with 1 <= I <= N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want I/N with 1 <= I <= N, e.g. 3/10", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// Active reports whether the shard selects a part (Count > 0).
func (s Shard) Active() bool { return s.Count > 0 }

// Select returns the shard's slice of tasks (all of them when inactive).
func (s Shard) Select(tasks []Task) []Task {
	if !s.Active() {
		return tasks
	}
	n := len(tasks)
	lo := (s.Index - 1) * n / s.Count
	hi := s.Index * n / s.Count
	return tasks[lo:hi]
}

// suffix returns the file-name suffix of the shard's part files.
func (s Shard) suffix() string {
	if !s.Active() {
		return ""
	}
	return fmt.Sprintf("-part-%d-of-%d", s.Index, s.Count)
}

// batch is a run of tasks that differ only in r: one method call.
type batch struct {
	manifest *Manifest
	instance *Instance
	method   string
	rs       []int
}

func (b *batch) label() string {
	return fmt.Sprintf("%s %s %s", b.manifest.Name, b.instance.Label, b.method)
}

func (b *batch) task(r int) Task {
	return Task{Manifest: b.manifest, Instance: b.instance, Method: b.method, R: r}
}

// batches groups consecutive tasks sharing manifest, instance and method.
func batches(tasks []Task) []*batch {
	var out []*batch
	for _, t := range tasks {
		if n := len(out); n > 0 {
			last := out[n-1]
			if last.manifest == t.Manifest && last.instance == t.Instance && last.method == t.Method {
				last.rs = append(last.rs, t.R)
				continue
			}
		}
		out = append(out, &batch{manifest: t.Manifest, instance: t.Instance, method: t.Method, rs: []int{t.R}})
	}
	return out
}
