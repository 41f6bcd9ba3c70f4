// Package lda is Fisher's linear discriminant analysis with the
// Ledoit–Wolf shrinkage of the within-class covariance, as scikit-learn's
// LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto") fits it,
// and the discriminant subspace that pyRiemann's FGDA filters tangent
// vectors with (Barachant, Bonnet, Congedo and Jutten, "Riemannian
// geometry applied to BCI classification", LVA/ICA 2010, and "Multiclass
// brain–computer interface classification by Riemannian geometry", IEEE
// TBME 2012).
//
// For n rows x_i ∈ ℝᵖ of K ≥ 2 classes with n_k rows each, class means
// μ_k and priors π_k = n_k/n, Fit estimates the within-class covariance
//
//	Σ = Σ_k π_k S_k,
//
// S_k the Ledoit–Wolf shrunk covariance of class k (Ledoit and Wolf, "A
// well-conditioned estimator for large-dimensional covariance matrices",
// J. Multivariate Anal. 2004) computed as scikit-learn's _cov does: on
// the class's rows standardised feature by feature (a feature of zero
// spread is left unscaled), S = (1 − δ)·C + δ·(tr C/p)·I with C the
// empirical covariance (divisor n_k) and δ ∈ [0, 1] Ledoit and Wolf's
// estimate, then scaled back. The discriminant coefficients are the rows
//
//	c_k = Σ⁻¹ μ_k
//
// (scikit-learn's coef_ by least squares; with two classes the single
// row c_2 − c_1). Model.Basis is an orthonormal basis of the Fisher
// subspace, the span of the centred rows
//
//	c_k − Σ_j π_j c_j = Σ⁻¹(μ_k − μ̄),   μ̄ = Σ_j π_j μ_j,
//
// which is the span of the K − 1 directions w solving S_b w = λ Σ w with
// λ > 0, S_b = Σ_k π_k (μ_k − μ̄)(μ_k − μ̄)ᵀ (scikit-learn's transform,
// whose scalings_ span it too): the filter of FGDA is the orthogonal
// projection onto it. pyRiemann's FGDA projects onto the span of the
// uncentred rows c_k, W(WᵀW)⁺Wᵀ with W the transposed coef_, which adds
// the direction Σ⁻¹μ̄; for tangent vectors at their Karcher mean μ̄ = 0
// and the two agree, but where round-off leaves μ̄ of order 1e-9 pinv
// keeps that direction whole, so it is left out here.
package lda

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ErrData is wrapped by the errors of training data that cannot be
// fitted.
var ErrData = errors.New("lda: invalid training data")

// Model is a fitted linear discriminant analysis.
type Model struct {
	// Classes are the distinct training labels, ascending.
	Classes []int
	// Means holds the class means μ_k, one row per class.
	Means *mat.Dense
	// Covariance is the shrunk within-class covariance Σ.
	Covariance *mat.SymDense
	// Priors are the class frequencies π_k.
	Priors []float64
	// Shrinkage holds each class's Ledoit–Wolf δ.
	Shrinkage []float64
	// Coef holds the discriminant coefficients c_k = Σ⁻¹μ_k, one row per
	// class; with two classes the one row c_2 − c_1.
	Coef *mat.Dense
}

// Fit fits the analysis to the n rows of x (n×p) labelled labels. It
// returns an error wrapping ErrData for an empty x, a labels length other
// than n, fewer than two classes or a NaN or infinite entry, and one
// wrapping ctx.Err() once ctx is cancelled, looked at between classes.
func Fit(ctx context.Context, x mat.Matrix, labels []int) (*Model, error) {
	if x == nil {
		return nil, fmt.Errorf("%w: nil rows", ErrData)
	}
	n, p := x.Dims()
	switch {
	case n == 0 || p == 0:
		return nil, fmt.Errorf("%w: %d×%d rows", ErrData, n, p)
	case len(labels) != n:
		return nil, fmt.Errorf("%w: %d labels for %d rows", ErrData, len(labels), n)
	}
	for i := range n {
		for j := range p {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: row %d, feature %d is %v", ErrData, i, j, v)
			}
		}
	}
	classes := slices.Clone(labels)
	slices.Sort(classes)
	classes = slices.Compact(classes)
	if len(classes) < 2 {
		return nil, fmt.Errorf("%w: one class (%d); discriminant analysis needs two or more", ErrData, classes[0])
	}
	k := len(classes)
	m := &Model{Classes: classes, Means: mat.NewDense(k, p, nil), Covariance: mat.NewSymDense(p, nil), Priors: make([]float64, k), Shrinkage: make([]float64, k)}
	for c, label := range classes {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("lda: %w", err)
		}
		var rows []int
		for i, l := range labels {
			if l == label {
				rows = append(rows, i)
			}
		}
		xc := mat.NewDense(len(rows), p, nil)
		for r, i := range rows {
			for j := range p {
				xc.Set(r, j, x.At(i, j))
			}
		}
		m.Priors[c] = float64(len(rows)) / float64(n)
		m.Shrinkage[c] = m.addClass(c, xc, m.Priors[c])
	}
	coef, err := solve(m.Covariance, m.Means)
	if err != nil {
		return nil, err
	}
	if k == 2 {
		diff := mat.NewDense(1, p, nil)
		for j := range p {
			diff.Set(0, j, coef.At(1, j)-coef.At(0, j))
		}
		coef = diff
	}
	m.Coef = coef
	return m, nil
}

