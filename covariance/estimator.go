package covariance

import (
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/enum"
)

// Estimator selects how a region's covariance is estimated from its n
// pixels' feature vectors z_i, centred on their mean μ: x_i = z_i − μ.
// Every estimator is built on covpipe's sample covariance, normalised by
// n − 1,
//
//	C = 1/(n−1) Σ x_i x_iᵀ,
//
// and the shrinkage estimators are the convex combinations
//
//	Ĉ = (1 − ρ) C + ρ (tr C / d) I,   ρ ∈ [0, 1],
//
// towards the multiple of the identity with the trace of C. Their
// shrinkage ρ is computed from the maximum-likelihood covariance
// S = (n−1)/n · C, as scikit-learn's ledoit_wolf and oas compute it (the
// data centred on μ, sums divided by n); ρ does not change when C is
// scaled, so Ĉ is n/(n−1) times scikit-learn's estimate: the same matrix
// in covpipe's normalisation, so that ρ = 0 gives C back. Ĉ is positive
// definite whenever ρ > 0 and C ≠ 0 (its eigenvalues are at least
// ρ·tr C/d), even when C is singular: a region of fewer pixels than
// features, or features that are linear combinations of others.
type Estimator int

// estimatorNames are the names of the estimators, by Estimator.
var estimatorNames = enum.Names[Estimator]{SCM: "scm", LedoitWolf: "lwf", OAS: "oas"}

const (
	// SCM is the sample covariance matrix C, the default: the unbiased
	// estimate of Tuzel et al. that the paper codes.
	SCM Estimator = iota
	// LedoitWolf is the shrinkage estimator of Ledoit and Wolf ("A
	// well-conditioned estimator for large-dimensional covariance
	// matrices", J. Multivariate Analysis 88, 2004: their S* with
	// b_n² = min(b̄_n², d_n²)), whose ρ estimates the shrinkage that
	// minimises the expected squared Frobenius error:
	//
	//	ρ = clip( b̄² / d², 0, 1 ),
	//	b̄² = 1/n² Σ_i ‖x_i x_iᵀ − S‖²_F = (Σ_i ‖x_i‖⁴ − n ‖S‖²_F) / n²,
	//	d² = ‖S − (tr S/d) I‖²_F = ‖S‖²_F − (tr S)²/d,
	//
	// (Ledoit and Wolf's norm divides both squares by d, which cancels),
	// with ρ = 0 when d² = 0 (C is already a multiple of I). It needs
	// the fourth moments Σ_i ‖x_i‖⁴ beside C.
	LedoitWolf
	// OAS is the Oracle Approximating Shrinkage estimator of Chen,
	// Wiesel, Eldar and Hero ("Shrinkage algorithms for MMSE covariance
	// estimation", IEEE Trans. Signal Processing 58(10), 2010, Eq. 23),
	// which assumes Gaussian data and iterates the oracle shrinkage to its
	// limit:
	//
	//	ρ = min( (tr(S²) + (tr S)²) / ((n + 1)(tr(S²) − (tr S)²/d)), 1 ),
	//
	// with ρ = 1 when the denominator is not positive (C a multiple of
	// I). As in scikit-learn's oas, the factors 1 − 2/d and n + 1 − 2/d
	// of Eq. 23 are taken as 1 and n + 1. It needs only C and n.
	OAS
)

// String returns "scm", "lwf" or "oas".
func (e Estimator) String() string { return estimatorNames.String(e) }

// ParseEstimator parses an Estimator's String form.
func ParseEstimator(s string) (Estimator, error) {
	return parseName(estimatorNames, "estimator", "scm, lwf or oas", s)
}

// parseName returns the value of names named s, or an error saying which
// kind of setting what is unknown and the names it wants.
func parseName[E ~int](names enum.Names[E], what, want, s string) (E, error) {
	v, ok := names.Parse(s)
	if !ok {
		return 0, fmt.Errorf("covariance: unknown %s %q (want %s)", what, s, want)
	}
	return v, nil
}

