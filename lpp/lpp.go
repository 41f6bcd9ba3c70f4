// Package lpp holds kernel locality preserving projections (LPP; He and
// Niyogi, "Locality preserving projections", NIPS 2003), in the kernelised
// form that Harandi et al. apply to Riemannian data with a kernel on the
// manifold ("Kernel analysis on Grassmann manifolds for action recognition",
// WACV 2012: Riemannian LPP).
//
// Given a training Gram matrix K (n×n), LPP builds an affinity graph W over
// the training items (heat-kernel weights on k nearest neighbours), its
// degree matrix D (D_ii = Σ_j W_ij) and Laplacian L = D − W, and looks for
// projection directions v = Σ_i a_i φ(x_i) in the kernel's feature space
// whose training embedding y = K a varies least along the graph:
//
//	min_a  yᵀ L y / yᵀ D y,   y = K a,
//
// that is, the p smallest eigenvalues of K L K a = λ K D K a. A sample x
// with kernel row k_x = (k(x, x_1), ..., k(x, x_n)) projects to y = Aᵀ k_x.
//
// Fit learns a Projection from the training Gram matrix, which Transforms
// kernel rows into projections (TransformTo into a caller's matrix). Fit
// takes a context and returns an error wrapping ctx.Err() once it is
// cancelled, looking at it between its stages (the graph, the two
// eigendecompositions, the coefficients).
package lpp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Defaults of Options' zero values.
const (
	// DefaultNeighbours is the graph's k when Options.Neighbours is 0.
	DefaultNeighbours = 5
	// DefaultRidge is the relative ridge when Options.Ridge is 0.
	DefaultRidge = 1e-6
	// DefaultRankTol is the relative rank tolerance when Options.RankTol
	// is 0.
	DefaultRankTol = 1e-10
)

// Options configure Fit. The zero value of every field but Dims selects
// its documented default.
type Options struct {
	// Dims is the number p >= 1 of projection directions (required).
	Dims int
	// Supervised connects each training item only to neighbours of its own
	// label, the graph that LPP uses for recognition (He and Niyogi,
	// Section 4; Harandi et al. 2012). Otherwise neighbours are taken
	// among all training items and labels are not read.
	Supervised bool
	// Neighbours is k: item i is joined to j when j is among i's k nearest
	// candidates or i among j's (ties by index). 0 means
	// DefaultNeighbours; a k at least the number of candidates joins all.
	Neighbours int
	// HeatT is t of the heat-kernel weights W_ij = exp(−‖φ(x_i) −
	// φ(x_j)‖²/t), with the feature-space distance ‖φ(x_i) − φ(x_j)‖² =
	// K_ii + K_jj − 2K_ij. 0 means the mean squared distance over the
	// graph's edges; +Inf gives He and Niyogi's "simple-minded" 0/1
	// weights.
	HeatT float64
	// Center subtracts the training mean in feature space (K → HKH with
	// H = I − 11ᵀ/n, and likewise for projected samples). A full-rank
	// kernel otherwise admits the trivial constant embedding y = 1 at
	// λ = 0, which wastes a direction.
	Center bool
	// Ridge ε >= 0 regularises the right-hand side: the problem solved is
	//
	//	K L K a = λ (K D K + ρ K) a,   ρ = ε·tr(K D K)/r,
	//
	// on the range of K (rank r): a ridge on the feature-space norm
	// ‖v‖² = aᵀ K a of the direction, scaled by the mean eigenvalue of
	// the right-hand side in the whitened coordinates. Unlike a ridge
	// εI on a, it admits no spurious solutions K a = 0 at λ = 0. It makes
	// the right-hand side definite when the graph has isolated items
	// (supervised classes of one item). 0 means DefaultRidge; use a tiny
	// positive value for (almost) none.
	Ridge float64
	// RankTol drops eigenvalues μ of K at most RankTol·μ_max (and all
	// negative ones, for an indefinite pseudo-kernel): directions the
	// training data do not span. 0 means DefaultRankTol.
	RankTol float64
}

// Projection is a fitted kernel LPP: n coefficients for each of p
// directions, and a constant offset when centred.
type Projection struct {
	a      *mat.Dense // n×p, centring folded in
	offset []float64  // p, added to every projection
	values []float64  // λ, ascending
	rank   int
	heat   float64
	rho    float64
}

