package covariance

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/covpipe/covpipe/internal/dense"
	"github.com/covpipe/covpipe/internal/matrixerr"
)

// ErrNotFinite and ErrNotSPD are wrapped by the errors for a non-finite
// feature or covariance and for a descriptor that is not positive
// definite after regularisation. They are the values of ErrNotFinite
// and ErrNotSPD, so errors.Is matches either name.
var (
	ErrNotFinite = matrixerr.NotFinite
	ErrNotSPD    = matrixerr.NotSPD
)

// ErrShape is wrapped by the errors for inputs of inconsistent sizes:
// planes of the wrong number or length, a destination of the wrong length.
var ErrShape = errors.New("covariance: size mismatch")

// RegionError reports a failure specific to one region: a non-finite
// feature inside it (wrapping ErrNotFinite), a descriptor that is not
// positive definite after regularisation (wrapping ErrNotSPD), or a
// region that does not fit the image (wrapping ErrRegion). Its message,
// "region 3 (32x32+96+0): ...", is meant to be wrapped by the caller with
// the image: fmt.Errorf("image %s: %w", path, err).
type RegionError struct {
	Index  int    // position of the region in the slice passed to Compute
	Region Region // the region itself
	Err    error
}

// Error returns "region <index> (<region>): <cause>".
func (e *RegionError) Error() string {
	return fmt.Sprintf("region %d (%v): %v", e.Index, e.Region, e.Err)
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *RegionError) Unwrap() error { return e.Err }

const (
	// autoAreaRatio is the ratio of the regions' total area to the image
	// area above which Auto uses integral images. Building them writes m =
	// d + d(d+1)/2 values per image pixel, bound by memory bandwidth,
	// where the direct path pays for every product and feature of every
	// region pixel: BenchmarkSliding puts the break-even between 3.5
	// (d = 5) and 7 (d = 17) times the image area (docs/benchmarks.md).
	autoAreaRatio = 5
	// autoIntegralValues bounds the size in float64s (64 MiB) of the
	// integral images that Auto builds.
	autoIntegralValues = 1 << 23
	// maxIntegralValues bounds the size in float64s (1 GiB) of the
	// integral images that Integral builds; larger images are an error
	// rather than an out-of-memory crash.
	maxIntegralValues = 1 << 27
)

// Extractor computes covariance descriptors of regions of images with d
// feature planes. It holds the scratch buffers (centred region copies,
// integral images, a Cholesky factor) reused from one image to the next, so
// that Compute allocates nothing in steady state. An Extractor is not safe
// for concurrent use: give each worker goroutine its own.
type Extractor struct {
	d    int
	reg  Regularization
	meth Method
	est  Estimator
	norm Normalization
	vals int // values per point of the integral images: d + d(d+1)/2, and d + 1 more for LedoitWolf

	cen    []float64 // centred features: of a chunk of a region (direct), d rows; of an image row (integral), w pixels of d
	gram   []float64 // direct: Σ centred products, d×d (upper triangle)
	sum    []float64 // direct: Σ centred features, d
	mean   []float64 // d means
	sq     []float64 // direct, LedoitWolf: ‖x‖² of the pixels of a chunk
	fourth []float64 // LedoitWolf: Σ ‖x‖⁴ of each region
	table  []float64 // integral images, (h+1)×(w+1)×vals
	acc    []float64 // integral: the vals four-corner sums of a region
	chol   []float64 // Cholesky factor, d×d
	diag   []float64 // NormCorr: 1/√C_ii, d
}

// MaxFeatures bounds the number of features d of an Extractor: its
// descriptors are d×d, 128 MiB each at the bound, far beyond any feature
// set (the paper's largest has 43), so that a size from a config or a
// flag cannot ask for buffers that cannot be allocated.
const MaxFeatures = 4096

