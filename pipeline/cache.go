package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// cacheFormat changes whenever the meaning of cached states changes.
const cacheFormat = "pbuckets-state-v1"

// stateCache keeps composed states on disk under a key derived from
// everything that produced them.
type stateCache struct {
	dir string
}

// stateKey returns the cache key of the state after r compositions of
// mech with options opt, computed by a backend of the given version (see
// backendVersion). basis is the largest r of the ComposeMany call when the
// factor is automatic (the engine picks the factor for it), else 0.
func stateKey(version string, mech Mechanism, spec MechanismSpec, opt EngineOptions, r, basis int) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\nbackend=%s\nmechanism=%s\ndata=%s\nengine=%+v\nr=%d\nbasis=%d\n", cacheFormat, version, mech.String(), spec.DataHash, opt, r, basis)
	return hex.EncodeToString(h.Sum(nil))
}

// versioned is implemented by backends whose results depend on their
// build (EngineBackend): states cached by another build are not reused.
type versioned interface{ Version() string }

// backendVersion returns b's version, or "" for backends without one.
func backendVersion(b Backend) string {
	if v, ok := b.(versioned); ok {
		return v.Version()
	}
	return ""
}

func (c stateCache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".state")
}

// load returns the cached bytes of key, if present.
func (c stateCache) load(key string) ([]byte, bool) {
	if c.dir == "" {
		return nil, false
	}
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	return data, true
}

// store writes data under key atomically.
func (c stateCache) store(key string, data []byte) error {
	if c.dir == "" {
		return nil
	}
	return writeAtomic(c.path(key), func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}
