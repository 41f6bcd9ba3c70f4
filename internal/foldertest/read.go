package foldertest

import (
	"os"
	"testing"

	"github.com/sbinet/npyio"
)

// ReadNPY reads the .npy file at path with npyio, a reader independent of
// package store's, and returns its shape and values. It fails tb unless
// the file holds little-endian float64 values in C order.
func ReadNPY(tb testing.TB, path string) ([]int, []float64) {
	tb.Helper()
	r, err := npyio.NewReader(Open(tb, path))
	if err != nil {
		tb.Fatalf("npyio: %s: %v", path, err)
	}
	h := r.Header.Descr
	if h.Type != "<f8" || h.Fortran {
		tb.Fatalf("npyio: %s: header %v, want <f8 in C order", path, r.Header)
	}
	n := 1
	for _, d := range h.Shape {
		n *= d
	}
	var data []float64
	if n > 0 {
		if err := r.Read(&data); err != nil {
			tb.Fatalf("npyio: %s: %v", path, err)
		}
	}
	return h.Shape, data
}

// Open opens path for reading and closes it when the test ends. It fails
// tb on an error.
func Open(tb testing.TB, path string) *os.File {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}
