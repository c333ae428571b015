package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

// healed is the fake backend once the cause of the failures of sigma = 13
// is fixed: it composes that mechanism like any other.
type healed struct{ *pipelinetest.Fake }

func (h healed) Mechanism(spec manifest.MechanismSpec) (backend.Mechanism, error) {
	m, err := h.Fake.Mechanism(spec)
	if fm, ok := m.(pipelinetest.FakeMech); ok && fm.Sigma == 13 {
		fm.Sigma = 0
		return fm, err
	}
	return m, err
}

// A part with failed tasks is not a complete dataset: the set says which
// tasks failed, readers refuse it unless partial, and rerunning the part
// once the cause is fixed completes it.
func TestFailedTasksMakeTheSetIncomplete(t *testing.T) {
	for _, n := range []int{0, 2} {
		dir := t.TempDir()
		m := pipelinetest.LoadManifest(t, dir, "iso.toml", strings.Replace(twoMechanisms, "SIGMA", "13.0", 1))
		out := filepath.Join(dir, "out")
		run := func(b backend.Backend, i int) *Report {
			t.Helper()
			rn := &Runner{Backend: b, Out: out, Jobs: 1}
			if n > 0 {
				rn.Shard = Shard{Index: i, Count: n}
			}
			rep, err := rn.Run(context.Background(), []*manifest.Manifest{m})
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		if rep := run(&pipelinetest.Fake{}, 1); rep.Failed != 2 {
			t.Fatalf("%d shards: report %+v, want 2 failed", n, rep)
		}
		if n > 0 {
			if rep := run(&pipelinetest.Fake{}, 2); rep.Failed != 0 || rep.OK != 2 {
				t.Fatalf("part 2: report %+v", rep)
			}
		}
		st, err := results.Scan(filepath.Join(out, "iso"))
		if err != nil {
			t.Fatal(err)
		}
		err = st.Usable()
		if err == nil {
			t.Fatalf("%d shards: a set with failed tasks is usable", n)
		}
		for _, want := range []string{"2 tasks failed", `mechanism "bad": method buckets: r=1`, `mechanism "bad": method buckets: r=4`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%d shards: %v lacks %q", n, err, want)
			}
		}
		if st.Current.Failed != 2 {
			t.Errorf("%d shards: Failed = %d", n, st.Current.Failed)
		}
		if err := st.UsablePartial(); err != nil {
			t.Errorf("%d shards: partial: %v", n, err)
		}
		delta := st.Current.Files[results.TableDelta]
		if err := results.CheckFiles(delta, false); err == nil || !strings.Contains(err.Error(), "tasks failed") {
			t.Errorf("%d shards: CheckFiles: %v", n, err)
		}
		if err := results.CheckFiles(delta, true); err != nil {
			t.Errorf("%d shards: CheckFiles partial: %v", n, err)
		}
		// Rerunning the part with the failures repairs the set.
		want := 2 // the part rerun; all 4 tasks unsharded
		if n == 0 {
			want = 4
		}
		if rep := run(healed{&pipelinetest.Fake{}}, 1); rep.Failed != 0 || rep.OK != want {
			t.Fatalf("%d shards: rerun: report %+v", n, rep)
		}
		st, err = results.Scan(filepath.Join(out, "iso"))
		if err != nil || st.Usable() != nil || st.Current.Shards != n {
			t.Errorf("%d shards: after the rerun: %v %v", n, err, st.Usable())
		}
	}
}
