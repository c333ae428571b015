// Package atomicfile writes files atomically: into a temporary file in the
// same folder, renamed into place, so that readers never see a partial
// file.
//
// May import: no package of this module.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes a file through write into a temporary file in the same
// folder and renames it into place, so readers never see a partial file.
func Write(path string, write func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	// Hide f's Close from writers that close what they write to.
	if err := write(struct{ io.Writer }{f}); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
