package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pbuckets/pbuckets/internal/atomicfile"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// cacheFormat changes whenever the meaning of cached states changes.
const cacheFormat = "pbuckets-state-v1"

// States keeps composed states on disk under a key derived from
// everything that produced them.
type States struct {
	Dir string
}

// Key returns the cache key of the state after r compositions of
// mech with options opt, computed by a backend of the given version (see
// BackendVersion) in a ComposeMany call whose numbers of compositions have
// the shaping counts chain (engine.ChainCounts: the largest r of the call,
// for the automatic factor and the final tilts, and those at most 1/64 of
// it, whose saddle-point tilts the shared levels carry). A state's bits
// depend on them, so a state written by a run that split the work
// differently (shards, another manifest's r) is found only when it has the
// bits a fresh computation of this call would give.
//
// opt.Accuracy does not enter the key: it says how many bucket counts the
// buckets method tries, not what a state is.
func Key(version string, mech backend.Mechanism, spec manifest.MechanismSpec, opt manifest.EngineOptions, r int, chain []int) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\nbackend=%s\nmechanism=%s\ndata=%s\nengine=%+v\nr=%d\nchain=%s\n", cacheFormat, version, mech.String(), spec.DataHash, keyOptions(opt), r, joinInts(chain))
	return hex.EncodeToString(h.Sum(nil))
}

// joinInts returns the decimal numbers of v joined by commas.
func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

// engineKey holds the fields of manifest.EngineOptions that a state depends
// on, named and ordered as they were when the keys were defined, so that
// %+v prints them as it printed EngineOptions then and existing keys stay
// valid (TestKeyFormat pins it).
type engineKey struct {
	Buckets           int
	Factor            float64
	ErrorCorrection   bool
	SquaringThreshold float64
	FreeInftyBudget   float64
	TailBudget        float64
	Tilts             int
}

// keyOptions returns the part of opt that enters cache keys.
func keyOptions(opt manifest.EngineOptions) engineKey {
	return engineKey{opt.Buckets, opt.Factor, opt.ErrorCorrection, opt.SquaringThreshold, opt.FreeInftyBudget, opt.TailBudget, opt.Tilts}
}

// versioned is implemented by backends whose results depend on their
// build (backend.Engine): states cached by another build are not reused.
type versioned interface{ Version() string }

// BackendVersion returns b's version, or "" for backends without one.
func BackendVersion(b backend.Backend) string {
	if v, ok := b.(versioned); ok {
		return v.Version()
	}
	return ""
}

func (c States) path(key string) string {
	return filepath.Join(c.Dir, key[:2], key+".state")
}

// load returns the cached bytes of key, if present.
func (c States) Load(key string) ([]byte, bool) {
	if c.Dir == "" {
		return nil, false
	}
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	return data, true
}

// store writes data under key atomically.
func (c States) Store(key string, data []byte) error {
	if c.Dir == "" {
		return nil
	}
	return atomicfile.Write(c.path(key), func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}