// Fit solves kernel LPP on the training Gram matrix k with the given
// training labels (read only when o.Supervised): the p = o.Dims smallest
// eigenvalues of K L K a = λ (K D K + ρ K) a (see Options.Ridge), solved
// in the whitened coordinates Z = U_r Λ_r^{1/2} of K's eigendecomposition
// (K = Z Zᵀ on its range) as the symmetric problem
//
//	C⁻¹ (Zᵀ L Z) C⁻ᵀ u = λ u,   C Cᵀ = Zᵀ D Z + ρ I,   a = U_r Λ_r^{-1/2} C⁻ᵀ u.
//
// The coefficients are normalised to aᵀ (K D K + ρ K) a = 1, and in each
// column the first entry within a relative 1e−9 of the largest magnitude
// is made positive. Fit returns an error
// when K is not square and finite, labels do not match it, p is outside
// [1, r], an option is out of range, the graph has no edges, or a
// factorisation fails; and an error wrapping ctx.Err() and no projection
// once ctx is cancelled.
func Fit(ctx context.Context, k mat.Symmetric, labels []int, o Options) (*Projection, error) {
	n := k.SymmetricDim()
	if n < 2 {
		return nil, fmt.Errorf("lpp: %d training items, want at least 2", n)
	}
	if o.Supervised && len(labels) != n {
		return nil, fmt.Errorf("lpp: %d labels for a %d×%d Gram matrix", len(labels), n, n)
	}
	if o.Dims < 1 || o.Dims > n {
		return nil, fmt.Errorf("lpp: %d dimensions, want in [1, %d] (the number of training items)", o.Dims, n)
	}
	if o.Neighbours < 0 {
		return nil, fmt.Errorf("lpp: %d neighbours, want >= 1 (0 for the default %d)", o.Neighbours, DefaultNeighbours)
	}
	if math.IsNaN(o.HeatT) || o.HeatT < 0 || math.IsInf(o.HeatT, -1) {
		return nil, fmt.Errorf("lpp: heat t = %v, want > 0 (0 for the mean squared distance)", o.HeatT)
	}
	if !(o.Ridge >= 0) || math.IsInf(o.Ridge, 1) {
		return nil, fmt.Errorf("lpp: ridge = %v, want finite and >= 0", o.Ridge)
	}
	if !(o.RankTol >= 0) || o.RankTol >= 1 {
		return nil, fmt.Errorf("lpp: rank tolerance = %v, want in [0, 1)", o.RankTol)
	}
	kk := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := k.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("lpp: Gram matrix entry (%d, %d) = %v", i, j, v)
			}
			kk.SetSym(i, j, v)
		}
	}

	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lpp: %w", err)
	}
	w, heat := graph(kk, labels, o)
	deg := make([]float64, n)
	for i := range n {
		deg[i] = rowSum(w.RawSymmetric(), i, n)
	}

	// Centre, whiten: K_c = H K H = Z Zᵀ with Z = U_r Λ_r^{1/2}.
	kc := kk
	if o.Center {
		kc = center(kk)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lpp: %w", err)
	}
	mu, u, ok := symEigen(kc)
	if !ok {
		return nil, errors.New("lpp: eigendecomposition of the Gram matrix failed")
	}
	tol := cmp.Or(o.RankTol, DefaultRankTol) * mu[n-1]
	if !(mu[n-1] > 0) {
		return nil, errors.New("lpp: the Gram matrix has no positive eigenvalue")
	}
	keep := []int{}
	for i := n - 1; i >= 0; i-- {
		if mu[i] > tol {
			keep = append(keep, i)
		}
	}
	r := len(keep)
	if o.Dims > r {
		return nil, fmt.Errorf("lpp: %d dimensions, but the Gram matrix has numerical rank %d (eigenvalues > %.3g)", o.Dims, r, tol)
	}
	z := mat.NewDense(n, r, nil)    // Z = U_r Λ_r^{1/2}
	uinv := mat.NewDense(n, r, nil) // U_r Λ_r^{-1/2}
	for c, i := range keep {
		s := math.Sqrt(mu[i])
		for row := range n {
			z.Set(row, c, u.At(row, i)*s)
			uinv.Set(row, c, u.At(row, i)/s)
		}
	}

	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lpp: %w", err)
	}
	// P = Zᵀ L Z = Zᵀ D Z − Zᵀ W Z and Q = Zᵀ D Z + ρ I.
	dz := mat.NewDense(n, r, nil)
	for i := range n {
		for c := range r {
			dz.Set(i, c, deg[i]*z.At(i, c))
		}
	}
	var wz, q, p mat.Dense
	wz.Mul(w, z)
	q.Mul(z.T(), dz)
	p.Mul(z.T(), &wz)
	p.Sub(&q, &p)
	tr := mat.Trace(&q)
	if !(tr > 0) {
		return nil, errors.New("lpp: the affinity graph has no edges (supervised, every class has one training item?)")
	}
	rho := cmp.Or(o.Ridge, DefaultRidge) * tr / float64(r)
	for c := range r {
		q.Set(c, c, q.At(c, c)+rho)
	}

	// Cholesky Q = C Cᵀ; M = C⁻¹ P C⁻ᵀ.
	qs := blas64.Symmetric{Uplo: blas.Lower, N: r, Stride: r, Data: q.RawMatrix().Data}
	if _, ok := lapack64.Potrf(qs); !ok {
		return nil, errors.New("lpp: the right-hand side Zᵀ D Z + ρI is not positive definite (raise the ridge)")
	}
	ct := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: r, Stride: r, Data: qs.Data}
	pr := p.RawMatrix()
	blas64.Trsm(blas.Left, blas.NoTrans, 1, ct, pr)
	blas64.Trsm(blas.Right, blas.Trans, 1, ct, pr)
	m := mat.NewSymDense(r, nil)
	for i := range r {
		for j := i; j < r; j++ {
			m.SetSym(i, j, 0.5*(p.At(i, j)+p.At(j, i)))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lpp: %w", err)
	}
	mvals, v, ok := symEigen(m)
	if !ok {
		return nil, errors.New("lpp: symmetric eigendecomposition failed")
	}
	lambda := mvals[:o.Dims]
	b := mat.DenseCopyOf(v.Slice(0, r, 0, o.Dims))
	blas64.Trsm(blas.Left, blas.Trans, 1, ct, b.RawMatrix())
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lpp: %w", err)
	}
	a := mat.NewDense(n, o.Dims, nil)
	a.Mul(uinv, b)

	// Centred, y = a_cᵀ H k_x − a_cᵀ H K 1/n: fold H into a. In exact
	// arithmetic H a_c = a_c (the range of HKH is orthogonal to 1), but
	// the eigenvectors of small μ carry rounding along 1 that Λ^{-1/2}
	// amplifies; projecting it off keeps it from adding a multiple of
	// 1ᵀ k_x to every projection.
	offset := make([]float64, o.Dims)
	if o.Center {
		for c := range o.Dims {
			var mean float64
			for i := range n {
				mean += a.At(i, c)
			}
			mean /= float64(n)
			for i := range n {
				a.Set(i, c, a.At(i, c)-mean)
			}
		}
		kmean := make([]float64, n)
		for i := range n {
			kmean[i] = rowSum(kk.RawSymmetric(), i, n) / float64(n)
		}
		for c := range o.Dims {
			for i := range n {
				offset[c] -= a.At(i, c) * kmean[i]
			}
		}
	}
	// The sign: of the first entry within rounding of the largest
	// magnitude, so that entries equal in exact arithmetic (an
	// antisymmetric direction) do not leave it to rounding.
	for c := range o.Dims {
		var big float64
		for i := range n {
			big = max(big, math.Abs(a.At(i, c)))
		}
		s := 1.0
		for i := range n {
			if x := a.At(i, c); math.Abs(x) >= big*(1-1e-9) {
				s = math.Copysign(1, x)
				break
			}
		}
		if s < 0 {
			for i := range n {
				a.Set(i, c, -a.At(i, c))
			}
			offset[c] = -offset[c]
		}
	}
	return &Projection{a: a, offset: offset, values: slices.Clone(lambda), rank: r, heat: heat, rho: rho}, nil
}

