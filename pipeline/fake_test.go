package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"golang.org/x/sync/semaphore"
)

// fakeBackend is a deterministic stand-in for the engine. A mechanism with
// parameter sigma = 13 fails to compose; sigma = 17 blocks until cancelled.
type fakeBackend struct {
	mu       sync.Mutex
	composed []int // every r composed, in call order
	calls    int
	memory   int64 // bytes per job; 0 means 1 KiB
}

type fakeMech struct {
	desc  string
	scale float64
	sigma float64
}

func (m fakeMech) String() string { return m.desc }

func (f *fakeBackend) Mechanism(spec MechanismSpec) (Mechanism, error) {
	keys := make([]string, 0, len(spec.Params))
	for k := range spec.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	desc := spec.Kind
	scale := 1.0
	for _, k := range keys {
		desc += fmt.Sprintf(" %s=%g", k, spec.Params[k])
		scale += spec.Params[k]
	}
	if spec.Params["sigma"] == 99 {
		return nil, errors.New("fake: sigma 99 is rejected by the backend")
	}
	return fakeMech{desc, scale, spec.Params["sigma"]}, nil
}

func (f *fakeBackend) ComposeMany(ctx context.Context, m Mechanism, rs []int, opt EngineOptions, progress func(int, int)) ([]State, error) {
	fm := m.(fakeMech)
	f.mu.Lock()
	f.calls++
	f.composed = append(f.composed, rs...)
	f.mu.Unlock()
	if fm.sigma == 13 {
		return nil, errors.New("fake: composition blew up")
	}
	if fm.sigma == 17 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	out := make([]State, len(rs))
	for i, r := range rs {
		if progress != nil {
			progress(i+1, len(rs))
		}
		out[i] = &fakeState{R: r, Scale: fm.scale, Buckets: opt.Buckets, EC: opt.ErrorCorrection}
	}
	return out, nil
}

func (f *fakeBackend) EstimateMemory(MechanismSpec) int64 {
	if f.memory > 0 {
		return f.memory
	}
	return 1024
}

func (f *fakeBackend) DecodeState(data []byte) (State, error) {
	var s fakeState
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func (f *fakeBackend) composedCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.composed)
}

type fakeState struct {
	R       int
	Scale   float64
	Buckets int
	EC      bool
}

func (s *fakeState) DeltaBounds(eps float64) (float64, float64) {
	up := math.Exp(-eps*s.Scale) * math.Sqrt(float64(s.R)) / 10
	lo := math.NaN()
	if s.EC {
		lo = up * 0.9
	}
	return up, lo
}

func (s *fakeState) EpsBounds(delta float64) (float64, float64) {
	up := math.Log(math.Sqrt(float64(s.R))/10/delta) / s.Scale
	lo := math.NaN()
	if s.EC {
		lo = up * 0.9
	}
	return up, lo
}

func (s *fakeState) Summary() StateSummary {
	return StateSummary{Buckets: s.Buckets, Factor: 1.001, InfinityMass: 1e-30 * float64(s.R)}
}

func (s *fakeState) MarshalBinary() ([]byte, error) { return json.Marshal(s) }

func newTestSemaphore() *semaphore.Weighted { return semaphore.NewWeighted(1 << 40) }
