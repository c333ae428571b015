package pipeline

import (
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/pbuckets/pbuckets/"

// TestLayout checks that every package under pipeline/ (and
// internal/atomicfile, engine and engine/internal/fft) says in its documentation what it holds and, in a
// "May import:" sentence, which packages of this module it imports, and
// that its non-test code imports exactly those: the one-way flow of the
// package documentation of pipeline.
func TestLayout(t *testing.T) {
	dirs := []string{
		filepath.Join("..", "internal", "atomicfile"),
		filepath.Join("..", "engine"),
		filepath.Join("..", "engine", "internal", "fft"),
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) < 11 {
		t.Fatalf("found %d packages, want at least 11: %v", len(dirs), dirs)
	}
	for _, dir := range dirs {
		pkg, err := build.ImportDir(dir, build.ImportComment)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		if !strings.HasPrefix(pkg.Doc, "Package "+pkg.Name+" ") {
			t.Errorf("%s: no package documentation (got %q)", dir, pkg.Doc)
			continue
		}
		want, ok := mayImport(t, dir)
		if !ok {
			t.Errorf("%s: the package documentation has no \"May import:\" sentence", dir)
			continue
		}
		var got []string
		for _, p := range pkg.Imports {
			if rel, ok := strings.CutPrefix(p, module); ok {
				got = append(got, rel)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s imports %v, its documentation says it may import %v", dir, got, want)
		}
	}
}

// mayImport returns the module-relative paths that the "May import:"
// sentence of dir's package documentation lists, sorted.
func mayImport(t *testing.T, dir string) ([]string, bool) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			doc += f.Doc.Text()
		}
	}
	_, after, ok := strings.Cut(strings.Join(strings.Fields(doc), " "), "May import: ")
	if !ok {
		return nil, false
	}
	sentence, _, _ := strings.Cut(after, ".")
	if sentence == "no package of this module" {
		return nil, true
	}
	var out []string
	for _, item := range strings.Split(sentence, ",") {
		out = append(out, strings.TrimSpace(item))
	}
	slices.Sort(out)
	return out, true
}
