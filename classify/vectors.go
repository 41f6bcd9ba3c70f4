package classify

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/spd"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// itemVectors holds one vector per item: the isometric log-vectors of a
// Data's items and their norms, or the rows of LinearPairs (no norms).
// Log-vectors are computed per item when a block first reads the item
// (ensure), so that items no quantity asks for (the test items of tasks
// yet to run, those of a layout not chosen) hold none.
type itemVectors struct {
	n, m int         // items, values per vector (d(d+1)/2 for log-vectors)
	rows [][]float64 // row i: item i's vector, nil until computed
	sq   []float64   // squared Euclidean norm of each row
	inv  []float64   // reciprocal Euclidean norm of each row

	// data, when not nil, is the Data whose matrices' log-vectors rows
	// are, computed on its workers from its Set as it is then (a packed
	// one, PackParts, unpacks when read); nil when every row is given
	// (LinearPairs).
	data *Data
	mu   sync.Mutex // held while rows are computed
	// ws and tmps are the workers' buffers, made on first use.
	ws   []*spd.Workspace
	tmps []*mat.SymDense
}

func (lv *itemVectors) row(i int) []float64 { return lv.rows[i] }

// ensure computes the log-vectors of the items of lists that lv lacks,
// each with its norms, on lv's workers; a failed computation (a matrix
// without a logarithm) keeps none of them, so that a later call tries
// again. Rows, once computed, never change:
// a caller reads those of its lists after ensure returns.
func (lv *itemVectors) ensure(lists ...[]int) error {
	if lv.data == nil {
		return nil
	}
	lv.mu.Lock()
	defer lv.mu.Unlock()
	var missing []int
	for _, items := range lists {
		for _, i := range items {
			if i < 0 || i >= lv.n {
				return fmt.Errorf("item %d out of range [0, %d)", i, lv.n)
			}
			if lv.rows[i] == nil {
				missing = append(missing, i)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	vecs := make([]float64, len(missing)*lv.m)
	sq, inv := make([]float64, len(missing)), make([]float64, len(missing))
	if err := lv.logVectors(missing, vecs, sq, inv); err != nil {
		return err
	}
	for k, i := range missing {
		lv.rows[i] = vecs[k*lv.m : (k+1)*lv.m : (k+1)*lv.m]
		lv.sq[i], lv.inv[i] = sq[k], inv[k]
	}
	return nil
}

// logVectors computes the log-vectors of items into vecs, lv.m values
// each, with their squared Euclidean norms into sq and the reciprocals
// of their norms into inv, on lv's workers; lv.mu must be held.
func (lv *itemVectors) logVectors(items []int, vecs, sq, inv []float64) error {
	set, workers := lv.data.Set, lv.data.Workers
	m, dim := lv.m, set.Dim()
	if lv.ws == nil {
		lv.ws = make([]*spd.Workspace, pool.Workers(workers))
		lv.tmps = make([]*mat.SymDense, len(lv.ws))
	}
	return pool.ForErr(len(items), workers, func(w, k int) error {
		if lv.ws[w] == nil {
			lv.ws[w], lv.tmps[w] = spd.NewWorkspace(dim), mat.NewSymDense(dim, nil)
		}
		i, v := items[k], vecs[k*m:(k+1)*m]
		if err := lv.ws[w].LogVecTo(v, set.View(i), lv.tmps[w]); err != nil {
			return fmt.Errorf("log of matrix %d: %w", i, err)
		}
		// Squared norms as a dot product, the diagonal of the vectors'
		// Gram matrix that the distances are made from.
		x := blas64.Vector{N: m, Inc: 1, Data: v}
		sq[k] = blas64.Dot(x, x)
		var ss float64
		for _, e := range v {
			ss += e * e
		}
		inv[k] = 1 / math.Sqrt(ss)
		return nil
	})
}

// transient returns what ensure would keep of items, computed for the
// caller alone: their vectors (lv.m values each, item after item), their
// squared norms and the reciprocals of their norms.
func (lv *itemVectors) transient(items []int) (vecs, sq, inv []float64, err error) {
	for _, i := range items {
		if i < 0 || i >= lv.n {
			return nil, nil, nil, fmt.Errorf("item %d out of range [0, %d)", i, lv.n)
		}
	}
	vecs, sq, inv = make([]float64, len(items)*lv.m), make([]float64, len(items)), make([]float64, len(items))
	if len(items) == 0 {
		return vecs, sq, inv, nil
	}
	lv.mu.Lock()
	defer lv.mu.Unlock()
	return vecs, sq, inv, lv.logVectors(items, vecs, sq, inv)
}

// LinearPairs returns the linear kernel P_ij = y_iᵀy_j of the rows of y
// (row i: item i), computed per block by one matrix product, for methods
// that map items to vectors of their own (PCA projections). It keeps y.
func LinearPairs(y *mat.Dense) Pairs {
	raw := y.RawMatrix()
	lv := &itemVectors{n: raw.Rows, m: raw.Cols, rows: make([][]float64, raw.Rows)}
	for i := range lv.rows {
		lv.rows[i] = raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
	}
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
		}
	}
	raw := dst.RawMatrix()
	var sqRows, sqCols []float64 // the items' squared norms, for distances
	if g := p.gram; g != nil && gemmBlocked(len(rows), len(cols)) && g.within(rows, cols) {
		if err := lv.ensure(rows, cols); err != nil {
			return err
		}
		if err := p.checkUnit(rows, cols); err != nil {
			return err
		}
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
		if p.distance {
			sqRows, sqCols = p.sqOf(rows), p.sqOf(cols)
		}
	} else {
		a, sa, err := p.vectorsOf(rows)
		if err != nil {
			return err
		}
		b, sb, err := p.vectorsOf(cols)
		if err != nil {
			return err
		}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, raw)
		sqRows, sqCols = sa, sb
	}
	for r := range rows {
		out := raw.Data[r*raw.Stride : r*raw.Stride+len(cols)]
		if p.distance {
			for c := range cols {
				out[c] = math.Max(0, sqRows[r]+sqCols[c]-2*out[c])
			}
		}
		f.applyTo(out)
	}
	return nil
}

