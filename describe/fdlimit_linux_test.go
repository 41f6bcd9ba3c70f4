package describe

import (
	"os"
	"syscall"
	"testing"
)

// TestCreateOutputsTooManyFiles runs createOutputs with the open-file
// limit set so that some of its files can be created and the next cannot
// (EMFILE, as with too many open files): it must return an error, not
// dereference the nil result (issue 12, defect 1). Unlike a read-only
// folder, the limit holds for root too, so CI runs it.
func TestCreateOutputsTooManyFiles(t *testing.T) {
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
	for cur := n - 1; cur <= n+3; cur++ {
		dir := t.TempDir()
		lim := old
		lim.Cur = cur
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Skip("cannot lower RLIMIT_NOFILE:", err)
		}
		o, err := func() (o *outputs, err error) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("limit %d: panic: %v", cur, r)
				}
			}()
			return createOutputs(dir, 3, true)
		}()
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Fatal(err)
		}
		if err != nil {
			failed++
			if o != nil {
				t.Errorf("limit %d: outputs %v with error %v", cur, o, err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("limit %d: %d files left after the error", cur, len(left))
			}
			continue
		}
		o.abort()
	}
	if failed == 0 {
		t.Error("no limit made createOutputs fail: the test exercises nothing")
	}
}