// NewExtractor returns an Extractor for d ≥ 1 features. It returns an error
// for d < 1 or d > MaxFeatures, an invalid regularisation (negative or
// non-finite Eps, Eps with None, unknown kind), an unknown method,
// estimator or normalisation.
func NewExtractor(d int, opts Options) (*Extractor, error) {
	if d < 1 {
		return nil, fmt.Errorf("covariance: %d features: need at least 1", d)
	}
	if d > MaxFeatures {
		return nil, fmt.Errorf("covariance: %d features: at most %d (descriptors of %d×%d)", d, MaxFeatures, MaxFeatures, MaxFeatures)
	}
	reg, err := opts.Reg.resolved()
	if err != nil {
		return nil, err
	}
	if opts.Method < Auto || opts.Method > Integral {
		return nil, fmt.Errorf("covariance: unknown method %d", int(opts.Method))
	}
	if opts.Estimator < SCM || opts.Estimator > OAS {
		return nil, fmt.Errorf("covariance: unknown estimator %d", int(opts.Estimator))
	}
	if opts.Normalize < NormNone || opts.Normalize > NormCorr {
		return nil, fmt.Errorf("covariance: unknown normalisation %d", int(opts.Normalize))
	}
	m := d + d*(d+1)/2
	if opts.Estimator == LedoitWolf {
		m += d + 1
	}
	return &Extractor{
		d:    d,
		reg:  reg,
		meth: opts.Method,
		est:  opts.Estimator,
		norm: opts.Normalize,
		vals: m,
		gram: make([]float64, d*d),
		sum:  make([]float64, d),
		mean: make([]float64, d),
		acc:  make([]float64, m),
		chol: make([]float64, d*d),
		diag: make([]float64, d),
	}, nil
}

// Dim returns the number of features d: each descriptor is d×d.
func (e *Extractor) Dim() int { return e.d }

// Compute writes the regularised covariance descriptor of each region into
// dst, which must have length len(regions)·d·d: descriptor k is the
// row-major d×d block dst[k·d·d:(k+1)·d·d], the layout of a NumPy array of
// shape (len(regions), d, d) and of spd.NewSetFromData. planes holds the d
// features of a w×h image, feature k of pixel (x, y) at planes[k][y·w+x].
//
// Descriptor k is, by default, the unbiased estimate of Tuzel et al.
// (ECCV 2006)
//
//	C = 1/(n−1) Σ (z−μ)(z−μ)ᵀ
//
// over the n pixels of regions[k], z the feature vector of a pixel and μ its
// mean over the region, plus the ridge of the Extractor's regularisation.
// With a shrinkage Estimator, C is first replaced by its shrunk estimate;
// with a Normalization, the regularised matrix is normalised last (see
// Options for the order).
// It is exactly symmetric and has passed a Cholesky factorisation
// (lapack64.Potrf, as in package spd), so it is SPD as spd.Validate sees
// it. The descriptors are the points on the SPD manifold that the paper
// codes (Sec. 5.1.2-5.1.4, 5.2.2).
//
// Compute returns an error wrapping ErrShape when the sizes disagree, and a
// *RegionError for a region outside the image or smaller than 2 pixels
// (ErrRegion), a NaN or ±Inf feature inside a region or a covariance that
// overflows (ErrNotFinite), and a descriptor that is not positive
// definite (ErrNotSPD). With integral images every feature of the image
// must be finite, and a non-finite one is reported by pixel, not region.
// On error the contents of dst are unspecified.
func (e *Extractor) Compute(dst []float64, planes [][]float64, w, h int, regions []Region) error {
	d := e.d
	if err := checkPlanes(planes, w, h); err != nil {
		return err
	}
	if len(planes) != d {
		return fmt.Errorf("%w: %d feature planes for an extractor of %d features", ErrShape, len(planes), d)
	}
	if len(dst) != len(regions)*d*d {
		return fmt.Errorf("%w: destination of length %d for %d regions of %dx%d descriptors (want %d)", ErrShape, len(dst), len(regions), d, d, len(regions)*d*d)
	}
	if len(regions) == 0 {
		return nil
	}
	var area float64 // cannot overflow, unlike an int sum of many regions
	for k, r := range regions {
		if err := r.Validate(w, h); err != nil {
			return &RegionError{Index: k, Region: r, Err: err}
		}
		area += float64(r.Area())
	}
	lw := e.est == LedoitWolf
	if lw && len(e.fourth) < len(regions) {
		e.fourth = make([]float64, len(regions))
	}
	if e.useIntegral(w, h, area) {
		if err := e.integral(planes, w, h); err != nil {
			return err
		}
		for k, r := range regions {
			f := e.fromIntegral(dst[k*d*d:(k+1)*d*d], w, r)
			if lw {
				e.fourth[k] = f
			}
		}
	} else {
		var sq []float64
		for k, r := range regions {
			cn := r.W * chunkRows(d, r)
			e.growCen(cn)
			if lw {
				sq = e.sq[:cn]
			}
			f, ok := direct(dst[k*d*d:(k+1)*d*d], planes, w, r, e.cen, e.gram, e.sum, e.mean, sq)
			if !ok {
				return &RegionError{Index: k, Region: r, Err: nonFinite(planes, w, r)}
			}
			if lw {
				e.fourth[k] = f
			}
		}
	}
	for k, r := range regions {
		var f float64
		if lw {
			f = e.fourth[k]
		}
		if err := e.finish(dst[k*d*d:(k+1)*d*d], r.Area(), f); err != nil {
			return &RegionError{Index: k, Region: r, Err: err}
		}
	}
	return nil
}

