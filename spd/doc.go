// Package spd holds the geometry of symmetric positive definite (SPD)
// matrices: validation and regularisation, log-determinants, the symmetric
// Stein divergence and the Stein kernel, the affine-invariant Riemannian
// metric (AIRM), the log-Euclidean, Thompson, Bures–Wasserstein and
// Euclidean metrics, matrix functions, exponential and logarithm maps,
// tangent-space vectors at a reference point (TangentSpace), the means of
// SPD matrices (Karcher, log-Euclidean, Stein, Wasserstein, harmonic and
// arithmetic: MeanOptions, MeanInfo), and parallel Gram matrices. Metric
// and Distance choose among the distances and the divergence by name
// ("airm", "stein", "log-euclidean", "thompson", "wasserstein", "euclid"),
// as pyRiemann's distance(A, B, metric=...) does.
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
// a plain-loop Cholesky factorisation on reused buffers (lapack64.Potrf
// above 128×128); the AIRM and Thompson metrics diagonalise the Gram
// matrix of L⁻¹M for the Cholesky factors X = LLᵀ, Y = MMᵀ (both from
// internal/dense); matrix functions use the symmetric eigendecomposition
// (lapack64.Syev).
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
// treat an eigenvalue the eigensolver returns <= 0 as round-off, replaced
// by λ_max·d·ε, the size of the solver's error; positive eigenvalues are
// kept as computed, however small, since graded and structured matrices
// have them resolved far below that bound. A result that overflows (exp, a large power)
// is an error wrapping ErrNotFinite, never an Inf, a NaN or a zero matrix.
//
// # Errors and panics
//
// Bad data never panics: every exported function and method checks its
// arguments and returns an error wrapping a sentinel, naming the argument
// or index (badinput_test.go proves each row for every exported function
// and method, and fails for one without cases):
//
//	ErrEmpty         nil or typed-nil matrix, empty (zero) matrix, nil slice element,
//	                 nil or empty slice or Set
//	ErrNotSquare     non-square mat.Matrix; mat.Symmetric whose SymmetricDim ≠ Dims
//	ErrNotFinite     NaN or ±Inf entry; a result that would overflow (Exp, Pow,
//	                 ExpMap, Geodesic, the ridges, TangentSpace.Untangent)
//	ErrNotSymmetric  a mat.Matrix (not a mat.Symmetric) or a block of NewSetFromData
//	                 asymmetric beyond DefaultSymmetryTol (ValidateTol: its tol)
//	ErrNotSPD        not SPD enough (above)
//	ErrDimension     sizes that differ (arguments, Sets, Workspace, dst, dst slice,
//	                 NewSetFromData's length); a size above 46340; the kernels'
//	                 Check(d < 1)
//	ErrSigma         SteinKernel σ not finite and > 0, or outside Theorem 1's set
//	                 without Pseudo
//	ErrParameter     any other bad parameter: a kernel σ not finite and > 0
//	                 (CheckSigma, LogEuclideanKernel), ridge eps, power p, geodesic t,
//	                 tolerances (ValidateTol's tol < 0 or NaN, and those of the
//	                 iterations), iteration cap, weights, K, Workers < 0 (KMeans,
//	                 the means), invalid Metric, nil dst, nil or zero
//	                 Workspace, Anchor or TangentSpace, nil *Metric, nil
//	                 context.Context
//	ErrNoConvergence iteration cap reached (KarcherMean, SteinMean,
//	                 WassersteinMean): the last iterate is returned with it
//
// The calls that can run long take a context.Context first: the Gram and
// divergence matrices (SteinKernel.Gram and GramSym, SteinDivergences,
// SteinDivergencesSym, SteinBlockTo, SteinSymBlock) look at it between
// rows, KMeans between elements and clusters, the means between chunks of
// matrices and iterations, and once it is cancelled they return an error
// wrapping ctx.Err() (errors.Is(err, context.Canceled)) and no result
// (SteinBlockTo's dst is then partly written).
//
// A mat.Symmetric argument is read as its upper triangle (At(i, j) for
// i <= j); its lower triangle is never read. A general mat.Matrix (Validate,
// ValidateTol, FromMatrix) stands for its symmetric part (A + Aᵀ)/2.
// Matrix arguments must be SPD enough except the argument of Exp and
// ExpTo and the tangent vector V of ExpMap (finite), VecTo's (finite), the
// vector of TangentSpace.Untangent (finite), the
// ridges' x (finite, of any sign), and Anchor.AIRM's Y, which skips the
// test to stay cheap: it is refused (ErrNotSPD) only when a generalised
// eigenvalue is not positive, so a singular Y may give a large distance.
//
// Calls that return no error: ValidSigma reports false for a bad σ or
// d < 1; ValidSigmas(d < 1) is "sigma > 0"; VecLen is 0 for d outside
// [1, 46340]; DeprecatedMetricName reports false for any name but a
// deprecated one; SteinKernel.FromDivergence is exp(−σ s) unchecked (NaN in,
// NaN out); Anchor.Reset reports false for a nil or zero Anchor or a bad x
// and leaves the anchor as it was; an invalid Metric's String is
// "Metric(n)"; a nil *Set has Len 0, Dim 0 and Data nil, a nil *Workspace
// or *TangentSpace Dim 0; GramOptions.Workers <= 0 means GOMAXPROCS, and a Workers beyond
// the work allocates no more. The ridges leave x unchanged when they fail.
//
// As in gonum's mat, an index out of range is a programming error and
// panics with a message naming it ("spd: Set index i out of range
// [0, n)"): Set.At, Set.View, Set.LogDet and Set.Subset with an index
// outside [0, Len()), also on a nil Set; and NewWorkspace panics with a
// size outside [1, 46340]. Nothing else panics.
package spd
