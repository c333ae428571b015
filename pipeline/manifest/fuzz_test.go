package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
)

// FuzzParse checks that the parser never panics and that accepted
// manifests satisfy the invariants the runner relies on.
func FuzzParse(f *testing.F) {
	f.Add([]byte(testfig.Valid))
	f.Add([]byte(base))
	f.Add([]byte("name = \"x\"\n[query\n"))
	f.Add([]byte("[[mechanism]]\n[mechanism.engine]\nbuckets = 8\n[[mechanism]]\n'a.b' = \"\"\"\nx\n\"\"\"\nc = [\n1,\n]\n"))
	for _, name := range []string{"example.toml", "all-kinds.toml", "search-vuvuzela-dialing-8192.toml"} {
		if data, err := os.ReadFile(filepath.Join("..", "..", "experiments", name)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(filepath.Join("..", "..", "experiments", "fuzz.toml"), data)
		if err != nil {
			if m != nil {
				t.Fatal("manifest returned with an error")
			}
			return
		}
		if m.Name == "" || len(m.Mechanisms) == 0 {
			t.Fatalf("accepted incomplete manifest %+v", m)
		}
		if c := m.Search; c != nil {
			// A manifest with [search] may have no [query]; the searches
			// themselves are checked by FuzzSpecs of package search.
			if len(c.Compositions) == 0 || len(c.Eps) == 0 || len(c.Delta) == 0 {
				t.Fatalf("accepted an incomplete [search] %+v", c)
			}
		} else if len(m.Query.Compositions) == 0 || len(m.Query.Methods) == 0 {
			t.Fatalf("accepted incomplete manifest %+v", m)
		}
		if m.Search == nil && len(m.Query.Eps) == 0 && len(m.Query.Delta) == 0 {
			t.Fatal("accepted a manifest without queries")
		}
		for _, r := range m.Query.Compositions {
			if r < 1 {
				t.Fatalf("accepted r = %d", r)
			}
		}
		if n := len(m.Instances()); n < len(m.Mechanisms) {
			t.Fatalf("%d instances for %d mechanisms", n, len(m.Mechanisms))
		}
	})
}
