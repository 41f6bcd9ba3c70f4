package spd

import (
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/mat"
)

// Set is an immutable collection of n validated d×d SPD matrices stored
// contiguously (row-major, full), with each matrix's log-determinant
// computed once. Gram matrices over Sets reuse the cached log-determinants,
// so a Stein kernel entry costs one Cholesky factorisation, not three.
// A Set is safe for concurrent use.
type Set struct {
	d, n   int
	data   []float64
	logdet []float64
	// packed, when not nil, holds the matrices instead of data (Pack).
	packed *packedStore
}

// NewSet validates the matrices (see Validate) and copies them into a Set.
// The error names the index of the first bad matrix.
func NewSet(ms []*mat.SymDense) (*Set, error) {
	if len(ms) == 0 {
		return nil, fmt.Errorf("%w: no matrices", ErrEmpty)
	}
	d, _ := dims(ms[0])
	if d == 0 {
		return nil, fmt.Errorf("matrix 0: %w", ErrEmpty)
	}
	data := make([]float64, len(ms)*d*d)
	for i, m := range ms {
		n, c := dims(m)
		if n == 0 {
			return nil, fmt.Errorf("matrix %d: %w", i, ErrEmpty)
		}
		if n != c {
			return nil, fmt.Errorf("matrix %d: %w", i, ErrNotSquare)
		}
		if n != d {
			return nil, fmt.Errorf("matrix %d: %w: %d×%d, matrix 0 is %d×%d", i, ErrDimension, n, n, d, d)
		}
		loadFull(data[i*d*d:(i+1)*d*d], d, m)
	}
	return newSet(d, data)
}

// NewSetFromData returns a Set over n = len(data)/(d·d) matrices held in
// data as consecutive row-major d×d blocks: the layout of a NumPy array of
// shape (n, d, d). The Set takes ownership of data. Each matrix must be
// finite, symmetric within DefaultSymmetryTol relative to its largest entry,
// and positive definite; the error names the first bad index.
func NewSetFromData(d int, data []float64) (*Set, error) {
	if d < 1 || d > maxSetDim {
		return nil, fmt.Errorf("%w: matrix size %d must be in [1, %d]", ErrDimension, d, maxSetDim)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: no matrices", ErrEmpty)
	}
	if len(data)%(d*d) != 0 {
		return nil, fmt.Errorf("%w: %d values is not a whole number of %d×%d matrices", ErrDimension, len(data), d, d)
	}
	n := len(data) / (d * d)
	for k := range n {
		if err := symmetrize(k, d, data[k*d*d:(k+1)*d*d]); err != nil {
			return nil, err
		}
	}
	return newSet(d, data)
}

// symmetrize checks that the d×d matrix k, m, is finite and symmetric
// within DefaultSymmetryTol relative to its largest entry, and makes it
// exactly symmetric in place, as NewSetFromData does; the error names k.
func symmetrize(k, d int, m []float64) error {
	var scale float64
	for i, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("matrix %d: %w: a[%d][%d] = %v", k, ErrNotFinite, i/d, i%d, v)
		}
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range d {
		for j := i + 1; j < d; j++ {
			u, v := m[i*d+j], m[j*d+i]
			if math.Abs(u-v) > DefaultSymmetryTol*scale {
				return fmt.Errorf("matrix %d: %w: a[%d][%d] = %v but a[%d][%d] = %v", k, ErrNotSymmetric, i, j, u, j, i, v)
			}
			// Make the matrix exactly symmetric: the lower triangle is
			// read by some routines and the upper by others.
			avg := mean2(u, v)
			m[i*d+j], m[j*d+i] = avg, avg
		}
	}
	return nil
}

// maxSetDim bounds the matrix size d of NewSetFromData so that d·d cannot
// overflow an int on any platform (d·d < 2³¹).
const maxSetDim = 46340

func newSet(d int, data []float64) (*Set, error) {
	n := len(data) / (d * d)
	s := &Set{d: d, n: n, data: data, logdet: make([]float64, n)}
	buf := make([]float64, d*d)
	for i := range n {
		ld, err := logDet(i, d, s.block(i), buf)
		if err != nil {
			return nil, err
		}
		s.logdet[i] = ld
	}
	return s, nil
}

// logDet returns the log-determinant of the d×d matrix i, m, factorised
// in buf; the error names i.
func logDet(i, d int, m, buf []float64) (float64, error) {
	copy(buf, m)
	ld, ok := dense.CholLogDet(buf, d)
	if !ok {
		if !finite(mat.NewSymDense(d, m)) {
			return 0, fmt.Errorf("matrix %d: %w", i, ErrNotFinite)
		}
		return 0, fmt.Errorf("matrix %d: %w: %s", i, ErrNotSPD, notSPDEnough(d))
	}
	return ld, nil
}

// Len returns the number of matrices, 0 for a nil Set.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return s.n
}

// Dim returns the matrix size d, 0 for a nil Set.
func (s *Set) Dim() int {
	if s == nil {
		return 0
	}
	return s.d
}

// LogDet returns the cached log det of matrix i. It panics if i is out of
// range [0, Len()), like slice indexing: a programming error, not bad data.
func (s *Set) LogDet(i int) float64 {
	s.index(i)
	return s.logdet[i]
}

