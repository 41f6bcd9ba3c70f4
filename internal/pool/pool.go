// Package pool runs indexed work on a bounded set of goroutines.
//
// Items are handed out dynamically, one index at a time, so uneven work (the
// rows of a triangular Gram matrix, images of different sizes) balances
// itself. Each call gets the index of the worker that runs it, so callers
// can keep one reusable workspace per worker and allocate nothing per item.
// Results written by index are identical whatever the worker count.
//
// A call that panics does not take the process down from a goroutine no
// caller can recover: ForErr returns the panic as a *PanicError naming the
// item, and For panics with it on the caller's goroutine.
package pool

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// MaxWorkers bounds the worker count that Workers resolves: callers keep
// one workspace slot per worker, so that a worker count from a config or a
// flag (a billion) cannot size an allocation, and more goroutines than
// this gain nothing on any machine covpipe runs on.
const MaxWorkers = 4096

// Workers resolves a requested worker count: n <= 0 means GOMAXPROCS, and
// counts above MaxWorkers are MaxWorkers.
func Workers(n int) int {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return min(n, MaxWorkers)
}

// PanicError is a panic of the call for one item, recovered in the worker
// goroutine that ran it: the item's index, the value passed to panic and
// the goroutine's stack where it panicked.
type PanicError struct {
	Index int
	Value any
	Stack []byte
}

// Error returns "item I: panic: VALUE" followed by the stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("item %d: panic: %v\n\n%s", e.Index, e.Value, e.Stack)
}

// Unwrap returns the panic value when it is an error (a runtime error),
// for errors.Is and errors.As.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// For calls fn(worker, i) for every i in [0, n) on at most Workers(workers)
// goroutines, and returns when all calls have returned. worker is in
// [0, Workers(workers)) and no two concurrent calls share it. When a call
// panics, no further items are handed out and For panics, on the caller's
// goroutine, with the *PanicError of the lowest failing index.
func For(n, workers int, fn func(worker, i int)) {
	if err := ForErr(n, workers, func(worker, i int) error {
		fn(worker, i)
		return nil
	}); err != nil {
		panic(err)
	}
}

// ForErr is like For but stops handing out items once a call fails. It
// returns the error of the lowest failing index among the calls that ran;
// a call that panics fails with a *PanicError.
func ForErr(n, workers int, fn func(worker, i int) error) error {
	if n <= 0 {
		return nil
	}
	w := min(Workers(workers), n)
	if w == 1 {
		for i := range n {
			if err := call(fn, 0, i); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		next     atomic.Int64
		failed   atomic.Bool
		mu       sync.Mutex
		firstIdx = n
		firstErr error
		wg       sync.WaitGroup
	)
	for k := range w {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := call(fn, k, i); err != nil {
					mu.Lock()
					if i < firstIdx {
						firstIdx, firstErr = i, err
					}
					mu.Unlock()
					failed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// call runs fn(worker, i), turning a panic into a *PanicError.
func call(fn func(worker, i int) error, worker, i int) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Index: i, Value: v, Stack: debug.Stack()}
		}
	}()
	return fn(worker, i)
}

// ForCtx is like ForErr but also stops handing out items once ctx is
// done: an item not started by then fails with ctx.Err(), so the call
// returns promptly with the error of the lowest failing index, ctx.Err()
// unless an item before it failed of its own. ctx is looked at once per
// item, so an item should be a unit of work much longer than that (a
// query, a few rows of a Gram matrix).
func ForCtx(ctx context.Context, n, workers int, fn func(worker, i int) error) error {
	return ForErr(n, workers, func(worker, i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(worker, i)
	})
}
