package pipeline

import (
	"errors"
	"fmt"
)

// ManifestError is a problem with a manifest: the file, the line (0 when
// unknown) and the key it concerns.
type ManifestError struct {
	File string
	Line int
	Key  string
	Err  error
}

func (e *ManifestError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Key == "" {
		return fmt.Sprintf("%s: %v", loc, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", loc, e.Key, e.Err)
}

func (e *ManifestError) Unwrap() error { return e.Err }

// ErrNotApplicable is wrapped by method errors meaning the method has no
// answer for the mechanism (e.g. no closed form): the task is skipped with a
// note, not failed.
var ErrNotApplicable = errors.New("method not applicable")

// ErrNotAvailable is wrapped by method errors meaning the method is not part
// of this build; the task is skipped with a note.
var ErrNotAvailable = errors.New("method not available in this build")

// errorList collects manifest errors so that all problems of a file are
// reported at once.
type errorList struct {
	file string
	errs []error
}

// maxErrors bounds how many problems of one manifest are reported.
const maxErrors = 50

func (l *errorList) add(line int, key string, format string, args ...any) {
	if len(l.errs) >= maxErrors {
		return
	}
	l.errs = append(l.errs, &ManifestError{File: l.file, Line: line, Key: key, Err: fmt.Errorf(format, args...)})
}

func (l *errorList) addErr(line int, key string, err error) {
	if len(l.errs) >= maxErrors {
		return
	}
	l.errs = append(l.errs, &ManifestError{File: l.file, Line: line, Key: key, Err: err})
}

func (l *errorList) err() error { return errors.Join(l.errs...) }
