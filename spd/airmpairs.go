package spd

import (
	"fmt"

	"github.com/covpipe/covpipe/internal/dense"
)

// AIRMPairs sets dst[i] = d_g(X_i, Y_i) for the anchors' X_i and the
// targets' Y_i, each bit for bit as[i].AIRMTarget(ts[i]): where
// AIRMTargets takes eight targets of one anchor at once, AIRMPairs takes
// eight pairs of any anchors and targets, so that searches that ask for
// one distance at a time (a nearest-neighbour search pruned by bounds)
// can run eight queries in lockstep. Where dense.TridiagLanes holds, the
// pairs' Gram matrices G_i (see Workspace.fastEigen) are reduced to
// tridiagonal form by dense.Tridiagonalize8 and their eigenvalues found
// by dense.TridiagEigen8, whose lanes are Tridiagonalize's and
// TridiagEigen's bit for bit; a pair whose distance leaves fastEigen's
// route, and every pair elsewhere, takes AIRMTarget. An anchor may appear
// in several pairs. as[0]'s buffers are the scratch, so that AIRMPairs
// is not safe for concurrent use with any call on as[0].
//
// It returns AIRMTarget's first error, with dst then in part unset,
// ErrDimension when the lengths of dst, as and ts differ or the pairs'
// sizes do, and an error wrapping ErrParameter for a nil or zero anchor.
func AIRMPairs(dst []float64, as []*Anchor, ts []*Target) error {
	if len(dst) != len(as) || len(as) != len(ts) {
		return fmt.Errorf("%w: %d distances for %d anchors and %d targets", ErrDimension, len(dst), len(as), len(ts))
	}
	if len(as) == 0 {
		return nil
	}
	for _, a := range as {
		if err := a.ready(); err != nil {
			return err
		}
		if a.w.d != as[0].w.d {
			return fmt.Errorf("%w: anchors of sizes %d and %d", ErrDimension, as[0].w.d, a.w.d)
		}
	}
	return as[0].pairsInLanes(dst, func(i int) (*Anchor, *Target) { return as[i], ts[i] })
}

// pairsInLanes sets dst[i] = d_g(X, Y) for the anchor X and target Y
// of pair(i), for every i of dst, eight pairs at a time in a's lanes
// (its buffers are the scratch) where dense.TridiagLanes holds, each bit
// for bit AIRMTarget's; see AIRMPairs. The pairs' anchors are ready and
// of a's size. It returns AIRMTarget's first error.
func (a *Anchor) pairsInLanes(dst []float64, pair func(i int) (*Anchor, *Target)) error {
	w := a.w
	d := w.d
	one := func(i int) error {
		x, t := pair(i)
		v, err := x.AIRMTarget(t)
		dst[i] = v
		return err
	}
	fill := func(b *airmLanes, i0, n int) {
		for p := range 8 {
			b.ok[p] = false
			if p >= n {
				continue
			}
			x, t := pair(i0 + p)
			if t == nil || len(t.m) != d*d {
				continue // AIRMTarget reports it
			}
			b.shift[p], b.ok[p] = whitenedGram(w.b, x.u, t.m, w.c, w.work[:d], d)
			if b.ok[p] {
				packLane(b.h, w.b, d, p)
			}
		}
	}
	return a.inLanes(dst, d <= dense.PlainMaxD && dense.TridiagLanes(d), fill, one)
}

// packLane copies the upper triangle of the row-major d×d matrix g into
// lane p of the eight interleaved matrices of h.
func packLane(h, g []float64, d, p int) {
	for i := range d {
		r := g[i*d+i : i*d+d]
		o := (i*d+i)*8 + p
		for j, v := range r {
			h[o+j*8] = v
		}
	}
}