// View returns matrix i as a *mat.SymDense sharing the Set's storage. It
// must not be modified; use At for a copy. It panics if i is out of range,
// like slice indexing.
func (s *Set) View(i int) *mat.SymDense { return mat.NewSymDense(s.d, s.block(i)) }

// At returns a copy of matrix i. It panics if i is out of range, like
// slice indexing.
func (s *Set) At(i int) *mat.SymDense {
	return mat.NewSymDense(s.d, append([]float64(nil), s.block(i)...))
}

// Data returns the Set's storage: Len() row-major d×d blocks, the layout of
// a NumPy array of shape (n, d, d), nil for a nil Set. It must not be
// modified.
func (s *Set) Data() []float64 {
	if s == nil {
		return nil
	}
	return s.storage()
}

// storage returns the dense matrices: data, or a packed Set's unpacked.
func (s *Set) storage() []float64 {
	if s.packed != nil {
		return s.packed.storage(s.d)
	}
	return s.data
}

// Subset returns a new Set holding the matrices at the given indices, in
// that order, with their cached log-determinants. It panics on an index out
// of range, like slice indexing. An empty idx gives an empty Set (Len 0),
// which the functions taking a Set refuse with ErrEmpty.
func (s *Set) Subset(idx []int) *Set {
	for _, i := range idx {
		s.index(i)
	}
	if s == nil {
		return &Set{}
	}
	dd := s.d * s.d
	out := &Set{d: s.d, n: len(idx), data: make([]float64, len(idx)*dd), logdet: make([]float64, len(idx))}
	data := s.Data()
	for k, i := range idx {
		copy(out.data[k*dd:(k+1)*dd], data[i*dd:(i+1)*dd])
		out.logdet[k] = s.logdet[i]
	}
	return out
}

// Concat returns a new Set holding the matrices of a, then those of b,
// with their cached log-determinants: no matrix is factorised again. It
// returns an error wrapping ErrDimension when a and b hold matrices of
// different sizes; an empty Set joins any.
func Concat(a, b *Set) (*Set, error) {
	switch {
	case a.Len() == 0:
		return b.Subset(seq(b.Len())), nil
	case b.Len() == 0:
		return a.Subset(seq(a.Len())), nil
	case a.d != b.d:
		return nil, fmt.Errorf("spd: concatenating sets of %d×%d and %d×%d matrices: %w", a.d, a.d, b.d, b.d, ErrDimension)
	}
	return &Set{d: a.d, n: a.n + b.n, data: slices.Concat(a.Data(), b.Data()), logdet: slices.Concat(a.logdet, b.logdet)}, nil
}

// index panics with a message naming i when it is out of range
// [0, s.Len()).
func (s *Set) index(i int) {
	if n := s.Len(); uint(i) >= uint(n) {
		panic(fmt.Sprintf("spd: Set index %d out of range [0, %d)", i, n))
	}
}

func (s *Set) block(i int) []float64 {
	s.index(i)
	dd := s.d * s.d
	return s.storage()[i*dd : (i+1)*dd]
}

// Regroup returns the matrices of s, groups of k consecutive matrices
// (the k regions of each image, image after image), as k Sets: Sets[r]
// holds matrix r of every group, in group order, with its cached
// log-determinant. It reorders s's storage in place (the transpose of a
// groups×k array of matrices, by following the permutation's cycles with
// one matrix of scratch) and the k Sets share it, so that regrouping
// needs no second copy of the matrices: s itself must not be used
// afterwards. It returns an error wrapping ErrDimension when s's length
// is not a positive multiple of k, and one when s is packed (Pack).
func Regroup(s *Set, k int) ([]*Set, error) {
	n := s.Len()
	if k < 1 || n == 0 || n%k != 0 {
		return nil, fmt.Errorf("%w: %d matrices are not groups of %d", ErrDimension, n, k)
	}
	if s.Packed() {
		return nil, fmt.Errorf("%w: %d matrices", errPacked, n)
	}
	groups, dd := n/k, s.d*s.d
	// The matrix at position p = g·k + r goes to r·groups + g.
	to := func(p int) int { return (p%k)*groups + p/k }
	done := make([]bool, n)
	buf := make([]float64, dd)
	for start := range n {
		if done[start] {
			continue
		}
		// Carry the matrix of start along its cycle, each step placing
		// the carried matrix and picking up the one it displaces.
		copy(buf, s.block(start))
		ld := s.logdet[start]
		for p := to(start); ; p = to(p) {
			blk := s.data[p*dd : (p+1)*dd]
			for i := range buf {
				buf[i], blk[i] = blk[i], buf[i]
			}
			ld, s.logdet[p] = s.logdet[p], ld
			done[p] = true
			if p == start {
				break
			}
		}
	}
	out := make([]*Set, k)
	for r := range out {
		a, b := r*groups, (r+1)*groups
		out[r] = &Set{d: s.d, n: groups, data: s.data[a*dd : b*dd : b*dd], logdet: s.logdet[a:b:b]}
	}
	return out, nil
}

// Equal reports whether s and t hold the same matrices bit for bit, in
// the same order.
func Equal(s, t *Set) bool {
	if s.Len() != t.Len() || s.Dim() != t.Dim() {
		return false
	}
	if s.Packed() && t.Packed() {
		return s.packed.same(t.packed, s.d)
	}
	td := t.Data()
	for i, v := range s.Data() {
		if math.Float64bits(v) != math.Float64bits(td[i]) {
			return false
		}
	}
	return true
}
