package rsr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/progress"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// InitMethod selects the initial dictionary of FitDictionary (Algorithm 1,
// line 1).
type InitMethod int

const (
	// InitRandom takes N distinct training samples drawn uniformly from
	// the seed.
	InitRandom InitMethod = iota
	// InitKMeans takes the N centroids of Riemannian k-means on the
	// training set (spd.KMeans with the AIRM and Karcher-mean centroids),
	// the "clustering on the manifold" of Algorithm 1.
	InitKMeans
	// InitRandomSPD draws N random SPD matrices with the training set's
	// spectrum and random eigenvectors (RandomSPDAtoms).
	InitRandomSPD
	// InitWishart draws N Wishart matrices of mean I, whatever the
	// training set (WishartAtoms).
	InitWishart
)

// initMethods are the InitMethods, in the order of their names' list.
var initMethods = []InitMethod{InitRandom, InitKMeans, InitRandomSPD, InitWishart}

func (m InitMethod) String() string {
	switch m {
	case InitRandom:
		return "random"
	case InitKMeans:
		return "kmeans"
	case InitRandomSPD:
		return "random-spd"
	case InitWishart:
		return "wishart"
	}
	return fmt.Sprintf("InitMethod(%d)", int(m))
}

// ParseInitMethod parses "random", "kmeans", "random-spd" or "wishart".
// The error wraps ErrInput.
func ParseInitMethod(s string) (InitMethod, error) {
	for _, m := range initMethods {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown dictionary initialisation %q (want random, kmeans, random-spd or wishart)", ErrInput, s)
}

// DictionaryOptions configure FitDictionary. Atoms and Kernel.Sigma must
// be set; Lasso.Lambda or Lasso.LambdaRatio sets λ (not both; λ = 0 gives
// least-squares codes). The other fields have defaults.
type DictionaryOptions struct {
	// Atoms is the dictionary size N >= 1. It may not exceed the number of
	// training samples m.
	Atoms int
	// Kernel is the Stein kernel k(X, Y) = exp(−σ S(X, Y)) of Eqn. 5 (the
	// paper writes β for σ in Section 4). σ must be in the set of
	// Theorem 1 for the training matrices' size unless Kernel.Pseudo is
	// set (see spd.SteinKernel.Check); there is no default.
	Kernel spd.SteinKernel
	// Lasso configures the sparse coding step (Algorithm 1, line 5): the
	// weight λ of Eqn. 10 as Lasso.Lambda on the paper's scale, or as
	// Lasso.LambdaRatio relative to each sample's λ_max against the
	// current dictionary (give one, exactly as for NewLasso), and the
	// solver's tolerance, sweep cap and sign constraint.
	Lasso LassoOptions
	// Iters is the number of atom updates, Algorithm 1's nIter (default
	// 20); iterations whose History would take more than 4 GiB (about 76
	// million) are refused, wrapping ErrMemory.
	Iters int
	// Tol stops learning early, before the atom update of iteration t,
	// when the energy after sparse coding changed by at most Tol relative
	// to the previous iteration's: |J_t − J_{t−1}| <= Tol·J_{t−1}. It must
	// be in [0, 1); 0 (the default) runs all Iters updates, as Algorithm 1
	// does.
	Tol float64
	// Init selects the initial dictionary (default InitRandom).
	Init InitMethod
	// KMeansMetric is the metric of InitKMeans: spd.AIRMMetric (Karcher
	// means, the default when zero) or spd.SteinMetric (Stein means,
	// cheaper to compute).
	KMeansMetric spd.Metric
	// Seed fixes the random choices of the initialisation. The same seed
	// gives the same dictionary whatever Workers is.
	Seed uint64
	// Workers bounds the goroutines of every parallel stage (kernels,
	// sparse codes, atom updates, k-means); <= 0 means GOMAXPROCS. The
	// dictionary's Lasso options take it as their Workers unless
	// Lasso.Workers is set, so that Dictionary.Transform codes on as many.
	Workers int
	// Update selects the atom update: FixedPoint (default, the paper's)
	// or RiemannianGradient, which never normalises (KeepScale does not
	// apply) and never raises J.
	Update AtomUpdate
	// KeepScale skips the normalisation of Algorithm 1's last step
	// (D_r ← D_r/‖D_r‖₂), leaving each updated atom where the update puts
	// it, at a stationary point of J. The normalisation removes no
	// degeneracy (φ(D) has unit norm in the RKHS whatever the scale of D,
	// as k(D, D) = 1), and the Stein kernel is not invariant to scaling
	// one argument, so atoms of unit spectral norm fit training matrices
	// of another scale badly and the normalisation can raise J.
	KeepScale bool
	// Progress, if not nil, receives one unit per atom update.
	Progress progress.Reporter
}

// defaultLearnIters is Algorithm 1's nIter when DictionaryOptions.Iters is 0.
const defaultLearnIters = 20

// iterationBytes is a LearnIteration, an entry of Dictionary.History.
const iterationBytes = 56

func (o DictionaryOptions) withDefaults() DictionaryOptions {
	if o.Iters == 0 {
		o.Iters = defaultLearnIters
	}
	if o.Lasso.Workers == 0 {
		o.Lasso.Workers = o.Workers
	}
	o.Lasso = o.Lasso.withDefaults()
	return o
}

func (o DictionaryOptions) validate(m, d int) error {
	switch {
	case o.Atoms < 1:
		return fmt.Errorf("%w: dictionary size N = %d must be >= 1", ErrInput, o.Atoms)
	case o.Atoms > m:
		return fmt.Errorf("%w: dictionary size N = %d exceeds the %d training samples", ErrInput, o.Atoms, m)
	case o.Iters < 0:
		return fmt.Errorf("%w: iterations = %d must be >= 0", ErrInput, o.Iters)
	case !(o.Tol >= 0 && o.Tol < 1):
		return fmt.Errorf("%w: learning tolerance = %v must be in [0, 1)", ErrInput, o.Tol)
	case !slices.Contains(initMethods, o.Init):
		return fmt.Errorf("%w: unknown initialisation %v", ErrInput, o.Init)
	case !slices.Contains(atomUpdates, o.Update):
		return fmt.Errorf("%w: unknown atom update %v", ErrInput, o.Update)
	}
	if err := checkSize("Iters", fmt.Sprintf("%d iterations keep an entry each in Dictionary.History", o.Iters), float64(o.Iters)*iterationBytes); err != nil {
		return err
	}
	if err := o.Kernel.Check(d); err != nil {
		return fmt.Errorf("%w: %w", ErrInput, err)
	}
	return o.Lasso.validate()
}

// LearnIteration reports one iteration t of FitDictionary: the sparse
// coding step against D^(t) and the atom update to D^(t+1).
type LearnIteration struct {
	// J is the energy of Eqn. 10 after the sparse coding step,
	// J(D^(t), V^(t)) = Σ_j k(X_j,X_j) − 2v_jᵀ𝒦(X_j,𝔻) + v_jᵀ𝕂v_j +
	// λ_j‖v_j‖₁, with k(X,X) = 1 and λ_j the weight each code was solved
	// for (with LambdaRatio it follows the dictionary).
	J float64
	// JUpdated is the energy after the atom update and normalisation,
	// with the codes and λ_j held: J(D^(t+1), V^(t)). The next sparse
	// coding step cannot increase it when λ is absolute.
	JUpdated float64
	// NonZeros counts the non-zero coefficients of V^(t).
	NonZeros int
	// Unconverged counts the codes that reached the Lasso's sweep cap;
	// their last iterate is used.
	Unconverged int
	// Unused counts the atoms no code used (v_jr = 0 for every j): the
	// update has no data and keeps them.
	Unused int
	// KeptSign counts the atoms kept because the update's scalar γ_r (see
	// FitDictionary) was not positive: the update would be an ascent step, or
	// undefined.
	KeptSign int
	// KeptNotSPD counts the atoms kept because F_r − 2G_r was not positive
	// definite, or the new atom failed a Cholesky factorisation.
	KeptNotSPD int
}

// Kept returns the number of atoms the guards kept, KeptSign + KeptNotSPD.
func (it LearnIteration) Kept() int { return it.KeptSign + it.KeptNotSPD }

// Dictionary is a dictionary learnt by FitDictionary, with the codes of
// the training samples against it; Transform codes other matrices.
type Dictionary struct {
	// Atoms holds D_1, ..., D_N.
	Atoms *spd.Set
	// Kernel and Lasso are the kernel and sparse-coding options the
	// dictionary was learnt with (defaults filled in); Transform uses
	// them.
	Kernel spd.SteinKernel
	Lasso  LassoOptions
	// Codes is the m×N matrix whose row j is the code v_j of training
	// sample j against Atoms.
	Codes *mat.Dense
	// J is the energy of Eqn. 10 at Atoms and Codes.
	J float64
	// Unconverged counts the rows of Codes that reached the Lasso's sweep
	// cap.
	Unconverged int
	// History has one entry per atom update: len(History) iterations ran.
	History []LearnIteration
	// Converged reports that learning stopped on DictionaryOptions.Tol.
	Converged bool
}

// FitDictionary learns a dictionary of N SPD atoms for the training matrices by
// the paper's Algorithm 1 (Section 4), which minimises over the atoms 𝔻
// and the codes V the energy of Eqn. 10,
//
//	J = Σ_j ‖φ(X_j) − Σ_i v_ji φ(D_i)‖² + λ‖v_j‖₁
//	  = Σ_j k(X_j,X_j) − 2 v_jᵀ𝒦(X_j,𝔻) + v_jᵀ𝕂(𝔻,𝔻)v_j + λ‖v_j‖₁,
//
// with the Stein kernel k(X, Y) = exp(−σ S(X, Y)) of Eqn. 5. After the
// initialisation (DictionaryOptions.Init), iteration t computes 𝒦(X_j, 𝔻^(t))
// and 𝕂(𝔻^(t), 𝔻^(t)) (spd's Gram matrices, in parallel), codes every
// sample by the kernel Lasso warm-started from its previous code, and
// replaces each atom D_r by the update below divided by its spectral norm
// (unless KeepScale). After the last update the samples are coded once
// more, so Dictionary.Codes and Dictionary.J belong to the returned atoms.
//
// # The atom update
//
// With V fixed, write k_jr = k(X_j, D_r), K_ir = k(D_i, D_r), W = VᵀV and
//
//	a_r = Σ_j v_jr k_jr,               F_r = 2 Σ_j v_jr k_jr (X_j + D_r)⁻¹   (Eqn. 14),
//	b_r = Σ_{i≠r} W_ir K_ir,           G_r = Σ_{i≠r} W_ir K_ir (D_i + D_r)⁻¹ (Eqn. 15 without i = r).
//
// As ∂S(X, D)/∂D = (X+D)⁻¹ − ½D⁻¹, ∂k(X, D)/∂D = −σ k(X, D)((X+D)⁻¹ − ½D⁻¹),
// and D_r enters both arguments of v_jᵀ𝕂v_j, the gradient of J (Eqns. 11–12,
// corrected below) is
//
//	∂J/∂D_r = −2 Σ_j v_jr ∂k_jr/∂D_r + 2 Σ_j Σ_{i≠r} v_ji v_jr ∂K_ir/∂D_r
//	        = σ (F_r − 2G_r − γ_r D_r⁻¹),   γ_r = a_r − b_r.
//
// Its root, with F_r, G_r and γ_r held at D_r^(t) as in the paper, is the
// update
//
//	D_r^(t+1) = γ_r (F_r − 2G_r)⁻¹.
//
// A fixed point of this map is a stationary point of J in D_r and
// conversely: the update is the step D_r⁻¹ ← D_r⁻¹ + (∂J/∂D_r)/(σγ_r) on
// the inverse, whose first-order change of J is −tr(∇D_r∇D_r)/(σγ_r) < 0,
// a preconditioned descent step. At optimal codes the Lasso's optimality
// conditions, (𝒦_j − 𝕂v_j)_r = (λ_j/2) sign v_jr where v_jr ≠ 0, give
// γ_r = Σ_j ((λ_j/2)|v_jr| + v_jr²), positive for every used atom.
//
// In the paper's notation the update is D_r^(t+1) = c′(2G − F)⁻¹ with
// c′ = Σ_j v_jr(v_jᵀ𝕂_r − k_jr) = −γ_r, where 𝕂_r = 𝕂(𝔻, D_r) and G skip
// i = r. The printed Eqn. 13, D_r^(t+1) = (2/c)(F + G)⁻¹ with
// c = Σ_j v_jr(v_jᵀ𝕂_r − 2k_jr), differs in four ways. (i) Eqn. 11 lacks
// the factor 2 of the quadratic term, so Eqn. 12 is not ∂J/∂D_r (finite
// differences tell them apart) and its root is (c/2)(G − F)⁻¹: G and the
// 𝕂 part of c at half weight. Iterated, that map settles where
// ∂J/∂D_r ≠ 0. (ii) Eqn. 13 prints the reciprocal 2/c of that root's
// scalar and (iii) F + G for G − F; as c < 0 at any good fit, the printed
// atom is negative definite. (iv) The paper's sums include i = r. That
// term adds nothing to the gradient (k(D_r, D_r) = 1 is constant, and
// (2D_r)⁻¹ − ½D_r⁻¹ = 0), but kept in both G and c′ it turns the update
// into the same descent step with the larger step size
// 1/(σ(γ_r − Σ_j v_jr²)) = 2/(σ Σ_j λ_j|v_jr|), which blows up as λ → 0;
// on mixtures of covariances it raises J and trips the guards on most
// atoms. So it is left out.
//
// # Guards
//
// An atom no code uses keeps its value (LearnIteration.Unused). So does
// an atom whose γ_r is not positive (KeptSign: the step on D_r⁻¹ would go
// up the gradient, possible only with codes far from optimal, such as
// unconverged ones), or whose F_r − 2G_r or new value is not positive
// definite (KeptNotSPD: the step leaves the cone). A kept atom is not
// renormalised.
//
// Sparse codes and atom updates run on Workers goroutines, with every sum
// over samples and atoms taken in index order, so the same options give
// the same dictionary whatever the worker count.
//
// Equations are numbered as in the paper, in order: the kernel Lasso is
// Eqn. 7, J Eqn. 10, F and G Eqns. 14–15.
//
// FitDictionary returns an error wrapping ErrInput for an empty training
// set, N out of range, a σ outside Theorem 1's set (wrapping spd.ErrSigma
// as well), both λ settings, or a NaN or out-of-range option; and the
// errors of the kernels, k-means and Lasso (other than ErrNoConvergence,
// which is counted). It looks at ctx between the rows of its kernel
// matrices, its samples' codes and its atoms' updates, and once ctx is
// cancelled returns an error wrapping ctx.Err() and no dictionary.
func FitDictionary(ctx context.Context, train *spd.Set, o DictionaryOptions) (*Dictionary, error) {
	l, err := newLearner(ctx, train, o)
	if err != nil {
		return nil, err
	}
	return l.run(ctx)
}

// learner holds the state of FitDictionary.
type learner struct {
	o       DictionaryOptions
	train   *spd.Set
	m, n, d int
	workers int
	gram    *spd.GramOptions

	atoms *spd.Set
	kx    *mat.Dense // m×N: k(X_j, D_i)
	kfull []float64  // N×N row-major, both triangles: k(D_i, D_r)
	codes *mat.Dense // m×N: V

	lambda   []float64 // λ_j of each sample's last code
	obj, upd []float64 // per-sample energies after coding and after the update
	nnz      []int
	conv     []bool

	lws []*LassoWorkspace
	aws []*atomWork
	// kept records each atom's guard outcome in the last update.
	kept []guard
	// fresh says that kx and kfull are already the kernels of atoms (the
	// Riemannian update's line search computed them).
	fresh bool
	// rsteps holds each atom's Riemannian step, reused across iterations.
	rsteps []riemannStep
}

func newLearner(ctx context.Context, train *spd.Set, o DictionaryOptions) (*learner, error) {
	if train == nil || train.Len() == 0 {
		return nil, fmt.Errorf("%w: empty training set", ErrInput)
	}
	o = o.withDefaults()
	m, d := train.Len(), train.Dim()
	if err := o.validate(m, d); err != nil {
		return nil, err
	}
	n := o.Atoms
	w := pool.Workers(o.Workers)
	l := &learner{
		o: o, train: train, m: m, n: n, d: d, workers: w,
		gram:   &spd.GramOptions{Workers: o.Workers},
		kfull:  make([]float64, n*n),
		codes:  mat.NewDense(m, n, nil),
		lambda: make([]float64, m),
		obj:    make([]float64, m),
		upd:    make([]float64, m),
		nnz:    make([]int, m),
		conv:   make([]bool, m),
		lws:    make([]*LassoWorkspace, w),
		aws:    make([]*atomWork, w),
		kept:   make([]guard, n),
	}
	var err error
	if l.atoms, err = l.initialAtoms(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *learner) initialAtoms(ctx context.Context) (*spd.Set, error) {
	switch l.o.Init {
	case InitKMeans:
		return kmeansAtoms(ctx, l.train, l.o)
	case InitRandomSPD:
		return RandomSPDAtoms(l.train, l.n, l.o.Seed)
	case InitWishart:
		return WishartAtoms(l.train.Dim(), l.n, l.o.Seed)
	default:
		// A partial Fisher–Yates shuffle: N distinct indices.
		rng := rand.New(rand.NewPCG(l.o.Seed, 0x44494354)) // "DICT"
		idx := make([]int, l.m)
		for i := range idx {
			idx[i] = i
		}
		for i := range l.n {
			j := i + rng.IntN(l.m-i)
			idx[i], idx[j] = idx[j], idx[i]
		}
		return l.train.Subset(idx[:l.n]), nil
	}
}

func (l *learner) run(ctx context.Context) (*Dictionary, error) {
	rep := progress.Or(l.o.Progress)
	rep.Begin("dictionary learning", l.o.Iters)
	defer rep.End()
	dict := &Dictionary{Kernel: l.o.Kernel, Lasso: l.o.Lasso}
	for t := 0; ; t++ {
		if !l.fresh {
			if err := l.kernels(ctx); err != nil {
				return nil, err
			}
		}
		l.fresh = false
		it, jUpdated, err := l.code(ctx, t > 0)
		if err != nil {
			return nil, err
		}
		if t > 0 {
			prev := &dict.History[t-1]
			prev.JUpdated = jUpdated
			if l.o.Tol > 0 && math.Abs(it.J-prev.J) <= l.o.Tol*prev.J {
				dict.Converged = true
			}
		}
		if dict.Converged || t == l.o.Iters {
			dict.J, dict.Unconverged = it.J, it.Unconverged
			break
		}
		update := l.update
		if l.o.Update == RiemannianGradient {
			update = l.riemannianUpdate
		}
		if err := update(ctx, &it); err != nil {
			return nil, err
		}
		dict.History = append(dict.History, it)
		rep.Advance(1)
	}
	dict.Atoms, dict.Codes = l.atoms, l.codes
	return dict, nil
}

// kernels computes 𝒦(X_j, 𝔻) and 𝕂(𝔻, 𝔻) (Algorithm 1, lines 3–4).
func (l *learner) kernels(ctx context.Context) error {
	kx, err := l.o.Kernel.Gram(ctx, l.train, l.atoms, l.gram)
	if err != nil {
		return fmt.Errorf("kernels of the training samples and atoms: %w", err)
	}
	K, err := l.o.Kernel.GramSym(ctx, l.atoms, l.gram)
	if err != nil {
		return fmt.Errorf("kernels of the atoms: %w", err)
	}
	l.kx = kx
	n := l.n
	for i := range n {
		for r := i; r < n; r++ {
			v := K.At(i, r)
			l.kfull[i*n+r], l.kfull[r*n+i] = v, v
		}
	}
	return nil
}

// code runs the sparse coding step (Algorithm 1, line 5) from the current
// codes and returns its statistics. When held is set it first evaluates the
// energy of the current codes against the new kernels with the λ_j they
// were solved for: J(D^(t+1), V^(t)).
func (l *learner) code(ctx context.Context, held bool) (LearnIteration, float64, error) {
	var it LearnIteration
	lasso, err := NewLasso(mat.NewDense(l.n, l.n, l.kfull), l.o.Lasso)
	if err != nil {
		return it, 0, err
	}
	err = pool.ForCtx(ctx, l.m, l.workers, func(w, j int) error {
		if l.lws[w] == nil {
			l.lws[w] = lasso.NewWorkspace()
		}
		v, kx := l.codes.RawRowView(j), l.kx.RawRowView(j)
		if held {
			l.upd[j] = energy(v, kx, l.kfull, l.lambda[j])
		}
		cert, err := lasso.SolveTo(v, kx, 1, l.lws[w])
		if err != nil && !errors.Is(err, ErrNoConvergence) {
			return fmt.Errorf("sparse code of training sample %d: %w", j, err)
		}
		l.obj[j], l.lambda[j], l.nnz[j], l.conv[j] = cert.Objective, cert.Lambda, cert.NonZeros, cert.Converged
		return nil
	})
	if err != nil {
		return it, 0, err
	}
	var jUpdated float64
	for j := range l.m {
		it.J += l.obj[j]
		jUpdated += l.upd[j]
		it.NonZeros += l.nnz[j]
		if !l.conv[j] {
			it.Unconverged++
		}
	}
	return it, jUpdated, nil
}

// energy returns k(X,X) − 2vᵀk + vᵀKv + λ‖v‖₁ with k(X,X) = 1 for the
// row-major N×N Gram matrix K, visiting the non-zeros of v only.
func energy(v, kx, K []float64, lambda float64) float64 {
	n := len(v)
	f := 1.0
	for i, x := range v {
		if x == 0 {
			continue
		}
		row := K[i*n : i*n+n]
		var q float64
		for r, y := range v {
			if y != 0 {
				q += row[r] * y
			}
		}
		f += x*(q-2*kx[i]) + lambda*math.Abs(x)
	}
	return f
}

// update replaces every atom by its update (Algorithm 1, lines 6–10) and
// counts the guards in it.
func (l *learner) update(ctx context.Context, it *LearnIteration) error {
	dd := l.d * l.d
	next := make([]float64, l.n*dd)
	err := pool.ForCtx(ctx, l.n, l.workers, func(w, r int) error {
		if l.aws[w] == nil {
			l.aws[w] = newAtomWork(l.d, l.n)
		}
		dst := next[r*dd : (r+1)*dd]
		l.kept[r] = l.updateAtom(dst, r, l.aws[w])
		if l.kept[r] != updated {
			copy(dst, l.atoms.Data()[r*dd:(r+1)*dd])
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, g := range l.kept {
		switch g {
		case unused:
			it.Unused++
		case badSign:
			it.KeptSign++
		case notSPD:
			it.KeptNotSPD++
		}
	}
	atoms, err := spd.NewSetFromData(l.d, next)
	if err != nil { // every atom passed a Cholesky factorisation
		return fmt.Errorf("updated atoms: %w", err)
	}
	l.atoms = atoms
	return nil
}
