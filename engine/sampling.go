package engine

import (
	"fmt"
	"math"
)

// Sampling is how each step of a subsampled mechanism (DP-SGD) draws its
// batch from the data set.
type Sampling int

const (
	// Poisson sampling: every record joins the batch independently with
	// probability q (Abadi et al. 2016; dp_accounting's
	// PoissonSampledDpEvent, Opacus' default). The batch size varies.
	Poisson Sampling = iota
	// FixedSize sampling: a batch of exactly b records drawn uniformly
	// without replacement from the n records of the data set, q = b/n
	// (dp_accounting's SampledWithoutReplacementDpEvent; "shuffle and take
	// b" approximates it). Use FixedSizeRate to compute q.
	FixedSize
)

// Relation is the neighbouring relation between data sets that a DP
// guarantee protects.
type Relation int

const (
	// AddRemove: neighbours differ by adding or removing one record
	// (dp_accounting's ADD_OR_REMOVE_ONE, Opacus' and TF Privacy's usual
	// relation). The sensitivity is the largest contribution of one record.
	AddRemove Relation = iota
	// ReplaceOne: neighbours have the same size and differ in one record
	// (dp_accounting's REPLACE_ONE, "substitution", "bounded DP"). The
	// sensitivity is still the largest contribution of one record (the clip
	// norm in DP-SGD); the difference of two neighbours' outputs can be
	// twice as large, and the pairs account for that.
	ReplaceOne
)

// String returns the manifest name: "poisson" or "fixed_size".
func (s Sampling) String() string {
	switch s {
	case Poisson:
		return "poisson"
	case FixedSize:
		return "fixed_size"
	}
	return fmt.Sprintf("Sampling(%d)", int(s))
}

// String returns the manifest name: "add_remove" or "replace_one".
func (r Relation) String() string {
	switch r {
	case AddRemove:
		return "add_remove"
	case ReplaceOne:
		return "replace_one"
	}
	return fmt.Sprintf("Relation(%d)", int(r))
}

// ParseSampling returns the Sampling named s ("poisson" or "fixed_size").
func ParseSampling(s string) (Sampling, error) {
	switch s {
	case "poisson":
		return Poisson, nil
	case "fixed_size":
		return FixedSize, nil
	}
	return 0, invalidf("sampling must be \"poisson\" or \"fixed_size\", got %q", s)
}

// ParseRelation returns the Relation named s ("add_remove" or
// "replace_one").
func ParseRelation(s string) (Relation, error) {
	switch s {
	case "add_remove":
		return AddRemove, nil
	case "replace_one":
		return ReplaceOne, nil
	}
	return 0, invalidf("relation must be \"add_remove\" or \"replace_one\", got %q", s)
}

func (s Sampling) valid() bool { return s == Poisson || s == FixedSize }
func (r Relation) valid() bool { return r == AddRemove || r == ReplaceOne }

// FixedSizeRate returns the sampling rate q = batch/n of fixed-size
// sampling (batch records out of n), rounded up to the next float64 when
// the quotient is inexact: every pair of this package is monotone in q, so
// a rate rounded up still bounds the real one. Under AddRemove n may be the
// size of either neighbour (the smaller gives the larger, safe, rate).
// batch must be in [1, n] and n at most 2^53; a refusal is a *ParamError
// naming "batch" or "n".
func FixedSizeRate(batch, n int) (float64, error) {
	_, hi, err := FixedSizeRates(batch, n)
	return hi, err
}

// FixedSizeRates returns float64 rates lo <= batch/n <= hi of fixed-size
// sampling, both equal to batch/n when the quotient is exact and otherwise
// the floats on either side of it (hi is FixedSizeRate's rate, lo the rate
// of a lower pair that the mechanism dominates; hi is at most 1). The
// arguments are checked as by FixedSizeRate.
func FixedSizeRates(batch, n int) (lo, hi float64, err error) {
	if n < 1 {
		return 0, 0, paramError("fixed_size: n", "must be >= 1, got %d", n)
	}
	if batch < 1 || batch > n {
		return 0, 0, paramError("fixed_size: batch", "must be in [1, %d] (the data set size n), got %d", n, batch)
	}
	if n > 1<<53 {
		return 0, 0, paramError("fixed_size: n", "must be at most 2^53, got %d", n)
	}
	b, m := float64(batch), float64(n)
	q := b / m
	lo, hi = q, q
	switch f := math.FMA(q, m, -b); {
	case f < 0:
		hi = math.Nextafter(q, math.Inf(1))
	case f > 0:
		lo = math.Nextafter(q, 0)
	}
	return lo, math.Min(hi, 1), nil
}
