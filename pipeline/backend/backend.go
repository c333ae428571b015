package backend

import (
	"context"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// Backend computes composed privacy-bucket states. Engine implements
// it with package engine; tests use a fake.
type Backend interface {
	// Mechanism validates spec and returns the mechanism it describes.
	Mechanism(spec manifest.MechanismSpec) (Mechanism, error)
	// ComposeMany returns the states after each number of compositions in
	// rs, sharing the 2^k-fold intermediate states. progress, if not nil,
	// is called with the number of steps done and planned.
	ComposeMany(ctx context.Context, m Mechanism, rs []int, opt manifest.EngineOptions, progress func(done, total int)) ([]State, error)
	// EstimateMemory returns the peak memory in bytes of one composition
	// of the mechanism of spec with spec.Engine, including the one-time
	// work of building the mechanism (it must not fail for specs that
	// Mechanism refuses).
	EstimateMemory(spec manifest.MechanismSpec) int64
	// DecodeState restores a state written by State.MarshalBinary.
	DecodeState(data []byte) (State, error)
}

// Mechanism is a validated mechanism of a Backend. Its String describes it
// completely (equal strings mean equal distributions, up to histogram data).
type Mechanism interface {
	String() string
}

// State is a composed bucket list that answers privacy queries.
type State interface {
	// DeltaBounds returns delta_up(eps) and delta_low(eps) (NaN when the
	// lower bound is not available).
	DeltaBounds(eps float64) (upper, lower float64)
	// EpsBounds returns eps_up(delta) and eps_low(delta) (NaN when not
	// available).
	EpsBounds(delta float64) (upper, lower float64)
	// Summary describes how the state was computed.
	Summary() StateSummary
	// MarshalBinary serializes the state for the cache. It may run
	// concurrently with the queries above (the buckets method writes the
	// cache while it answers them).
	MarshalBinary() ([]byte, error)
}

// StateSummary describes a composed state for runs.parquet.
type StateSummary struct {
	Buckets      int
	Factor       float64
	InfinityMass float64
	// Path is the computation that composed the state, which may differ
	// from the path the options asked for (the engine's power path falls
	// back to the chain where it does not qualify): manifest.PathChain,
	// manifest.PathPower or PathClosedForm; "" when the state does not
	// say (a sequence, an encoding older than the path).
	Path string
}

// PathClosedForm is StateSummary.Path of a composition in closed form
// (one leaf whose loss law is the r-fold one: engine.RouteClosedForm).
const PathClosedForm = "closed form"
