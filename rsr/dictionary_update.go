package rsr

import (
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// guard is the outcome of one atom's update.
type guard int

const (
	updated guard = iota
	unused        // no code uses the atom
	badSign       // γ_r <= 0
	notSPD        // F_r − 2G_r or the new atom is not positive definite
)

// atomWork holds one worker's buffers for atom updates: d×d row-major
// matrices of which only the upper triangles are used, as by
// dense.InvertSPD.
type atomWork struct {
	d              int
	f, g, buf, tmp []float64
	w              []float64 // row r of W = VᵀV
	vals, work     []float64 // eigenvalues and LAPACK workspace (spectral norm, Riemannian steps)
}

func newAtomWork(d, n int) *atomWork {
	ws := &atomWork{
		d: d, f: make([]float64, d*d), g: make([]float64, d*d), buf: make([]float64, d*d), tmp: make([]float64, d*d),
		w: make([]float64, n), vals: make([]float64, d),
	}
	var q [1]float64
	lapack64.Syev(lapack.EVCompute, ws.sym(ws.buf), ws.vals, q[:], -1)
	ws.work = make([]float64, int(q[0]))
	return ws
}

// eigen overwrites a (row-major d×d, upper triangle read) by the
// eigenvectors of the symmetric matrix it holds, as columns, and ws.vals
// by the eigenvalues in ascending order. It reports false when LAPACK does
// not converge.
func (ws *atomWork) eigen(a []float64) bool {
	return lapack64.Syev(lapack.EVCompute, ws.sym(a), ws.vals, ws.work, len(ws.work))
}

// conjugate writes U diag(v) Uᵀ into dst for the row-major d×d u.
func (ws *atomWork) conjugate(dst, u, v []float64) {
	d := ws.d
	for i := range d {
		for k := range d {
			ws.tmp[i*d+k] = u[i*d+k] * v[k]
		}
	}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, ws.general(ws.tmp), ws.general(u), 0, ws.general(dst))
}

// mul writes a·b into dst, row-major d×d; dst may not alias a or b.
func (ws *atomWork) mul(dst, a, b []float64) {
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, ws.general(a), ws.general(b), 0, ws.general(dst))
}

func (ws *atomWork) general(a []float64) blas64.General {
	return blas64.General{Rows: ws.d, Cols: ws.d, Stride: ws.d, Data: a}
}

func (ws *atomWork) sym(a []float64) blas64.Symmetric {
	return blas64.Symmetric{Uplo: blas.Upper, N: ws.d, Stride: ws.d, Data: a}
}

// addInverse adds c·(x + y)⁻¹ to the upper triangle of dst.
func (ws *atomWork) addInverse(dst, x, y []float64, c float64) bool {
	d := ws.d
	for i := range d {
		for j := i; j < d; j++ {
			ws.buf[i*d+j] = x[i*d+j] + y[i*d+j]
		}
	}
	if !dense.InvertSPD(ws.buf, d) {
		return false
	}
	for i := range d {
		for j := i; j < d; j++ {
			dst[i*d+j] += c * ws.buf[i*d+j]
		}
	}
	return true
}

// spectralNorm returns the largest eigenvalue of the SPD matrix whose
// upper triangle m holds (row-major d×d), computed on a copy scaled by a
// power of two to entries below 1 in magnitude, as spd's matrix functions
// do: the scaling is exact, so the eigenvalue is the unscaled matrix's bit
// for bit wherever LAPACK needs no rescaling of its own, and it keeps the
// eigensolver away from its rescaling of tiny or huge matrices (atoms of
// descriptors of magnitude 1e-130 or 1e130), where gonum's Dsterf panics.
// It reports false when the eigensolver does not converge.
func (ws *atomWork) spectralNorm(m []float64) (float64, bool) {
	d := ws.d
	var big float64
	for i := range d {
		for _, v := range m[i*d+i : i*d+d] {
			big = math.Max(big, math.Abs(v))
		}
	}
	e := 0
	if big > 0 && !math.IsInf(big, 0) {
		_, e = math.Frexp(big)
	}
	for i := range d {
		for j := i; j < d; j++ {
			ws.buf[i*d+j] = math.Ldexp(m[i*d+j], -e)
		}
	}
	if !lapack64.Syev(lapack.EVNone, ws.sym(ws.buf), ws.vals, ws.work, len(ws.work)) {
		return 0, false
	}
	return math.Ldexp(ws.vals[d-1], e), true
}

