package engine

import (
	"context"
	"sync"
)

// preparer is implemented by mechanisms that do expensive work once before
// they are embedded; Compose calls it with the caller's context.
type preparer interface {
	prepare(ctx context.Context) error
}

// buildOnce runs a mechanism's expensive build once and remembers its
// result, except a build that failed because its context ended: that one is
// not remembered, so a later call with a live context builds again.
type buildOnce struct {
	mu   sync.Mutex
	done bool
	err  error
}

// do runs build unless a build already finished, and returns its error.
func (o *buildOnce) do(ctx context.Context, build func(context.Context) error) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return o.err
	}
	err := build(ctx)
	if err != nil && ctx.Err() != nil {
		return err
	}
	o.done, o.err = true, err
	return err
}
