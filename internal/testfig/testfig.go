// Package testfig holds the manifests that tests of several packages share
// (the manifest parser, the runner, the drawing in plots, the commands): a
// manifest whose mechanisms, query and sweep give every figure kind
// something to draw (Manifest), a small valid manifest with a sweep
// (Valid), and writing a manifest into a test's folder. It imports no
// package of this module, so that the tests of pipeline/manifest can use
// it.
package testfig

import (
	"os"
	"path/filepath"
	"testing"
)

// Manifest returns a manifest that starts with header (name, title, ...)
// and has a Gauss mechanism (id "gauss", sigma 10) and a DP-SGD mechanism
// (id "sgd", sigma 4, q 0.01) swept over sigma in {2, 4} and q in
// {0.01, 0.02}, and a query with the given compositions and delta (TOML
// arrays), e_eps 1, 1.5 and 2, the methods buckets and kov and the Renyi
// orders 2 and 4. Figures go after it.
func Manifest(header, compositions, delta string) string {
	return header + `
[[mechanism]]
id = "gauss"
kind = "gauss"
sigma = 10.0
[[mechanism]]
id = "sgd"
kind = "sgd"
sigma = 4.0
q = 0.01
[query]
compositions = ` + compositions + `
e_eps = [1.0, 1.5, 2.0]
delta = ` + delta + `
methods = ["buckets", "kov"]
alpha = [2, 4]
[sweep]
"sgd.sigma" = [2.0, 4.0]
"sgd.q" = [0.01, 0.02]
`
}

// WriteFile writes content to dir/name and returns its path; an error
// fails the test.
func WriteFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
