package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

// accuracyRow is one row of the comparison with dp_accounting's PLD
// accountant (scripts/bench/peers.sh; the rows of engine's peersRows): a
// mechanism in manifest form, r and the row's queries.
type accuracyRow struct {
	name  string
	mech  string // the [[mechanism]] table's keys
	r     int
	delta float64   // eps(delta) query when > 0
	eEps  []float64 // delta(eps) queries at these e^eps
}

var accuracyRows = []accuracyRow{
	{"sgd1", `kind = "sgd"` + "\nsigma = 1.1\nq = 0.01", 10000, 1e-5, nil},
	{"sgd4", `kind = "sgd"` + "\nsigma = 4.0\nq = 0.01", 65536, 1e-5, nil},
	{"sgd1k", `kind = "sgd"` + "\nsigma = 1.0\nq = 0.001", 250000, 1e-6, nil},
	{"gauss512", `kind = "gauss"` + "\nsigma = 282.842712474619\nsensitivity = 1.0", 512, 0, []float64{1.01, 1.5}},
	{"vuvuzela", `kind = "vuvuzela_conversation"` + "\nnoise = \"gauss\"\nmu = 15000.0\nscale = 2500.0", 65536, 1e-4, nil},
}

// job returns the row's job with the accuracy target, as `pbuckets eps`
// and `delta` ask it by default (buckets 0: the cheap first round).
func (row accuracyRow) job(tb testing.TB, target float64) Job {
	src := fmt.Sprintf("name = \"bench\"\n\n[engine]\nbuckets = 0\naccuracy = %g\n\n[[mechanism]]\nid = \"m\"\n%s\n\n[query]\ncompositions = [%d]\n",
		target, row.mech, row.r)
	if row.delta > 0 {
		src += fmt.Sprintf("delta = [%g]\n", row.delta)
	} else {
		src += "e_eps = ["
		for i, e := range row.eEps {
			if i > 0 {
				src += ", "
			}
			src += strconv.FormatFloat(e, 'g', -1, 64)
		}
		src += "]\n"
	}
	m, err := manifest.Parse(filepath.Join(tb.TempDir(), "bench.toml"), []byte(src))
	if err != nil {
		tb.Fatalf("%s: %v\n%s", row.name, err, src)
	}
	ins := m.Instances()
	if len(ins) != 1 {
		tb.Fatalf("%s: %d instances", row.name, len(ins))
	}
	job := Job{Manifest: m, Instance: &ins[0], Compositions: []int{row.r}}
	if row.delta > 0 {
		job.Delta = []float64{row.delta}
	}
	for _, e := range row.eEps {
		job.Eps = append(job.Eps, math.Log(e))
	}
	return job
}

// BenchmarkAccuracyTarget: the refinement of an accuracy target (PB_TARGET,
// default 1e-4) for one row as the one-liners run it (Buckets.Run with the
// engine's backend, buckets 0, no cache: the question's delta floor, the
// rounds nextRound chooses and the other methods' bounds on the round
// reported), CPU seconds of the process (cpu-s, every round's), wall
// seconds, the relative width of the row's worst bracket (relw), the size
// and path of the round reported (power = 1 for the power path's points)
// and the rounds. With PB_JSON set it prints one line in inproc.py's
// format for scripts/bench/peers.sh. Run with -benchtime 1x.
func BenchmarkAccuracyTarget(b *testing.B) {
	target := 1e-4
	if v, err := strconv.ParseFloat(os.Getenv("PB_TARGET"), 64); err == nil {
		target = v
	}
	for _, row := range accuracyRows {
		b.Run(row.name, func(b *testing.B) {
			job := row.job(b, target)
			var out Outcome
			var cpu, wall float64
			for i := 0; i < b.N; i++ {
				bm := &Buckets{States: &states.Service{Backend: backend.Engine{}, Memory: states.NewBudget(1 << 40)}}
				c0, w0 := processCPU(), time.Now()
				outs, err := bm.Run(context.Background(), job)
				cpu, wall = (processCPU() - c0).Seconds(), time.Since(w0).Seconds()
				if err != nil {
					b.Fatal(err)
				}
				out = outs[0]
			}
			a := out.Accuracy
			if a == nil {
				b.Fatalf("%s: no accuracy reported", row.name)
			}
			if os.Getenv("PB_JSON") != "" {
				var vals []string
				for _, e := range out.Eps {
					vals = append(vals, fmt.Sprintf("eps lower=%.10g upper=%.10g", e.Lower, e.Upper))
				}
				for i, d := range out.Delta {
					vals = append(vals, fmt.Sprintf("e_eps=%g delta lower=%.10g upper=%.10g", row.eEps[i], d.Lower, d.Upper))
				}
				line, _ := json.Marshal(map[string]any{"cmd": b.Name(), "cpu": cpu, "wall": wall, "relw": a.Reached, "values": vals})
				fmt.Println(string(line))
			}
			b.ReportMetric(cpu, "cpu-s")
			b.ReportMetric(wall, "wall-s")
			b.ReportMetric(a.Reached, "relw")
			b.ReportMetric(float64(out.Buckets), "buckets")
			b.ReportMetric(float64(a.Rounds), "rounds")
			b.ReportMetric(map[bool]float64{false: 0, true: 1}[a.Path == manifest.PathPower], "power")
		})
	}
}
