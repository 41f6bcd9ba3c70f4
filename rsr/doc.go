// Package rsr implements Riemannian sparse representation (RSR): sparse
// coding of SPD matrices in the reproducing kernel Hilbert space of the
// Stein kernel, and sparse-representation classification (SRC) with the
// codes, after Harandi, Sanderson, Hartley and Lovell, "Sparse Coding and
// Dictionary Learning for Symmetric Positive Definite Matrices: A Kernel
// Approach", ECCV 2012 (the paper).
//
// Everything here works in Gram form: given the dictionary Gram matrix
// K = 𝕂(𝔻, 𝔻), a query's kernel vector k = 𝒦(X, 𝔻) and k(X, X), the kernel
// Lasso of Eqns. 7–8 is
//
//	min_v  f(v) = k(X,X) − 2 vᵀk + vᵀK v + λ‖v‖₁,
//
// which is ‖φ(X) − Σ_i v_i φ(D_i)‖² + λ‖v‖₁ with no ½ or 1/N factors: λ
// here is the paper's λ. (SPAMS' Lasso minimises ½‖x − Dα‖² + λ'‖α‖₁, so
// λ' = λ/2; scikit-learn's Lasso divides the data term by the sample count
// as well.) Any positive semi-definite kernel works: the Stein kernel for
// RSR, a linear kernel on log-Euclidean vectors for the logE-SR baseline.
//
// The solver is cyclic coordinate descent on the Gram matrix with an active
// set and warm starts, as in glmnet (Friedman, Hastie and Tibshirani, J.
// Stat. Softw. 2010), which follows the regularisation path from cold
// starts at small λ. When atoms are nearly collinear (near-duplicate
// samples, consecutive video frames) coordinate descent crawls; then
// feature-sign steps (Lee, Battle, Raina and Ng, NIPS 2007) solve the
// active face, on a Cholesky factor of K_AA + μI that is downdated as atoms
// leave: the small ridge μ keeps every step defined when K_AA is singular
// (duplicate atoms, more atoms than feature dimensions), where it drops
// the redundant atoms. It stops on a duality-gap and KKT certificate, which
// it returns with every code. Classification follows Wright et al. (PAMI
// 2009) with the class residuals of Eqn. 9, or the paper's two similarity
// rules (sum and max of class coefficients).
//
// The package's verbs are those of every solver package: FitClassifier
// and FitStein make classifiers that Predict (PredictBatch for many
// queries), FitDictionary learns a Dictionary (the paper's Algorithm 1)
// that Transforms matrices into codes, and NewLasso makes the solver that
// Solves one query (SolveTo into a caller's buffers, SolveBatch for
// many). The worker count is the Workers field of the options.
//
// # Cancellation
//
// The calls that work on many queries or learn take a context.Context
// first: Lasso.SolveBatch, Classifier.PredictBatch, FitStein,
// SteinClassifier.Predict, Encode, Dictionary.Transform and
// FitDictionary. They look at it between queries (and rows of their
// Gram matrices, and atoms), and once it is cancelled return an error
// wrapping ctx.Err() (errors.Is(err, context.Canceled)) and no result.
// The single-query calls (Solve, SolveTo, Predict) solve one problem of
// the dictionary's size and take no context.
//
// # Errors and panics
//
// The policy is spd's: bad data never panics. Malformed input (sizes,
// NaN, a nil matrix, a nil or zero-value Lasso or Classifier, which have no
// dictionary) gives an error wrapping ErrInput; a size whose memory would
// exceed 4 GiB (random atoms, learning iterations, the Gram matrix a Lasso
// copies) one wrapping ErrInput and ErrMemory, before it is allocated; and
// matrices that are not SPD enough give spd's errors (see the spd package documentation). As in
// gonum's mat, only an index out of range is a programming error that
// panics: Classifier.Rank with a Decision from another classifier.
package rsr
