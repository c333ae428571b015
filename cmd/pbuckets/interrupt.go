package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruptContext returns a context that Ctrl-C (SIGINT) or SIGTERM
// cancels. Tests replace it to interrupt a command at a chosen point.
var interruptContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
