package engine

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// pairRefLine is a line of testdata/pair_refs.txt: its pair, direction and
// the number of steps.
type pairRefLine struct {
	line   string
	pair   rpPair
	ba     bool
	steps  int
	eps    float64
	want   float64 // ln delta, -Inf for 0
	params []float64
}

// TestPairReferencesAgainstMpmath checks delta1 of every reference pair of
// refpairs_test.go (the subsampled Gaussian remove, antipodal and
// symmetrised pairs, the Laplace remove and symmetrised pairs, the
// truncated Gauss and Laplace pairs; both directions, eps from 0 to 1e4)
// against 60-digit mpmath values computed from the pairs' definitions
// (testdata/pair_refs.py): within the reference's own uncertainty, which
// must itself be small.
func TestPairReferencesAgainstMpmath(t *testing.T) {
	n, worst := 0, 0.0
	for _, r := range loadPairRefs(t) {
		if r.steps != 1 {
			continue
		}
		p := r.pair
		if r.ba {
			p = p.swap()
		}
		got, unc := p.delta1(r.eps)
		if math.IsInf(r.want, -1) {
			// the pair's delta is 0: the reference must say so, or be
			// below 1e-300 (a threshold at the end of a piece)
			if !math.IsInf(got, -1) && got > -690 {
				t.Errorf("%s: ln delta = %.17g, mpmath 0", r.line, got)
			}
			n++
			continue
		}
		tol := unc + 1e-13*(1+math.Abs(r.want))
		if math.Abs(got-r.want) > tol {
			t.Errorf("%s: ln delta = %.17g +- %.3g, mpmath %.17g (diff %.3g)", r.line, got, unc, r.want, got-r.want)
		}
		if unc > 1e-9*(1+math.Abs(r.want)) {
			t.Errorf("%s: uncertainty %.3g is too large for a reference", r.line, unc)
		}
		worst = math.Max(worst, math.Abs(got-r.want)/(1+math.Abs(r.want)))
		n++
	}
	t.Logf("%d values, largest |ln difference|/(1+|ln delta|): %.2g", n, worst)
	if n < 400 {
		t.Fatalf("only %d reference values", n)
	}
}

// loadPairRefs parses testdata/pair_refs.txt.
func loadPairRefs(t *testing.T) []pairRefLine {
	t.Helper()
	lines := readRawLines(t, "testdata/pair_refs.txt")
	var out []pairRefLine
	for _, fs := range lines {
		if len(fs) < 5 {
			t.Fatalf("pair_refs.txt: short line %q", fs)
		}
		var v []float64
		for _, s := range fs[2:] {
			x, err := parseFloatInf(s)
			if err != nil {
				t.Fatalf("pair_refs.txt: %q: %v", fs, err)
			}
			v = append(v, x)
		}
		r := pairRefLine{line: fmt.Sprint(fs), ba: fs[1] == "ba", steps: 1, eps: v[len(v)-2], want: v[len(v)-1], params: v[:len(v)-2]}
		a, b := v[0], v[1]
		switch fs[0] {
		case "remove":
			r.pair = rpPair{rpRemove(a, b)}
		case "remove2":
			r.pair, r.steps = rpPair{rpRemove(a, b)}, 2
		case "antipodal":
			r.pair = rpPair{rpAntipodal(a, b)}
		case "symmetric":
			r.pair = rpSymmetrise(rpPair{rpRemove(a, b)}, a, b, false)
		case "lapremove":
			r.pair = rpLapRemove(a, b)
		case "lapremove2":
			r.pair, r.steps = rpLapRemove(a, b), 2
		case "lapsymmetric":
			r.pair = rpSymmetrise(rpLapRemove(a, b), a, b, true)
		case "gausstrunc":
			r.pair = rpGaussTrunc(a, b)
		case "laptrunc":
			r.pair = rpLaplaceTrunc(a, b)
		default:
			t.Fatalf("pair_refs.txt: unknown kind %q", fs[0])
		}
		out = append(out, r)
	}
	return out
}

// TestPairLossesAgainstMpmath checks the reference pairs' own privacy-loss
// formulas (rpLogMix, the remove, antipodal and Laplace remove losses)
// against the 60-digit values of testdata/subsampled_ref.txt: within the
// error bound each returns.
func TestPairLossesAgainstMpmath(t *testing.T) {
	n := 0
	for _, r := range readRef(t) {
		var got, e float64
		switch r.kind {
		case "logmix":
			got, e = rpLogMix(r.in[0], r.in[1])
		case "gaussremove":
			p := rpRemove(r.in[0], r.in[1])
			got, e = p.lossAt(r.in[2])
		case "gaussantipodal":
			p := rpAntipodal(r.in[0], r.in[1])
			got, e = p.lossAt(r.in[2])
		case "lapremove":
			p := rpLapRemove(r.in[0], r.in[1])[1]
			got, e = p.lossAt(r.in[2])
		default:
			continue
		}
		n++
		if d := math.Abs(got - r.want); !(d <= e) {
			t.Errorf("%s%v = %.17g, want %.17g: error %.3g > bound %.3g", r.kind, r.in, got, r.want, d, e)
		}
	}
	if n < 1000 {
		t.Fatalf("only %d loss values", n)
	}
}

// readRawLines returns the whitespace-separated fields of every non-empty
// line of a file.
func readRawLines(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) > 0 {
			out = append(out, fs)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// parseFloatInf parses a float64 ("inf" and "-inf" included).
func parseFloatInf(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
