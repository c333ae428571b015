package engine

import (
	"errors"
	"testing"
)

// TestParamError checks that the constructors name the parameter they
// refuse (the pipeline reports it at its manifest key) and keep their
// error text.
func TestParamError(t *testing.T) {
	cases := []struct {
		name  string
		build func() (Mechanism, error)
		param string
		text  string
	}{
		{"gauss sigma", func() (Mechanism, error) { return Gauss(-1, 1, 0) }, "sigma", "invalid input: gauss: sigma must be positive and finite, got -1"},
		{"laplace truncate", func() (Mechanism, error) { return Laplace(1, 1, -2) }, "truncate", "invalid input: laplace: truncate must be non-negative and finite, got -2"},
		{"sgd q", func() (Mechanism, error) { return SubsampledGauss(1, 1, 2, Poisson, AddRemove) }, "q", "invalid input: sgd: q must be in (0, 1], got 2"},
		{"randomized response p", func() (Mechanism, error) { return RandomizedResponse(1) }, "p", "invalid input: randomized_response: p must be in (0, 1), got 1"},
		{"eps_delta delta", func() (Mechanism, error) { return EpsDelta(1, 1) }, "delta", "invalid input: eps_delta: delta must be in [0, 1), got 1"},
		{"vuvuzela mu", func() (Mechanism, error) { return VuvuzelaDialing(NoiseLaplace, -1, 1) }, "mu", "invalid input: vuvuzela_dialing: mu must be non-negative and finite, got -1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.build()
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param != c.param || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v (%T), want a *ParamError for %s wrapping ErrInvalid", err, err, c.param)
			}
			if err.Error() != c.text {
				t.Errorf("text %q, want %q", err.Error(), c.text)
			}
		})
	}
}
