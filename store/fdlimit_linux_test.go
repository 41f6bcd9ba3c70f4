package store

import (
	"context"
	"os"
	"syscall"
	"testing"
)

// TestCreateTooManyFiles runs Create with the open-file limit set so
// that some of its files can be created and the next cannot (EMFILE, as
// with too many open files): it must return an error and leave no file,
// not dereference the nil result. Unlike a read-only folder, the limit
// holds for root too, so CI runs it.
func TestCreateTooManyFiles(t *testing.T) {
	r := testRun()
	r.skipBad, r.vecLen, r.regions = true, 3, 1
	m := r.meta()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip("no RLIMIT_NOFILE:", err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	n := uint64(len(entries)) // the open files, and the one that listed them
	failed := 0
	for cur := n - 1; cur <= n+5; cur++ {
		dir := t.TempDir()
		lim := old
		lim.Cur = cur
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Skip("cannot lower RLIMIT_NOFILE:", err)
		}
		w, err := func() (w *Writer, err error) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("limit %d: panic: %v", cur, r)
				}
			}()
			return Create(context.Background(), dir, &m)
		}()
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Fatal(err)
		}
		if err != nil {
			failed++
			if w != nil {
				t.Errorf("limit %d: writer %v with error %v", cur, w, err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("limit %d: %d files left after the error", cur, len(left))
			}
			continue
		}
		w.Abort()
	}
	if failed == 0 {
		t.Error("no limit made Create fail: the test exercises nothing")
	}
}