// atomTerms holds the scalars of atom r's update (see FitDictionary): a = Σ_j v_jr k_jr,
// b = Σ_{i≠r} W_ir K_ir and s = W_rr = Σ_j v_jr².
type atomTerms struct{ a, b, s float64 }

// terms computes a, b, s and F_r (in ws.f) and G_r (in ws.g) of Eqns. 14–15
// for atom r at the current atoms, codes and kernels, summing over samples
// and atoms in index order. It reports false when some X_j + D_r or
// D_i + D_r fails its factorisation.
func (l *learner) terms(r int, ws *atomWork) (atomTerms, bool) {
	var t atomTerms
	n, dd := l.n, l.d*l.d
	clear(ws.f)
	clear(ws.g)
	clear(ws.w)
	atoms, train := l.atoms.Data(), l.train.Data()
	dr := atoms[r*dd : (r+1)*dd]
	codes, kx := l.codes.RawMatrix(), l.kx.RawMatrix()
	for j := range l.m {
		vr := codes.Data[j*codes.Stride+r]
		if vr == 0 {
			continue
		}
		for i, x := range codes.Data[j*codes.Stride : j*codes.Stride+n] {
			if x != 0 {
				ws.w[i] += vr * x
			}
		}
		c := vr * kx.Data[j*kx.Stride+r]
		t.a += c
		if !ws.addInverse(ws.f, train[j*dd:(j+1)*dd], dr, 2*c) {
			return t, false
		}
	}
	krow := l.kfull[r*n : r*n+n]
	for i, w := range ws.w {
		switch {
		case w == 0:
		case i == r:
			t.s = w
		default:
			c := w * krow[i]
			t.b += c
			if !ws.addInverse(ws.g, atoms[i*dd:(i+1)*dd], dr, c) {
				return t, false
			}
		}
	}
	return t, true
}

// updateAtom writes the update γ_r (F_r − 2G_r)⁻¹ of atom r, divided by
// its spectral norm unless KeepScale, into dst (row-major, full) and
// reports updated, or the guard that keeps the old atom (dst is then
// unspecified).
func (l *learner) updateAtom(dst []float64, r int, ws *atomWork) guard {
	t, ok := l.terms(r, ws)
	switch {
	case !ok:
		return notSPD
	case t.s == 0:
		return unused
	}
	gamma := t.a - t.b
	if !(gamma > 0) || math.IsInf(gamma, 0) {
		return badSign
	}
	// D⁻¹ = (F − 2G)/γ, then D by inversion.
	d := ws.d
	m := ws.f
	for i := range d {
		for j := i; j < d; j++ {
			m[i*d+j] = (m[i*d+j] - 2*ws.g[i*d+j]) / gamma
		}
	}
	if !dense.InvertSPD(m, d) {
		return notSPD
	}
	scale := 1.0
	if !l.o.KeepScale {
		norm, ok := ws.spectralNorm(m)
		if !ok {
			return notSPD
		}
		scale = 1 / norm
	}
	for i := range d {
		for j := i; j < d; j++ {
			x := scale * m[i*d+j]
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return notSPD
			}
			dst[i*d+j], dst[j*d+i] = x, x
		}
	}
	// The atom must factorise as a member of spd.Set does.
	for i := range d {
		copy(ws.buf[i*d+i:i*d+d], dst[i*d+i:i*d+d])
	}
	if !dense.CholUpper(ws.buf, d) {
		return notSPD
	}
	return updated
}