// symEigen returns the eigenvalues of s, ascending, and unit
// eigenvectors in the columns of u, as mat.EigenSym does, by
// dense.SymEigenSorted on s scaled by a power of two to entries below 1
// (exact): LAPACK's dsyev with the QL rotations on contiguous rows, 6–7
// times gonum's Dsyev at a few hundred training items. It reports false
// for a non-finite entry or when the iteration does not converge.
func symEigen(s *mat.SymDense) (vals []float64, u *mat.Dense, ok bool) {
	n := s.SymmetricDim()
	raw := s.RawSymmetric() // mat.SymDense keeps the upper triangle
	a := make([]float64, n*n)
	var big float64
	for i := range n {
		row := a[i*n+i : i*n+n]
		copy(row, raw.Data[i*raw.Stride+i:i*raw.Stride+n])
		for _, v := range row {
			big = max(big, math.Abs(v))
		}
	}
	if math.IsNaN(big) || math.IsInf(big, 0) {
		return nil, nil, false
	}
	_, sc := math.Frexp(big)
	if big > 0 {
		for i := range n {
			row := a[i*n+i : i*n+n]
			for j, v := range row {
				row[j] = math.Ldexp(v, -sc)
			}
		}
	}
	vals, ud := make([]float64, n), make([]float64, n*n)
	if !dense.SymEigenSorted(a, n, vals, ud, make([]float64, n*n), make([]float64, dense.SymEigenSortedWork(n))) {
		return nil, nil, false
	}
	for i, v := range vals {
		vals[i] = math.Ldexp(v, sc)
	}
	return vals, mat.NewDense(n, n, ud), true
}

// rowSum returns the sum of row i of the n×n symmetric matrix s.
func rowSum(s blas64.Symmetric, i, n int) float64 {
	var sum float64
	for j := range n {
		if j < i {
			sum += s.Data[j*s.Stride+i]
		} else {
			sum += s.Data[i*s.Stride+j]
		}
	}
	return sum
}

