package once

import (
	"context"
	"errors"
	"sync"
)

// Cache computes a value once per key and remembers it: concurrent callers
// with the same key wait for the first one's computation instead of
// repeating it. A failed computation is forgotten, so a later call tries
// again. A caller that waited for a computation that was cancelled (its
// error wraps context.Canceled or context.DeadlineExceeded) computes the
// value itself rather than return that error: the cancellation was the
// first caller's, whose f read its own context. With Max > 0 it keeps the Max most recent keys. The zero value
// is ready and unbounded; it is safe for concurrent use.
type Cache[K comparable, V any] struct {
	Max int

	mu    sync.Mutex
	calls map[K]*onceCall[V]
	order []K // keys, oldest first (only with Max > 0)
}

type onceCall[V any] struct {
	done chan struct{} // closed when v and err are set
	v    V
	err  error
}

// Do returns the value for k, calling f for it unless a call for k is
// remembered or under way.
func (o *Cache[K, V]) Do(k K, f func() (V, error)) (V, error) {
	o.mu.Lock()
	for {
		call, ok := o.calls[k]
		if !ok {
			break
		}
		o.mu.Unlock()
		<-call.done
		if !cancelled(call.err) {
			return call.v, call.err
		}
		o.mu.Lock()
	}
	if o.calls == nil {
		o.calls = map[K]*onceCall[V]{}
	}
	call := &onceCall[V]{done: make(chan struct{})}
	o.calls[k] = call
	if o.Max > 0 {
		if o.order = append(o.order, k); len(o.order) > o.Max {
			delete(o.calls, o.order[0])
			o.order = o.order[1:]
		}
	}
	o.mu.Unlock()
	call.v, call.err = f()
	if call.err != nil {
		o.mu.Lock()
		if o.calls[k] == call {
			delete(o.calls, k)
		}
		o.mu.Unlock()
	}
	close(call.done)
	return call.v, call.err
}

// cancelled reports whether err says that a computation was cancelled.
func cancelled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Len returns the number of keys remembered or under way.
func (o *Cache[K, V]) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.calls)
}
