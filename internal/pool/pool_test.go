package pool

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

func TestForVisitsEachIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 3, 16} {
		for _, n := range []int{0, 1, 5, 100} {
			counts := make([]atomic.Int32, n)
			seen := make([]atomic.Int32, Workers(workers))
			For(n, workers, func(w, i int) {
				counts[i].Add(1)
				seen[w].Add(1)
			})
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("workers=%d n=%d: index %d visited %d times", workers, n, i, c)
				}
			}
		}
	}
}

func TestForErrReturnsLowestFailure(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		err := ForErr(50, workers, func(_, i int) error {
			if i == 7 {
				return fmt.Errorf("item %d: %w", i, errBoom)
			}
			return nil
		})
		if !errors.Is(err, errBoom) {
			t.Fatalf("workers=%d: got %v, want errBoom", workers, err)
		}
	}
	if err := ForErr(10, 2, func(_, _ int) error { return nil }); err != nil {
		t.Fatalf("no failures: got %v", err)
	}
}

var errBoom = errors.New("boom")

func TestWorkerIndexIsExclusive(t *testing.T) {
	const w = 4
	var busy [w]atomic.Int32
	For(1000, w, func(k, _ int) {
		if busy[k].Add(1) != 1 {
			t.Errorf("worker %d used concurrently", k)
		}
		busy[k].Add(-1)
	})
}

// TestPanicBecomesError checks that a call that panics, in a worker
// goroutine or on the caller's, fails ForErr with a *PanicError naming
// the item and carrying the value and the stack of the panic, and that
// For panics with it on the caller's goroutine, where it can be
// recovered.
func TestPanicBecomesError(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		err := ForErr(50, workers, func(_, i int) error {
			if i == 7 {
				panicAt(i)
			}
			return nil
		})
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Index != 7 || pe.Value != "boom at 7" {
			t.Fatalf("workers=%d: ForErr = %v, want a PanicError of item 7", workers, err)
		}
		if !strings.Contains(string(pe.Stack), "panicAt") || !strings.HasPrefix(err.Error(), "item 7: panic: boom at 7") {
			t.Fatalf("workers=%d: error %q lacks the item, the value or the stack", workers, err)
		}

		err = ForErr(10, workers, func(_, i int) error {
			var s []int
			_ = s[i] // a runtime error
			return nil
		})
		var re runtime.Error
		if !errors.As(err, &pe) || !errors.As(err, &re) || pe.Index != 0 {
			t.Fatalf("workers=%d: ForErr = %v, want item 0's runtime error", workers, err)
		}

		func() {
			defer func() {
				pe, ok := recover().(*PanicError)
				if !ok || pe.Index != 3 {
					t.Fatalf("workers=%d: For panicked with %v, want item 3's PanicError", workers, pe)
				}
			}()
			For(10, workers, func(_, i int) {
				if i == 3 {
					panicAt(i)
				}
			})
			t.Fatalf("workers=%d: For returned after a panic", workers)
		}()
	}
}

func panicAt(i int) { panic(fmt.Sprintf("boom at %d", i)) }

// TestWorkersBounded checks that a worker count from a config or a flag
// cannot size the workspaces callers keep per worker.
func TestWorkersBounded(t *testing.T) {
	for n, want := range map[int]int{1: 1, 7: 7, MaxWorkers: MaxWorkers, MaxWorkers + 1: MaxWorkers, 1e9: MaxWorkers} {
		if got := Workers(n); got != want {
			t.Errorf("Workers(%d) = %d, want %d", n, got, want)
		}
	}
	if got := Workers(-4); got != min(runtime.GOMAXPROCS(0), MaxWorkers) {
		t.Errorf("Workers(-4) = %d, want GOMAXPROCS", got)
	}
}

func TestForCtxStopsOnCancel(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		ctx, cancel := context.WithCancel(context.Background())
		var ran, late atomic.Int32
		var cancelled atomic.Bool
		err := ForCtx(ctx, 1000, workers, func(_, i int) error {
			if cancelled.Load() {
				late.Add(1)
			}
			if ran.Add(1) == 10 {
				cancel()
				cancelled.Store(true)
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("workers=%d: got %v, want context.Canceled", workers, err)
		}
		// Once cancel has returned, each other worker runs at most the
		// item it had already been handed.
		if n := late.Load(); n > int32(workers-1) {
			t.Fatalf("workers=%d: %d items ran after the cancel", workers, n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ForCtx(ctx, 5, 2, func(_, _ int) error { t.Error("an item ran under a cancelled context"); return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before: got %v", err)
	}
	if err := ForCtx(context.Background(), 10, 2, func(_, _ int) error { return nil }); err != nil {
		t.Fatalf("no cancel: got %v", err)
	}
}
