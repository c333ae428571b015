package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedFileIsReproduced regenerates the committed stand-in data set
// and compares it byte for byte.
func TestCommittedFileIsReproduced(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "experiments", "data", "synthetic-coverup-histogram.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := write(&got, 10000000, 400, 2018); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatal("experiments/data/synthetic-coverup-histogram.csv differs from the generator's output; run `make synthetic-data`")
	}
}

func TestHistograms(t *testing.T) {
	tests := []struct {
		name      string
		n, bins   int
		seed      uint64
		sameAsRef bool
	}{
		{"small", 1000, 50, 1, false},
		{"reference", 10000000, 400, 2018, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := histograms(tc.n, tc.bins, tc.seed)
			a2, b2 := histograms(tc.n, tc.bins, tc.seed)
			for i := range a {
				if a[i] != a2[i] || b[i] != b2[i] {
					t.Fatalf("not deterministic at bin %d", i)
				}
			}
			var sa, sb, ma, mb float64
			for i := range a {
				if !(a[i] > 0 && b[i] > 0) {
					t.Fatalf("bin %d: a=%v b=%v, want both positive (smoothing)", i, a[i], b[i])
				}
				sa, sb = sa+a[i], sb+b[i]
				ma, mb = ma+float64(i)*a[i], mb+float64(i)*b[i]
			}
			if math.Abs(sa-1) > 1e-12 || math.Abs(sb-1) > 1e-12 {
				t.Fatalf("sums %v %v", sa, sb)
			}
			if tc.sameAsRef && !(ma > mb+0.1 && ma < mb+1) {
				t.Fatalf("active mean %v should exceed passive mean %v by a fraction of a ms", ma, mb)
			}
		})
	}
}
