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
// Every function that accepts a matrix from a caller validates it and returns
// an error wrapping one of the sentinel errors below (ErrNotSPD and friends),
// never panics on bad input.
package spd
