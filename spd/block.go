package spd

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/internal/dense"
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
// log-determinants, and the pool allocates one buffer per worker.
//
// For 4 <= d <= 128, each row's entries are computed dense.Lanes(d)
// columns at a time (eight with AVX-512, else four; then a group of four
// and single columns for the rest) by steinLanes, the factorisations
// lane-interleaved so that their serial pivot chains (square roots,
// divisions) overlap: bit for bit steinEntry's values. The entries do not
// depend on the number of workers.
//
// It returns an error wrapping ErrDimension for sets of different matrix
// sizes or a dst of the wrong shape, ErrEmpty for an empty set,
// ErrParameter for a nil dst or an index out of range, and ErrNotSPD,
// naming both items, when (X+Y)/2 fails to factorise (which cannot happen
// for two matrices of valid Sets unless their entries overflow). Once ctx
// is cancelled it starts no more tiles of rows and returns ctx.Err(),
// dst then holding some of the entries.
func SteinBlockTo(ctx context.Context, dst *mat.Dense, a *Set, rows []int, b *Set, cols []int, opts *GramOptions) error {
	if err := checkCtx(ctx); err != nil {
		return err
	}
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
	bufs := make([]*steinBuf, min(pool.Workers(opts.workers()), tiles))
	lanes := groupLanes(d)
	return pool.ForCtx(ctx, tiles, opts.workers(), func(w, t int) error {
		if bufs[w] == nil {
			bufs[w] = newSteinBuf(d)
		}
		buf := bufs[w]
		r0, r1 := t*rowTile, min(len(rows), (t+1)*rowTile)
		// single computes the tile's entries from column c0 on one at a time.
		single := func(c0 int) error {
			for c := c0; c < len(cols); c++ {
				j := cols[c]
				yj, ldj := b.block(j), b.logdet[j]
				for r := r0; r < r1; r++ {
					i := rows[r]
					s, ok := steinEntry(buf.one, a.block(i), yj, d, a.logdet[i], ldj)
					if !ok {
						return fmt.Errorf("Stein divergence of a[%d] and b[%d]: %w: Cholesky factorisation of (X+Y)/2 failed", i, j, ErrNotSPD)
					}
					raw.Data[r*raw.Stride+c] = s
				}
			}
			return nil
		}
		// Columns in groups (steinLanes), each group's halves packed
		// once for the tile's rows.
		c := 0
	groups:
		for _, g := range lanes {
			for ; c+g <= len(cols); c += g {
				ldy := buf.pack(b, cols[c:c+g], d)
				for r := r0; r < r1; r++ {
					i := rows[r]
					var s [8]float64
					if !steinLanes(buf, a.block(i), d, a.logdet[i], ldy[:g], s[:g]) {
						// A pivot failed: the tile one entry at a time,
						// in today's order, for today's error.
						c = 0
						break groups
					}
					copy(raw.Data[r*raw.Stride+c:r*raw.Stride+c+g], s[:g])
				}
			}
		}
		if err := single(c); err != nil {
			return err
		}
		opts.progress((r1 - r0) * len(cols))
		return nil
	})
}

// rowTile is the number of rows that SteinBlockTo computes together.
const rowTile = 8

// groupLanes returns the widths of the column groups that the Stein
// blocks factorise at once at matrix size d, widest first: dense.Lanes(d)
// and four, or none outside 4 <= d <= dense.PlainMaxD. The last columns
// of a block that make no group, and every column outside those sizes,
// take steinEntry; up to dense.TinyMaxD its closed form is cheaper.
func groupLanes(d int) []int {
	if d <= dense.TinyMaxD || d > dense.PlainMaxD {
		return nil
	}
	if dense.Lanes(d) == 8 {
		return []int{8, 4}
	}
	return []int{4}
}

// steinBuf is a worker's scratch for steinLanes: the factors and the
// packed halves of a group's column matrices, lane-interleaved
// (dense.Lanes(d)·d·d float64s each), the group's matrices and
// log-determinants, and a d×d buffer for steinEntry.
type steinBuf struct {
	l, h, one []float64
	ys        [8][]float64
	ldy       [8]float64
}

// newSteinBuf returns scratch for steinLanes at matrix size d.
func newSteinBuf(d int) *steinBuf {
	n := dense.Lanes(d) * d * d
	return &steinBuf{l: make([]float64, n), h: make([]float64, n), one: make([]float64, d*d)}
}

// pack packs into b.h the halves of the column matrices js of s, four or
// eight of them (dense.PackHalf4, dense.PackHalf8), and returns their
// cached log-determinants.
func (b *steinBuf) pack(s *Set, js []int, d int) *[8]float64 {
	for q, j := range js {
		b.ys[q] = s.block(j)
		b.ldy[q] = s.logdet[j]
	}
	if len(js) == 8 {
		dense.PackHalf8(b.h, &b.ys, d)
	} else {
		dense.PackHalf4(b.h, b.ys[0], b.ys[1], b.ys[2], b.ys[3], d)
	}
	return &b.ldy
}

