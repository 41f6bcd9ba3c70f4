package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/internal/foldertest"
)

// TestFolder checks the generic folder writer on a set of its own: the
// marker records each file's size and SHA-256 in the order of the names,
// the files appear only on Commit, WriteAt rewrites what was written, a
// second set removes the files of the first it does not hold, and Abort
// leaves the committed set as it was.
func TestFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	names := []string{"a.txt", "b.txt", "c.txt"}
	write := func(files map[string]string, commit bool) error {
		f, err := CreateFolder(dir, "done.json", names...)
		if err != nil {
			return err
		}
		defer f.Abort()
		for _, name := range []string{"c.txt", "a.txt", "b.txt"} { // not in record order
			content, ok := files[name]
			if !ok {
				continue
			}
			p, err := f.Create(name)
			if err != nil {
				return err
			}
			if _, err := p.Write([]byte("xx" + content[2:])); err != nil {
				return err
			}
			if _, err := p.WriteAt([]byte(content[:2]), 0); err != nil {
				return err
			}
		}
		if _, ok := files["a.txt"]; ok {
			if _, err := f.Create("a.txt"); err == nil {
				t.Error("a file created twice")
			}
		}
		if _, err := f.Create("d.txt"); err == nil {
			t.Error("a file of another name created")
		}
		for name, content := range files {
			if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) == content {
				t.Errorf("%s in place before Commit", name)
			}
		}
		if !commit {
			return nil
		}
		return f.Commit(func(records []File) ([]byte, error) { return json.Marshal(records) })
	}
	check := func(files map[string]string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "done.json"))
		if err != nil {
			t.Fatal(err)
		}
		var records []File
		if err := json.Unmarshal(b, &records); err != nil {
			t.Fatal(err)
		}
		var want []File
		for _, name := range names {
			if content, ok := files[name]; ok {
				sum := sha256.Sum256([]byte(content))
				want = append(want, File{Name: name, Size: int64(len(content)), SHA256: hex.EncodeToString(sum[:])})
			}
		}
		if !slices.Equal(records, want) {
			t.Errorf("records %+v, want %+v", records, want)
		}
		for _, name := range names {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if content, ok := files[name]; ok && string(b) != content || !ok && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s holds %q (%v), want %q", name, b, err, content)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != len(files)+1 {
			t.Errorf("%d entries in the folder, want %d", len(entries), len(files)+1)
		}
	}
	first := map[string]string{"a.txt": "one a", "c.txt": "one c"}
	if err := write(first, true); err != nil {
		t.Fatal(err)
	}
	check(first)
	if err := write(map[string]string{"a.txt": "two a", "b.txt": "two b"}, false); err != nil {
		t.Fatal(err)
	}
	check(first)
	second := map[string]string{"b.txt": "two b"}
	if err := write(second, true); err != nil {
		t.Fatal(err)
	}
	check(second)
	if _, err := CreateFolder(dir, "done.json", "a.txt", "a.txt"); err == nil {
		t.Error("a name given twice accepted")
	}
	if _, err := CreateFolder(dir, "done.json", "done.json"); err == nil {
		t.Error("the marker as a file accepted")
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	f, err := CreateFolder(fresh, "done.json", names...)
	if err != nil {
		t.Fatal(err)
	}
	f.Create("a.txt")
	f.Abort()
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an aborted new folder is left: %v", err)
	}
}

// TestStaleTempFiles checks that Create and Merge remove the temporary
// files of their own folder's files that killed writers left, and no
// other file.
func TestStaleTempFiles(t *testing.T) {
	r := smallRun()
	stale := []string{".descriptors.npy.tmp-123", ".manifest.csv.tmp-4", ".failures.csv.tmp-55", ".meta.json.tmp-987654", ".vectors.npy.tmp-3"}
	keep := []string{".other.csv.tmp-1", "notes.txt", ".descriptors.npy.tmp-x1"}
	for _, writer := range []string{"create", "merge"} {
		t.Run(writer, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			for _, name := range append(slices.Clone(stale), keep...) {
				foldertest.WriteFile(t, filepath.Join(dir, name), []byte("x"))
			}
			if writer == "create" {
				r.write(t, dir)
			} else if _, err := Merge(dir, []string{r.writeTo(t)}); err != nil {
				t.Fatal(err)
			}
			for _, name := range stale {
				if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("stale %s left: %v", name, err)
				}
			}
			for _, name := range keep {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					t.Errorf("%s removed: %v", name, err)
				}
			}
		})
	}
}
