package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.txt")
	f, err := Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("hello")
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Fatal("destination exists before Commit")
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // no-op after Commit
	if b, _ := os.ReadFile(dst); string(b) != "hello" {
		t.Fatalf("content %q", b)
	}
	g, _ := Create(filepath.Join(dir, "other.txt"))
	g.WriteString("partial")
	g.Abort()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("aborted file left behind: %v", entries)
	}
	if err := WriteFile(dst, []byte("again")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "again" {
		t.Fatalf("content %q", b)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), nil); err == nil {
		t.Error("write into a missing folder succeeded")
	}
}

// TestWriteError checks that a failing write function leaves the
// destination as it was, no temporary file behind, and an error naming the
// destination and wrapping the cause.
func TestWriteError(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.txt")
	if err := WriteFile(dst, []byte("before")); err != nil {
		t.Fatal(err)
	}
	cause := errors.New("disk on fire")
	err := Write(dst, func(w io.Writer) error {
		if _, err := io.WriteString(w, "partial"); err != nil {
			return err
		}
		return cause
	})
	if !errors.Is(err, cause) || !strings.Contains(err.Error(), dst) {
		t.Errorf("error %v, want one naming %s and wrapping %v", err, dst, cause)
	}
	if b, _ := os.ReadFile(dst); string(b) != "before" {
		t.Errorf("content %q after a failed write, want %q", b, "before")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("failed write left %v", entries)
	}
}

// TestRemoveStale checks that RemoveStale removes the temporary files a
// killed writer of dst left, and nothing else.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.txt")
	f, err := Create(dst) // left as a killed writer leaves it
	if err != nil {
		t.Fatal(err)
	}
	f.File.Close()
	keep := []string{"out.txt", ".out.txt.tmp-", ".out.txt.tmp-12x", ".other.txt.tmp-123", "out.txt.tmp-123", ".out.txt.tmp-9.bak"}
	for _, name := range keep {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".out.txt.tmp-42"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RemoveStale(dst); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(keep) {
		t.Errorf("left %v, want %v", got, keep)
	}
	if err := RemoveStale(filepath.Join(dir, "missing", "x")); err != nil {
		t.Errorf("missing folder: %v", err)
	}
}
