package manifest

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/pbuckets/pbuckets/engine"
)

// Build returns the engine mechanism of a spec of a base kind (not a
// sequence: package backend builds those from their parts), with the
// constructor its row of the table of kinds names. The engine's
// constructors check the parameters again.
func (s MechanismSpec) Build() (engine.Mechanism, error) {
	k, ok := schemaFor(s.Kind)
	if !ok {
		return nil, fmt.Errorf("unknown mechanism kind %q", s.Kind)
	}
	return k.build(s)
}

// BuildMemory returns the memory in bytes that building the engine
// mechanism of a spec of a base kind takes beyond its composition: for the
// Vuvuzela pairs the counts' one-time build (the conversation's FFTs reach
// about 1 GiB at the engine's largest length), 0 for the other kinds.
func (s MechanismSpec) BuildMemory() int64 {
	k, ok := schemaFor(s.Kind)
	if !ok || k.buildMemory == nil {
		return 0
	}
	return k.buildMemory(s)
}

// build checks the parameters of a mechanism with its engine constructor,
// the one owner of their ranges, and reports a refusal at the key it
// names (an *engine.ParamError's parameter is the manifest key), or else
// at the mechanism (disp, on its line). Constructors are cheap: the Vuvuzela pairs
// defer their work to the first composition. A constructor stops at its
// first refusal: one range problem per mechanism is reported.
func (p *parser) build(spec MechanismSpec, at func(string) (int, string), disp string) engine.Mechanism {
	k, _ := schemaFor(spec.Kind)
	mech, err := k.build(spec)
	if err == nil {
		return mech
	}
	var pe *engine.ParamError
	if errors.As(err, &pe) {
		if key := k.keyOf(pe.Param); key != "" {
			l, d := at(key)
			p.el.add(l, d, "%s", pe.Reason)
			return nil
		}
	}
	if k.refusalKey == "file" {
		l, d := at(k.refusalKey)
		p.el.add(l, d, "%s: %s", spec.File, engineMessage(err))
		return nil
	}
	p.el.add(spec.Line, disp, "%s", engineMessage(err))
	return nil
}

// builtMechanism is an engine mechanism the parser built (parser.build)
// and the spec it built it from.
type builtMechanism struct {
	spec MechanismSpec
	mech engine.Mechanism
}

// Built returns the engine mechanism that parsing built to check the
// ranges of in's mechanism, when in describes the same mechanism (its
// kind, numeric parameters bit for bit, noise, sampling, relation and
// histogram data are those parsed: an instance of an unswept mechanism,
// or one whose sweep point is the parsed values). It returns false for
// sequences (package backend builds them from their parts), for swept and
// otherwise changed specs (search.Spec.At's), and for manifests not made
// by Parse or ParseValues. The mechanism is the one Build would return,
// so a caller asking one question of the instance builds it once.
func (m *Manifest) Built(in Instance) (engine.Mechanism, bool) {
	b, ok := m.built[in.Spec.ID]
	if !ok || !sameMechanism(b.spec, in.Spec) {
		return nil, false
	}
	return b.mech, true
}

// clone returns s with its own copies of Params, A and B (what Build
// reads), so that changes to the copies of s a caller makes do not reach
// it.
func (s MechanismSpec) clone() MechanismSpec {
	s.Params = maps.Clone(s.Params)
	s.A, s.B = slices.Clone(s.A), slices.Clone(s.B)
	return s
}

// sameMechanism reports whether two specs of a base kind describe the same
// engine mechanism: every key Build reads is equal (numbers bit for bit).
func sameMechanism(a, b MechanismSpec) bool {
	bits := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	if a.Kind != b.Kind || a.Noise != b.Noise || a.Sampling != b.Sampling || a.Relation != b.Relation ||
		a.DataHash != b.DataHash || len(a.Params) != len(b.Params) ||
		!slices.EqualFunc(a.A, b.A, bits) || !slices.EqualFunc(a.B, b.B, bits) {
		return false
	}
	for k, x := range a.Params {
		y, ok := b.Params[k]
		if !ok || !bits(x, y) {
			return false
		}
	}
	return true
}

