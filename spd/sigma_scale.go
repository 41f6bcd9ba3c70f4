package spd

// MaxUsefulSigma is the largest parameter σ of a kernel
// k(X, Y) = exp(−σ q(X, Y)) that is not degenerate on the data covpipe
// meets: above it, exp(−σ q) is below 10⁻⁴ for every pair with q > 10⁻⁵
// and is 0 (exp underflows, KernelUnderflow) for every pair with
// q > 7.5·10⁻⁴, smaller than the divergences between distinct
// descriptors of any of its datasets. The kernels' value rules
// (CheckSigma; for the Stein kernel, Theorem 1, which allows every
// σ > (d−1)/2) admit such σ; callers warn of them: the off-diagonal
// kernel values vanish, the Gram matrix is the identity and every sparse
// code is all zero.
const MaxUsefulSigma = 1e6

// KernelUnderflow is the x from which exp(−x) is 0 in float64 (exp(−x)
// is the smallest positive float64, 5·10⁻³²⁴, just below it): a kernel
// value exp(−σ q) is 0 for every q ≥ KernelUnderflow/σ.
const KernelUnderflow = 745.1332191019412
