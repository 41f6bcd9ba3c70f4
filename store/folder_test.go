package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/internal/foldertest"
)

// testFormat is the format of the generic sets of these tests.
const testFormat = "covpipe-test/1"

// writeSet writes the set files (name → content, created in the order
// of names) into dir and commits it.
func writeSet(t testing.TB, dir string, names []string, files map[string]string) {
	t.Helper()
	f, err := CreateFolder(context.Background(), dir, testFormat)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	for _, name := range names {
		if err := f.WriteFile(name, []byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
}

// record returns the record of a file named name holding content.
func record(name, content string) File {
	sum := sha256.Sum256([]byte(content))
	return File{Name: name, Size: int64(len(content)), SHA256: hex.EncodeToString(sum[:])}
}

// TestFolder checks the generic writer: the marker records the format
// and each file's size and SHA-256 in the order they were created; the
// files appear only on Commit; WriteAt rewrites what was written; a
// second set removes the files of the first it does not hold; Abort
// leaves the committed set as it was and removes a folder it created;
// and nothing but the set and its marker is left in the folder.
func TestFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	f, err := CreateFolder(context.Background(), dir, testFormat)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c.txt", "a.txt"} {
		p, err := f.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Write([]byte("xx " + name)); err != nil {
			t.Fatal(err)
		}
		if _, err := p.WriteAt([]byte("to"), 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []string{"a.txt", "", ".hidden", MetaFile, "sub/x", "..", "a\x00b"} {
		if _, err := f.Create(bad); err == nil {
			t.Errorf("Create(%q) accepted", bad)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a.txt in place before Commit: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // nothing after Commit
	var m marker
	if b, err := os.ReadFile(filepath.Join(dir, MetaFile)); err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("marker: %v", err)
	}
	want := []File{record("c.txt", "to c.txt"), record("a.txt", "to a.txt")}
	if m.Format != testFormat || m.Version == "" || !slices.Equal(m.Files, want) {
		t.Errorf("marker %+v, want format %s and records %+v", m, testFormat, want)
	}
	if got := foldertest.Names(t, dir); !slices.Equal(got, []string{"a.txt", "c.txt", MetaFile}) {
		t.Errorf("folder holds %v", got)
	}

	// An aborted set leaves the committed one.
	g, err := CreateFolder(context.Background(), dir, testFormat)
	if err != nil {
		t.Fatal(err)
	}
	g.WriteFile("a.txt", []byte("other"))
	g.WriteFile("b.txt", []byte("other"))
	g.Abort()
	if got := foldertest.Names(t, dir); !slices.Equal(got, []string{"a.txt", "c.txt", MetaFile}) {
		t.Errorf("after Abort the folder holds %v", got)
	}

	// A second set replaces the first, c.txt removed.
	writeSet(t, dir, []string{"b.txt", "a.txt"}, map[string]string{"a.txt": "two a", "b.txt": "two b"})
	s, err := OpenSet(dir, testFormat)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Files, []File{record("b.txt", "two b"), record("a.txt", "two a")}) {
		t.Errorf("second set %+v", s.Files)
	}
	if got := foldertest.Names(t, dir); !slices.Equal(got, []string{"a.txt", "b.txt", MetaFile}) {
		t.Errorf("after the second set the folder holds %v", got)
	}

	// An aborted new folder is removed with the parents made for it, up
	// to the first that existed, and one that holds another file stays.
	root := t.TempDir()
	fresh := filepath.Join(root, "out", "deep", "fresh")
	for _, keep := range []bool{false, true} {
		h, err := CreateFolder(context.Background(), fresh, testFormat)
		if err != nil {
			t.Fatal(err)
		}
		h.Create("a.txt")
		if keep {
			foldertest.WriteFile(t, filepath.Join(root, "out", "other"), nil)
		}
		h.Abort()
		if _, err := os.Stat(filepath.Join(root, "out", "deep")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("keep=%v: an aborted new folder or its new parent is left: %v", keep, err)
		}
		if _, err := os.Stat(filepath.Join(root, "out")); keep != (err == nil) {
			t.Errorf("keep=%v: out/ holding a file: %v", keep, err)
		}
		if _, err := os.Stat(root); err != nil {
			t.Errorf("keep=%v: the folder that existed is gone: %v", keep, err)
		}
	}
}

// TestFolderRefuses checks the folders a writer refuses before anything
// is computed: a file, a meta.json that is a folder, one that is locked,
// a set of another kind, and a set file whose name is a folder (at
// Commit, before the commit point).
func TestFolderRefuses(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	file := filepath.Join(root, "file")
	foldertest.WriteFile(t, file, []byte("x"))
	if _, err := CreateFolder(ctx, file, testFormat); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a file as the folder: %v", err)
	}
	if _, err := CreateFolder(ctx, filepath.Join(file, "sub"), testFormat); err == nil {
		t.Error("a folder under a file accepted")
	}
	metaDir := filepath.Join(root, "metadir")
	if err := os.MkdirAll(filepath.Join(metaDir, MetaFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateFolder(ctx, metaDir, testFormat); err == nil || !strings.Contains(err.Error(), filepath.Join(metaDir, MetaFile)+" is a folder") {
		t.Errorf("meta.json a folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(metaDir, MetaFile)); err != nil {
		t.Errorf("the folder meta.json was removed: %v", err)
	}

	foreign := filepath.Join(root, "foreign")
	foldertest.WriteFile(t, filepath.Join(foreign, MetaFile), []byte(`{"name": "someone else's"}`))
	if _, err := CreateFolder(ctx, foreign, testFormat); err == nil || !strings.Contains(err.Error(), filepath.Join(foreign, MetaFile)+" is not covpipe's marker") {
		t.Errorf("a meta.json that is not covpipe's: %v", err)
	}

	other := filepath.Join(root, "other")
	writeSet(t, other, []string{"x"}, map[string]string{"x": "x"})
	if _, err := CreateFolder(ctx, other, "covpipe-else/1"); err == nil || !strings.Contains(err.Error(), "holds a "+testFormat+" folder") {
		t.Errorf("a set of another kind: %v", err)
	}
	if f, err := CreateFolder(ctx, other, "covpipe-test/2"); err != nil {
		t.Errorf("a set of another version of the kind: %v", err)
	} else {
		f.Abort()
	}
	if _, err := CreateFolder(ctx, other, "nope"); err == nil {
		t.Error("a format that is not covpipe's accepted")
	}

	f, err := CreateFolder(ctx, other, testFormat)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CreateFolder(ctx, other, testFormat); lockEnforced && !errors.Is(err, ErrLocked) {
		t.Errorf("a second writer: %v, want ErrLocked", err)
	} else if lockEnforced && !strings.Contains(err.Error(), other+" is being written by another covpipe (pid ") {
		t.Errorf("a second writer: %v", err)
	}
	if err := os.Mkdir(filepath.Join(other, "y"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.WriteFile("y", []byte("y"))
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("a set file whose name is a folder: %v", err)
	}
	f.Abort()
	if s, err := OpenSet(other, testFormat); err != nil || !slices.Equal(s.Files, []File{record("x", "x")}) {
		t.Errorf("the set after a refused commit: %v", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	g, err := CreateFolder(cancelled, other, testFormat)
	if err != nil {
		t.Fatal(err)
	}
	g.WriteFile("x", []byte("new"))
	cancel()
	if err := g.Commit(); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit after cancellation: %v", err)
	}
	g.Abort()
	if b, _ := os.ReadFile(filepath.Join(other, "x")); string(b) != "x" {
		t.Errorf("a cancelled commit changed x to %q", b)
	}
	if got := foldertest.Names(t, other); !slices.Equal(got, []string{MetaFile, "x", "y"}) {
		t.Errorf("the folder after a cancelled commit holds %v", got)
	}
}

// TestStaleTempFiles checks that the next writer into a folder removes
// the temporary files that killed writers of any command left, and no
// other file.
func TestStaleTempFiles(t *testing.T) {
	r := smallRun()
	stale := []string{".descriptors.npy.tmp-123", ".manifest.csv.tmp-4", ".meta.json.pending.tmp-55", ".results.json.tmp-987654",
		".summary.md.tmp-3", ".dictionary.npy.tmp-77", ".covpipe.tmp-1"}
	keep := []string{"notes.txt", ".descriptors.npy.tmp-x1", ".tmp-12", "results.json.tmp-1"}
	for _, writer := range []string{"create", "merge", "generic"} {
		t.Run(writer, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			for _, name := range append(slices.Clone(stale), keep...) {
				foldertest.WriteFile(t, filepath.Join(dir, name), []byte("x"))
			}
			switch writer {
			case "create":
				r.write(t, dir)
			case "merge":
				if _, err := Merge(context.Background(), dir, []string{r.writeTo(t)}); err != nil {
					t.Fatal(err)
				}
			default:
				f, err := CreateFolder(context.Background(), dir, testFormat)
				if err != nil {
					t.Fatal(err)
				}
				f.Abort()
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
			if _, err := os.Stat(filepath.Join(dir, lockFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the lock file is left: %v", err)
			}
		})
	}
}

// TestRemoveTempFiles checks what a process stopped at once leaves: the
// temporary files of its folders short of their commit point are
// removed, and a folder it created is removed; a folder past its commit
// point is left to the journal, which the next reader completes.
func TestRemoveTempFiles(t *testing.T) {
	defer func() {
		live.Lock()
		live.closed = false
		live.Unlock()
	}()
	ctx := context.Background()
	root := t.TempDir()
	// writeNew takes the folder dir and writes a new file a into it.
	writeNew := func(dir string) *Folder {
		f, err := CreateFolder(ctx, dir, testFormat)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteFile("a", []byte("new"))
		return f
	}
	old := filepath.Join(root, "old")
	writeSet(t, old, []string{"a"}, map[string]string{"a": "old"})
	writing := writeNew(old)
	fresh := filepath.Join(root, "fresh")
	writeNew(fresh)
	past := filepath.Join(root, "past")
	writeSet(t, past, []string{"a"}, map[string]string{"a": "old"})
	committing := writeNew(past)
	errStop := errors.New("stopped")
	committing.stop = func(step string) error {
		if step == "rename a" {
			RemoveTempFiles()
			return errStop
		}
		return nil
	}
	if err := committing.Commit(); !errors.Is(err, errStop) {
		t.Fatal(err)
	}
	if got := foldertest.Names(t, old); !slices.Equal(got, []string{"a", MetaFile}) {
		t.Errorf("%s holds %v", old, got)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is left: %v", fresh, err)
	}
	if _, err := writing.Create("b"); !errors.Is(err, errExiting) {
		t.Errorf("Create after RemoveTempFiles: %v", err)
	}
	if err := writing.Commit(); err == nil {
		t.Error("Commit after RemoveTempFiles")
	}
	if _, err := CreateFolder(ctx, filepath.Join(root, "late"), testFormat); !errors.Is(err, errExiting) {
		t.Errorf("CreateFolder after RemoveTempFiles: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "late")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a folder created after RemoveTempFiles is left: %v", err)
	}
	committing.Abort()
	if s, err := OpenSet(past, testFormat); err != nil || !slices.Equal(s.Files, []File{record("a", "new")}) {
		t.Errorf("the set past its commit point: %+v, %v", s, err)
	}
}

// killSteps runs write, a writer of a new set whose Commit stops (as a
// kill -9 would stop it) before step k, for every k, and calls check
// with whether it stopped past the commit point; then it checks that
// the uninterrupted writer goes through every step.
func killSteps(t *testing.T, reset func(), write func(stop func(string) error) error, check func(k int, step string, committed bool)) {
	t.Helper()
	var steps []string
	reset()
	if err := write(func(step string) error { steps = append(steps, step); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(steps) < 5 || !slices.Contains(steps, "commit point") {
		t.Fatalf("steps %v", steps)
	}
	errKilled := errors.New("killed")
	for k, step := range steps {
		reset()
		i := 0
		err := write(func(string) error {
			if i == k {
				return errKilled
			}
			i++
			return nil
		})
		if !errors.Is(err, errKilled) {
			t.Fatalf("stop before %s: %v", step, err)
		}
		check(k, step, k > slices.Index(steps, "commit point"))
	}
}

// TestKilledAtEveryStep stops a writer of a new set before each step of
// its commit, as kill -9 would, and checks that the folder then reads as
// exactly the old set before the commit point and exactly the new one
// after it: read-only, while another process holds the lock; then by a
// reader that takes the lock and completes the commit; then that the
// next writer writes its own set there.
func TestKilledAtEveryStep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	oldNames, oldFiles := []string{"a", "b", "c"}, map[string]string{"a": "old a", "b": "same b", "c": "old c"}
	newNames, newFiles := []string{"d", "a", "b"}, map[string]string{"a": "new a, longer", "b": "same b", "d": "new d"}
	read := func() map[string]string {
		t.Helper()
		s, err := OpenSet(dir, testFormat)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, f := range s.Files {
			b, err := s.ReadFile(f.Name)
			if err != nil {
				t.Fatal(err)
			}
			got[f.Name] = string(b)
		}
		return got
	}
	killSteps(t,
		func() {
			os.RemoveAll(dir)
			writeSet(t, dir, oldNames, oldFiles)
		},
		func(stop func(string) error) error {
			f, err := CreateFolder(context.Background(), dir, testFormat)
			if err != nil {
				return err
			}
			defer f.Abort()
			f.stop = stop
			for _, name := range newNames {
				if err := f.WriteFile(name, []byte(newFiles[name])); err != nil {
					return err
				}
			}
			return f.Commit()
		},
		func(k int, step string, committed bool) {
			want := oldFiles
			if committed {
				want = newFiles
			}
			// Read-only: another process holds the lock.
			l, err := lockFolder(dir)
			if err != nil {
				t.Fatal(err)
			}
			if lockEnforced {
				if got := read(); !maps.Equal(got, want) {
					t.Errorf("killed before %s (step %d), read-only: %v, want %v", step, k, got, want)
				}
			}
			l.unlock()
			if got := read(); !maps.Equal(got, want) {
				t.Errorf("killed before %s (step %d): %v, want %v", step, k, got, want)
			}
			wantNames := append(slices.Sorted(maps.Keys(want)), MetaFile)
			slices.Sort(wantNames)
			if got := foldertest.Names(t, dir); committed && !slices.Equal(got, wantNames) {
				t.Errorf("killed before %s (step %d), read: the folder holds %v, want %v", step, k, got, wantNames)
			}
			writeSet(t, dir, []string{"e"}, map[string]string{"e": "e"})
			if got := read(); !maps.Equal(got, map[string]string{"e": "e"}) {
				t.Errorf("killed before %s (step %d), then rewritten: %v", step, k, got)
			}
			if got := foldertest.Names(t, dir); !slices.Equal(got, []string{"e", MetaFile}) {
				t.Errorf("killed before %s (step %d), then rewritten: the folder holds %v", step, k, got)
			}
		})
}

// TestDescriptorsKilledAtEveryStep is TestKilledAtEveryStep for a
// descriptor folder written over another of other values, read by Read
// and by ReadFile.
func TestDescriptorsKilledAtEveryStep(t *testing.T) {
	ra, rb := skipRun(0), skipRun(0)
	rb.salt = 3
	rb.skipBad = false // no failures.csv: the old one is removed
	a, b := ra.writeTo(t), rb.writeTo(t)
	dir := filepath.Join(t.TempDir(), "out")
	same := func(dir, ref string) bool {
		t.Helper()
		ma, err := ReadMeta(ref)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ma.Files {
			want, _ := os.ReadFile(filepath.Join(ref, f.Name))
			got, err := ReadFile(filepath.Join(dir, f.Name))
			if err != nil || !bytes.Equal(got, want) {
				return false
			}
		}
		got, _ := os.ReadFile(filepath.Join(dir, MetaFile))
		want, _ := os.ReadFile(filepath.Join(ref, MetaFile))
		return bytes.Equal(got, want)
	}
	killSteps(t,
		func() {
			os.RemoveAll(dir)
			ra.write(t, dir)
		},
		func(stop func(string) error) error {
			m := rb.meta()
			f, err := CreateFolder(context.Background(), dir, Format)
			if err != nil {
				return err
			}
			f.stop = stop
			w, err := NewWriter(f, &m)
			if err != nil {
				return err
			}
			defer w.Abort()
			out, err := Read(b)
			if err != nil {
				return err
			}
			dd := m.Dim * m.Dim
			for i, r := range out.Rows {
				if err := w.Add(r.Input, r.Path, r.Label, []covariance.Region{r.Region}, out.Data[i*dd:(i+1)*dd]); err != nil {
					return err
				}
			}
			m.Counts = out.Meta.Counts
			return w.Commit(&m)
		},
		func(k int, step string, committed bool) {
			if _, err := Read(dir); err != nil {
				t.Errorf("killed before %s (step %d): %v", step, k, err)
			}
			if want := map[bool]string{false: a, true: b}[committed]; !same(dir, want) {
				t.Errorf("killed before %s (step %d): not the set of %s", step, k, want)
			}
		})
}
