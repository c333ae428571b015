package runner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

// Task is one unit of work: one method for one mechanism instance and one
// number of compositions.
type Task struct {
	Manifest *manifest.Manifest
	Instance *manifest.Instance
	Method   string
	R        int
}

func (t Task) String() string {
	return fmt.Sprintf("manifest %s: mechanism %q: method %s: r=%d", t.Manifest.File, t.Instance.Label, t.Method, t.R)
}

// Expand lists the tasks of the manifests in a deterministic order:
// manifest, mechanism instance, method, r.
func Expand(manifests []*manifest.Manifest) []Task {
	var tasks []Task
	for _, m := range manifests {
		insts := m.Instances()
		for i := range insts {
			for _, meth := range m.Query.Methods {
				for _, r := range m.Compositions(&insts[i]) {
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

// Part returns the part of the results the shard writes (the whole
// dataset when inactive).
func (s Shard) Part() results.Part { return results.Part{Index: s.Index, Count: s.Count} }

// batch is a run of tasks that differ only in r: one method call.
type batch struct {
	manifest *manifest.Manifest
	instance *manifest.Instance
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
