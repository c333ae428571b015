package manifest

import (
	"os"
	"path/filepath"
	"slices"
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
	f.Add([]byte(testfig.Sequence))
	f.Add([]byte(testfig.Sequence + "[sweep]\n\"main.sigma\" = [1.0, 2.0]\n[search]\ntie = [\"main.sigma\"]\ncompositions = 1\neps = 1.0\ndelta = 1e-3\n"))
	f.Add([]byte("name = \"s\"\n[[mechanism]]\nid = \"a\"\nkind = \"laplace\"\nscale = 1\n[[sequence]]\nid = \"s\"\n[[sequence.parts]]\nmechanism = \"a\"\ncount = 2\n[query]\ncompositions = 1\neps = 1.0\n"))
	for _, name := range []string{"example.toml", "all-kinds.toml", "search-vuvuzela-dialing-8192.toml", "sgd-schedule.toml"} {
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
		queried := 0
		for _, s := range m.Mechanisms {
			if len(s.InSequences) == 0 {
				queried++
			}
			if s.Kind == KindSequence {
				if len(s.InSequences) > 0 || len(s.Parts) == 0 {
					t.Fatalf("accepted sequence %+v", s)
				}
				if n := float64(s.Observations()) * float64(slices.Max(append([]int{1}, m.Query.Compositions...))); n > MaxObservations {
					t.Fatalf("accepted %g observations of sequence %q", n, s.ID)
				}
				for _, p := range s.ResolvedParts() {
					if p.Count < 1 || p.Mechanism.Kind == KindSequence || p.Mechanism.ID == "" || p.Mechanism.Engine != s.Engine {
						t.Fatalf("accepted part %+v of sequence %q", p, s.ID)
					}
					for k := range p.Mechanism.Params {
						if _, ok := s.Params[p.Mechanism.ID+"."+k]; !ok {
							t.Fatalf("sequence %q lacks parameter %s.%s", s.ID, p.Mechanism.ID, k)
						}
					}
				}
			} else if len(s.InSequences) > 0 && len(m.Mechanisms) < 2 {
				t.Fatalf("mechanism %q is a part, but the manifest has no sequence", s.ID)
			}
		}
		if queried == 0 {
			t.Fatal("accepted a manifest whose mechanisms are all parts")
		}
		if n := len(m.Instances()); n < queried {
			t.Fatalf("%d instances for %d queried mechanisms", n, queried)
		}
	})
}