// steinLanes sets out[q] = S(X, Y_q) for the len(out) column matrices,
// four or eight, whose halves b.pack left in b.h, given the cached
// log-determinants ldx of X and ldy of the Y_q, from one dense.Chol4 or
// dense.Chol8: bit for bit steinEntry's values, as Distance promises, and
// S(X, X) = 0 exactly for byte-identical matrices, since the cached
// log-determinants come from the same arithmetic. It returns false when a
// pivot of any of them fails the SPD-enough test; the caller then
// computes each entry with steinEntry, for its error.
func steinLanes(b *steinBuf, x []float64, d int, ldx float64, ldy, out []float64) bool {
	var ld [8]float64
	var ok bool
	if len(out) == 8 {
		ld, ok = dense.Chol8(b.l, x, b.h, d)
	} else {
		var ld4 [4]float64
		ld4, ok = dense.Chol4(b.l, x, b.h, d)
		copy(ld[:], ld4[:])
	}
	for q := range out {
		out[q] = nonNegative(ld[q] - 0.5*(ldx+ldy[q]))
	}
	return ok
}

// SteinSymBlock returns the symmetric |items|×|items| matrix of Stein
// divergences S(X_i, X_j) between the items of a, computing one triangle
// (the diagonal is exactly 0) in tiles of rowTile rows handed out
// dynamically, so that the triangle's uneven rows balance across workers;
// each tile's entries are computed in groups of columns by steinLanes,
// the columns' halves packed once per tile, as in SteinBlockTo. It returns an
// error wrapping ErrEmpty for an empty set or no items, and the errors of
// SteinBlockTo, ctx.Err() once ctx is cancelled among them.
func SteinSymBlock(ctx context.Context, a *Set, items []int, opts *GramOptions) (*mat.SymDense, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, err
	}
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
	tiles := (m + rowTile - 1) / rowTile
	bufs := make([]*steinBuf, min(pool.Workers(opts.workers()), tiles))
	lanes := groupLanes(d)
	err := pool.ForCtx(ctx, tiles, opts.workers(), func(w, t int) error {
		if bufs[w] == nil {
			bufs[w] = newSteinBuf(d)
		}
		buf := bufs[w]
		r0, r1 := t*rowTile, min(m, (t+1)*rowTile)
		// single computes the tile's entries one at a time, row by row.
		single := func() error {
			for r := r0; r < r1; r++ {
				i := items[r]
				xi, ldi := a.block(i), a.logdet[i]
				for c := r + 1; c < m; c++ {
					j := items[c]
					s, ok := steinEntry(buf.one, xi, a.block(j), d, ldi, a.logdet[j])
					if !ok {
						return fmt.Errorf("Stein divergence of a[%d] and a[%d]: %w: Cholesky factorisation of (X+Y)/2 failed", i, j, ErrNotSPD)
					}
					raw.Data[r*raw.Stride+c] = s
				}
			}
			return nil
		}
		if lanes == nil {
			if err := single(); err != nil {
				return err
			}
			opts.progress(entriesFrom(m, r0, r1))
			return nil
		}
		// Columns in groups (steinLanes) from r0+1, each group's halves
		// packed once for the tile's rows, which take the group's columns
		// right of their diagonal; each row's last columns that make no
		// group, one at a time.
		c := r0 + 1
		for _, g := range lanes {
			for ; c+g <= m; c += g {
				ldy := buf.pack(a, items[c:c+g], d)
				for r := r0; r < min(r1, c+g-1); r++ {
					i := items[r]
					var s [8]float64
					if !steinLanes(buf, a.block(i), d, a.logdet[i], ldy[:g], s[:g]) {
						// A pivot failed: the tile one entry at a time,
						// for steinEntry's error.
						return single()
					}
					for q, v := range s[:g] {
						if c+q > r {
							raw.Data[r*raw.Stride+c+q] = v
						}
					}
				}
			}
		}
		for r := r0; r < r1; r++ {
			i := items[r]
			xi, ldi := a.block(i), a.logdet[i]
			for cc := max(c, r+1); cc < m; cc++ {
				j := items[cc]
				s, ok := steinEntry(buf.one, xi, a.block(j), d, ldi, a.logdet[j])
				if !ok {
					return single()
				}
				raw.Data[r*raw.Stride+cc] = s
			}
		}
		opts.progress(entriesFrom(m, r0, r1))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// entriesFrom returns the entries of rows r0, ..., r1−1 of the upper
// triangle of an m×m matrix, diagonal included: Σ_r (m − r).
func entriesFrom(m, r0, r1 int) int {
	n := 0
	for r := r0; r < r1; r++ {
		n += m - r
	}
	return n
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
