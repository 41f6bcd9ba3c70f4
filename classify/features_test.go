package classify

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// rowsOf is a RowReader over a row-major slice, as a file would read it.
type rowsOf struct {
	cols int
	data []float64
	fail error
}

func (r rowsOf) ReadRows(idx []int, dst []float64) error {
	if r.fail != nil {
		return r.fail
	}
	if len(dst) != len(idx)*r.cols {
		return fmt.Errorf("%d values for %d rows", len(dst), len(idx))
	}
	for k, i := range idx {
		if i < 0 || i*r.cols >= len(r.data) {
			return fmt.Errorf("row %d out of range", i)
		}
		copy(dst[k*r.cols:(k+1)*r.cols], r.data[i*r.cols:])
	}
	return nil
}

// TestVectors checks that vectors in memory and read through a RowReader
// give the same rows and matrix, and the errors of a bad index, a dst of
// another length and a failed read.
func TestVectors(t *testing.T) {
	data := []float64{1, 2, 3, 4, 5, 6}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		v    *Vectors
	}{
		{"memory", NewVectors(mat.NewDense(3, 2, slices.Clone(data)))},
		{"reader", NewVectorsFrom(3, 2, rowsOf{cols: 2, data: data})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r, c := tc.v.Dims(); r != 3 || c != 2 {
				t.Fatalf("Dims = %d, %d", r, c)
			}
			dst := make([]float64, 2)
			for i := range 3 {
				if err := tc.v.RowTo(dst, i); err != nil || !slices.Equal(dst, data[2*i:2*i+2]) {
					t.Errorf("RowTo(%d) = %v, %v", i, dst, err)
				}
			}
			x, err := tc.v.Dense()
			if err != nil || !slices.Equal(x.RawMatrix().Data, data) {
				t.Errorf("Dense = %v, %v", x, err)
			}
			for _, i := range []int{-1, 3} {
				if err := tc.v.RowTo(dst, i); err == nil {
					t.Errorf("RowTo(%d): no error", i)
				}
			}
			if err := tc.v.RowTo(make([]float64, 3), 0); err == nil {
				t.Error("RowTo into 3 values: no error")
			}
		})
	}
	bad := NewVectorsFrom(3, 2, rowsOf{cols: 2, data: data, fail: boom})
	if err := bad.RowTo(make([]float64, 2), 0); !errors.Is(err, boom) {
		t.Errorf("RowTo of a failed read: %v", err)
	}
	if _, err := bad.Dense(); !errors.Is(err, boom) {
		t.Errorf("Dense of a failed read: %v", err)
	}
}
