package classify

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// itemVectors holds one vector per item: the isometric log-vectors of a
// Data's items and their norms, or the rows of LinearPairs (no norms).
type itemVectors struct {
	n, m   int       // items, values per vector (d(d+1)/2 for log-vectors)
	vecs   []float64 // one row of m values per item
	stride int       // row stride of vecs
	sq     []float64 // squared Euclidean norm of each row
	inv    []float64 // reciprocal Euclidean norm of each row
}

func (lv *itemVectors) row(i int) []float64 { return lv.vecs[i*lv.stride : i*lv.stride+lv.m] }

// LinearPairs returns the linear kernel P_ij = y_iᵀy_j of the rows of y
// (row i: item i), computed per block by one matrix product, for methods
// that map items to vectors of their own (PCA projections). It keeps y.
func LinearPairs(y *mat.Dense) Pairs {
	raw := y.RawMatrix()
	lv := &itemVectors{n: raw.Rows, m: raw.Cols, vecs: raw.Data, stride: raw.Stride}
	return &vectorPairs{lv: lv, name: "linear kernel"}
}

// vectorPairs computes quantities of item vectors per block: a block is
// one matrix product.
type vectorPairs struct {
	lv   *itemVectors
	name string // the quantity's, for messages
	// unit scales each vector to unit length before the products
	// (LogCosine); distance turns the products into squared distances
	// ‖v_i‖² + ‖v_j‖² − 2 v_iᵀv_j (LogEuclideanSq).
	unit, distance bool
	// gram holds the products of the training set's vectors, from which
	// blocks within it are taken; nil for LinearPairs, whose blocks are
	// each a product.
	gram    *trainGram
	workers int
}

// Prepare does nothing: blocks are computed when asked for.
func (p *vectorPairs) Prepare(context.Context, []int) error { return nil }

// Block returns f of the quantity between rows and cols.
func (p *vectorPairs) Block(ctx context.Context, rows, cols []int, f Map) (*mat.Dense, error) {
	return newBlock(ctx, p, rows, cols, f)
}

// BlockTo writes Block's values into dst: one matrix product, which it
// does not start once ctx is cancelled.
func (p *vectorPairs) BlockTo(ctx context.Context, dst *mat.Dense, rows, cols []int, f Map) error {
	if len(rows) == 0 || len(cols) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkDims(dst, rows, cols); err != nil {
		return err
	}
	lv := p.lv
	n := lv.n
	for _, items := range [][]int{rows, cols} {
		for _, i := range items {
			if i < 0 || i >= n {
				return fmt.Errorf("%s: item %d out of range [0, %d)", p.name, i, n)
			}
			if p.unit && !(lv.sq[i] > 0) {
				return fmt.Errorf("log of matrix %d is zero: cannot normalise", i)
			}
		}
	}
	raw := dst.RawMatrix()
	if g := p.gram; g != nil && gemmBlocked(len(rows), len(cols)) && g.within(rows, cols) {
		tri, err := g.products(ctx, p, p.workers)
		if err != nil {
			return err
		}
		m := len(g.train)
		for r, i := range rows {
			out := raw.Data[r*raw.Stride : r*raw.Stride+len(cols)]
			a := int(g.pos[i])
			for c, j := range cols {
				b := int(g.pos[j])
				out[c] = tri[triIndex(m, min(a, b), max(a, b))]
			}
		}
	} else {
		a, b := p.gather(rows), p.gather(cols)
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, raw)
	}
	for r, i := range rows {
		out := raw.Data[r*raw.Stride : r*raw.Stride+len(cols)]
		if p.distance {
			for c, j := range cols {
				out[c] = math.Max(0, lv.sq[i]+lv.sq[j]-2*out[c])
			}
		}
		f.applyTo(out)
	}
	return nil
}

// gather copies the vectors of items into a matrix, each unit normalised
// if unit.
func (p *vectorPairs) gather(items []int) blas64.General {
	lv := p.lv
	m := lv.m
	g := blas64.General{Rows: len(items), Cols: m, Stride: m, Data: make([]float64, len(items)*m)}
	for r, i := range items {
		dst := g.Data[r*m : (r+1)*m]
		copy(dst, lv.row(i))
		if p.unit {
			inv := lv.inv[i]
			for k := range dst {
				dst[k] *= inv
			}
		}
	}
	return g
}
