// Package spd holds the geometry of symmetric positive definite (SPD)
// matrices: validation and regularisation, log-determinants, the symmetric
// Stein divergence and the Stein kernel, the affine-invariant Riemannian
// metric (AIRM), the log-Euclidean and Thompson metrics, matrix functions,
// exponential and logarithm maps, Karcher means, and parallel Gram matrices.
// Metric and Distance choose among the distances and the divergence by name
// ("airm", "stein", "logeuclid", "thompson"), as pyRiemann's
// distance(A, B, metric=...) does.
//
// The notation follows Harandi, Sanderson, Hartley and Lovell, "Sparse Coding
// and Dictionary Learning for Symmetric Positive Definite Matrices: A Kernel
// Approach", ECCV 2012 (the paper), which builds on
//
//   - S. Sra, "A new metric on the manifold of kernel matrices with
//     application to matrix geometric means", NIPS 2012 / JMLR (Stein
//     divergence and kernel, Theorem 1),
//   - X. Pennec, P. Fillard, N. Ayache, "A Riemannian framework for tensor
//     computing", IJCV 2006 (AIRM, exponential and logarithm maps, Karcher
//     mean),
//   - V. Arsigny, P. Fillard, X. Pennec, N. Ayache, "Geometric means in a
//     novel vector space structure on symmetric positive-definite matrices",
//     SIAM J. Matrix Anal. Appl. 2007 (log-Euclidean metric),
//   - R. Bhatia, "Positive Definite Matrices", Princeton 2007 (geodesics).
//
// Matrices are gonum *mat.SymDense values. Functions that would otherwise
// allocate in hot loops have Workspace methods writing into caller-owned
// destinations; a Set stores many matrices contiguously with their
// log-determinants cached for Gram matrix computations. Log-determinants use
// a Cholesky factorisation by lapack64.Potrf on reused buffers; matrix
// functions use the symmetric eigendecomposition (lapack64.Syev).
//
// # SPD enough
//
// One definition of a usable SPD matrix holds throughout the package:
// Validate, LogDet, Stein, the Stein kernel, NewSet and NewSetFromData,
// the metrics, the matrix functions Log, Sqrt, InvSqrt and Pow, the
// exponential and logarithm maps accept exactly the matrices X that are
// SPD enough, and the means check their inputs with the same test:
//
//   - X is non-empty, square, every entry finite, and symmetric within
//     DefaultSymmetryTol relative to its largest entry (a non-symmetric
//     mat.Matrix is replaced by its symmetric part (X + Xᵀ)/2, which is
//     what FromMatrix returns and what is tested below);
//
//   - the Cholesky factorisation X = UᵀU succeeds, and every pivot is
//     large relative to its diagonal entry:
//
//     U_jj² >= δ·X_jj, δ = d·ε, ε = 2⁻⁵² (the float64 machine epsilon).
//
// U_jj²/X_jj is invariant to diagonal scaling X → DXD, so the test is one
// on the correlation matrix C = diag(X)^{−1/2} X diag(X)^{−1/2}: matrices
// whose entries differ by hundreds of orders of magnitude only through the
// scale of their variables (diag(1e300, 1e-300)) pass, while singular and
// numerically singular matrices fail, because U_jj² >= λ_min(X) and
// a pivot below d·ε·X_jj is within Cholesky's round-off of zero. Every X
// whose correlation matrix has smallest eigenvalue λ_min(C) >= δ passes;
// every X that passes has det X > 0 with a finite log det. Matrix
// functions then diagonalise X scaled exactly by a power of two, so that
// neither entries near math.MaxFloat64 nor subnormal ones overflow, and
// treat eigenvalues the eigensolver returns below λ_max·d·ε as round-off,
// clamped up to that floor. A result that overflows (exp, a large power)
// is an error wrapping ErrNotFinite, never an Inf, a NaN or a zero matrix.
//
// # Errors and panics
//
// Bad data never panics. Every function that accepts a matrix, a set, a
// parameter or a slice of matrices from a caller checks it and returns an
// error wrapping one of the sentinel errors (ErrEmpty, ErrNotSquare,
// ErrNotFinite, ErrNotSymmetric, ErrNotSPD, ErrDimension, ErrSigma,
// ErrParameter), naming the offending argument or index: a nil matrix,
// also a nil element of a slice, is ErrEmpty; a mat.Symmetric whose
// SymmetricDim differs from its Dims is ErrNotSquare; a matrix size whose
// square overflows is ErrDimension.
//
// As in gonum's mat, an index out of range is a programming error and
// panics with a message naming the index: Set.At, Set.View, Set.LogDet and
// Set.Subset with an index outside [0, Len()), and NewWorkspace with a
// size below 1. Nothing else panics.
package spd
