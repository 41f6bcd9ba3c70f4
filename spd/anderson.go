package spd

import (
	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// andersonDepth is the number of past updates Anderson mixing combines.
const andersonDepth = 5

// anderson is Anderson mixing (Anderson, J. ACM 1965; Walker and Ni,
// SIAM J. Numer. Anal. 2011) for a fixed-point iteration x ← G(x) on
// vectors of length n: from the last andersonDepth+1 iterates x_j and
// their residuals r_j = G(x_j) − x_j it proposes
//
//	x + r − Σ_j γ_j (Δx_j + Δr_j),  γ = argmin ‖r − Σ_j γ_j Δr_j‖₂,
//
// Δ the consecutive differences, (x, r) the last pair: on a linear
// iteration, GMRES's iterate. The means check each proposal against
// their merit and reset the history when they refuse one.
type anderson struct {
	n              int
	hx, hr         [andersonDepth + 1][]float64 // ring from start, len entries
	start, len     int
	dx, dr         [andersonDepth][]float64
	gram, rhs, gam []float64
}

func newAnderson(n int) *anderson {
	const m = andersonDepth
	buf := make([]float64, (2*(m+1)+2*m)*n)
	next := func() []float64 {
		b := buf[:n:n]
		buf = buf[n:]
		return b
	}
	a := &anderson{n: n, gram: make([]float64, m*m), rhs: make([]float64, m), gam: make([]float64, m)}
	for j := range a.hx {
		a.hx[j], a.hr[j] = next(), next()
	}
	for j := range a.dx {
		a.dx[j], a.dr[j] = next(), next()
	}
	return a
}

// reset forgets the history.
func (a *anderson) reset() { a.start, a.len = 0, 0 }

// push records the iterate x and its residual r, dropping the oldest pair
// beyond andersonDepth+1.
func (a *anderson) push(x, r []float64) {
	const ring = andersonDepth + 1
	if a.len == ring {
		a.start = (a.start + 1) % ring
		a.len--
	}
	last := (a.start + a.len) % ring
	a.len++
	copy(a.hx[last], x)
	copy(a.hr[last], r)
}

// mix writes the proposal from the history into out and reports true, or
// reports false when the history holds one pair only or the least-squares
// system is singular; gx is G(x) = x + r for the last pair, as the caller
// computed it.
func (a *anderson) mix(out, gx []float64) bool {
	const ring = andersonDepth + 1
	m := a.len - 1
	if m < 1 {
		return false
	}
	for j := range m {
		p, q := (a.start+j)%ring, (a.start+j+1)%ring
		for k := range a.dx[j] {
			a.dx[j][k] = a.hx[q][k] - a.hx[p][k]
			a.dr[j][k] = a.hr[q][k] - a.hr[p][k]
		}
	}
	last := (a.start + m) % ring
	r := a.hr[last]
	// Normal equations (ΔRᵀΔR + ridge) γ = ΔRᵀ r, by Cholesky; the ridge
	// keeps them solvable as the differences shrink and align.
	var trace float64
	for i := range m {
		for j := i; j < m; j++ {
			a.gram[i*m+j] = floats.Dot(a.dr[i], a.dr[j])
		}
		trace += a.gram[i*m+i]
		a.rhs[i] = floats.Dot(a.dr[i], r)
	}
	for i := range m {
		a.gram[i*m+i] += 1e-12 * trace
	}
	if !dense.CholSmall(a.gram[:m*m], m) {
		return false
	}
	ut := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: m, Stride: m, Data: a.gram[:m*m]}
	gam := blas64.Vector{N: m, Inc: 1, Data: a.gam[:m]}
	copy(a.gam, a.rhs[:m])
	blas64.Trsv(blas.Trans, ut, gam)
	blas64.Trsv(blas.NoTrans, ut, gam)
	copy(out, gx)
	for j := range m {
		g := a.gam[j]
		for k := range out {
			out[k] -= g * (a.dx[j][k] + a.dr[j][k])
		}
	}
	return true
}

// step records the iterate x with its residual r ← gx − x, gx = G(x)
// (r is the caller's buffer), and writes the proposal into out as mix
// does, reporting whether there was one. out may be x.
func (a *anderson) step(out, x, gx, r []float64) bool {
	for i, v := range gx {
		r[i] = v - x[i]
	}
	a.push(x, r)
	return a.mix(out, gx)
}