// checkUnit returns an error, when p normalises vectors, naming the
// first item of lists whose vector is zero; their vectors are computed.
func (p *vectorPairs) checkUnit(lists ...[]int) error {
	if !p.unit {
		return nil
	}
	for _, items := range lists {
		for _, i := range items {
			if !(p.lv.sq[i] > 0) {
				return fmt.Errorf("log of matrix %d is zero: cannot normalise", i)
			}
		}
	}
	return nil
}

// sqOf returns the squared norms of the computed vectors of items.
func (p *vectorPairs) sqOf(items []int) []float64 {
	sq := make([]float64, len(items))
	for r, i := range items {
		sq[r] = p.lv.sq[i]
	}
	return sq
}

// vectorsOf returns the vectors of items as the rows of a matrix, each
// unit normalised if p.unit (gather), and, when p gives distances, their
// squared norms. The vectors of items in the training set of p.gram are
// those lv keeps (computed when missing); those of other items, the test
// items of a split, are computed for this block alone and not kept: a
// test item meets the training set in one block per quantity, and
// keeping every split's would keep the log-vectors of every item of a
// run's tasks.
func (p *vectorPairs) vectorsOf(items []int) (blas64.General, []float64, error) {
	lv := p.lv
	var kept, other []int
	for _, i := range items {
		if p.gram == nil || i < 0 || i >= len(p.gram.pos) || p.gram.pos[i] >= 0 {
			kept = append(kept, i)
		} else {
			other = append(other, i)
		}
	}
	if err := lv.ensure(kept); err != nil {
		return blas64.General{}, nil, err
	}
	if err := p.checkUnit(kept); err != nil {
		return blas64.General{}, nil, err
	}
	if len(other) == 0 {
		var sq []float64
		if p.distance {
			sq = p.sqOf(items)
		}
		return p.gather(items), sq, nil
	}
	vecs, osq, oinv, err := lv.transient(other)
	if err != nil {
		return blas64.General{}, nil, err
	}
	m := lv.m
	g := blas64.General{Rows: len(items), Cols: m, Stride: m, Data: make([]float64, len(items)*m)}
	sq := make([]float64, len(items))
	k := 0
	for r, i := range items {
		dst := g.Data[r*m : (r+1)*m]
		var inv float64
		if p.gram == nil || i < 0 || i >= len(p.gram.pos) || p.gram.pos[i] >= 0 {
			copy(dst, lv.row(i))
			sq[r], inv = lv.sq[i], lv.inv[i]
		} else {
			copy(dst, vecs[k*m:(k+1)*m])
			sq[r], inv = osq[k], oinv[k]
			k++
			if p.unit && !(sq[r] > 0) {
				return blas64.General{}, nil, fmt.Errorf("log of matrix %d is zero: cannot normalise", i)
			}
		}
		if p.unit {
			for c := range dst {
				dst[c] *= inv
			}
		}
	}
	return g, sq, nil
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