// useIntegral reports whether Compute uses integral images for regions of
// total area area in a w×h image; see Auto.
func (e *Extractor) useIntegral(w, h int, area float64) bool {
	switch e.meth {
	case Direct:
		return false
	case Integral:
		return true
	}
	return area > autoAreaRatio*float64(w)*float64(h) && e.tableLen(w, h) <= autoIntegralValues
}

// tableLen returns the number of float64s of the integral images of a w×h
// image, saturating instead of overflowing.
func (e *Extractor) tableLen(w, h int) int {
	m := e.vals
	cells := (w + 1) * (h + 1) // w·h is known to fit; (w+1)(h+1) ≤ 4wh
	if cells > math.MaxInt/m {
		return math.MaxInt
	}
	return cells * m
}

// growCen makes e.cen hold d rows of n values, and e.sq n values for
// LedoitWolf.
func (e *Extractor) growCen(n int) {
	if len(e.cen) < e.d*n {
		e.cen = make([]float64, e.d*n)
	}
	if e.est == LedoitWolf && len(e.sq) < n {
		e.sq = make([]float64, n)
	}
}

// finish turns the sample covariance c of a region of n pixels, whose
// centred feature vectors have fourth moments Σ ‖x‖⁴ = fourth (used by
// LedoitWolf only), into its descriptor: the estimator's shrinkage, the
// ridge, the normalisation; and checks that it is finite and positive
// definite.
func (e *Extractor) finish(c []float64, n int, fourth float64) error {
	d := e.d
	if err := checkFinite(c); err != nil {
		return err
	}
	if e.est != SCM {
		rho := oas(c, d, n)
		if e.est == LedoitWolf {
			rho = ledoitWolf(c, d, n, fourth)
		}
		if math.IsNaN(rho) {
			return fmt.Errorf("%w: the %v shrinkage overflows (features too large)", ErrNotFinite, e.est)
		}
		shrink(c, d, rho)
	}
	e.reg.apply(c, d)
	tr := trace(c, d)
	switch e.norm {
	case NormTrace:
		if tr > 0 { // else c is not positive definite, which Potrf reports
			divide(c, d, tr)
		}
	case NormCorr:
		correlate(c, d, e.diag)
	}
	if !e.factor(c) {
		return e.notSPD(tr)
	}
	if e.norm == NormDet {
		ld := dense.LogDetRows(e.chol, d) / float64(d) // log det(C)^(1/d)
		root := math.Exp(ld)
		if !(root > 0) || math.IsInf(root, 0) {
			return fmt.Errorf("%w: the determinant's %d-th root, exp(%.6g), is out of range", ErrNotFinite, d, ld)
		}
		divide(c, d, root)
		if !e.factor(c) {
			return e.notSPD(tr)
		}
	}
	return nil
}

