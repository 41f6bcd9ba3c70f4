// Package atomicfile writes files so that they appear complete or not at
// all: data goes to a temporary file in the destination's folder, which is
// synced and renamed over the destination only on Commit. A crash, an error
// or Abort leaves no half-written output behind.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// File is a pending output file. Write to it, then Commit or Abort.
type File struct {
	*os.File
	dst  string
	done bool
}

// Create starts writing dst. The temporary file lives beside dst (so that
// the final rename stays on one file system), named ".NAME.tmp-DIGITS" for
// dst's base name NAME (see RemoveStale).
func Create(dst string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(dst), tempPrefix(dst)+"*")
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

// tempPrefix is the name of dst's temporary files without their random
// digits.
func tempPrefix(dst string) string { return "." + filepath.Base(dst) + ".tmp-" }

// RemoveStale removes the temporary files of dst that a writer killed
// before Commit or Abort left behind: the files beside dst named
// ".NAME.tmp-DIGITS", NAME dst's base name, as Create names them; other
// files are not touched. Call it only when no other process is writing
// dst, since it also removes a live writer's file. It returns the first
// error of reading the folder or removing a file, naming it; a missing
// folder is no error.
func RemoveStale(dst string) error {
	dir, prefix := filepath.Dir(dst), tempPrefix(dst)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("remove stale temporary files of %s: %w", dst, err)
	}
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove stale temporary file: %w", err)
		}
	}
	return nil
}
