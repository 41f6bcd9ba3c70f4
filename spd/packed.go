package spd

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// Residency bounds how many packed Sets (Pack) hold their matrices
// unpacked at once: unpacking one more Set than Max drops the storage of
// the Set unpacked longest ago, which unpacks again when next used. A
// packed Set holds its matrices' upper triangles, d(d+1)/2 of the d²
// values, so that the regions of many images (classify.Data.Parts) cost
// about half their dense size and only the Sets in use cost it whole. A
// Residency is safe for concurrent use; its zero value keeps one Set
// unpacked.
type Residency struct {
	// Max is the number of Sets kept unpacked; below 1, one.
	Max int

	mu       sync.Mutex
	resident []*packedStore // unpacked, oldest first
	unpacked atomic.Int64   // unpackings so far
}

// Unpacked reports how many times a Set of r was unpacked, so that
// tests can see the budget at work.
func (r *Residency) Unpacked() int64 {
	if r == nil {
		return 0
	}
	return r.unpacked.Load()
}

// errPacked is the error of Regroup on a packed Set, whose storage it
// cannot reorder in place.
var errPacked = errors.New("spd: a packed Set cannot be regrouped in place")

// packedStore is the storage of a packed Set: its upper triangles, and
// the dense matrices while r keeps them.
type packedStore struct {
	upper []float64 // row i's entries j ≥ i, matrix after matrix
	r     *Residency
	dense atomic.Pointer[[]float64] // nil while dropped
}

// Pack returns a Set of the matrices of s that keeps only their upper
// triangles, with s's cached log-determinants, and unpacks them into
// dense storage, within r's budget, when its matrices are used (View,
// Data, the Gram matrices and divergences over it): every matrix then
// reads bit for bit as in s, whose matrices NewSet and NewSetFromData
// made exactly symmetric. A packed Set is immutable and safe for
// concurrent use, as any Set; storage that r drops while a caller still
// reads it (a View, Data) stays valid for that caller. A nil r is a
// Residency of its own. Pack returns an error wrapping ErrEmpty for an
// empty s.
func Pack(s *Set, r *Residency) (*Set, error) {
	if s.Len() == 0 {
		return nil, fmt.Errorf("%w: packing no matrices", ErrEmpty)
	}
	if r == nil {
		r = new(Residency)
	}
	d, n := s.d, s.n
	tri := d * (d + 1) / 2
	upper := make([]float64, n*tri)
	for k := range n {
		m, u := s.block(k), upper[k*tri:(k+1)*tri]
		for i := range d {
			u = u[copy(u, m[i*d+i:(i+1)*d]):]
		}
	}
	return &Set{d: d, n: n, logdet: append([]float64(nil), s.logdet...), packed: &packedStore{upper: upper, r: r}}, nil
}

// storage returns the dense matrices of a packed Set, unpacking them
// when r has dropped them.
func (p *packedStore) storage(d int) []float64 {
	if m := p.dense.Load(); m != nil {
		return *m
	}
	r := p.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := p.dense.Load(); m != nil {
		return *m
	}
	tri := d * (d + 1) / 2
	n := len(p.upper) / tri
	m := make([]float64, n*d*d)
	for k := range n {
		u, a := p.upper[k*tri:(k+1)*tri], m[k*d*d:(k+1)*d*d]
		for i := range d {
			copy(a[i*d+i:(i+1)*d], u[:d-i])
			for j := i + 1; j < d; j++ {
				a[j*d+i] = u[j-i]
			}
			u = u[d-i:]
		}
	}
	p.dense.Store(&m)
	r.unpacked.Add(1)
	r.resident = append(r.resident, p)
	for len(r.resident) > max(r.Max, 1) {
		r.resident[0].dense.Store(nil)
		r.resident = slices.Delete(r.resident, 0, 1)
	}
	return m
}

// Packed reports whether s keeps its matrices packed (Pack).
func (s *Set) Packed() bool { return s != nil && s.packed != nil }

// sameBits reports whether a and b hold the same values bit for bit.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// A Packer makes, from matrices given one at a time, the packed Sets
// (Pack) of what Regroup gives of NewSetFromData's Set of them: n d×d
// matrices, groups of k consecutive ones (the k regions of each image,
// image after image), as k Sets of n/k matrices, without ever holding
// the n matrices dense. Groups' positions whose matrices are all the same
// bit for bit (the whole image, which several layouts may each start
// with) share one Set and its storage. A Packer is not safe for
// concurrent use.
type Packer struct {
	d, k, groups, tri int
	r                 *Residency
	next              int // the index of the next matrix
	// upper and logdet hold each position's matrices (upper triangles)
	// and log-determinants, nil while the position shares those of
	// alias[r], a position before it whose matrices have all been its
	// own so far.
	upper, logdet [][]float64
	alias         []int
	buf           []float64
	failed        error // the first matrix's that is not SPD
}

// NewPacker returns a Packer of n d×d matrices in groups of k, their
// Sets unpacked within r's budget (a nil r is a Residency of its own).
// It returns an error wrapping ErrDimension unless n is a positive
// multiple of k and d is in [1, 46340], as NewSetFromData and Regroup
// would.
func NewPacker(d, n, k int, r *Residency) (*Packer, error) {
	if d < 1 || d > maxSetDim {
		return nil, fmt.Errorf("%w: matrix size %d must be in [1, %d]", ErrDimension, d, maxSetDim)
	}
	if k < 1 || n < 1 || n%k != 0 {
		return nil, fmt.Errorf("%w: %d matrices are not groups of %d", ErrDimension, n, k)
	}
	if r == nil {
		r = new(Residency)
	}
	return &Packer{d: d, k: k, groups: n / k, tri: d * (d + 1) / 2, r: r,
		upper: make([][]float64, k), logdet: make([][]float64, k), alias: make([]int, k), buf: make([]float64, d*d)}, nil
}

