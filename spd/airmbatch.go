package spd

import (
	"fmt"

	"github.com/covpipe/covpipe/internal/dense"
)

// airmLanes holds an Anchor's buffers for AIRMTargets: eight Gram
// matrices, lane-interleaved for dense.Tridiagonalize8, and their
// tridiagonal forms.
type airmLanes struct {
	h         []float64    // 8 interleaved d×d
	mz        []float64    // dense.WhitenedGram8's scratch, 8 interleaved d×d
	m         [8][]float64 // the targets' factors M, nil where not wanted
	diag, off []float64    // 8 lanes of d
	p, q      []float64    // Tridiagonalize8's scratch, 8d each
	shift     [8]int       // each lane's exponent s of whitenedGram
	ok        [8]bool      // whether the lane's Gram matrix was formed
	conv      [8]bool      // whether its eigenvalues converged
	work      []float64    // dense.TridiagEigen8's, 16d
}

// AIRMTargets sets dst[i] = d_g(X, Y_i) for the anchor X and the
// targets' Y_i, each bit for bit Anchor.AIRMTarget's. Where
// dense.Lanes8 and dense.TridiagLanes hold it takes eight targets at
// once: their Gram matrices G_i (see Workspace.fastEigen) formed by
// dense.WhitenedGram8, reduced to tridiagonal form by
// dense.Tridiagonalize8 and their eigenvalues found by
// dense.TridiagEigen8, whose lanes are whitenedGram's, Tridiagonalize's
// and TridiagEigen's bit for bit. A
// target whose distance leaves fastEigen's route, and every target
// elsewhere, takes AIRMTarget. It returns AIRMTarget's first error, with
// dst then in part unset, and ErrDimension when len(dst) != len(ts).
func (a *Anchor) AIRMTargets(dst []float64, ts []*Target) error {
	if err := a.ready(); err != nil {
		return err
	}
	if len(dst) != len(ts) {
		return fmt.Errorf("%w: %d distances for %d targets", ErrDimension, len(dst), len(ts))
	}
	d := a.w.d
	one := func(i int) error {
		v, err := a.AIRMTarget(ts[i])
		dst[i] = v
		return err
	}
	fill := func(b *airmLanes, i0, n int) {
		for p := range 8 {
			b.m[p] = nil
			if p >= n {
				continue
			}
			if t := ts[i0+p]; t != nil && len(t.m) == d*d {
				b.m[p] = t.m // else AIRMTarget reports it
			}
		}
		dense.WhitenedGram8(b.h, b.mz, a.u, &b.m, d, &b.shift, &b.ok)
		b.m = [8][]float64{} // keep no target alive
	}
	return a.inLanes(dst, dense.Lanes8(d) && dense.TridiagLanes(d), fill, one)
}

// inLanes sets dst[i] for every i of dst, eight at a time with a's
// buffers where lanes holds: fill(b, i0, n) forms the Gram matrices of
// items i0 to i0+n-1 in b's lanes (b.h, b.shift, b.ok), which are reduced
// by dense.Tridiagonalize8 and solved by dense.TridiagEigen8; an item
// whose lane failed, every item where lanes does not hold, and a group of
// one, take one(i), which sets dst[i]. It returns one's first error.
func (a *Anchor) inLanes(dst []float64, lanes bool, fill func(b *airmLanes, i0, n int), one func(i int) error) error {
	w := a.w
	d := w.d
	for i0 := 0; i0 < len(dst); i0 += 8 {
		n := min(8, len(dst)-i0)
		if !lanes || n < 2 {
			for i := i0; i < i0+n; i++ {
				if err := one(i); err != nil {
					return err
				}
			}
			continue
		}
		b := a.lanes()
		fill(b, i0, n)
		dense.Tridiagonalize8(b.h, d, b.diag, b.off, b.p, b.q)
		dense.TridiagEigen8(b.diag, b.off, d, b.work, &b.conv)
		for p := range n {
			i := i0 + p
			if b.ok[p] && b.conv[p] {
				copy(w.vals, b.diag[p*d:p*d+d])
				if w.positiveEigen(b.shift[p]) {
					dst[i] = w.sumLog2()
					continue
				}
			}
			if err := one(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// lanes returns the anchor's buffers for AIRMTargets, made when first
// needed.
func (a *Anchor) lanes() *airmLanes {
	if a.batch == nil {
		d := a.w.d
		a.batch = &airmLanes{
			h:    make([]float64, 8*d*d),
			mz:   make([]float64, 8*d*d),
			diag: make([]float64, 8*d), off: make([]float64, 8*d),
			p: make([]float64, 8*d), q: make([]float64, 8*d),
			work: make([]float64, 16*d),
		}
	}
	return a.batch
}
