package main

import (
	"fmt"
	"io"
	"sync"
)

// statusLine shows progress on a terminal as one line that each update
// replaces; clear removes it before the answers are printed.
type statusLine struct {
	mu    sync.Mutex
	w     io.Writer
	shown bool
}

// show replaces the line with the formatted text.
func (s *statusLine) show(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, "\r\x1b[K"+format, args...)
	s.shown = true
}

// clear removes the line, if one is shown.
func (s *statusLine) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
	}
}
