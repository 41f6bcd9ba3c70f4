// Package pool runs indexed work on a bounded set of goroutines.
//
// Items are handed out dynamically, one index at a time, so uneven work (the
// rows of a triangular Gram matrix, images of different sizes) balances
// itself. Each call gets the index of the worker that runs it, so callers
// can keep one reusable workspace per worker and allocate nothing per item.
// Results written by index are identical whatever the worker count.
package pool

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers resolves a requested worker count: n <= 0 means GOMAXPROCS.
func Workers(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// For calls fn(worker, i) for every i in [0, n) on at most Workers(workers)
// goroutines, and returns when all calls have returned. worker is in
// [0, Workers(workers)) and no two concurrent calls share it.
func For(n, workers int, fn func(worker, i int)) {
	_ = ForErr(n, workers, func(worker, i int) error {
		fn(worker, i)
		return nil
	})
}

// ForErr is like For but stops handing out items once a call fails. It
// returns the error of the lowest failing index among the calls that ran.
func ForErr(n, workers int, fn func(worker, i int) error) error {
	if n <= 0 {
		return nil
	}
	w := min(Workers(workers), n)
	if w == 1 {
		for i := range n {
			if err := fn(0, i); err != nil {
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
				if err := fn(k, i); err != nil {
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
