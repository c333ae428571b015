package backend

import (
	"fmt"
	"math"

	"github.com/pbuckets/pbuckets/engine"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// subsampled builds the engine pair of a subsampled mechanism (kind sgd,
// or laplace with q) with the constructor build (engine.SubsampledGauss or
// engine.SubsampledLaplace) and the noise scale (sigma or scale). The rate
// is q, or for fixed-size sampling batch/dataset_size rounded up
// (engine.FixedSizeRate); sensitivity defaults to 1.
func subsampled(spec manifest.MechanismSpec, build func(scale, sensitivity, q float64, s engine.Sampling, r engine.Relation) (engine.Mechanism, error), scale float64) (engine.Mechanism, error) {
	s, err := engine.ParseSampling(spec.EffectiveSampling())
	if err != nil {
		return nil, err
	}
	r, err := engine.ParseRelation(spec.EffectiveRelation())
	if err != nil {
		return nil, err
	}
	q, err := rate(spec, s)
	if err != nil {
		return nil, err
	}
	sens, ok := spec.Params["sensitivity"]
	if !ok {
		sens = 1
	}
	if spec.Kind == manifest.KindLaplace && spec.Params["truncate"] != 0 {
		return nil, fmt.Errorf("a subsampled Laplace mechanism (q = %v) cannot be truncated (truncate = %v)", q, spec.Params["truncate"])
	}
	return build(scale, sens, q, s, r)
}

// rate returns the sampling rate of a subsampled mechanism: q, or
// engine.FixedSizeRate(batch, dataset_size) for fixed-size sampling given
// by its batch.
func rate(spec manifest.MechanismSpec, s engine.Sampling) (float64, error) {
	p := spec.Params
	q, hasQ := p["q"]
	b, hasB := p["batch"]
	n, hasN := p["dataset_size"]
	switch {
	case hasQ && (hasB || hasN):
		return 0, fmt.Errorf("give either q or batch and dataset_size, not both")
	case hasQ:
		return q, nil
	case !hasB || !hasN:
		return 0, fmt.Errorf("missing the sampling rate q (or batch and dataset_size)")
	case s != engine.FixedSize:
		return 0, fmt.Errorf("batch and dataset_size need sampling = %q", manifest.SamplingFixedSize)
	case b != math.Trunc(b) || n != math.Trunc(n) || b < 1 || n > 1<<53:
		return 0, fmt.Errorf("batch %v and dataset_size %v must be integers in [1, 2^53]", b, n)
	}
	return engine.FixedSizeRate(int(b), int(n))
}
