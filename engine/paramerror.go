package engine

import (
	"fmt"
	"strings"
)

// ParamError is the error of a mechanism constructor refusing one
// parameter outside its range, or of Options.Check refusing an option. It
// wraps ErrInvalid; its text is "invalid input: <Mechanism>: <Param>
// <Reason>", or without "<Mechanism>: " for an option.
type ParamError struct {
	// Mechanism is the constructor's mechanism ("gauss", "sgd",
	// "vuvuzela_dialing"); "" for an option.
	Mechanism string
	// Param is the parameter's name in the constructor's documentation
	// ("sigma", "q").
	Param string
	// Reason says what the range is and what was given ("must be
	// positive and finite, got -1").
	Reason string
}

func (e *ParamError) Error() string {
	if e.Mechanism == "" {
		return fmt.Sprintf("%v: %s %s", ErrInvalid, e.Param, e.Reason)
	}
	return fmt.Sprintf("%v: %s: %s %s", ErrInvalid, e.Mechanism, e.Param, e.Reason)
}

// Unwrap returns ErrInvalid.
func (e *ParamError) Unwrap() error { return ErrInvalid }

// optionError returns a *ParamError for the option param.
func optionError(param, format string, args ...any) error {
	return &ParamError{Param: param, Reason: fmt.Sprintf(format, args...)}
}

// paramError returns a *ParamError for name ("gauss: sigma") with the
// reason formatted from format and args.
func paramError(name, format string, args ...any) error {
	mech, param, _ := strings.Cut(name, ": ")
	return &ParamError{Mechanism: mech, Param: param, Reason: fmt.Sprintf(format, args...)}
}
