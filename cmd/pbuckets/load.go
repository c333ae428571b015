package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// loadManifests parses every manifest and prints every problem found.
func loadManifests(paths []string, stderr io.Writer) ([]*manifest.Manifest, bool) {
	var out []*manifest.Manifest
	ok := true
	for _, p := range paths {
		m, err := manifest.Load(p)
		if err != nil {
			printErrors(stderr, err)
			ok = false
			continue
		}
		out = append(out, m)
	}
	return out, ok
}

// printErrors prints each error of a joined error on its own line.
// prefixErrors returns err, or each error that err joins, with prefix
// before it ("--accuracy: ...").
func prefixErrors(prefix string, err error) error {
	var multi interface{ Unwrap() []error }
	if !errors.As(err, &multi) {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	var out []error
	for _, e := range multi.Unwrap() {
		out = append(out, fmt.Errorf("%s: %w", prefix, e))
	}
	return errors.Join(out...)
}

func printErrors(w io.Writer, err error) {
	var multi interface{ Unwrap() []error }
	if errors.As(err, &multi) {
		for _, e := range multi.Unwrap() {
			fmt.Fprintf(w, "error: %v\n", e)
		}
		return
	}
	fmt.Fprintf(w, "error: %v\n", err)
}
