package spd

import (
	"fmt"
	"math"
)

// A MatrixSource gives again, by index, the matrices that a Packer was
// given: a descriptor file kept open, say.
type MatrixSource interface {
	// ReadMatrices writes matrices idx[0], idx[1], ... of the source
	// (d·d values each, row-major, as Packer.Add was given them) into
	// dst, one after another.
	ReadMatrices(idx []int, dst []float64) error
}

// A Packer makes, from matrices given one at a time, the packed Sets
// (Pack) of what Regroup gives of NewSetFromData's Set of them: n d×d
// matrices, groups of k consecutive ones (the k regions of each image,
// image after image), as k Sets of n/k matrices, without ever holding
// the n matrices dense. Groups' positions whose matrices are all the same
// bit for bit (the whole image, which several layouts may each start
// with) share one Set and its storage. With a MatrixSource, the Sets
// hold no matrices at all: unpacking one reads its matrices again from
// the source. A Packer is not safe for concurrent use.
type Packer struct {
	d, k, groups, tri int
	r                 *Residency
	src               MatrixSource
	next              int // the index of the next matrix
	// hashes holds every matrix's MatrixHash, in Add's order.
	hashes []uint64
	// cur holds the current group's matrices, made symmetric.
	cur [][]float64
	// upper (without a source) and logdet hold each position's matrices
	// (upper triangles) and log-determinants, nil while the position
	// shares those of alias[r], a position before it whose matrices
	// have all been its own so far.
	upper, logdet [][]float64
	alias         []int
	buf           []float64
	failed        error // the first matrix's that is not SPD
}

// NewPacker returns a Packer of n d×d matrices in groups of k, their
// Sets unpacked within r's budget (a nil r is a Residency of its own):
// from the upper triangles that the Packer keeps when src is nil, and
// otherwise from src, whose matrices must then be those given to Add,
// bit for bit (a Set panics, when it is unpacked, on a matrix of src
// that is not, or that src fails to read). It returns an error wrapping
// ErrDimension unless n is a positive multiple of k and d is in
// [1, 46340], as NewSetFromData and Regroup would.
func NewPacker(d, n, k int, r *Residency, src MatrixSource) (*Packer, error) {
	if d < 1 || d > maxSetDim {
		return nil, fmt.Errorf("%w: matrix size %d must be in [1, %d]", ErrDimension, d, maxSetDim)
	}
	if k < 1 || n < 1 || n%k != 0 {
		return nil, fmt.Errorf("%w: %d matrices are not groups of %d", ErrDimension, n, k)
	}
	if r == nil {
		r = new(Residency)
	}
	p := &Packer{d: d, k: k, groups: n / k, tri: d * (d + 1) / 2, r: r, src: src, hashes: make([]uint64, n),
		cur: make([][]float64, k), upper: make([][]float64, k), logdet: make([][]float64, k), alias: make([]int, k), buf: make([]float64, d*d)}
	for r := range p.cur {
		p.cur[r] = make([]float64, d*d)
	}
	return p, nil
}

// MatrixHash is FNV-1a over the bits of m's values: the hash by which
// Packers and Sets tell matrices apart before comparing them.
func MatrixHash(m []float64) uint64 {
	h := uint64(14695981039346656037)
	for _, x := range m {
		h = (h ^ math.Float64bits(x)) * 1099511628211
	}
	return h
}

// Add takes the next matrix, m (d·d values, row-major), checking it and
// making it exactly symmetric in place as NewSetFromData does: an error
// wrapping ErrNotFinite or ErrNotSymmetric names the matrix, and Add
// must not be called again. It returns an error wrapping ErrDimension
// for m of another size or a matrix beyond the n of NewPacker, and one
// wrapping ErrEmpty for a nil Packer. A matrix that is not positive
// definite is the error of Sets, after every matrix has been checked, as
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
	p.hashes[i] = MatrixHash(m)
	g, r := i/p.k, i%p.k
	copy(p.cur[r], m)
	if g == 0 {
		p.alias[r] = r
		for q := range r {
			if p.alias[q] == q && sameBits(p.cur[q], m) {
				p.alias[r] = q
				return nil
			}
		}
		if p.src == nil {
			p.upper[r] = make([]float64, p.groups*tri)
		}
		p.logdet[r] = make([]float64, p.groups)
	} else if q := p.alias[r]; q != r {
		if sameBits(p.cur[q], m) {
			return nil
		}
		// Position r parts from q at group g: it takes q's matrices so
		// far as its own.
		if p.src == nil {
			p.upper[r] = append(make([]float64, 0, p.groups*tri), p.upper[q][:g*tri]...)[:p.groups*tri]
		}
		p.logdet[r] = append(make([]float64, 0, p.groups), p.logdet[q][:g]...)[:p.groups]
		p.alias[r] = r
	}
	if p.src == nil {
		u := p.upper[r][g*tri : (g+1)*tri]
		for j := range d {
			u = u[copy(u, m[j*d+j:(j+1)*d]):]
		}
	}
	ld, err := logDet(i, d, m, p.buf)
	if err != nil && p.failed == nil {
		p.failed = err
	}
	p.logdet[r][g] = ld
	return nil
}

// Hashes returns the MatrixHash of every matrix added, in Add's order,
// made symmetric (nil for a nil Packer); the caller must not modify it.
func (p *Packer) Hashes() []uint64 {
	if p == nil {
		return nil
	}
	return p.hashes[:p.next]
}

// Sets returns the k packed Sets once every matrix has been added: Sets[r]
// holds matrix r of every group, with its log-determinant, and positions
// whose matrices are all the same bit for bit are one Set, that of the
// first of them. It returns an error naming the first matrix that is not
// positive definite, as NewSetFromData would, one wrapping
// ErrDimension before every matrix has been added, one wrapping
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
	stores := make([]*packedStore, p.k)
	for r := range sets {
		q := p.alias[r]
		if q == r {
			st := p.store(r)
			// Positions that parted at a later group may still match an
			// earlier one whole.
			for o := range r {
				if p.alias[o] != o {
					continue
				}
				if stores[o].same(st, p.d) {
					q = o
					break
				}
			}
			stores[r] = st
		}
		if q != r {
			p.alias[r], p.upper[r], p.logdet[r] = q, nil, nil
			sets[r] = sets[q]
			continue
		}
		sets[r] = &Set{d: p.d, n: p.groups, logdet: p.logdet[r], packed: stores[r]}
	}
	return sets, nil
}

// store returns the storage of position r's Set.
func (p *Packer) store(r int) *packedStore {
	st := &packedStore{upper: p.upper[r], r: p.r, hashes: make([]uint64, p.groups)}
	for g := range st.hashes {
		st.hashes[g] = p.hashes[g*p.k+r]
	}
	if p.src != nil {
		st.src, st.idx = p.src, make([]int, p.groups)
		for g := range st.idx {
			st.idx[g] = g*p.k + r
		}
	}
	return st
}
