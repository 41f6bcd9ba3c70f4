package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/foldertest"
)

// TestOpenVectors checks that OpenVectors gives each vector in order as
// Read reads them, that its Rows read them again by index from the file
// it checked after the folder's files are replaced, and the errors of a
// bad index or length, a torn or short vectors.npy and a folder without
// vectors.
func TestOpenVectors(t *testing.T) {
	r := smallRun()
	r.vecLen = 4
	dir := r.writeTo(t)
	want, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var seen []float64
	next := 0
	out, rows, err := OpenVectors(dir, func(i int, v []float64) error {
		if i != next {
			t.Errorf("vector %d given after %d", i, next-1)
		}
		next++
		seen = append(seen, v...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !slices.Equal(seen, want.Vectors) || out.Vectors != nil || out.VectorLen != 4 || !slices.Equal(out.Data, want.Data) {
		t.Fatalf("OpenVectors gave %d values (%d in Output, length %d), Read %d", len(seen), len(out.Vectors), out.VectorLen, len(want.Vectors))
	}
	// A writer replaces the folder's files (a rename over them); the Rows
	// read the one that was checked.
	path := filepath.Join(dir, VectorsFile)
	b, _ := os.ReadFile(path)
	for i := len(b) - 8*len(want.Vectors); i < len(b); i++ {
		b[i] ^= 0x55
	}
	foldertest.WriteFile(t, path+".new", b)
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	n, m := rows.Dims()
	if n != 7 || m != 4 {
		t.Fatalf("Dims = %d, %d", n, m)
	}
	got := make([]float64, 2*m)
	if err := rows.ReadRows([]int{6, 1}, got); err != nil || !slices.Equal(got, slices.Concat(want.Vectors[24:28], want.Vectors[4:8])) {
		t.Errorf("ReadRows(6, 1) = %v, %v", got, err)
	}
	for _, tc := range []struct {
		idx []int
		dst int
	}{{[]int{7}, 4}, {[]int{-1}, 4}, {[]int{0}, 3}} {
		if err := rows.ReadRows(tc.idx, make([]float64, tc.dst)); err == nil {
			t.Errorf("ReadRows(%v) into %d values: no error", tc.idx, tc.dst)
		}
	}

	torn := r.writeTo(t)
	b, _ = os.ReadFile(filepath.Join(torn, VectorsFile))
	b[len(b)-1] ^= 1
	foldertest.WriteFile(t, filepath.Join(torn, VectorsFile), b)
	if _, rows, err := OpenVectors(torn, func(int, []float64) error { return nil }); !errors.Is(err, ErrTorn) || rows != nil {
		t.Errorf("torn vectors: %v, %v", rows, err)
	}
	short := r.writeTo(t)
	six := r
	six.lists = []*datasets.List{{Root: r.lists[0].Root, Items: r.lists[0].Items[:6]}}
	foldertest.WriteFile(t, filepath.Join(short, VectorsFile), foldertest.Files(t, six.writeTo(t))[VectorsFile])
	reseal(t, short)
	if _, _, err := OpenVectors(short, func(int, []float64) error { return nil }); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "6 vectors for 7 descriptors") {
		t.Errorf("6 vectors: %v", err)
	}
	boom := errors.New("boom")
	if _, _, err := OpenVectors(r.writeTo(t), func(int, []float64) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("each's error: %v", err)
	}
	if _, _, err := OpenVectors(smallRun().writeTo(t), func(int, []float64) error { return nil }); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "no vectors") {
		t.Errorf("no vectors: %v", err)
	}
}
