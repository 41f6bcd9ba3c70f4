package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// lockFile is the lock file of a folder being written: an advisory
// lock (flock) on it is held by the one writer, and it holds the
// writer's process id. It is removed when the writer is done.
const lockFile = ".covpipe.lock"

// ErrLocked is wrapped by the error for a folder that another process is
// writing (LockedError).
var ErrLocked = errors.New("store: folder is being written by another covpipe")

// LockedError is the error for the folder Dir, which the process PID (0
// when it has not written its id yet) is writing.
type LockedError struct {
	Dir string
	PID int
}

func (e *LockedError) Error() string {
	pid := "pid unknown"
	if e.PID > 0 {
		pid = "pid " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("%s is being written by another covpipe (%s)", e.Dir, pid)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// folderLock is the lock of a folder held by this process.
type folderLock struct {
	f    *os.File
	path string
}

// lockFolder takes the lock of the existing folder dir without waiting:
// it returns a *LockedError when another process holds it, and the
// error of creating the lock file (an unwritable folder) otherwise.
// Releasing a lock removes its file, so a lock taken on a file that is
// no longer the folder's is dropped and taken again.
func lockFolder(dir string) (*folderLock, error) {
	path := filepath.Join(dir, lockFile)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("store: lock %s: %w", dir, err)
		}
		ok, err := flock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("store: lock %s: %w", dir, err)
		}
		if !ok {
			pid := readPID(f)
			f.Close()
			return nil, &LockedError{Dir: dir, PID: pid}
		}
		if !sameFile(f, path) {
			f.Close() // released, and its file removed, meanwhile
			continue
		}
		b := []byte(strconv.Itoa(os.Getpid()) + "\n")
		if err := f.Truncate(0); err == nil {
			f.WriteAt(b, 0) // only for the message of another writer
		}
		return &folderLock{f: f, path: path}, nil
	}
}

// waitFolder takes the lock of the folder dir, created if needed,
// polling every poll until it is free or ctx is done; waiting is called
// once, with the holder's error, when the lock is taken.
func waitFolder(ctx context.Context, dir string, poll time.Duration, waiting func(*LockedError)) (*folderLock, error) {
	told := false
	for {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		l, err := lockFolder(dir)
		var locked *LockedError
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue // the folder was removed by a writer that gave up
		case !errors.As(err, &locked):
			return l, err
		}
		if !told && waiting != nil {
			waiting(locked)
			told = true
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// unlock removes the lock file, while it is still this lock's, and
// releases the lock.
func (l *folderLock) unlock() {
	if l == nil || l.f == nil {
		return
	}
	if sameFile(l.f, l.path) {
		os.Remove(l.path)
	}
	l.f.Close()
	l.f = nil
}

// sameFile reports whether path names the open file f.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// readPID returns the process id written in the lock file f, 0 when
// there is none yet (its holder has just taken it) or it is malformed.
func readPID(f *os.File) int {
	for range 5 {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n]))); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(2 * time.Millisecond)
	}
	return 0
}
