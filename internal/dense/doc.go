// Package dense is the small dense linear algebra that covpipe's SPD
// geometry (spd), sparse coding (rsr) and tensor sparse coding (tsc)
// share: Cholesky factorisations and what is built on them, triangular
// solves, the Householder reduction to tridiagonal form and the
// tridiagonal eigensolver, on row-major []float64 matrices and reused
// buffers, at the sizes of covariance descriptors (d up to a few dozen)
// where the per-call overhead of BLAS and LAPACK routines outweighs their
// arithmetic. Above PlainMaxD the log-determinant hands over to
// lapack64.Potrf.
//
// # Cholesky
//
//   - CholLower: the left-looking factorisation A = LLᵀ of X or of
//     (X+Y)/2 with an SPD-enough pivot test (PivotTol) and the
//     log-determinant accumulated as mantissa and exponent.
//   - Chol4: four CholLower factorisations sharing X, lane-interleaved
//     (PackHalf4), bit for bit CholLower's.
//   - CholTiny: log det (X+Y)/2 for d <= TinyMaxD in closed form, through
//     the pivots of LDLᵀ.
//   - CholLogDet: log det X for any d, consistent with CholTiny and
//     CholLower, and the same SPD-enough test on Potrf's factor above
//     PlainMaxD.
//   - CholSmall: the right-looking factorisation of small normal
//     equations.
//   - CholRows, LogDetRows, ForwardSolve, Congruence, InverseFromLower:
//     the plain row-oriented factorisation and its uses.
//   - CholSolve, CholDelete, CholAppend, PivotsAbove: solves with, and
//     updates of, an upper factor R with a row stride, for active sets.
//   - RankAtMost: a rank test by pivoted Cholesky.
//   - CholUpper, InverseFromUpper, InvertSPD, SolveSPD: LAPACK's Potrf,
//     Potri and Potrs on row-major buffers.
//
// # Eigenvalues
//
// SolveLowerT and GramUpperT form the Gram matrix G = ZᵀZ of Z = L⁻¹M,
// whose eigenvalues are the generalised eigenvalues of LLᵀ and MMᵀ;
// Tridiagonalize reduces a symmetric matrix to tridiagonal form and
// TridiagEigen finds the eigenvalues of that by the root-free QL/QR
// iteration. SymEigen adds the eigenvectors (Qᵀ accumulated from the
// reduction's reflections, the implicit QL iteration's rotations applied
// to its rows), and AddOuter rebuilds a matrix function V diag(c) Vᵀ from
// them, summed into an accumulator. Tridiagonalize8 and TridiagEigen8
// do the reduction and the eigenvalues of eight matrices at once, lanes
// across matrices (AVX-512 where TridiagLanes holds), each lane bit for
// bit Tridiagonalize's and TridiagEigen's; MaxAbsUpper and ScaleUpper
// scan and scale Z between the solve and the Gram matrix, and
// WhitenedGram8 does the solve, the scaling and G of eight matrices at
// once (AVX-512 where Lanes8 holds), each lane bit for bit those of one.
//
// # Paths and bits
//
// On amd64 CPUs with AVX2 and FMA, and d >= 13, CholLower, Chol4 (the
// whole factorisation, pivots included), SolveLowerT, GramUpperT,
// Tridiagonalize, SymEigen (its reflections and rotations) and AddOuter
// run their inner loops in assembly, and PackHalf4 at every d; the purego build tag, other architectures and other CPUs take
// the plain Go loops. The two paths round differently (within a few ulps
// of each other); each is deterministic, and a function that must agree
// with another to the last bit (Chol4 with CholLower, CholLogDet with
// CholTiny) shares its arithmetic and its path.
//
// References: G. H. Golub and C. F. Van Loan, Matrix Computations, 4th
// ed., Johns Hopkins 2013; N. J. Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., SIAM 2002; B. N. Parlett, The Symmetric
// Eigenvalue Problem, SIAM 1998; LAPACK's dpotrf, dsytd2, dlarfg and
// dsterf.
package dense