// addClass sets row c of the means to the mean of xc, the rows of class
// c, adds prior times their shrunk covariance to m.Covariance, and
// returns the shrinkage.
func (m *Model) addClass(c int, xc *mat.Dense, prior float64) float64 {
	nc, p := xc.Dims()
	scale := make([]float64, p)
	for j := range p {
		var mean float64
		for r := range nc {
			mean += xc.At(r, j)
		}
		mean /= float64(nc)
		m.Means.Set(c, j, mean)
		var ss float64
		for r := range nc {
			v := xc.At(r, j) - mean
			xc.Set(r, j, v)
			ss += v * v
		}
		// StandardScaler's std (divisor n), and 1 for a feature whose
		// variance is within round-off of zero (its _is_constant_feature).
		nf, eps := float64(nc), 0x1p-52
		variance := ss / nf
		scale[j] = math.Sqrt(variance)
		if bound := nf*eps*variance + (nf*mean*eps)*(nf*mean*eps); variance <= bound {
			scale[j] = 1
		}
		for r := range nc {
			xc.Set(r, j, xc.At(r, j)/scale[j])
		}
	}
	delta := shrinkage(xc)
	// C = ZᵀZ/n of the standardised rows Z, and μ = tr C/p.
	var emp mat.SymDense
	emp.SymOuterK(1/float64(nc), xc.T())
	mu := mat.Trace(&emp) / float64(p)
	for i := range p {
		for j := i; j < p; j++ {
			s := (1 - delta) * emp.At(i, j)
			if i == j {
				s += delta * mu
			}
			m.Covariance.SetSym(i, j, m.Covariance.At(i, j)+prior*scale[i]*s*scale[j])
		}
	}
	return delta
}

// shrinkage returns Ledoit and Wolf's δ for the centred rows z (n×p), as
// scikit-learn's ledoit_wolf_shrinkage computes it: with C = ZᵀZ/n and
// μ = tr C/p, β = (Σ_k ‖z_k‖⁴/n − ‖ZᵀZ‖²_F/n)/(pn) and
// δ = ‖C − μI‖²_F/p, the shrinkage min(β, δ)/δ (0 for β = 0 or one
// feature). ‖ZᵀZ‖_F = ‖ZZᵀ‖_F, so that it costs n²p, not np².
func shrinkage(z *mat.Dense) float64 {
	n, p := z.Dims()
	if p == 1 {
		return 0
	}
	var beta, trace float64
	for k := range n {
		r := mat.Dot(z.RowView(k), z.RowView(k))
		beta += r * r
		trace += r
	}
	var g mat.SymDense
	g.SymOuterK(1, z)
	var gg float64
	for i := range n {
		for j := range n {
			gg += g.At(i, j) * g.At(i, j)
		}
	}
	nf, pf := float64(n), float64(p)
	cov2 := gg / (nf * nf) // ‖C‖²_F
	tr := trace / nf       // tr C
	mu := tr / pf
	b := (beta/nf - cov2) / (pf * nf)
	d := (cov2 - 2*mu*tr + pf*mu*mu) / pf
	b = math.Min(b, d)
	if b == 0 {
		return 0
	}
	return b / d
}

// solve returns the rows c_k = Σ⁻¹μ_k, the least-squares solution of
// Σ Cᵀ = Mᵀ of least norm (scikit-learn's lstsq), through the SVD of Σ
// with singular values below σ_max·p·ε taken as zero.
func solve(cov *mat.SymDense, means *mat.Dense) (*mat.Dense, error) {
	var svd mat.SVD
	if !svd.Factorize(cov, mat.SVDThin) {
		return nil, errors.New("lda: the SVD of the within-class covariance did not converge")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	s := svd.Values(nil)
	p := len(s)
	cut := s[0] * float64(p) * 0x1p-52
	// Σ = U diag(s) Vᵀ, so that the rows Σ⁻¹μ_k are those of
	// M U diag(1/s) Vᵀ.
	var mv mat.Dense
	mv.Mul(means, &u) // M U
	k, _ := means.Dims()
	for c := range k {
		for j := range p {
			if s[j] > cut {
				mv.Set(c, j, mv.At(c, j)/s[j])
			} else {
				mv.Set(c, j, 0)
			}
		}
	}
	var coef mat.Dense
	coef.Mul(&mv, v.T())
	return &coef, nil
}

// Basis returns an orthonormal basis of the Fisher subspace, the span of
// the centred coefficient rows c_k − Σ_j π_j c_j (the package
// documentation), as the columns of a p×r matrix: r is their rank, at
// most K − 1, counting singular values above σ_max·max(K, p)·ε as numpy's
// matrix_rank does. B Bᵀ is the projection onto it, FGDA's filter.
func (m *Model) Basis() (*mat.Dense, error) {
	rows, p := m.Coef.Dims()
	centred := mat.DenseCopyOf(m.Coef)
	if rows > 1 {
		for j := range p {
			var mean float64
			for c := range rows {
				mean += m.Priors[c] * m.Coef.At(c, j)
			}
			for c := range rows {
				centred.Set(c, j, m.Coef.At(c, j)-mean)
			}
		}
	}
	var svd mat.SVD
	if !svd.Factorize(centred.T(), mat.SVDThin) {
		return nil, errors.New("lda: the SVD of the coefficients did not converge")
	}
	var u mat.Dense
	svd.UTo(&u)
	s := svd.Values(nil)
	k := len(m.Classes)
	cut := s[0] * float64(max(k, p)) * 0x1p-52
	r := 0
	for r < min(len(s), k-1) && s[r] > cut {
		r++
	}
	if r == 0 {
		return nil, fmt.Errorf("%w: the class means coincide: no discriminant direction", ErrData)
	}
	return mat.DenseCopyOf(u.Slice(0, p, 0, r)), nil
}
