package spd

import (
	"fmt"

	"github.com/covpipe/covpipe/internal/pool"
	"gonum.org/v1/gonum/mat"
)

// SteinBlockTo writes the Stein divergences S(X_i, Y_j) of Eqn. 3 between
// the items rows of a and the items cols of b into dst, which must be
// |rows|×|cols|: dst[r][c] = S(a_rows[r], b_cols[c]). It lets a caller
// compute only the blocks of a pairwise matrix it needs (a training set
// against itself, a block of queries against the training set) instead of
// the whole n×n matrix. Rows are shared out on a bounded worker pool; each
// entry costs one Cholesky factorisation thanks to the sets' cached
// log-determinants, and the pool allocates one d×d buffer per worker.
//
// It returns an error wrapping ErrDimension for sets of different matrix
// sizes or a dst of the wrong shape, ErrEmpty for an empty set,
// ErrParameter for a nil dst or an index out of range, and ErrNotSPD,
// naming both items, when (X+Y)/2 fails to factorise (which cannot happen
// for two matrices of valid Sets unless their entries overflow).
func SteinBlockTo(dst *mat.Dense, a *Set, rows []int, b *Set, cols []int, opts *GramOptions) error {
	if err := sameDim(a, b); err != nil {
		return err
	}
	if dst == nil {
		return fmt.Errorf("%w: nil destination", ErrParameter)
	}
	if r, c := dst.Dims(); r != len(rows) || c != len(cols) {
		return fmt.Errorf("%w: destination is %d×%d, want %d×%d", ErrDimension, r, c, len(rows), len(cols))
	}
	if err := inRange("row", rows, a.n); err != nil {
		return err
	}
	if err := inRange("column", cols, b.n); err != nil {
		return err
	}
	if len(rows) == 0 || len(cols) == 0 {
		return nil
	}
	raw := dst.RawMatrix()
	d := a.d
	// Workers take tiles of rowTile rows: each column matrix is loaded
	// into the cache once per tile rather than once per row, which matters
	// once the column set outgrows the caches (600 matrices of 43×43 are
	// 8.9 MB).
	tiles := (len(rows) + rowTile - 1) / rowTile
	bufs := make([][]float64, min(pool.Workers(opts.workers()), tiles))
	return pool.ForErr(tiles, opts.workers(), func(w, t int) error {
		if bufs[w] == nil {
			bufs[w] = make([]float64, d*d)
		}
		r0, r1 := t*rowTile, min(len(rows), (t+1)*rowTile)
		for c, j := range cols {
			yj, ldj := b.block(j), b.logdet[j]
			for r := r0; r < r1; r++ {
				i := rows[r]
				s, ok := steinEntry(bufs[w], a.block(i), yj, d, a.logdet[i], ldj)
				if !ok {
					return fmt.Errorf("Stein divergence of a[%d] and b[%d]: %w: Cholesky factorisation of (X+Y)/2 failed", i, j, ErrNotSPD)
				}
				raw.Data[r*raw.Stride+c] = s
			}
		}
		opts.progress((r1 - r0) * len(cols))
		return nil
	})
}

// rowTile is the number of rows that SteinBlockTo computes together.
const rowTile = 8

// SteinSymBlock returns the symmetric |items|×|items| matrix of Stein
// divergences S(X_i, X_j) between the items of a, computing one triangle
// (the diagonal is exactly 0) with rows handed out dynamically so that the
// triangle's uneven rows balance across workers. It returns an error
// wrapping ErrEmpty for an empty set or no items, and the errors of
// SteinBlockTo.
func SteinSymBlock(a *Set, items []int, opts *GramOptions) (*mat.SymDense, error) {
	if a == nil || a.n == 0 || len(items) == 0 {
		return nil, fmt.Errorf("%w: empty set or no items", ErrEmpty)
	}
	if err := inRange("item", items, a.n); err != nil {
		return nil, err
	}
	m := len(items)
	out := mat.NewSymDense(m, nil)
	raw := out.RawSymmetric()
	d := a.d
	bufs := make([][]float64, min(pool.Workers(opts.workers()), m))
	err := pool.ForErr(m, opts.workers(), func(w, r int) error {
		if bufs[w] == nil {
			bufs[w] = make([]float64, d*d)
		}
		i := items[r]
		xi, ldi := a.block(i), a.logdet[i]
		row := raw.Data[r*raw.Stride : r*raw.Stride+m]
		for c := r + 1; c < m; c++ {
			j := items[c]
			s, ok := steinEntry(bufs[w], xi, a.block(j), d, ldi, a.logdet[j])
			if !ok {
				return fmt.Errorf("Stein divergence of a[%d] and a[%d]: %w: Cholesky factorisation of (X+Y)/2 failed", i, j, ErrNotSPD)
			}
			row[c] = s
		}
		opts.progress(m - r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// inRange reports an error wrapping ErrParameter for the first index of
// idx outside [0, n).
func inRange(what string, idx []int, n int) error {
	for _, i := range idx {
		if uint(i) >= uint(n) {
			return fmt.Errorf("%w: %s index %d out of range [0, %d)", ErrParameter, what, i, n)
		}
	}
	return nil
}
