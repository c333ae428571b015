package states

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// cacheFormat changes whenever the meaning of cached states changes.
const cacheFormat = "pbuckets-state-v1"

// stateKey returns the cache key of the state after r compositions of
// mech with options opt, computed by a backend of the given version (see
// backendVersion) in a ComposeMany call whose numbers of compositions have
// the shaping counts chain (engine.ChainCounts: the largest r of the call,
// for the automatic factor and the final tilts, and one r per group of
// results at most half of it, whose tilts the shared levels carry). A state's bits
// depend on them, so a state written by a run that split the work
// differently (shards, another manifest's r) is found only when it has the
// bits a fresh computation of this call would give.
//
// opt.DeltaFloor enters the key when it is set (it may change the tail
// budget the engine chooses), opt.Path when it changes the path
// (keyPath), and opt.AlignEps when it is set (the closed form's spacing). opt.Accuracy does not enter the key: it says how many bucket counts the
// buckets method tries, not what a state is.
func stateKey(version string, mech backend.Mechanism, spec manifest.MechanismSpec, opt manifest.EngineOptions, r int, chain []int) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\nbackend=%s\nmechanism=%s\ndata=%s\nengine=%+v\nr=%d\nchain=%s\n", cacheFormat, version, mech.String(), spec.DataHash, keyOptions(opt), r, joinInts(chain))
	if opt.DeltaFloor != 0 {
		// after the pinned text, so that keys without a floor stay valid
		fmt.Fprintf(h, "delta_floor=%v\n", opt.DeltaFloor)
	}
	if p := keyPath(opt); p != "" {
		// after the pinned text, so that keys of the default path stay
		// valid
		fmt.Fprintf(h, "path=%s\n", p)
	}
	if opt.AlignEps != 0 {
		fmt.Fprintf(h, "align_eps=%v\n", opt.AlignEps)
	}
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

// keyPath returns the composition path that enters the key: opt.Path,
// except "" for the chain at an explicit bucket count, which composes the
// bits of the default path at that count (so both share their states).
func keyPath(opt manifest.EngineOptions) string {
	if opt.Path == manifest.PathChain && opt.Buckets != 0 {
		return ""
	}
	return opt.Path
}

// keyOptions returns the part of opt that enters cache keys.
func keyOptions(opt manifest.EngineOptions) engineKey {
	return engineKey{opt.Buckets, opt.Factor, opt.ErrorCorrection, opt.SquaringThreshold, opt.FreeInftyBudget, opt.TailBudget, opt.Tilts}
}

// versioned is implemented by backends whose results depend on their
// build (backend.Engine): states cached by another build are not reused.
type versioned interface{ Version() string }

// backendVersion returns b's version, or "" for backends without one.
func backendVersion(b backend.Backend) string {
	if v, ok := b.(versioned); ok {
		return v.Version()
	}
	return ""
}