// center returns H K H, H = I − 11ᵀ/n.
func center(k *mat.SymDense) *mat.SymDense {
	n := k.SymmetricDim()
	mean := make([]float64, n)
	var all float64
	for i := range n {
		mean[i] = rowSum(k.RawSymmetric(), i, n) / float64(n)
		all += mean[i]
	}
	all /= float64(n)
	c := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			c.SetSym(i, j, k.At(i, j)-mean[i]-mean[j]+all)
		}
	}
	return c
}

// graph returns the symmetric heat-kernel affinity matrix W over the
// training items (zero diagonal) and the t it used.
func graph(k *mat.SymDense, labels []int, o Options) (*mat.SymDense, float64) {
	n := k.SymmetricDim()
	kn := cmp.Or(o.Neighbours, DefaultNeighbours)
	d2 := func(i, j int) float64 { return max(0, k.At(i, i)+k.At(j, j)-2*k.At(i, j)) }
	edge := make([]bool, n*n)
	cand := make([]int, 0, n)
	for i := range n {
		cand = cand[:0]
		for j := range n {
			if j != i && (!o.Supervised || labels[j] == labels[i]) {
				cand = append(cand, j)
			}
		}
		slices.SortFunc(cand, func(a, b int) int { return cmp.Or(cmp.Compare(d2(i, a), d2(i, b)), a-b) })
		for _, j := range cand[:min(kn, len(cand))] {
			edge[i*n+j], edge[j*n+i] = true, true
		}
	}
	t := o.HeatT
	if t == 0 {
		var sum float64
		var m int
		for i := range n {
			for j := i + 1; j < n; j++ {
				if edge[i*n+j] {
					sum += d2(i, j)
					m++
				}
			}
		}
		t = 1
		if m > 0 && sum > 0 {
			t = sum / float64(m)
		}
	}
	w := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i + 1; j < n; j++ {
			if edge[i*n+j] {
				w.SetSym(i, j, math.Exp(-d2(i, j)/t))
			}
		}
	}
	return w, t
}

// Dims returns the number p of projection directions.
func (p *Projection) Dims() int { return len(p.values) }

// Values returns the generalised eigenvalues λ_1 <= ... <= λ_p of the
// directions, in [0, 1): the ratio yᵀ L y / (yᵀ D y + ρ aᵀ K a).
func (p *Projection) Values() []float64 { return slices.Clone(p.values) }

// Rank returns the numerical rank r of the (centred) Gram matrix.
func (p *Projection) Rank() int { return p.rank }

// Heat returns the heat-kernel t the graph was built with.
func (p *Projection) Heat() float64 { return p.heat }

// Rho returns the absolute ridge ρ of the right-hand side K D K + ρ K.
func (p *Projection) Rho() float64 { return p.rho }

// Coefficients returns A (n×p), so that y = Aᵀ k_x + Offset(). Without
// centring the offset is zero and A solves K L K A = (K D K + ρ K) A Λ.
// With centring, A = H A_c for the solution A_c of the centred problem.
func (p *Projection) Coefficients() *mat.Dense { return mat.DenseCopyOf(p.a) }

// Offset returns the constant added to every projection: −A_cᵀ H K 1/n
// when centred, zero otherwise.
func (p *Projection) Offset() []float64 { return slices.Clone(p.offset) }

// Transform returns the m×p projections Y = K_x A + 1 offsetᵀ of the m
// samples whose kernel rows against the n training items are the rows of
// kx (m×n). It returns an error when kx has the wrong number of columns.
func (p *Projection) Transform(kx mat.Matrix) (*mat.Dense, error) {
	m, c := kx.Dims()
	if n, _ := p.a.Dims(); c != n {
		return nil, fmt.Errorf("lpp: kernel rows of length %d, want %d (the training items)", c, n)
	}
	if m == 0 {
		return &mat.Dense{}, nil
	}
	y := mat.NewDense(m, p.Dims(), nil)
	if err := p.TransformTo(y, kx); err != nil {
		return nil, err
	}
	return y, nil
}

// TransformTo writes Transform(kx) into dst, which must be m×p.
func (p *Projection) TransformTo(dst *mat.Dense, kx mat.Matrix) error {
	m, c := kx.Dims()
	n, _ := p.a.Dims()
	if c != n {
		return fmt.Errorf("lpp: kernel rows of length %d, want %d (the training items)", c, n)
	}
	if r, cc := dst.Dims(); r != m || cc != p.Dims() {
		return fmt.Errorf("lpp: destination %d×%d, want %d×%d", r, cc, m, p.Dims())
	}
	dst.Mul(kx, p.a)
	raw := dst.RawMatrix()
	for i := range m {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		for j, o := range p.offset {
			row[j] += o
		}
	}
	return nil
}
