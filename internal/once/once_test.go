package once

import (
	"errors"
	"testing"
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
