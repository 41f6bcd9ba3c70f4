package pool

import (
	"context"
	"errors"
	"fmt"
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

func TestForCtxStopsOnCancel(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		ctx, cancel := context.WithCancel(context.Background())
		var ran atomic.Int32
		err := ForCtx(ctx, 1000, workers, func(_, i int) error {
			if ran.Add(1) == 10 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("workers=%d: got %v, want context.Canceled", workers, err)
		}
		// Each worker finishes at most the item it had started.
		if n := ran.Load(); n > 10+int32(workers) {
			t.Fatalf("workers=%d: %d items ran after the cancel at the 10th", workers, n)
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