// sweptRange returns why the engine constructor refuses the value v of
// the swept parameter param of spec (its other parameters at their
// values in spec): "<key> <reason>" for the parameter it names, "" when it
// accepts it or refuses a combination (one the sweep may vary too, such
// as gauss's truncate and sensitivity, is left to the tasks).
func sweptRange(spec MechanismSpec, param string, v float64) string {
	k, ok := schemaFor(spec.Kind)
	if !ok {
		return ""
	}
	s := spec
	s.Params = make(map[string]float64, len(spec.Params)+1)
	for key, x := range spec.Params {
		s.Params[key] = x
	}
	s.Params[param] = v
	_, err := k.build(s)
	var pe *engine.ParamError
	if errors.As(err, &pe) {
		if key := k.keyOf(pe.Param); key != "" {
			return key + " " + pe.Reason
		}
	}
	return ""
}

// engineMessage is the text of an engine error without the engine's
// "invalid input: " prefix (the manifest's errors are all about input).
func engineMessage(err error) string {
	return strings.TrimPrefix(err.Error(), engine.ErrInvalid.Error()+": ")
}

// Engine returns the engine's options of o (engine.Options, the
// composing functions' settings). Zero values select the engine's
// defaults; Accuracy is the pipeline's, not the engine's.
func (o EngineOptions) Engine() engine.Options {
	return engine.Options{
		Buckets:                o.Buckets,
		Factor:                 o.Factor,
		DisableErrorCorrection: !o.ErrorCorrection,
		SquaringThreshold:      o.SquaringThreshold,
		FreeInftyBudget:        o.FreeInftyBudget,
		TailBudget:             o.TailBudget,
		Tilts:                  o.Tilts,
		DeltaFloor:             o.DeltaFloor,
		AlignEps:               o.AlignEps,
		Path:                   enginePath(o.Path),
	}
}

// enginePath returns the engine's path of EngineOptions.Path: PathChain,
// PathPower, and engine.PathDefault for anything else ("").
func enginePath(p string) engine.Path {
	switch p {
	case PathChain:
		return engine.PathChain
	case PathPower:
		return engine.PathPower
	}
	return engine.PathDefault
}

// subsampled builds the engine pair of a subsampled mechanism (kind sgd,
// or laplace with q) with the constructor build (engine.SubsampledGauss or
// engine.SubsampledLaplace) and the noise scale (sigma or scale). The rate
// is q, or for fixed-size sampling batch/dataset_size rounded up
// (engine.FixedSizeRate); sensitivity defaults to 1. The combination of
// keys was checked by the parser (parser.subsampling).
func subsampled(spec MechanismSpec, build func(scale, sensitivity, q float64, s engine.Sampling, r engine.Relation) (engine.Mechanism, error), scale float64) (engine.Mechanism, error) {
	s, err := engine.ParseSampling(spec.EffectiveSampling())
	if err != nil {
		return nil, err
	}
	r, err := engine.ParseRelation(spec.EffectiveRelation())
	if err != nil {
		return nil, err
	}
	q, err := rate(spec)
	if err != nil {
		return nil, err
	}
	sens, ok := spec.Params["sensitivity"]
	if !ok {
		sens = 1
	}
	if spec.Kind == KindLaplace && spec.Params["truncate"] != 0 {
		return nil, fmt.Errorf("a subsampled Laplace mechanism (q = %v) cannot be truncated (truncate = %v)", q, spec.Params["truncate"])
	}
	return build(scale, sens, q, s, r)
}

// rate returns the sampling rate of a subsampled mechanism: q, or
// engine.FixedSizeRate(batch, dataset_size), which checks their range.
func rate(spec MechanismSpec) (float64, error) {
	_, hi, err := spec.SamplingRates()
	return hi, err
}

// SamplingRates returns rates lo <= the mechanism's sampling rate <= hi:
// hi is the rate its (upper) pair is built with, lo the rate of a lower
// pair it dominates. From q as given, hi = q and lo is the float below;
// from batch and dataset_size, engine.FixedSizeRates (b/n rounded down and
// up, equal when exact), which checks their range.
func (spec MechanismSpec) SamplingRates() (lo, hi float64, err error) {
	p := spec.Params
	if q, hasQ := p["q"]; hasQ {
		return math.Nextafter(q, 0), q, nil
	}
	b, hasB := p["batch"]
	n, hasN := p["dataset_size"]
	if !hasB || !hasN {
		return 0, 0, fmt.Errorf("missing the sampling rate q (or batch and dataset_size)")
	}
	if !(positiveInteger(b) == "" && positiveInteger(n) == "") {
		return 0, 0, fmt.Errorf("batch %v and dataset_size %v must be integers in [1, 2^53]", b, n)
	}
	return engine.FixedSizeRates(int(b), int(n))
}
