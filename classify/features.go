package classify

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Vectors is a feature vector per item of a Data (Data.Vectors), row i
// item i's, held in memory or read again by row from a RowReader, so
// that the methods that read a few rows at a time (a repeat's training
// images) need not have all of them held. It is safe for concurrent
// reads when its RowReader is.
type Vectors struct {
	rows, cols int
	dense      *mat.Dense // in memory, when not nil
	src        RowReader
}

// RowReader reads rows of a matrix: ReadRows writes rows idx[0], idx[1],
// ... one after another into dst, and returns an error for an index out
// of range, a dst of another length or a failed read.
type RowReader interface {
	ReadRows(idx []int, dst []float64) error
}

// NewVectors returns the vectors whose rows are x's rows, held in memory
// (x is not copied).
func NewVectors(x *mat.Dense) *Vectors {
	r, c := x.Dims()
	return &Vectors{rows: r, cols: c, dense: x}
}

// NewVectorsFrom returns rows vectors of cols values that src reads.
func NewVectorsFrom(rows, cols int, src RowReader) *Vectors {
	return &Vectors{rows: rows, cols: cols, src: src}
}

// Dims returns the number of vectors and their length.
func (v *Vectors) Dims() (rows, cols int) { return v.rows, v.cols }

// RowTo copies vector i into dst, which must have Dims' cols values. It
// returns an error for i out of range, a dst of another length or a
// failed read.
func (v *Vectors) RowTo(dst []float64, i int) error {
	if i < 0 || i >= v.rows {
		return fmt.Errorf("vector %d out of range [0, %d)", i, v.rows)
	}
	if len(dst) != v.cols {
		return fmt.Errorf("%d values for a vector of %d", len(dst), v.cols)
	}
	if v.dense != nil {
		copy(dst, v.dense.RawRowView(i))
		return nil
	}
	return v.src.ReadRows([]int{i}, dst)
}

// Dense returns the vectors as the rows of a matrix: the matrix itself
// when they are held in memory, which the caller must not modify, and
// otherwise a new one read whole. It returns the RowReader's error.
func (v *Vectors) Dense() (*mat.Dense, error) {
	if v.dense != nil {
		return v.dense, nil
	}
	x := mat.NewDense(v.rows, v.cols, nil)
	idx := make([]int, v.rows)
	for i := range idx {
		idx[i] = i
	}
	if err := v.src.ReadRows(idx, x.RawMatrix().Data); err != nil {
		return nil, err
	}
	return x, nil
}
