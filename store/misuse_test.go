package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/internal/panictest"
)

// bufFile is an NPYFile in memory.
type bufFile struct{ bytes.Buffer }

func (b *bufFile) WriteAt(p []byte, off int64) (int, error) {
	copy(b.Bytes()[off:], p)
	return len(p), nil
}

// TestMisuse calls the package's API with what a caller can get wrong:
// nil and zero values (receivers included), calls out of order and
// values out of range. Each must return an error containing want, never
// panic, and leave the process-wide registry's mutex free.
func TestMisuse(t *testing.T) {
	ctx := context.Background()
	m := smallRun().meta()
	// writer returns a Writer of the small run into a new folder.
	writer := func(t *testing.T) *Writer {
		w, err := Create(ctx, filepath.Join(t.TempDir(), "out"), &m)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Abort)
		return w
	}
	folder := func(t *testing.T) *Folder {
		f, err := CreateFolder(ctx, filepath.Join(t.TempDir(), "out"), testFormat)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Abort)
		return f
	}
	region := []covariance.Region{{W: 2, H: 2}}
	values := make([]float64, m.Dim*m.Dim)
	for i := range m.Dim {
		values[i*m.Dim+i] = 1
	}
	var nilFolder *Folder
	var nilWriter *Writer
	var nilNPY *NPYWriter
	var nilPending *Pending
	for _, tc := range []struct {
		name string
		call func(t *testing.T) error
		want string
	}{
		{"nil Folder Abort", func(*testing.T) error { nilFolder.Abort(); return errors.New("no error to return") }, "no error"},
		{"zero Folder Abort", func(*testing.T) error { (&Folder{}).Abort(); return errors.New("no error to return") }, "no error"},
		{"nil Folder Create", func(*testing.T) error { return errOf(nilFolder.Create("a")) }, "nil or zero Folder"},
		{"zero Folder Create", func(*testing.T) error { return errOf((&Folder{}).Create("a")) }, "nil or zero Folder"},
		{"nil Folder WriteFile", func(*testing.T) error { return nilFolder.WriteFile("a", nil) }, "nil or zero Folder"},
		{"nil Folder WriteNPY", func(*testing.T) error { return nilFolder.WriteNPY("a", []int{1}, []float64{1}) }, "nil or zero Folder"},
		{"nil Folder Commit", func(*testing.T) error { return nilFolder.Commit() }, "nil or zero Folder"},
		{"zero Folder Commit", func(*testing.T) error { return (&Folder{}).Commit() }, "nil or zero Folder"},
		{"nil Folder CommitMarker", func(*testing.T) error { return nilFolder.CommitMarker(nil) }, "nil or zero Folder"},
		{"CommitMarker(nil)", func(t *testing.T) error { return folder(t).CommitMarker(nil) }, "nil marker function"},
		{"nil Folder Dir", func(*testing.T) error { return errors.New(nilFolder.Dir() + "empty") }, "empty"},
		{"Pending.Write after Commit", func(t *testing.T) error {
			f := folder(t)
			p, err := f.Create("a")
			if err != nil {
				return err
			}
			if err := f.Commit(); err != nil {
				return err
			}
			return errOf(p.Write([]byte("late")))
		}, "after the Folder's Commit or Abort"},
		{"Pending.WriteAt after Abort", func(t *testing.T) error {
			f := folder(t)
			p, err := f.Create("a")
			if err != nil {
				return err
			}
			f.Abort()
			return errOf(p.WriteAt([]byte("late"), 0))
		}, "after the Folder's Commit or Abort"},
		{"nil Pending Write", func(*testing.T) error { return errOf(nilPending.Write([]byte("a"))) }, "nil or zero Pending"},
		{"zero Pending WriteAt", func(*testing.T) error { return errOf((&Pending{}).WriteAt([]byte("a"), 0)) }, "nil or zero Pending"},
		{"WriteNPY overflowing shape", func(t *testing.T) error {
			return WriteNPY(filepath.Join(t.TempDir(), "a.npy"), []int{1 << 32, 1 << 32}, nil)
		}, "more bytes than an int holds"},
		{"WriteNPY overflowing to a negative size", func(t *testing.T) error {
			return WriteNPY(filepath.Join(t.TempDir(), "a.npy"), []int{1 << 62, 3}, nil)
		}, "more bytes than an int holds"},
		{"WriteNPY negative dimension after a zero", func(t *testing.T) error {
			return WriteNPY(filepath.Join(t.TempDir(), "a.npy"), []int{0, -1}, nil)
		}, "negative dimension"},
		{"NewNPYWriter(nil)", func(*testing.T) error { return errOf(NewNPYWriter(nil, 2)) }, "nil file"},
		{"NewNPYWriter overflowing dims", func(*testing.T) error { return errOf(NewNPYWriter(&bufFile{}, 1<<32, 1<<32)) }, "more bytes than an int holds"},
		{"NPYWriter.Append after Close", func(*testing.T) error {
			a, err := NewNPYWriter(&bufFile{}, 2)
			if err != nil {
				return err
			}
			if err := a.Close(); err != nil {
				return err
			}
			return a.Append([]float64{1, 2})
		}, "after Close"},
		{"NPYWriter.Close twice", func(*testing.T) error {
			a, err := NewNPYWriter(&bufFile{}, 2)
			if err != nil {
				return err
			}
			a.Close()
			return a.Close()
		}, "after Close"},
		{"NPYWriter.Copy(r, -1)", func(*testing.T) error {
			a, err := NewNPYWriter(&bufFile{}, 2)
			if err != nil {
				return err
			}
			return a.Copy(strings.NewReader(""), -1)
		}, "Copy of -1 entries"},
		{"NPYWriter.Copy overflowing", func(*testing.T) error {
			a, err := NewNPYWriter(&bufFile{}, 1<<20)
			if err != nil {
				return err
			}
			return a.Copy(strings.NewReader(""), 1<<50)
		}, "Copy of 1125899906842624 entries"},
		{"NPYWriter.Copy(nil, 1)", func(*testing.T) error {
			a, err := NewNPYWriter(&bufFile{}, 2)
			if err != nil {
				return err
			}
			return a.Copy(nil, 1)
		}, "nil reader"},
		{"nil NPYWriter Append", func(*testing.T) error { return nilNPY.Append([]float64{1}) }, "nil or zero NPYWriter"},
		{"zero NPYWriter Copy", func(*testing.T) error { return (&NPYWriter{}).Copy(strings.NewReader(""), 1) }, "nil or zero NPYWriter"},
		{"nil NPYWriter Close", func(*testing.T) error { return nilNPY.Close() }, "nil or zero NPYWriter"},
		{"nil NPYWriter Len", func(*testing.T) error { return errors.New(strings.Repeat("x", nilNPY.Len()) + "zero") }, "zero"},
		{"CreateFolder nil ctx", func(t *testing.T) error {
			return errOf(CreateFolder(nil, filepath.Join(t.TempDir(), "out"), testFormat))
		}, "nil context.Context"},
		{"AutoShard nil getenv", func(*testing.T) error { return errOf(AutoShard("auto", nil)) }, "nil getenv"},
		{"Create nil Meta", func(t *testing.T) error {
			dir := filepath.Join(t.TempDir(), "out")
			_, err := Create(ctx, dir, nil)
			if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
				return errors.New("made its folder")
			}
			return err
		}, "nil Meta"},
		{"NewWriter nil Folder", func(*testing.T) error { return errOf(NewWriter(nil, &m)) }, "nil or zero Folder"},
		{"NewWriter nil Meta", func(t *testing.T) error {
			f, err := CreateFolder(ctx, filepath.Join(t.TempDir(), "out"), Format)
			if err != nil {
				return err
			}
			return errOf(NewWriter(f, nil))
		}, "nil Meta"},
		{"Writer.Commit(nil)", func(t *testing.T) error { return writer(t).Commit(nil) }, "nil Meta"},
		{"nil Writer Commit", func(*testing.T) error { return nilWriter.Commit(&m) }, "nil or zero Writer"},
		{"nil Writer Add", func(*testing.T) error { return nilWriter.Add(0, "a.png", "", region, values) }, "nil or zero Writer"},
		{"zero Writer AddVector", func(*testing.T) error { return (&Writer{}).AddVector([]float64{1}) }, "nil or zero Writer"},
		{"nil Writer AddFailure", func(*testing.T) error { return nilWriter.AddFailure(0, "a.png", errors.New("x")) }, "nil or zero Writer"},
		{"nil Writer Abort", func(*testing.T) error { nilWriter.Abort(); return errors.New("no error to return") }, "no error"},
		{"Writer.Add input -5", func(t *testing.T) error { return writer(t).Add(-5, "../../a.png", "", region, values) }, "input -5 of ../../a.png, want 0..0"},
		{"Writer.Add input past the inputs", func(t *testing.T) error { return writer(t).Add(2, "a.png", "", region, values) }, "input 2"},
		{"Writer.Add empty path", func(t *testing.T) error { return writer(t).Add(0, "", "", region, values) }, "empty or not clean"},
		{"Writer.Add unclean path", func(t *testing.T) error { return writer(t).Add(0, "a/../../b.png", "", region, values) }, `path.Clean gives "../b.png"`},
		{"Writer.Add bad region", func(t *testing.T) error {
			return writer(t).Add(0, "a.png", "", []covariance.Region{{W: 0, H: 2, X: -1}}, values)
		}, "at least 1x1 at a non-negative position"},
		{"Writer.AddFailure input -1", func(t *testing.T) error { return writer(t).AddFailure(-1, "a.png", errors.New("x")) }, "input -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			panictest.WantError(t, func() error { return tc.call(t) }, tc.want)
			if !live.TryLock() {
				t.Fatal("the registry's mutex is left held")
			}
			live.Unlock()
		})
	}
}

