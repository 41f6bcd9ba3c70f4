package store

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadEach checks that ReadEach gives each descriptor of a folder,
// in order, bit for bit as Read reads them, with the Output's meta, rows
// and vectors as Read's, for chunks of the file that cut descriptors at
// odd places (one value, seven, 3×3 plus one, and the default), and
// that a torn folder is ErrTorn after the descriptors were given.
func TestReadEach(t *testing.T) {
	defer func(c int) { npyReadChunk = c }(npyReadChunk)
	for _, vecLen := range []int{0, 5} {
		r := skipRun(vecLen)
		r.regions = max(r.regions, 1)
		dir := r.writeTo(t)
		want, err := Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []int{8, 7 * 8, 10 * 8, 1 << 20} {
			npyReadChunk = chunk
			name := fmt.Sprintf("vectors %d, chunks of %d bytes", vecLen, chunk)
			var got []float64
			started := 0
			out, err := ReadEach(dir, func(o *Output) error {
				started++
				if o.Data != nil || len(o.Rows) != len(want.Rows) {
					t.Errorf("%s: start sees %d rows, data %v", name, len(o.Rows), o.Data != nil)
				}
				return nil
			}, func(i int, m []float64) error {
				if i != len(got)/9 || len(m) != 9 {
					t.Fatalf("%s: descriptor %d of %d values after %d", name, i, len(m), len(got)/9)
				}
				got = append(got, m...)
				m[0] = math.NaN() // each may modify its buffer
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if started != 1 || len(got) != len(want.Data) {
				t.Fatalf("%s: %d starts, %d values, want 1 and %d", name, started, len(got), len(want.Data))
			}
			for i, v := range got {
				if math.Float64bits(v) != math.Float64bits(want.Data[i]) {
					t.Fatalf("%s: value %d is %v, want %v", name, i, v, want.Data[i])
				}
			}
			if out.Data != nil || !slices.Equal(out.Rows, want.Rows) || !slices.Equal(out.Vectors, want.Vectors) || out.VectorLen != want.VectorLen || out.Meta.Diff(&want.Meta) != "" {
				t.Errorf("%s: Output differs from Read's", name)
			}
		}
	}
	npyReadChunk = 7 * 8

	t.Run("errors", func(t *testing.T) {
		dir := testRun().writeTo(t)
		stop := errors.New("stop")
		if _, err := ReadEach(dir, func(*Output) error { return stop }, func(int, []float64) error { return nil }); err != stop {
			t.Errorf("start's error: %v", err)
		}
		n := 0
		if _, err := ReadEach(dir, func(*Output) error { return nil }, func(int, []float64) error { n++; return stop }); err != stop || n != 1 {
			t.Errorf("each's error: %v after %d descriptors", err, n)
		}
		// The same size, another value: only the checksum, at the end, tells.
		npy := filepath.Join(dir, DescriptorsFile)
		b, err := os.ReadFile(npy)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)-1] ^= 1
		if err := os.WriteFile(npy, b, 0o644); err != nil {
			t.Fatal(err)
		}
		n = 0
		_, err = ReadEach(dir, func(*Output) error { return nil }, func(int, []float64) error { n++; return nil })
		if !errors.Is(err, ErrTorn) || n == 0 {
			t.Errorf("torn descriptors: %v after %d descriptors, want ErrTorn after them", err, n)
		}
	})
}

// TestOpenEachDescriptors checks that the Descriptors of OpenEach read
// any descriptor again, bit for bit as Read reads it, from the file that
// was checked even after the folder's file is replaced, and refuse
// indices out of range and a buffer of another size.
func TestOpenEachDescriptors(t *testing.T) {
	r := testRun()
	dir := r.writeTo(t)
	want, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, desc, err := OpenEach(dir, func(*Output) error { return nil }, func(int, []float64) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer desc.Close()
	// Another run's descriptors put in place of the folder's, as a
	// writer replaces a file.
	other := r
	other.salt = 1
	npy := filepath.Join(dir, DescriptorsFile)
	b, err := os.ReadFile(filepath.Join(other.writeTo(t), DescriptorsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(npy+".new", b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(npy+".new", npy); err != nil {
		t.Fatal(err)
	}
	n := len(want.Rows)
	idx := []int{n - 1, 0, 3, 3, 1}
	got := make([]float64, len(idx)*9)
	if err := desc.ReadMatrices(idx, got); err != nil {
		t.Fatal(err)
	}
	for k, i := range idx {
		for j := range 9 {
			if math.Float64bits(got[k*9+j]) != math.Float64bits(want.Data[i*9+j]) {
				t.Fatalf("descriptor %d, value %d: %v, want %v", i, j, got[k*9+j], want.Data[i*9+j])
			}
		}
	}
	if err := desc.ReadMatrices([]int{n}, make([]float64, 9)); err == nil {
		t.Error("descriptor out of range read")
	}
	if err := desc.ReadMatrices([]int{0}, make([]float64, 8)); err == nil {
		t.Error("descriptor read into 8 values")
	}
}
