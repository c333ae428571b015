package query

import (
	"context"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// oneLiner parses the manifest of `pbuckets eps --kind sgd --sigma 1.1 --q
// 0.01 --r 10000 --delta 1e-5 --methods METHODS` (the engine's defaults).
func oneLiner(b *testing.B, methods string) *manifest.Manifest {
	b.Helper()
	doc := "name = \"eps\"\n[[mechanism]]\nid = \"m\"\nkind = \"sgd\"\nsigma = 1.1\nq = 0.01\n" +
		"[query]\ncompositions = [10000]\ndelta = [1e-5]\nmethods = " + methods + "\n"
	m, err := manifest.Parse("eps.toml", []byte(doc))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkAskOneLiner measures Ask on the DP-SGD one-liner of the
// package's doc: the buckets method with its state in the cache, the
// buckets method composing (no cache) and the rdp method alone.
func BenchmarkAskOneLiner(b *testing.B) {
	cases := []struct {
		name, methods string
		cache         bool
	}{
		{"buckets cached", `["buckets"]`, true},
		{"buckets fresh", `["buckets"]`, false},
		{"rdp", `["rdp"]`, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			opt := Options{}
			if c.cache {
				opt.CacheDir = b.TempDir()
				if _, err := Ask(context.Background(), oneLiner(b, c.methods), opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for range b.N {
				a, err := Ask(context.Background(), oneLiner(b, c.methods), opt)
				if err != nil {
					b.Fatal(err)
				}
				if len(a.Outcomes) != 1 {
					b.Fatalf("outcomes %+v, problems %+v", a.Outcomes, a.Problems)
				}
			}
		})
	}
}
