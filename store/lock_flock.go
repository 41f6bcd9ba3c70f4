//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package store

import (
	"errors"
	"os"
	"syscall"
)

// flock takes an exclusive advisory lock on f (flock(2) LOCK_EX|LOCK_NB)
// without waiting: false when another open file holds it. The kernel
// releases it when the holder closes the file or dies, kill -9 included.
func flock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}

// lockEnforced says whether flock excludes a second writer.
const lockEnforced = true