// factor writes into e.chol the Cholesky factor of c and reports whether
// c is positive definite.
func (e *Extractor) factor(c []float64) bool {
	copy(e.chol, c)
	_, ok := lapack64.Potrf(blas64.Symmetric{N: e.d, Stride: e.d, Data: e.chol, Uplo: blas.Upper})
	return ok
}

// notSPD returns the error for a descriptor that is not positive definite,
// of trace tr before normalisation.
func (e *Extractor) notSPD(tr float64) error {
	var est string
	if e.est != SCM {
		est = fmt.Sprintf(" of the %v estimate", e.est)
	}
	return fmt.Errorf("%w: Cholesky factorisation of the %dx%d covariance failed after %v regularisation%s (trace %.6g): a constant feature, a feature that is a linear combination of others, or fewer pixels than features",
		ErrNotSPD, e.d, e.d, e.reg, est, tr)
}

// checkFinite returns an error wrapping ErrNotFinite when an entry of
// the covariance c is NaN or ±Inf: the sums of products overflowed although
// the means did not.
func checkFinite(c []float64) error {
	for _, v := range c {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: the covariance overflows (features too large)", ErrNotFinite)
		}
	}
	return nil
}

// trace returns the trace of the d×d row-major c.
func trace(c []float64, d int) float64 {
	var tr float64
	for i := range d {
		tr += c[i*d+i]
	}
	return tr
}

// Of writes into dst (length d·d, d = len(planes)) the unbiased covariance
// C = 1/(n−1) Σ (z−μ)(z−μ)ᵀ of the features over the n pixels of r, by the
// direct two-pass method, without regularisation or SPD check: C may be
// singular. It allocates scratch space; an Extractor does not. It returns
// an error wrapping ErrShape or ErrRegion for bad sizes, and a *RegionError
// wrapping ErrNotFinite for a NaN or ±Inf feature in r or an
// overflowing covariance.
func Of(dst []float64, planes [][]float64, w, h int, r Region) error {
	if err := checkPlanes(planes, w, h); err != nil {
		return err
	}
	d := len(planes)
	if len(dst) != d*d {
		return fmt.Errorf("%w: destination of length %d for a %dx%d covariance", ErrShape, len(dst), d, d)
	}
	if err := r.Validate(w, h); err != nil {
		return err
	}
	if _, ok := direct(dst, planes, w, r, make([]float64, d*r.W*chunkRows(d, r)), make([]float64, d*d), make([]float64, d), make([]float64, d), nil); !ok {
		return &RegionError{Region: r, Err: nonFinite(planes, w, r)}
	}
	if err := checkFinite(dst); err != nil {
		return &RegionError{Region: r, Err: err}
	}
	return nil
}

// checkPlanes checks that there is at least one plane and that every plane
// has w·h values.
func checkPlanes(planes [][]float64, w, h int) error {
	if w < 1 || h < 1 || w > math.MaxInt/4/h {
		return fmt.Errorf("%w: image size %dx%d", ErrShape, w, h)
	}
	if len(planes) == 0 {
		return fmt.Errorf("%w: no feature planes", ErrShape)
	}
	for k, p := range planes {
		if len(p) != w*h {
			return fmt.Errorf("%w: feature plane %d has %d values, want %dx%d = %d", ErrShape, k, len(p), w, h, w*h)
		}
	}
	return nil
}

// nonFinite returns the error for the first NaN or ±Inf feature of region r
// (feature by feature, then row by row), or for a sum that overflows when
// every value is finite.
func nonFinite(planes [][]float64, w int, r Region) error {
	for k, p := range planes {
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				if v := p[y*w+x]; math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%w: feature %d at pixel (%d, %d) is %v", ErrNotFinite, k, x, y, v)
				}
			}
		}
	}
	return fmt.Errorf("%w: the sum of a feature overflows (features too large)", ErrNotFinite)
}
