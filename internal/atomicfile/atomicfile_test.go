package atomicfile

import (
	"os"
	"path/filepath"
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
