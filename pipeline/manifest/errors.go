package manifest

import (
	"errors"
	"fmt"
)

// Error is a problem with a manifest: the file, the line (0 when
// unknown) and the key it concerns.
type Error struct {
	File string
	Line int
	Key  string
	Err  error
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Key == "" {
		return fmt.Sprintf("%s: %v", loc, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", loc, e.Key, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

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
	l.errs = append(l.errs, &Error{File: l.file, Line: line, Key: key, Err: fmt.Errorf(format, args...)})
}

func (l *errorList) addErr(line int, key string, err error) {
	if len(l.errs) >= maxErrors {
		return
	}
	l.errs = append(l.errs, &Error{File: l.file, Line: line, Key: key, Err: err})
}

func (l *errorList) err() error { return errors.Join(l.errs...) }