// Normalization selects how each descriptor is scaled last, as
// pyRiemann's normalize does. Every kind is a congruence D C D by a
// positive diagonal D, so it keeps C positive definite; it removes from
// the descriptors the scale that a region's contrast or a feature's units
// give them, which the Stein divergence and the AIRM would otherwise
// count.
type Normalization int

// normalizationNames are the names of the normalisations, by
// Normalization.
var normalizationNames = enum.Names[Normalization]{NormNone: "none", NormTrace: "trace", NormDet: "det", NormCorr: "corr"}

const (
	// NormNone leaves C as it is, the default.
	NormNone Normalization = iota
	// NormTrace divides C by its trace: C / tr C, of trace 1.
	NormTrace
	// NormDet divides C by the d-th root of its determinant:
	// C / det(C)^(1/d), of determinant 1 (det from the Cholesky factor
	// L of C, log det C = 2 Σ log L_ii).
	NormDet
	// NormCorr makes C the correlation matrix D^(−1/2) C D^(−1/2),
	// D = diag C: unit diagonal, invariant to the units of each feature.
	NormCorr
)

// String returns "none", "trace", "det" or "corr".
func (n Normalization) String() string { return normalizationNames.String(n) }

// ParseNormalization parses a Normalization's String form.
func ParseNormalization(s string) (Normalization, error) {
	return parseName(normalizationNames, "normalisation", "none, trace, det or corr", s)
}

// frobTrace returns ‖c‖²_F and tr c of the d×d row-major c.
func frobTrace(c []float64, d int) (frob, tr float64) {
	for i := range d {
		tr += c[i*d+i]
	}
	for _, v := range c[:d*d] {
		frob += v * v
	}
	return frob, tr
}

// ledoitWolf returns the Ledoit–Wolf shrinkage ρ of the covariance c
// (d×d, normalised by n − 1) of n pixels whose centred feature vectors
// have fourth moments Σ ‖x_i‖⁴ = fourth; see LedoitWolf. With the scatter
// G = (n−1) C = n S, ρ = (fourth − ‖G‖²_F/n) / (‖G‖²_F − (tr G)²/d),
// clipped to [0, 1].
func ledoitWolf(c []float64, d, n int, fourth float64) float64 {
	frob, tr := frobTrace(c, d)
	g := float64(n - 1)
	frob, tr = frob*g*g, tr*g // of G
	den := frob - tr*tr/float64(d)
	if !(den > 0) {
		return 0
	}
	return min(max((fourth-frob/float64(n))/den, 0), 1) // NaN stays NaN
}

// oas returns the OAS shrinkage ρ of the covariance c (d×d) of n pixels;
// see OAS. ρ does not depend on the scale of c.
func oas(c []float64, d, n int) float64 {
	frob, tr := frobTrace(c, d)
	den := float64(n+1) * (frob - tr*tr/float64(d))
	if !(den > 0) {
		return 1
	}
	return min((frob+tr*tr)/den, 1) // both terms ≥ 0; NaN stays NaN
}

// shrink replaces the d×d c by (1 − rho) c + rho (tr c/d) I.
func shrink(c []float64, d int, rho float64) {
	mu := rho * trace(c, d) / float64(d)
	keep := 1 - rho
	for i := range c[:d*d] {
		c[i] *= keep
	}
	for i := range d {
		c[i*d+i] += mu
	}
}

// divide divides the d×d c by t.
func divide(c []float64, d int, t float64) {
	for i := range c[:d*d] {
		c[i] /= t
	}
}

// correlate replaces the d×d c by D^(−1/2) c D^(−1/2), D = diag c, with
// a unit diagonal, using inv (d) as scratch. It leaves c unchanged when a
// diagonal entry is not positive: c is then not positive definite, which
// the caller's factorisation reports.
func correlate(c []float64, d int, inv []float64) {
	for i := range d {
		v := c[i*d+i]
		if !(v > 0) {
			return
		}
		inv[i] = 1 / math.Sqrt(v)
	}
	for i := range d {
		row := c[i*d : (i+1)*d]
		for j, v := range row {
			row[j] = v * (inv[i] * inv[j]) // the same product for (j, i): exactly symmetric
		}
		row[i] = 1
	}
}
