package spd

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// Residency bounds how many packed Sets (Pack, Packer) hold their
// matrices unpacked at once: unpacking one more Set than Max drops the
// storage of the Set unpacked longest ago, which unpacks again when next
// used. A packed Set holds its matrices' upper triangles, d(d+1)/2 of
// the d² values, or, made by a Packer with a MatrixSource, none of them,
// so that the regions of many images (classify.Data.Parts) cost about
// half their dense size, or nothing, and only the Sets in use cost it
// whole. A Residency is safe for concurrent use; its zero value keeps
// one Set unpacked.
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

// packedStore is the storage of a packed Set: its upper triangles or
// where to read its matrices, and the dense matrices while r keeps them.
type packedStore struct {
	upper []float64 // row i's entries j ≥ i, matrix after matrix
	r     *Residency
	dense atomic.Pointer[[]float64] // nil while dropped
	// hashes, when not nil, holds each matrix's MatrixHash (a Packer's
	// Sets), by which Sets are told apart without unpacking them.
	hashes []uint64
	// src, when not nil, holds the matrices instead of upper: matrix k
	// is matrix idx[k] of src, made symmetric.
	src MatrixSource
	idx []int
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
	m := make([]float64, p.len(d)*d*d)
	if p.src != nil {
		p.read(0, m, d)
	} else {
		for k := range p.len(d) {
			p.matrix(k, m[k*d*d:(k+1)*d*d], d)
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

// read reads matrices from, from+1, ... of the source-backed p into m
// (as many as m holds), made symmetric as the Packer made them. It
// panics when the source fails or gives another matrix than the Packer
// was given (its hash differs): the Set's matrices are then lost, which
// no caller can mend.
func (p *packedStore) read(from int, m []float64, d int) {
	idx := p.idx[from : from+len(m)/(d*d)]
	if err := p.src.ReadMatrices(idx, m); err != nil {
		panic(fmt.Sprintf("spd: reading a packed Set's matrices again: %v", err))
	}
	for k, i := range idx {
		a := m[k*d*d : (k+1)*d*d]
		// The values as symmetrize leaves them: the hash tells whether
		// they are those it checked.
		for r := range d {
			for c := r + 1; c < d; c++ {
				avg := mean2(a[r*d+c], a[c*d+r])
				a[r*d+c], a[c*d+r] = avg, avg
			}
		}
		if MatrixHash(a) != p.hashes[from+k] {
			panic(fmt.Sprintf("spd: matrix %d read again is not the one packed (its source changed)", i))
		}
	}
}

// len returns the number of p's matrices of size d.
func (p *packedStore) len(d int) int {
	if p.src != nil {
		return len(p.idx)
	}
	return len(p.upper) / (d * (d + 1) / 2)
}

// same reports whether p and q hold the same matrices bit for bit,
// without unpacking either: by their hashes when both have them, then
// by their upper triangles or their matrices read one at a time.
func (p *packedStore) same(q *packedStore, d int) bool {
	if p.hashes != nil && q.hashes != nil && !slices.Equal(p.hashes, q.hashes) {
		return false
	}
	if p.src == nil && q.src == nil {
		return sameBits(p.upper, q.upper)
	}
	n := p.len(d)
	if q.len(d) != n {
		return false
	}
	a, b := make([]float64, d*d), make([]float64, d*d)
	for k := range n {
		p.matrix(k, a, d)
		q.matrix(k, b, d)
		if !sameBits(a, b) {
			return false
		}
	}
	return true
}

// matrix writes matrix k of p, whole, into a.
func (p *packedStore) matrix(k int, a []float64, d int) {
	if p.src != nil {
		p.read(k, a, d)
		return
	}
	tri := d * (d + 1) / 2
	u := p.upper[k*tri : (k+1)*tri]
	for i := range d {
		copy(a[i*d+i:(i+1)*d], u[:d-i])
		for j := i + 1; j < d; j++ {
			a[j*d+i] = u[j-i]
		}
		u = u[d-i:]
	}
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
// upper triangle of a packed Set, the whole matrix of a dense one or of
// one whose source holds it.
func (s *Set) entries(i int) []float64 {
	switch p := s.packed; {
	case p == nil:
		return s.block(i)
	case p.src != nil:
		a := make([]float64, s.d*s.d)
		p.matrix(i, a, s.d)
		return a
	}
	tri := s.d * (s.d + 1) / 2
	return s.packed.upper[i*tri : (i+1)*tri]
}
