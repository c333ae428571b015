package cache

import (
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/engine"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
)

// TestStateKeyIncludesBackendVersion checks that states cached by another
// build of the engine are not reused.
func TestStateKeyIncludesBackendVersion(t *testing.T) {
	mech := pipelinetest.FakeMech{Desc: "x"}
	a := Key("engine-a", mech, manifest.MechanismSpec{}, manifest.EngineOptions{}, 4, 4)
	b := Key("engine-b", mech, manifest.MechanismSpec{}, manifest.EngineOptions{}, 4, 4)
	if a == b {
		t.Fatal("stateKey ignores the backend version")
	}
	if v := BackendVersion(backend.Engine{}); !strings.HasPrefix(v, engine.Version+"/") || len(v) <= len(engine.Version)+1 {
		t.Errorf("EngineBackend version %q: want %s/<build>", v, engine.Version)
	}
	if v := BackendVersion(&pipelinetest.Fake{}); v != "" {
		t.Errorf("fake backend version %q, want empty", v)
	}
}
