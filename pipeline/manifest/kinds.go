package manifest

import (
	"fmt"
	"slices"

	"github.com/pbuckets/pbuckets/engine"
)

// Mechanism kinds understood in manifests: the names of the rows of the
// table of kinds (kindTable).
const (
	KindLaplace              = "laplace"
	KindGauss                = "gauss"
	KindRandomizedResponse   = "randomized_response"
	KindSGD                  = "sgd"
	KindEpsDelta             = "eps_delta"
	KindHistogram            = "histogram"
	KindVuvuzelaDialing      = "vuvuzela_dialing"
	KindVuvuzelaConversation = "vuvuzela_conversation"
	KindRandomAllocation     = "random_allocation"
)

// kindSchema is one row of the table of mechanism kinds: the keys of a
// [[mechanism]] table of the kind (and so the flags of the one-line
// commands, KeyFlags), how they are checked and defaulted, the parameters
// a noise search may multiply, and how the engine mechanism of a spec of
// the kind is built (Build) and what its one-time build costs in memory.
type kindSchema struct {
	name string
	// params are the numeric keys; strings the string keys ("file" of
	// histogram, "noise" of Vuvuzela).
	params  []paramSpec
	strings []string
	// options are optional string keys with a fixed set of values
	// (sampling and relation of the subsampled kinds).
	options []string
	// search lists the parameters a noise search may multiply and tie
	// those it multiplies by default (nil: the kind has no noise to
	// search).
	search, tie []string
	// build returns the engine mechanism of a spec of this kind, whose
	// keys have been checked by the parser.
	build func(spec MechanismSpec) (engine.Mechanism, error)
	// refusalKey is "file" when a refusal of build that names no
	// parameter is about the data file (histogram), reported at the key
	// file with its path; "" reports it at the mechanism.
	refusalKey string
	// buildMemory is the memory in bytes of the mechanism's one-time build
	// beyond the composition's (nil: none).
	buildMemory func(spec MechanismSpec) int64
}

// paramSpec describes one numeric parameter of a mechanism kind.
type paramSpec struct {
	name     string
	required bool
	// optional parameters are left out of Params when absent (the backend
	// applies their default), so that adding one to a kind changes neither
	// the results' params column nor the cache keys of existing manifests.
	optional bool
	def      float64
	// engine is the parameter's name in the engine's errors
	// (engine.ParamError.Param) when it is not the key ("n" for
	// dataset_size).
	engine string
	// integer parameters must be whole numbers in [1, 2^53] (counts the
	// engine takes as int). Every other range is the engine constructor's
	// to check (parser.build).
	integer bool
}

// checkType returns "" when v can be a value of the parameter, and
// otherwise what it must be (the tail of an error message).
func (ps paramSpec) checkType(v float64) string {
	if ps.integer {
		return positiveInteger(v)
	}
	return ""
}

