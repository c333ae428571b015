package states

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/pbuckets/pbuckets/internal/atomicfile"
)

// disk is the folder of cached states: one file <key[:2]>/<key>.state
// per state, written atomically (a reader never sees a partial file). An
// empty dir holds nothing and stores nothing.
type disk string

func (d disk) path(key string) string {
	return filepath.Join(string(d), key[:2], key+".state")
}

// load returns the cached bytes of key, if present.
func (d disk) load(key string) ([]byte, bool) {
	if d == "" {
		return nil, false
	}
	data, err := os.ReadFile(d.path(key))
	if err != nil {
		return nil, false
	}
	return data, true
}

// store writes data under key atomically.
func (d disk) store(key string, data []byte) error {
	if d == "" {
		return nil
	}
	return atomicfile.Write(d.path(key), func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}
