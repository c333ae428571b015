package main

import (
	"io"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
)

// FuzzQueryFlags feeds arguments (one per line) to the flag parsing of eps
// and delta: it must never panic, and what it accepts must be one
// mechanism instance with at least one r and one query point, checked by
// the manifest parser. Nothing is computed.
func FuzzQueryFlags(f *testing.F) {
	for _, s := range []string{
		"--kind\nsgd\n--sigma\n1.1\n--q\n0.01\n--r\n10000\n--delta\n1e-5",
		"--kind\ngauss\n--sigma\n2\n--r\n4,16\n--r\n64\n--delta\n1e-3,1e-6\n--methods\nbuckets,exact\n--json",
		"--kind\neps_delta\n--eps0\n0.1\n--delta0\n1e-7\n--r\n4\n--delta\n1e-3\n--buckets\n4000",
		"--kind\nvuvuzela_dialing\n--noise\ngauss\n--mu\n200\n--scale\n20\n--r\n1\n--delta\n0.5\n--tilts\n2",
		"--kind\nsgd\n--sigma\nNaN\n--q\n2\n--r\n-1\n--delta\n0",
		"--kind\nrandomized_response\n--p\n0.6\n--r\n1\n--e-eps\n2\n--factor\n1.01",
		"--kind\nsgd\n--sigma\n1.1\n--sampling\nfixed_size\n--relation\nreplace_one\n--batch\n256\n--dataset-size\n60000\n--r\n10\n--delta\n1e-5",
		"--kind\nlaplace\n--scale\n2\n--q\n0.1\n--sampling\nfixed_size\n--sensitivity\n3\n--r\n10\n--delta\n1e-5",
	} {
		f.Add("eps", s)
		f.Add("delta", strings.Replace(s, "--delta\n", "--eps\n", 1))
	}
	f.Fuzz(func(t *testing.T, what, lines string) {
		if what != queryEps {
			what = queryDelta
		}
		args := strings.Split(lines, "\n")
		if len(args) > 64 {
			return
		}
		for _, a := range args {
			if a == "--file" { // no files read by the fuzzer
				return
			}
		}
		m, _, _, status, ok := parseQuery(what, args, io.Discard)
		if !ok {
			if status != exitUsage && status != exitOK {
				t.Fatalf("status %d", status)
			}
			return
		}
		insts := m.Instances()
		if len(insts) != 1 || len(m.Query.Compositions) == 0 || len(m.Query.Methods) == 0 {
			t.Fatalf("accepted %d instances, r %v, methods %v", len(insts), m.Query.Compositions, m.Query.Methods)
		}
		// The backend builds every subsampled mechanism the flags pass; the
		// engine refuses only a sensitivity/noise ratio outside the float
		// range it computes in (as for every kind, at run time).
		if spec := insts[0].Spec; spec.Subsampled() {
			if _, err := (backend.Engine{}).Mechanism(spec); err != nil && !strings.Contains(err.Error(), "is outside [1e-100, 1e100]") {
				t.Fatalf("accepted %+v, engine refuses: %v", spec, err)
			}
		}
		if what == queryEps && len(m.Query.Delta) == 0 || what == queryDelta && len(m.Query.Eps) == 0 {
			t.Fatalf("accepted a %s query without points", what)
		}
	})
}

// FuzzRoundDecimal checks the outward rounding of printed bounds exactly:
// the printed number is on the right side of x, for every float64 and
// digit count.
func FuzzRoundDecimal(f *testing.F) {
	for _, x := range []float64{5.192531026751473, 0.09978, 1e-300, -1.715893716869661e+308, 0, 1} {
		f.Add(x, uint8(5))
	}
	f.Fuzz(func(t *testing.T, x float64, digits uint8) {
		d := 1 + int(digits)%15
		for _, up := range []bool{false, true} {
			s := roundDecimal(x, d, up)
			switch {
			case math.IsNaN(x):
				if s != "NaN" {
					t.Fatalf("NaN printed as %s", s)
				}
				continue
			case s == "+Inf" && (up || math.IsInf(x, 1)), s == "-Inf" && (!up || math.IsInf(x, -1)):
				continue
			}
			got, ok := new(big.Rat).SetString(s)
			if !ok {
				t.Fatalf("roundDecimal(%v, %d, %v) = %q", x, d, up, s)
			}
			c := got.Cmp(new(big.Rat).SetFloat64(x))
			if up && c < 0 || !up && c > 0 {
				t.Fatalf("roundDecimal(%v, %d, up=%v) = %s is on the wrong side", x, d, up, s)
			}
		}
	})
}
