package methods

import (
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

// Compare returns the comparison methods composing with package engine
// (backend.Engine), without a state cache or a memory budget.
func Compare() Registry { return CompareWith(&states.Service{Backend: backend.Engine{}}) }
