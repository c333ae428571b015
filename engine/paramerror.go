package engine

import (
	"fmt"
	"strings"
)

// ParamError is the error of a mechanism constructor refusing one
// parameter outside its range. It wraps ErrInvalid; its text is
// "invalid input: <Mechanism>: <Param> <Reason>".
type ParamError struct {
	// Mechanism is the constructor's mechanism ("gauss", "sgd",
	// "vuvuzela_dialing").
	Mechanism string
	// Param is the parameter's name in the constructor's documentation
	// ("sigma", "q").
	Param string
	// Reason says what the range is and what was given ("must be
	// positive and finite, got -1").
	Reason string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%v: %s: %s %s", ErrInvalid, e.Mechanism, e.Param, e.Reason)
}

// Unwrap returns ErrInvalid.
func (e *ParamError) Unwrap() error { return ErrInvalid }

// paramError returns a *ParamError for name ("gauss: sigma") with the
// reason formatted from format and args.
func paramError(name, format string, args ...any) error {
	mech, param, _ := strings.Cut(name, ": ")
	return &ParamError{Mechanism: mech, Param: param, Reason: fmt.Sprintf(format, args...)}
}
