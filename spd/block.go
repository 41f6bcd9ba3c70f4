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
// For 4 <= d <= 128, each row's entries are computed four columns at a
// time by stein4, the four factorisations lane-interleaved so that their
// serial pivot chains (square roots, divisions) overlap: bit for bit
// steinEntry's values. The entries do not depend on the number of
// workers.
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
	bufs := make([]*stein4Buf, min(pool.Workers(opts.workers()), tiles))
	four := d >= stein4MinD && d <= stein4MaxD
	return pool.ForCtx(ctx, tiles, opts.workers(), func(w, t int) error {
		if bufs[w] == nil {
			bufs[w] = newStein4Buf(d)
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
		c := 0
		if four {
			// Columns four at a time (stein4), each group's halves
			// packed once for the tile's rows.
		groups:
			for ; c+3 < len(cols); c += 4 {
				js := (*[4]int)(cols[c : c+4])
				dense.PackHalf4(buf.h, b.block(js[0]), b.block(js[1]), b.block(js[2]), b.block(js[3]), d)
				ldy := [4]float64{b.logdet[js[0]], b.logdet[js[1]], b.logdet[js[2]], b.logdet[js[3]]}
				for r := r0; r < r1; r++ {
					i := rows[r]
					x := a.block(i)
					s, ok := stein4(buf, x, d, a.logdet[i], &ldy)
					if !ok {
						// A pivot failed: the tile one entry at a time,
						// in today's order, for today's error.
						c = 0
						break groups
					}
					copy(raw.Data[r*raw.Stride+c:r*raw.Stride+c+4], s[:])
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

// stein4MinD and stein4MaxD bound the matrix sizes d for which the Stein
// blocks compute four entries at once; outside them, and for the last
// columns of a block that do not make a group of four, each entry is
// steinEntry. Up to dense.TinyMaxD, steinEntry's closed form is cheaper.
const (
	stein4MinD = dense.TinyMaxD + 1
	stein4MaxD = dense.PlainMaxD
)

// stein4Buf is a worker's scratch for stein4: the four factors and the
// packed halves of the four column matrices, lane-interleaved, 4·d·d
// float64s each, and a d×d buffer for steinEntry.
type stein4Buf struct {
	l, h, one []float64
}

// newStein4Buf returns scratch for stein4 at matrix size d.
func newStein4Buf(d int) *stein4Buf {
	return &stein4Buf{l: make([]float64, 4*d*d), h: make([]float64, 4*d*d), one: make([]float64, d*d)}
}

// stein4 returns S(X, Y_q) for the four column matrices whose halves
// dense.PackHalf4 left in b.h, given the cached log-determinants ldx of X
// and ldy of the Y_q, from one dense.Chol4: bit for bit steinEntry's
// values, as Distance promises, and S(X, X) = 0 exactly for
// byte-identical matrices, since the cached log-determinants come from
// the same arithmetic. It returns false when a pivot of any of the four
// fails the SPD-enough test; the caller then computes each entry with
// steinEntry, for its error.
func stein4(b *stein4Buf, x []float64, d int, ldx float64, ldy *[4]float64) ([4]float64, bool) {
	ld, ok := dense.Chol4(b.l, x, b.h, d)
	var s [4]float64
	for q := range s {
		s[q] = nonNegative(ld[q] - 0.5*(ldx+ldy[q]))
	}
	return s, ok
}

// SteinSymBlock returns the symmetric |items|×|items| matrix of Stein
// divergences S(X_i, X_j) between the items of a, computing one triangle
// (the diagonal is exactly 0) in tiles of rowTile rows handed out
// dynamically, so that the triangle's uneven rows balance across workers;
// each tile's entries are computed four columns at a time by stein4, the
// columns' halves packed once per tile, as in SteinBlockTo. It returns an
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
	bufs := make([]*stein4Buf, min(pool.Workers(opts.workers()), tiles))
	four := d >= stein4MinD && d <= stein4MaxD
	err := pool.ForCtx(ctx, tiles, opts.workers(), func(w, t int) error {
		if bufs[w] == nil {
			bufs[w] = newStein4Buf(d)
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
		if !four {
			if err := single(); err != nil {
				return err
			}
			opts.progress(entriesFrom(m, r0, r1))
			return nil
		}
		// Columns four at a time (stein4) from r0+1, each group's halves
		// packed once for the tile's rows, which take the group's columns
		// right of their diagonal; each row's last columns that make no
		// group of four, one at a time.
		c := r0 + 1
		for ; c+3 < m; c += 4 {
			js := (*[4]int)(items[c : c+4])
			dense.PackHalf4(buf.h, a.block(js[0]), a.block(js[1]), a.block(js[2]), a.block(js[3]), d)
			ldy := [4]float64{a.logdet[js[0]], a.logdet[js[1]], a.logdet[js[2]], a.logdet[js[3]]}
			for r := r0; r < min(r1, c+3); r++ {
				i := items[r]
				s, ok := stein4(buf, a.block(i), d, a.logdet[i], &ldy)
				if !ok {
					// A pivot failed: the tile one entry at a time, for
					// steinEntry's error.
					return single()
				}
				for q, v := range s {
					if c+q > r {
						raw.Data[r*raw.Stride+c+q] = v
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
