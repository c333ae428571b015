package runner

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/methods"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

// sequenceSweep is testfig.Sequence with the main phase's noise swept: both
// sequences use "main", so each has two instances.
const sequenceSweep = testfig.Sequence + "[sweep]\n\"main.sigma\" = [2.0, 3.0]\n"

// TestRunSequenceSweepShards runs the Gauss sequences of testfig.Sequence,
// swept over a part's parameter, through the real engine: every buckets
// bracket encloses the closed form (one Gauss mechanism with sigma_eff^-2 =
// sum count_j / sigma_j^2 per run, computed here from the swept value), the
// exact method reports that closed form, a run in three shards gives the
// same tables as one run, and a second run takes every state from the
// cache.
func TestRunSequenceSweepShards(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "seq.toml", sequenceSweep)
	full := filepath.Join(dir, "full")
	rn := &Runner{Backend: backend.Engine{}, Methods: methods.CompareWith, Out: full, Jobs: 2}
	rep, err := rn.Run(context.Background(), []*manifest.Manifest{m})
	if err != nil {
		t.Fatal(err)
	}
	// 2 sequences x 2 sweep points x 3 methods x 2 r.
	if rep.Tasks != 24 || rep.OK != 24 {
		t.Fatalf("report %+v (%v)", rep, rep.Failures)
	}
	delta := pipelinetest.ReadFrame(t, filepath.Join(full, "schedule", "delta.parquet"))
	type key struct {
		mech string
		r    int64
		eps  float64
	}
	exactRows := map[key]float64{}
	for i := 0; i < delta.Rows(); i++ {
		if delta.Column("method").Strings[i] == manifest.MethodExact {
			exactRows[key{delta.Column("mechanism").Strings[i], delta.Column("compositions").Ints[i], delta.Column("eps").Floats[i]}] = delta.Column("delta_upper").Floats[i]
		}
	}
	checked := 0
	for i := 0; i < delta.Rows(); i++ {
		if delta.Column("method").Strings[i] != manifest.MethodBuckets {
			continue
		}
		label, r, eps := delta.Column("mechanism").Strings[i], delta.Column("compositions").Ints[i], delta.Column("eps").Floats[i]
		if delta.Column("kind").Strings[i] != manifest.KindSequence {
			t.Errorf("%s: kind %q", label, delta.Column("kind").Strings[i])
		}
		var main float64
		switch label {
		case "sched[main.sigma=2]", "const[main.sigma=2]":
			main = 2
		case "sched[main.sigma=3]", "const[main.sigma=3]":
			main = 3
		default:
			t.Fatalf("unexpected instance %q", label)
		}
		inv := 8 / (main * main)
		if strings.HasPrefix(label, "sched") {
			inv = 3/16.0 + 5/(main*main)
		}
		c, err := compare.ExactGauss(1/math.Sqrt(inv), 1, int(r))
		if err != nil {
			t.Fatal(err)
		}
		want := c.Delta(eps)
		lo, up := delta.Column("delta_lower").Floats[i], delta.Column("delta_upper").Floats[i]
		if !(lo <= want && want <= up) {
			t.Errorf("%s r=%d eps=%g: [%g, %g] does not enclose the exact %g", label, r, eps, lo, up, want)
		}
		if got := exactRows[key{label, r, eps}]; math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s r=%d eps=%g: exact method %g, closed form %g", label, r, eps, got, want)
		}
		checked++
	}
	if checked != 16 {
		t.Errorf("checked %d buckets rows, want 16", checked)
	}

	parts := filepath.Join(dir, "parts")
	const n = 3
	for i := 1; i <= n; i++ {
		rn := &Runner{Backend: backend.Engine{}, Methods: methods.CompareWith, Out: parts, Shard: Shard{Index: i, Count: n}}
		if _, err := rn.Run(context.Background(), []*manifest.Manifest{m}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := results.Scan(filepath.Join(parts, "schedule"))
	if err != nil || st.Usable() != nil || st.Current.Shards != n {
		t.Fatalf("scan %+v, %v", st, err)
	}
	for _, name := range []string{"delta", "epsilon", "runs"} {
		want := pipelinetest.ReadFrame(t, filepath.Join(full, "schedule", name+".parquet"))
		got := pipelinetest.ReadParts(t, st.Current.Files[name])
		if got.Rows() != want.Rows() {
			t.Fatalf("%s: shards hold %d rows, one run %d", name, got.Rows(), want.Rows())
		}
		pipelinetest.FramesEqual(t, got, want, "job_seconds", "shard", "cached")
	}

	// Again in the first folder: every state from the cache.
	if _, err := (&Runner{Backend: backend.Engine{}, Methods: methods.CompareWith, Out: full}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
		t.Fatal(err)
	}
	runs := pipelinetest.ReadFrame(t, filepath.Join(full, "schedule", "runs.parquet"))
	for i := 0; i < runs.Rows(); i++ {
		if runs.Column("method").Strings[i] == manifest.MethodBuckets && !runs.Column("cached").Bools[i] {
			t.Errorf("row %d (%s r=%d) not from the cache", i, runs.Column("mechanism").Strings[i], runs.Column("compositions").Ints[i])
		}
	}
	pipelinetest.FramesEqual(t, pipelinetest.ReadFrame(t, filepath.Join(full, "schedule", "delta.parquet")), delta)
}

// TestRunSequenceRejectsBadPart checks that a part its engine constructor
// refuses is reported when the manifest is read, before anything is
// computed, with the part's line.
func TestRunSequenceRejectsBadPart(t *testing.T) {
	// The engine refuses counts beyond 2^23.
	doc := strings.Replace(testfig.Sequence, "kind = \"gauss\"\nsigma = 4.0", "kind = \"vuvuzela_conversation\"\nmu = 1e7\nscale = 1.0", 1)
	_, err := manifest.Parse("seq.toml", []byte(doc))
	if err == nil || !strings.Contains(err.Error(), `seq.toml:4: mechanism "warmup"`) || !strings.Contains(err.Error(), "FFT of more than") {
		t.Errorf("error %v", err)
	}
}
