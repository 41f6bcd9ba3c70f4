// Package covariance computes region covariance descriptors: the SPD
// matrices that the paper (Harandi, Sanderson, Hartley and Lovell, "Sparse
// Coding and Dictionary Learning for Symmetric Positive Definite Matrices:
// A Kernel Approach", ECCV 2012) codes with the Stein kernel.
//
// For d feature planes of a w×h image (feature k of pixel (x, y) at
// planes[k][y·w+x], as produced by package features) and a pixel rectangle
// R of n pixels with feature vectors z, the descriptor is the unbiased
// covariance (Tuzel, Porikli and Meer, "Region covariance: a fast
// descriptor for detection and classification", ECCV 2006; PAMI 2008)
//
//	C_R = 1/(n−1) Σ_{z∈R} (z − μ_R)(z − μ_R)ᵀ,
//
// regularised (by default C + 1e-4·(tr C/d)·I, see Regularization) and
// checked positive definite by Cholesky factorisation. Two shrinkage
// estimators, Ledoit–Wolf and OAS (see Estimator), replace C by
// (1 − ρ) C + ρ (tr C/d) I with a ρ estimated from the region, which is
// positive definite without a ridge where C is singular (fewer pixels
// than features, collinear features); a Normalization (trace,
// determinant, correlation) scales the descriptor last. Options gives
// the order: estimator, ridge, normalisation.
//
// Regions are Region rectangles; Layout places them as the paper's
// protocols do: the whole image (faces, pedestrians), a regular grid (64
// regions of 32×32 of texture mosaics, Sec. 5.1.3) or random square blocks
// (50 blocks of 32×32 per Brodatz texture, Sec. 5.2.2).
//
// Two summation methods give the same descriptors (to about 1e-13 relative;
// see Method): a direct two-pass method over each region's pixels, and the
// integral images of Tuzel et al., built after subtracting each
// feature's image mean so that large feature offsets do not cancel (with
// d + 1 more images, of ‖z‖² z and ‖z‖⁴, for the fourth moments that
// Ledoit–Wolf needs). The
// direct method's cost is proportional to the regions' total area, the
// integral images' to the image area; Auto picks the cheaper.
//
// An Extractor holds reusable buffers, so computing the descriptors of an
// image allocates nothing in steady state; give each worker goroutine its
// own. Descriptors are written as consecutive row-major d×d blocks, the
// layout of a NumPy array of shape (n, d, d) and of spd.NewSetFromData.
//
// Errors name what is wrong: a *RegionError gives the region (the caller
// adds the image), wrapping ErrRegion, ErrNotFinite or ErrNotSPD;
// ErrShape reports inconsistent sizes.
package covariance