// Add takes the next matrix, m (d·d values, row-major), checking it and
// making it exactly symmetric in place as NewSetFromData does: an error
// wrapping ErrNotFinite or ErrNotSymmetric names the matrix, and Add
// must not be called again. It returns an error wrapping ErrDimension
// for m of another size or a matrix beyond the n of NewPacker, and one
// wrapping ErrEmpty for a nil Packer. A matrix that is not positive definite is
// the error of Sets, after every matrix has been checked, as
// NewSetFromData checks every matrix's symmetry before any is factorised.
func (p *Packer) Add(m []float64) error {
	if p == nil {
		return fmt.Errorf("%w: adding to a nil Packer", ErrEmpty)
	}
	i, d, tri := p.next, p.d, p.tri
	if i == p.groups*p.k || len(m) != d*d {
		return fmt.Errorf("%w: matrix %d of %d values, packing %d of %d", ErrDimension, i, len(m), p.groups*p.k, d*d)
	}
	if err := symmetrize(i, d, m); err != nil {
		return err
	}
	p.next++
	g, r := i/p.k, i%p.k
	if g == 0 {
		p.alias[r] = r
		for q := range r {
			if p.alias[q] == q && sameUpper(p.upper[q][:tri], m, d) {
				p.alias[r] = q
				return nil
			}
		}
		p.upper[r], p.logdet[r] = make([]float64, p.groups*tri), make([]float64, p.groups)
	} else if q := p.alias[r]; q != r {
		if sameUpper(p.upper[q][g*tri:(g+1)*tri], m, d) {
			return nil
		}
		// Position r parts from q at group g: it takes q's matrices so
		// far as its own.
		p.upper[r] = append(make([]float64, 0, p.groups*tri), p.upper[q][:g*tri]...)[:p.groups*tri]
		p.logdet[r] = append(make([]float64, 0, p.groups), p.logdet[q][:g]...)[:p.groups]
		p.alias[r] = r
	}
	u := p.upper[r][g*tri : (g+1)*tri]
	for j := range d {
		u = u[copy(u, m[j*d+j:(j+1)*d]):]
	}
	ld, err := logDet(i, d, m, p.buf)
	if err != nil && p.failed == nil {
		p.failed = err
	}
	p.logdet[r][g] = ld
	return nil
}

// sameUpper reports whether u, a packed upper triangle, holds the upper
// triangle of the symmetric d×d matrix m bit for bit.
func sameUpper(u, m []float64, d int) bool {
	for j := range d {
		row := m[j*d+j : (j+1)*d]
		if !sameBits(u[:len(row)], row) {
			return false
		}
		u = u[len(row):]
	}
	return true
}

// Sets returns the k packed Sets once every matrix has been added: Sets[r]
// holds matrix r of every group, with its log-determinant, and positions
// whose matrices are all the same bit for bit are one Set, that of the
// first of them. It returns an error naming the first matrix that is not
// positive definite, as NewSetFromData would, one wrapping
// ErrDimension before every matrix has been added, and one wrapping
// ErrEmpty for a nil Packer.
func (p *Packer) Sets() ([]*Set, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: the Sets of a nil Packer", ErrEmpty)
	}
	if n := p.groups * p.k; p.next != n {
		return nil, fmt.Errorf("%w: %d of %d matrices added", ErrDimension, p.next, n)
	}
	if p.failed != nil {
		return nil, p.failed
	}
	sets := make([]*Set, p.k)
	for r := range sets {
		q := p.alias[r]
		if q == r {
			// Positions that parted at a later group may still match an
			// earlier one whole.
			for o := range r {
				if sets[o] != nil && p.alias[o] == o && sameBits(p.upper[o], p.upper[r]) {
					q = o
					break
				}
			}
		}
		if q != r {
			p.alias[r], p.upper[r], p.logdet[r] = q, nil, nil
			sets[r] = sets[q]
			continue
		}
		sets[r] = &Set{d: p.d, n: p.groups, logdet: p.logdet[r], packed: &packedStore{upper: p.upper[r], r: p.r}}
	}
	return sets, nil
}

// SameMatrix reports whether matrix i of s and matrix j of t, of the same
// size, hold equal entries (as == compares them, so that 0 and −0 are
// equal), without unpacking packed Sets (Pack). It panics on an index out
// of range, like slice indexing.
func SameMatrix(s *Set, i int, t *Set, j int) bool {
	s.index(i)
	t.index(j)
	if s.d != t.d {
		return false
	}
	a, b := s.entries(i), t.entries(j)
	if len(a) == len(b) {
		return slices.Equal(a, b)
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	// a is packed, b dense: b's upper triangle determines it.
	d := s.d
	for r := range d {
		row := b[r*d+r : (r+1)*d]
		if !slices.Equal(a[:len(row)], row) {
			return false
		}
		a = a[len(row):]
	}
	return true
}

// entries returns the entries of matrix i that determine it: the packed
// upper triangle of a packed Set, the whole matrix of a dense one.
func (s *Set) entries(i int) []float64 {
	if s.packed == nil {
		return s.block(i)
	}
	tri := s.d * (s.d + 1) / 2
	return s.packed.upper[i*tri : (i+1)*tri]
}
