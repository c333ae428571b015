// Package atomicfile writes files atomically: into a temporary file in the
// same folder, renamed into place, so that readers never see a partial
// file. Files get the permissions of os.Create (0666 less the process
// umask: 0644 under the usual umask 022), so that the group reads results
// written on a shared file system.
//
// May import: no package of this module.
package atomicfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes a file through write into a temporary file in the same
// folder (created, with its parents, if missing) and renames it into place,
// so readers never see a partial file. The file's permissions are 0666
// less the umask, as with os.Create.
func Write(path string, write func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	f, err := createTemp(dir, "."+filepath.Base(path)+".tmp-")
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

// createTemp creates a new file dir/prefix<random> with mode 0666 less the
// umask (os.CreateTemp would make it 0600).
func createTemp(dir, prefix string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, prefix+rand.Text()[:12])
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("creating a temporary file in %s: too many attempts", dir)
}
