package spd

import (
	"errors"
	"fmt"
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
