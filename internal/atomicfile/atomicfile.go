// Package atomicfile writes files so that they appear complete or not at
// all: data goes to a temporary file in the destination's folder, which is
// synced and renamed over the destination only on Commit. A crash, an error
// or Abort leaves no half-written output behind.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File is a pending output file. Write to it, then Commit or Abort.
type File struct {
	*os.File
	dst  string
	done bool
}

// Create starts writing dst. The temporary file lives beside dst (so that
// the final rename stays on one file system) with a name starting with '.'.
func Create(dst string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", dst, err)
	}
	return &File{File: f, dst: dst}, nil
}

// Commit flushes the file to disk and renames it to its destination.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("commit %s: already finished", f.dst)
	}
	f.done = true
	if err := f.Sync(); err != nil {
		f.File.Close()
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", f.dst, err)
	}
	if err := f.File.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", f.dst, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", f.dst, err)
	}
	if err := os.Rename(f.Name(), f.dst); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", f.dst, err)
	}
	return nil
}

// Abort discards the pending file. It is safe to call after Commit, so
// `defer f.Abort()` cleans up on every error path.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.Name())
}

// Write writes path atomically with write, which is given the pending
// file. An error of write leaves path as it was and is returned wrapped
// with path.
func Write(path string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
