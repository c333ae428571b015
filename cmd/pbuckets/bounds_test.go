package main

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/query"
	"github.com/pbuckets/pbuckets/pipeline/search"
)

// TestCalibrationTextRoundsOutwards prints a calibration whose delta_low
// is 1.0088888e-05 and delta_up 9.9951e-06 (target 1e-05): the lower bound
// must print as a decimal <= it and > the target (rounding to nearest gave
// 1.01e-05, above the bound), the upper bound as a decimal >= it and <=
// the target.
func TestCalibrationTextRoundsOutwards(t *testing.T) {
	const low, up = 1.0088888e-05, 9.9951e-06
	spec := search.Spec{Mechanism: manifest.MechanismSpec{Kind: "laplace", Params: map[string]float64{"scale": 2.48, "sensitivity": 1}},
		Tie: []string{"scale"}, R: 1, Eps: 0.06, Delta: 1e-5}
	spec.Mechanism.Engine.Buckets = 100000
	c := query.Calibration{Spec: spec,
		Meets: map[string]float64{"scale": 2.484}, MeetsProbe: &search.Probe{Upper: up, Lower: 0},
		Insufficient: map[string]float64{"scale": 2.48}, InsufficientProbe: &search.Probe{Upper: 1e-4, Lower: low},
		Result: &search.Result{}}
	var buf bytes.Buffer
	if err := writeCalibrationText(&buf, []query.Calibration{c}, func(search.Spec) manifest.EpochPoint { return manifest.EpochPoint{} }); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	field := func(name string) float64 {
		_, rest, ok := strings.Cut(out, name+" ")
		if !ok {
			t.Fatalf("no %s in\n%s", name, out)
		}
		s := strings.FieldsFunc(rest, func(r rune) bool { return r == ';' || r == ' ' || r == ')' })[0]
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, s, err, out)
		}
		return v
	}
	if v := field("delta_low"); !(v <= low && v > 1e-5) {
		t.Errorf("delta_low printed as %v: not a lower bound of %v above the target 1e-05\n%s", v, low, out)
	}
	if v := field("delta_up"); !(v >= up && v <= 1e-5) {
		t.Errorf("delta_up printed as %v: not an upper bound of %v within the target 1e-05\n%s", v, up, out)
	}
}

// TestSearchTableRoundsOutwards checks the search table's bounds: delta_up
// rounds up, delta_low down, the noise meeting the target up, the noise
// proved insufficient down, their ratio up.
func TestSearchTableRoundsOutwards(t *testing.T) {
	spec := search.Spec{Label: "m", Tie: []string{"sigma"}, R: 1, Eps: 1, Delta: 1e-5}
	r := &search.Result{Spec: spec,
		Meets:        &search.Probe{Factor: 1.23441, Params: map[string]float64{"sigma": 1.234561}, Upper: 9.87641e-06, Lower: 9.12361e-06},
		Insufficient: &search.Probe{Factor: 1.22209, Params: map[string]float64{"sigma": 1.222289}, Upper: 1.23441e-05, Lower: 1.01269e-05}}
	var buf bytes.Buffer
	if err := writeSearchTable(&buf, []*search.Result{r}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	f := strings.Fields(lines[1])
	// m 1 e^eps delta | factor params up low | factor params up low | bracket probes status
	want := []struct {
		i     int
		v     float64
		upper bool
	}{{5, r.Meets.Factor, true}, {7, r.Meets.Upper, true}, {8, r.Meets.Lower, false},
		{10, r.Insufficient.Factor, false}, {12, r.Insufficient.Upper, true}, {13, r.Insufficient.Lower, false}, {15, r.Bracket(), true}}
	for _, w := range want {
		v, err := strconv.ParseFloat(f[w.i], 64)
		if err != nil || w.upper && v < w.v || !w.upper && v > w.v {
			t.Errorf("field %d = %q for %v (upper %v): not rounded outwards\n%s", w.i, f[w.i], w.v, w.upper, buf.String())
		}
	}
	for i, p := range []string{f[6], f[11]} {
		v, _ := strconv.ParseFloat(strings.TrimPrefix(p, "sigma="), 64)
		if i == 0 && v < r.Meets.Params["sigma"] || i == 1 && v > r.Insufficient.Params["sigma"] {
			t.Errorf("params %q not rounded outwards\n%s", p, buf.String())
		}
	}
}

// TestCalibrateNotBorrowedLower runs the soundness report's calibrate and
// delta commands for Poisson-subsampled Laplace under replace-one (q 0.05,
// sensitivity 1, r 1), whose engine pair only dominates the mechanism:
// every scale whose largest privacy loss ln((1-q+q e^m)/(1-q+q e^-m)), m
// = 1/scale, is below eps = 0.06 is sufficient (exact delta 0), so none
// of them may be called insufficient, and delta(0.06) at scale 2 has lower
// bound 0. With the dominating pair's lower bounds the engine called scales
// up to 2.48 insufficient and printed delta in [0.0046445, 0.0046445].
func TestCalibrateNotBorrowedLower(t *testing.T) {
	const q, eps = 0.05, 0.06
	loss := func(scale float64) float64 {
		m := 1 / scale
		return math.Log((1 - q + q*math.Exp(m)) / (1 - q + q*math.Exp(-m)))
	}
	lo, hi := 1.0, 3.0 // the least sufficient scale: loss(scale) = eps
	for hi-lo > 1e-12 {
		if mid := (lo + hi) / 2; loss(mid) <= eps {
			hi = mid
		} else {
			lo = mid
		}
	}
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "calibrate", "--kind", "laplace", "--sensitivity", "1", "--q", "0.05", "--relation", "replace_one",
		"--r", "1", "--eps", "0.06", "--delta", "1e-5", "--buckets", "20000", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	m := regexp.MustCompile(`scale (\S+) is insufficient`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no insufficient scale in\n%s", stdout)
	}
	if v, err := strconv.ParseFloat(m[1], 64); err != nil || !(v < hi) {
		t.Errorf("scale %s called insufficient, but every scale above %.6g is sufficient\n%s", m[1], hi, stdout)
	}
	code, stdout, stderr = runCmd(t, "delta", "--kind", "laplace", "--scale", "2", "--sensitivity", "1", "--q", "0.05", "--relation", "replace_one",
		"--r", "1", "--eps", "0.06", "--buckets", "20000", "--cache", t.TempDir())
	if code != exitOK || !strings.HasPrefix(stdout, "delta in [0, ") {
		t.Errorf("delta(0.06) at scale 2: exit %d, %q, want lower bound 0\n%s", code, stdout, stderr)
	}
}
