package states

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/engine"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
)

// TestStateKeyIncludesBackendVersion checks that states cached by another
// build of the engine are not reused.
func TestStateKeyIncludesbackendVersion(t *testing.T) {
	mech := pipelinetest.FakeMech{Desc: "x"}
	a := stateKey("engine-a", mech, manifest.MechanismSpec{}, manifest.EngineOptions{}, 4, []int{4})
	b := stateKey("engine-b", mech, manifest.MechanismSpec{}, manifest.EngineOptions{}, 4, []int{4})
	if a == b {
		t.Fatal("stateKey ignores the backend version")
	}
	if v := backendVersion(backend.Engine{}); !strings.HasPrefix(v, engine.Version+"/") || len(v) <= len(engine.Version)+1 {
		t.Errorf("EngineBackend version %q: want %s/<build>", v, engine.Version)
	}
	if v := backendVersion(&pipelinetest.Fake{}); v != "" {
		t.Errorf("fake backend version %q, want empty", v)
	}
}

// TestKeyFormat pins the text that cache keys hash, so that states cached
// before EngineOptions grew fields (Accuracy) are still found, and checks
// that the accuracy target does not enter the key and the chain's shaping
// counts do.
func TestKeyFormat(t *testing.T) {
	mech := pipelinetest.FakeMech{Desc: "gauss sigma=2"}
	opt := manifest.EngineOptions{Buckets: 100000, Factor: 1.5, ErrorCorrection: true, SquaringThreshold: 2.2, FreeInftyBudget: 1e-20, TailBudget: 1e-22, Tilts: 2}
	text := "pbuckets-state-v1\nbackend=v1\nmechanism=gauss sigma=2\ndata=d\n" +
		"engine={Buckets:100000 Factor:1.5 ErrorCorrection:true SquaringThreshold:2.2 FreeInftyBudget:1e-20 TailBudget:1e-22 Tilts:2}\nr=64\nchain=2,128\n"
	sum := sha256.Sum256([]byte(text))
	want := hex.EncodeToString(sum[:])
	spec := manifest.MechanismSpec{DataHash: "d"}
	if got := stateKey("v1", mech, spec, opt, 64, []int{2, 128}); got != want {
		t.Errorf("Key = %s, want %s (the sha256 of the pinned text)", got, want)
	}
	opt.Accuracy = 1e-3
	if got := stateKey("v1", mech, spec, opt, 64, []int{2, 128}); got != want {
		t.Errorf("Key with accuracy = %s, want %s: the target must not enter the key", got, want)
	}
	if got := stateKey("v1", mech, spec, opt, 64, []int{128}); got == want {
		t.Error("Key ignores the chain's shaping counts")
	}
	opt.Buckets = 200000
	if got := stateKey("v1", mech, spec, opt, 64, []int{2, 128}); got == want {
		t.Error("Key ignores the bucket count")
	}
}

// TestKeyPath checks that the composition path enters the key where it
// changes the bits: the power path at a count differs from the chain at
// that count, the chain at 0 buckets from the engine's choice at 0, and
// the chain at an explicit count shares the default path's key (the same
// computation).
func TestKeyPath(t *testing.T) {
	mech := pipelinetest.FakeMech{Desc: "gauss sigma=2"}
	spec := manifest.MechanismSpec{DataHash: "d"}
	key := func(buckets int, path string) string {
		return stateKey("v1", mech, spec, manifest.EngineOptions{Buckets: buckets, ErrorCorrection: true, Path: path}, 64, []int{64})
	}
	for _, c := range []struct {
		name   string
		a, b   string
		shared bool
	}{
		{"chain at a count is the default path at it", key(1<<15, manifest.PathChain), key(1<<15, ""), true},
		{"power path at a count", key(1<<15, manifest.PathPower), key(1<<15, ""), false},
		{"power path against the chain", key(1<<15, manifest.PathPower), key(1<<15, manifest.PathChain), false},
		{"chain at 0 against the engine's choice", key(0, manifest.PathChain), key(0, ""), false},
		{"power path at two lengths", key(1<<15, manifest.PathPower), key(1<<16, manifest.PathPower), false},
	} {
		if (c.a == c.b) != c.shared {
			t.Errorf("%s: keys equal %v, want %v", c.name, c.a == c.b, c.shared)
		}
	}
}

// TestKeyAlignEps checks that an aligned spacing (EngineOptions.AlignEps)
// enters the key, one per eps, and that none leaves the key as it was.
func TestKeyAlignEps(t *testing.T) {
	mech := pipelinetest.FakeMech{Desc: "gauss sigma=2"}
	spec := manifest.MechanismSpec{DataHash: "d"}
	key := func(align float64) string {
		return stateKey("v1", mech, spec, manifest.EngineOptions{Buckets: 4096, ErrorCorrection: true, AlignEps: align}, 64, []int{64})
	}
	plain := stateKey("v1", mech, spec, manifest.EngineOptions{Buckets: 4096, ErrorCorrection: true}, 64, []int{64})
	if key(0) != plain {
		t.Error("AlignEps 0 changed the key")
	}
	if key(0.4) == plain || key(0.4) == key(0.5) {
		t.Error("AlignEps does not enter the key")
	}
}
