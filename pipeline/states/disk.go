package states

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/pbuckets/pbuckets/internal/atomicfile"
)

// disk is the folder of cached states: one file <key[:2]>/<key>.state
// per state and <key[:2]>/<key>.answers for its answers (answers.go),
// written atomically (a reader never sees a partial file). An
// empty dir holds nothing and stores nothing.
type disk string

func (d disk) path(key string) string {
	return d.file(key + ".state")
}

// file returns the path of the file name in its key's subfolder.
func (d disk) file(name string) string {
	return filepath.Join(string(d), name[:2], name)
}

// load returns the cached bytes of the state of key, if present.
func (d disk) load(key string) ([]byte, bool) {
	return d.read(d.path(key))
}

// read returns the bytes of the file at path, if present.
func (d disk) read(path string) ([]byte, bool) {
	if d == "" {
		return nil, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	return data, true
}

// loadAnswers returns the cached answers of the state of key
// (<key>.answers, answers.go), if present.
func (d disk) loadAnswers(key string) ([]byte, bool) {
	return d.read(d.file(key + ".answers"))
}

// storeAnswers writes the answers of the state of key atomically.
func (d disk) storeAnswers(key string, data []byte) error {
	return d.write(d.file(key+".answers"), data)
}

// has reports whether the state of key is in the folder.
func (d disk) has(key string) bool {
	if d == "" {
		return false
	}
	_, err := os.Stat(d.path(key))
	return err == nil
}

// store writes the state data under key atomically.
func (d disk) store(key string, data []byte) error {
	return d.write(d.path(key), data)
}

// write writes data to the file at path atomically.
func (d disk) write(path string, data []byte) error {
	if d == "" {
		return nil
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}
