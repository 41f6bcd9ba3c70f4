package store

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/sbinet/npyio"
)

func TestWriteNPYReadMatrices(t *testing.T) {
	dir := t.TempDir()
	stack := []float64{2, 1, 1, 3, 4, 0, 0, 5, 1, 0.5, 0.5, 1}
	p := filepath.Join(dir, "m.npy")
	if err := WriteNPY(p, []int{3, 2, 2}, stack); err != nil {
		t.Fatal(err)
	}
	m, err := ReadMatrices(p)
	if err != nil {
		t.Fatal(err)
	}
	if m.N != 3 || m.D != 2 || !slices.Equal(m.Data, stack) || m.Output != nil {
		t.Errorf("read back %+v", m)
	}
	// npyio, an independent reader, sees the same shape and values.
	codes := []float64{1, 0, -2.5, 0, 3, 1e-300}
	q := filepath.Join(dir, "codes.npy")
	if err := WriteNPY(q, []int{2, 3}, codes); err != nil {
		t.Fatal(err)
	}
	if shape, got := foldertest.ReadNPY(t, q); !slices.Equal(shape, []int{2, 3}) || !slices.Equal(got, codes) {
		t.Errorf("npyio reads shape %v, values %v", shape, got)
	}
	if err := WriteNPY(q, []int{2, 2}, codes); err == nil {
		t.Error("mismatched shape written")
	}
}

func TestReadMatricesErrors(t *testing.T) {
	dir := t.TempDir()
	nan := filepath.Join(dir, "nan.npy")
	if err := WriteNPY(nan, []int{2, 2, 2}, []float64{1, 0, 0, 1, 1, 0, math.NaN(), 1}); err != nil {
		t.Fatal(err)
	}
	flat := filepath.Join(dir, "flat.npy")
	if err := WriteNPY(flat, []int{4}, []float64{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	rect := filepath.Join(dir, "rect.npy")
	if err := WriteNPY(rect, []int{1, 2, 3}, make([]float64, 6)); err != nil {
		t.Fatal(err)
	}
	f32 := filepath.Join(dir, "f32.npy")
	f, _ := os.Create(f32)
	npyio.Write(f, []float32{1, 2, 3, 4})
	f.Close()
	garbage := filepath.Join(dir, "garbage.npy")
	os.WriteFile(garbage, []byte("not an array"), 0o644)
	for _, tc := range []struct{ path, want string }{
		{nan, "nan.npy: matrix 1: entry [1][0] = NaN"},
		{flat, "flat.npy: array of type \"<f8\", shape [4]"},
		{rect, "shape [1 2 3]"},
		{f32, "f32.npy"},
		{garbage, "garbage.npy"},
		{filepath.Join(dir, "missing.npy"), "missing.npy"},
		{dir, "meta.json"},
	} {
		if _, err := ReadMatrices(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadMatrices(%s): %v, want an error containing %q", filepath.Base(tc.path), err, tc.want)
		}
	}
}

// TestCreateUnwritable checks that a folder whose files cannot be
// created gives an error, not a nil dereference. Root writes anywhere,
// so the test needs another user.
func TestCreateUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: a read-only folder is still writable")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	m := testRun().meta()
	if _, err := Create(context.Background(), dir, &m); err == nil {
		t.Error("Create in a read-only folder succeeded")
	}
}
