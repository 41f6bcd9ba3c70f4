package once

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestCacheBound checks that a bounded Cache keeps its Max most recent keys
// and computes again a key it dropped, and forgets failures.
func TestCacheBound(t *testing.T) {
	o := Cache[int, int]{Max: 2}
	calls := 0
	sq := func(k int) func() (int, error) {
		return func() (int, error) { calls++; return k * k, nil }
	}
	for _, k := range []int{1, 2, 1, 3, 1, 2} {
		if v, err := o.Do(k, sq(k)); err != nil || v != k*k {
			t.Fatalf("Do(%d) = %d, %v", k, v, err)
		}
	}
	// 1, 2 computed; 1 remembered; 3 drops 1; 1 drops 2; 2 again.
	if calls != 5 {
		t.Errorf("%d computations, want 5", calls)
	}
	if _, err := o.Do(9, func() (int, error) { return 0, errors.New("boom") }); err == nil {
		t.Fatal("no error")
	}
	if v, err := o.Do(9, sq(9)); err != nil || v != 81 {
		t.Errorf("after a failure: %d, %v", v, err)
	}
}

// TestCacheWaiterAfterCancel checks that a caller waiting for a
// computation that its first caller's context cancelled computes the
// value itself, and that other errors reach the waiters as they are.
func TestCacheWaiterAfterCancel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		firstErr error
		want     int
		wantErr  error
	}{
		{"cancelled", fmt.Errorf("describe: %w", context.Canceled), 7, nil},
		{"deadline", context.DeadlineExceeded, 7, nil},
		{"failed", errBoom, 0, errBoom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o Cache[string, int]
			started, release := make(chan struct{}), make(chan struct{})
			first := make(chan error, 1)
			go func() {
				_, err := o.Do("k", func() (int, error) {
					close(started)
					<-release
					return 0, tc.firstErr
				})
				first <- err
			}()
			<-started
			got := make(chan result, 1)
			go func() {
				v, err := o.Do("k", func() (int, error) { return 7, nil })
				got <- result{v, err}
			}()
			waitWaiting()
			close(release)
			if err := <-first; !errors.Is(err, tc.firstErr) {
				t.Fatalf("first caller: %v, want %v", err, tc.firstErr)
			}
			r := <-got
			if r.v != tc.want || !errors.Is(r.err, tc.wantErr) || (tc.wantErr == nil) != (r.err == nil) {
				t.Errorf("waiter: %d, %v; want %d, %v", r.v, r.err, tc.want, tc.wantErr)
			}
		})
	}
}

var errBoom = errors.New("boom")

// result is what a call of Do returned.
type result struct {
	v   int
	err error
}

// waitWaiting gives the second caller time to block on the first's
// computation (it cannot be observed from outside Do). Arriving late, it
// would find no call under way only when the first had failed: the
// "failed" case would then compute 7 and fail the test, never pass it
// falsely; the cancelled cases would pass without testing the wait.
func waitWaiting() {
	for range 20 {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}
