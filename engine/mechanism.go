package engine

import (
	"fmt"
	"math"
)

// Mechanism is a pair of output distributions (A, B) of a mechanism on two
// worst-case neighbouring inputs (Definition 11), ready to be embedded into
// privacy buckets. Values are created by the constructors of this package
// (Gauss, Laplace, SGD, RandomizedResponse, EpsDelta, Histogram,
// VuvuzelaDialing, VuvuzelaConversation), which validate their parameters.
type Mechanism interface {
	// String names the mechanism and its parameters, e.g.
	// "gauss(sigma=282.8, sensitivity=1)". Equal strings mean equal pairs.
	String() string

	// embed adds the atomic events of the pair to b (Definition 4's leaf
	// B(A, B, f, n)).
	embed(b *leafBuilder) error
	// lossRange returns t >= 0 such that events with |privacy loss| > t
	// (excluding distinguishing events) have A-mass and B-mass at most p
	// in total. The automatic factor uses it.
	lossRange(p float64) float64
}

func checkPositive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return paramError(name, "must be positive and finite, got %v", v)
	}
	return nil
}

func checkNonNegative(name string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return paramError(name, "must be non-negative and finite, got %v", v)
	}
	return nil
}

// checkRatio refuses a standardised sensitivity mu (sensitivity over the
// noise's scale) outside [1e-100, 1e100]: beyond it the privacy loss (of
// order mu^2 for Gauss) and its inverse leave the float64 range, so the
// pair could not be embedded (mu = 1e-100 already gives delta below
// 1e-100 at every eps, mu = 1e100 delta = 1 below eps = 1e200).
func checkRatio(name string, v float64) error {
	if !(v >= 1e-100 && v <= 1e100) {
		return invalidf("%s = %v is outside [1e-100, 1e100], where the privacy loss is computable in float64", name, v)
	}
	return nil
}

func fmtFloat(v float64) string { return fmt.Sprintf("%.17g", v) }
