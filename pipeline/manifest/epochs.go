package manifest

import (
	"fmt"
	"math"
)

// Epochs returns the number of observations r (compositions of the
// mechanism's pair) and of training steps that make the given number of
// epochs of spec, a pass over every record:
//
//   - random_allocation: one observation is one epoch of steps_per_epoch
//     steps, so r = epochs and steps = epochs * steps_per_epoch;
//   - sgd and subsampled laplace: one observation is one step, and an
//     epoch is 1/q steps in expectation (Poisson) or dataset_size/batch
//     steps (fixed size): r = steps = epochs/q, or epochs * dataset_size /
//     batch when those are given.
//
// epochs must be positive and give a whole number of observations (within
// 1e-9 relative, for rates such as 0.001 that are not exact in binary);
// other kinds have no epochs.
func (s MechanismSpec) Epochs(epochs float64) (r, steps int, err error) {
	if !(epochs > 0) || math.IsInf(epochs, 0) {
		return 0, 0, fmt.Errorf("epochs must be positive and finite, got %v", epochs)
	}
	whole := func(x float64, what string) (int, error) {
		n := math.Round(x)
		if n < 1 || math.Abs(x-n) > 1e-9*x || n > 1<<40 {
			return 0, fmt.Errorf("%v epochs are %.10g %s, not a whole number from 1 to 2^40: give --r (e.g. %.0f or %.0f) or epochs that make whole steps", epochs, x, what, math.Max(1, math.Floor(x)), math.Ceil(x))
		}
		return int(n), nil
	}
	switch s.Kind {
	case KindRandomAllocation:
		n, err := whole(epochs, "epochs")
		if err != nil {
			return 0, 0, err
		}
		return n, n * int(s.Params["steps_per_epoch"]), nil
	case KindSGD, KindLaplace:
		p := s.Params
		var x float64
		switch b, n := p["batch"], p["dataset_size"]; {
		case b > 0 && n > 0:
			x = epochs * n / b
		case p["q"] > 0:
			x = epochs / p["q"]
		default:
			return 0, 0, fmt.Errorf("kind %s without a sampling rate q (or batch and dataset_size) has no epochs: give --r", s.Kind)
		}
		n, err := whole(x, "steps")
		return n, n, err
	}
	return 0, 0, fmt.Errorf("kind %s has no epochs (only sgd, subsampled laplace and random_allocation): give --r", s.Kind)
}
