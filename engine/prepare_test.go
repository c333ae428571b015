package engine

import (
	"context"
	"errors"
	"testing"
)

// TestBuildOnce checks that a build runs once and its result (success or
// failure) is remembered, except a build that failed because its context
// ended, which the next call runs again.
func TestBuildOnce(t *testing.T) {
	var o buildOnce
	calls := 0
	build := func(ctx context.Context) error {
		calls++
		return ctx.Err()
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := o.do(cancelled, build); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v, want context.Canceled", err)
	}
	if err := o.do(context.Background(), build); err != nil || calls != 2 {
		t.Fatalf("after a cancelled build: error %v, %d calls, want nil and 2 (rebuilt)", err, calls)
	}
	if err := o.do(cancelled, build); err != nil || calls != 2 {
		t.Fatalf("after a finished build: error %v, %d calls, want nil and 2 (remembered)", err, calls)
	}

	var f buildOnce
	bad := errors.New("bad parameters")
	fails := 0
	fail := func(context.Context) error { fails++; return bad }
	for i := 0; i < 2; i++ {
		if err := f.do(context.Background(), fail); !errors.Is(err, bad) || fails != 1 {
			t.Fatalf("failed build, call %d: %v after %d builds, want the error remembered after 1", i, err, fails)
		}
	}
}