func errOf[T any](_ T, err error) error { return err }

// TestAbortRecovered checks the misuse of `f, err := CreateFolder(...);
// defer f.Abort()` before err is checked: a nil Folder's Abort, even
// recovered from, leaves CreateFolder and RemoveTempFiles working.
func TestAbortRecovered(t *testing.T) {
	func() {
		defer func() { recover() }()
		var f *Folder
		f.Abort()
	}()
	if !live.TryLock() {
		t.Fatal("a nil Folder's Abort left the registry's mutex held: CreateFolder would block")
	}
	live.Unlock()
	defer func() {
		live.Lock()
		live.closed = false
		live.Unlock()
	}()
	f, err := CreateFolder(context.Background(), filepath.Join(t.TempDir(), "out"), testFormat)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	RemoveTempFiles()
}

// TestFailedMkdirLeavesNoParents checks that an output folder whose
// name cannot be made (too long) leaves none of the parents CreateFolder
// made for it.
func TestFailedMkdirLeavesNoParents(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b", strings.Repeat("n", 300))
	if _, err := CreateFolder(context.Background(), dir, testFormat); err == nil {
		t.Fatal("no error for a name of 300 bytes")
	}
	if entries, _ := os.ReadDir(root); len(entries) > 0 {
		t.Errorf("left %s", filepath.Join(root, entries[0].Name()))
	}
}
