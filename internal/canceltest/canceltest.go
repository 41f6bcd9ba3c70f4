// Package canceltest gives tests the two contexts of the library's
// cancellation contract: a call that can run long returns an error
// wrapping ctx.Err() once ctx is cancelled, whether it was cancelled
// before the call or while it runs.
package canceltest

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Delay is how long after Soon another goroutine cancels its context: a
// call under test on a problem that takes much longer is then under way.
const Delay = 20 * time.Millisecond

// Cancelled returns a context that is cancelled already, for a call on a
// tiny problem that must not finish it.
func Cancelled(t testing.TB) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	return ctx
}

// Soon returns a context that another goroutine cancels Delay after the
// call, for a call on a problem far too large to finish by then.
func Soon(t testing.TB) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	timer := time.AfterFunc(Delay, cancel)
	t.Cleanup(func() {
		timer.Stop()
		cancel()
	})
	return ctx
}

// Check fails t unless err wraps context.Canceled: what names the call.
func Check(t testing.TB, what string, err error) {
	t.Helper()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%s: got %v, want an error wrapping context.Canceled", what, err)
	}
}
