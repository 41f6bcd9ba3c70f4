package store

import (
	"encoding/binary"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// spdCheck checks the d×d matrices of a descriptors.npy whose entries are
// written to it, as they stream past, for what describe guarantees of a
// descriptor (package covariance): finite entries, exact symmetry (a
// descriptor is computed once per pair and mirrored) and positive
// definiteness (a Cholesky factorisation succeeds, as covariance checks
// it). Its errors wrap ErrInvalid and name the file and the matrix.
type spdCheck struct {
	path    string
	d       int
	pending []byte    // bytes of the matrix being received
	m, chol []float64 // the matrix, and its factorisation's buffer
	n       int       // matrices checked
}

func newSPDCheck(path string, d int) *spdCheck {
	return &spdCheck{path: path, d: d, pending: make([]byte, 0, 8*d*d), m: make([]float64, d*d), chol: make([]float64, d*d)}
}

func (c *spdCheck) Write(p []byte) (int, error) {
	size := 8 * c.d * c.d
	written := len(p)
	for len(p) > 0 {
		k := min(size-len(c.pending), len(p))
		c.pending = append(c.pending, p[:k]...)
		p = p[k:]
		if len(c.pending) < size {
			break
		}
		if err := c.check(); err != nil {
			return 0, err
		}
		c.pending = c.pending[:0]
		c.n++
	}
	return written, nil
}

// check checks the matrix whose bytes are c.pending.
func (c *spdCheck) check() error {
	d := c.d
	for i := range c.m {
		c.m[i] = math.Float64frombits(binary.LittleEndian.Uint64(c.pending[8*i:]))
	}
	for i, v := range c.m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s: matrix %d: entry [%d][%d] = %v is not finite", ErrInvalid, c.path, c.n, i/d, i%d, v)
		}
	}
	for i := range d {
		for j := i + 1; j < d; j++ {
			if u, v := c.m[i*d+j], c.m[j*d+i]; u != v {
				return fmt.Errorf("%w: %s: matrix %d is not symmetric: [%d][%d] = %v but [%d][%d] = %v", ErrInvalid, c.path, c.n, i, j, u, j, i, v)
			}
		}
	}
	copy(c.chol, c.m)
	if _, ok := lapack64.Potrf(blas64.Symmetric{N: d, Stride: d, Data: c.chol, Uplo: blas.Upper}); !ok {
		return fmt.Errorf("%w: %s: matrix %d is not positive definite (its Cholesky factorisation fails)", ErrInvalid, c.path, c.n)
	}
	return nil
}