// kindTable lists the mechanism kinds in documentation order. Adding a kind
// is adding a row here (and, for a new key, a row of keyFlags) beside its
// engine constructor.
var kindTable = func() []kindSchema {
	sens := paramSpec{name: "sensitivity", def: 1}
	trunc := paramSpec{name: "truncate", def: 0}
	rate := paramSpec{name: "q", optional: true}
	vuvuzela := []paramSpec{{name: "mu", required: true}, {name: "scale", required: true}}
	return []kindSchema{
		{name: KindLaplace,
			params:  []paramSpec{{name: "scale", required: true}, sens, trunc, rate},
			options: subsamplingKeys,
			search:  []string{"scale", "truncate"}, tie: []string{"scale"},
			build: func(s MechanismSpec) (engine.Mechanism, error) {
				if s.Subsampled() {
					return subsampled(s, engine.SubsampledLaplace, s.Params["scale"])
				}
				return engine.Laplace(s.Params["scale"], s.Params["sensitivity"], s.Params["truncate"])
			}},
		{name: KindGauss,
			params: []paramSpec{{name: "sigma", required: true}, sens, trunc},
			search: []string{"sigma", "truncate"}, tie: []string{"sigma"},
			build: func(s MechanismSpec) (engine.Mechanism, error) {
				return engine.Gauss(s.Params["sigma"], s.Params["sensitivity"], s.Params["truncate"])
			}},
		{name: KindRandomizedResponse,
			params: []paramSpec{{name: "p", required: true}},
			build: func(s MechanismSpec) (engine.Mechanism, error) {
				return engine.RandomizedResponse(s.Params["p"])
			}},
		{name: KindSGD,
			params: []paramSpec{{name: "sigma", required: true}, rate,
				{name: "sensitivity", optional: true, def: 1},
				{name: "batch", optional: true, integer: true}, {name: "dataset_size", engine: "n", optional: true, integer: true}},
			options: subsamplingKeys,
			search:  []string{"sigma"}, tie: []string{"sigma"},
			build: func(s MechanismSpec) (engine.Mechanism, error) {
				return subsampled(s, engine.SubsampledGauss, s.Params["sigma"])
			}},
		{name: KindRandomAllocation, // one observation is one epoch
			params: []paramSpec{{name: "sigma", required: true}, {name: "sensitivity", def: 1},
				{name: "steps_per_epoch", required: true, integer: true},
				{name: "participations", def: 1, integer: true}},
			// relation is accepted so that the engine says why replace-one
			// is refused (engine.RandomAllocationGauss owns the rule)
			options: []string{"relation"},
			search:  []string{"sigma"}, tie: []string{"sigma"},
			build: func(s MechanismSpec) (engine.Mechanism, error) {
				rel, err := engine.ParseRelation(s.EffectiveRelation())
				if err != nil {
					return nil, err
				}
				return engine.RandomAllocationGauss(s.Params["sigma"], s.Params["sensitivity"],
					int(s.Params["steps_per_epoch"]), int(s.Params["participations"]), rel)
			}},
		{name: KindEpsDelta,
			params: []paramSpec{{name: "eps", required: true}, {name: "delta", required: true}},
			build: func(s MechanismSpec) (engine.Mechanism, error) {
				return engine.EpsDelta(s.Params["eps"], s.Params["delta"])
			}},
		{name: KindHistogram,
			strings: []string{"file"}, refusalKey: "file",
			build: func(s MechanismSpec) (engine.Mechanism, error) {
				return engine.Histogram(s.A, s.B)
			}},
		{name: KindVuvuzelaDialing,
			params: vuvuzela, strings: []string{"noise"},
			search: []string{"mu", "scale"}, tie: []string{"mu", "scale"},
			build: func(s MechanismSpec) (engine.Mechanism, error) {
				return engine.VuvuzelaDialing(engineNoise(s.Noise), s.Params["mu"], s.Params["scale"])
			},
			buildMemory: func(s MechanismSpec) int64 {
				return engine.EstimateDialingMemory(engineNoise(s.Noise), s.Params["mu"], s.Params["scale"])
			}},
		{name: KindVuvuzelaConversation,
			params: vuvuzela, strings: []string{"noise"},
			search: []string{"mu", "scale"}, tie: []string{"mu", "scale"},
			build: func(s MechanismSpec) (engine.Mechanism, error) {
				return engine.VuvuzelaConversation(engineNoise(s.Noise), s.Params["mu"], s.Params["scale"])
			},
			buildMemory: func(s MechanismSpec) int64 {
				return engine.EstimateConversationMemory(engineNoise(s.Noise), s.Params["mu"], s.Params["scale"])
			}},
	}
}()

// Kinds returns the mechanism kinds in documentation order.
func Kinds() []string {
	names := make([]string, len(kindTable))
	for i, k := range kindTable {
		names[i] = k.name
	}
	return names
}

// schemaFor returns the row of the table of kinds of a mechanism kind.
func schemaFor(kind string) (kindSchema, bool) {
	i := slices.IndexFunc(kindTable, func(k kindSchema) bool { return k.name == kind })
	if i < 0 {
		return kindSchema{}, false
	}
	return kindTable[i], true
}

func (s kindSchema) keys() []string {
	keys := []string{"id", "kind", "engine"}
	for _, p := range s.params {
		keys = append(keys, p.name)
	}
	keys = append(keys, s.strings...)
	return append(keys, s.options...)
}

// keyOf returns the key of the parameter the engine names param in its
// errors, "" when the kind has none.
func (s kindSchema) keyOf(param string) string {
	for _, p := range s.params {
		if p.engine == param || p.engine == "" && p.name == param {
			return p.name
		}
	}
	return ""
}

func (s kindSchema) param(name string) (paramSpec, bool) {
	for _, p := range s.params {
		if p.name == name {
			return p, true
		}
	}
	return paramSpec{}, false
}

// Noise distributions of the Vuvuzela mechanisms.
const (
	NoiseLaplace = "laplace"
	NoiseGauss   = "gauss"
)

func checkNoise(s string) error {
	if s == NoiseLaplace || s == NoiseGauss {
		return nil
	}
	return fmt.Errorf("noise must be %q or %q, got %q", NoiseLaplace, NoiseGauss, s)
}

// engineNoise converts a noise name (NoiseLaplace, NoiseGauss).
func engineNoise(noise string) engine.Noise {
	if noise == NoiseGauss {
		return engine.NoiseGauss
	}
	return engine.NoiseLaplace
}
