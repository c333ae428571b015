package manifest

import (
	"fmt"
	"math"
)

// Mechanism kinds understood in manifests.
const (
	KindLaplace              = "laplace"
	KindGauss                = "gauss"
	KindRandomizedResponse   = "randomized_response"
	KindSGD                  = "sgd"
	KindEpsDelta             = "eps_delta"
	KindHistogram            = "histogram"
	KindVuvuzelaDialing      = "vuvuzela_dialing"
	KindVuvuzelaConversation = "vuvuzela_conversation"
)

// Kinds returns the mechanism kinds in documentation order.
func Kinds() []string {
	return []string{KindLaplace, KindGauss, KindRandomizedResponse, KindSGD, KindEpsDelta,
		KindHistogram, KindVuvuzelaDialing, KindVuvuzelaConversation}
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
	// check returns a description of the valid range when v is outside it.
	check func(v float64) string
}

// kindSchema lists the parameters of a mechanism kind. Numeric parameters
// are in params; histogram has the string key "file", Vuvuzela the string
// key "noise".
type kindSchema struct {
	params  []paramSpec
	strings []string
	// options are optional string keys with a fixed set of values
	// (sampling and relation of the subsampled kinds).
	options []string
}

func (s kindSchema) keys() []string {
	keys := []string{"id", "kind", "engine"}
	for _, p := range s.params {
		keys = append(keys, p.name)
	}
	keys = append(keys, s.strings...)
	return append(keys, s.options...)
}

func (s kindSchema) param(name string) (paramSpec, bool) {
	for _, p := range s.params {
		if p.name == name {
			return p, true
		}
	}
	return paramSpec{}, false
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func positive(v float64) string {
	if v > 0 && finite(v) {
		return ""
	}
	return "must be positive and finite"
}

func nonNegative(v float64) string {
	if v >= 0 && finite(v) {
		return ""
	}
	return "must be non-negative and finite"
}

func openUnit(v float64) string {
	if v > 0 && v < 1 {
		return ""
	}
	return "must be in (0, 1)"
}

func halfOpenUnit(v float64) string {
	if v > 0 && v <= 1 {
		return ""
	}
	return "must be in (0, 1]"
}

func closedUnit(v float64) string {
	if v >= 0 && v <= 1 {
		return ""
	}
	return "must be in [0, 1]"
}

// maxExactInt is 2^53: integers up to it are exact in a float64.
const maxExactInt = 1 << 53

func positiveInteger(v float64) string {
	if v >= 1 && v <= maxExactInt && v == math.Trunc(v) {
		return ""
	}
	return "must be a positive integer"
}

// schemaFor returns the parameter schema of a mechanism kind.
func schemaFor(kind string) (kindSchema, bool) {
	sens := paramSpec{name: "sensitivity", def: 1, check: positive}
	trunc := paramSpec{name: "truncate", def: 0, check: nonNegative}
	rate := paramSpec{name: "q", optional: true, check: halfOpenUnit}
	switch kind {
	case KindLaplace:
		return kindSchema{params: []paramSpec{{name: "scale", required: true, check: positive}, sens, trunc, rate},
			options: subsamplingKeys}, true
	case KindGauss:
		return kindSchema{params: []paramSpec{{name: "sigma", required: true, check: positive}, sens, trunc}}, true
	case KindRandomizedResponse:
		return kindSchema{params: []paramSpec{{name: "p", required: true, check: openUnit}}}, true
	case KindSGD:
		return kindSchema{params: []paramSpec{{name: "sigma", required: true, check: positive}, rate,
			{name: "sensitivity", optional: true, def: 1, check: positive},
			{name: "batch", optional: true, check: positiveInteger}, {name: "dataset_size", optional: true, check: positiveInteger}},
			options: subsamplingKeys}, true
	case KindEpsDelta:
		return kindSchema{params: []paramSpec{{name: "eps", required: true, check: nonNegative}, {name: "delta", required: true, check: closedUnit}}}, true
	case KindHistogram:
		return kindSchema{strings: []string{"file"}}, true
	case KindVuvuzelaDialing, KindVuvuzelaConversation:
		return kindSchema{
			params:  []paramSpec{{name: "mu", required: true, check: positive}, {name: "scale", required: true, check: positive}},
			strings: []string{"noise"},
		}, true
	}
	return kindSchema{}, false
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
