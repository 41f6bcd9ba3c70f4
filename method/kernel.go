package method

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/param"
	"github.com/covpipe/covpipe/spd"
)

// kernelChoice is a kernel method's kernel and σ candidates, resolved
// from its keys `kernel` (a kernel of classify.Kernels by its metric's
// name: stein, the default, the paper's Stein kernel of Eqn. 5; or
// log-euclidean, exp(−σ ‖log X − log Y‖²_F)), `sigma` (a list gives
// candidates; none: the kernel's default for the matrix size, when it has
// one) and `pseudo_kernel` (allows a σ for which the kernel's Gram
// matrices may be indefinite).
type kernelChoice struct {
	kernel   classify.Kernel
	sigmas   []float64 // none: kernel.DefaultSigma of the items' d
	pseudo   bool
	warnings []string // on a deprecated kernel name
}

// resolveKernel checks a kernel method's keys and resolves them: the
// kernel by its name, which it sets to the canonical one (the record of
// the run), the σ list by param.Floats.CheckList and each σ by
// spd.CheckSigma; Theorem 1 against d is checkDim's. No σ is missing
// (added to missing) unless the kernel has a default. A deprecated kernel
// name gives a warning.
func resolveKernel(name *string, sigma param.Floats, pseudo bool, missing *param.Missing) (kernelChoice, error) {
	if *name == "" {
		*name = spd.SteinMetric.String()
	}
	k, err := classify.ParseKernel(*name)
	if err != nil {
		return kernelChoice{}, err
	}
	warnings := deprecated("kernel", *name)
	*name = k.String()
	if len(sigma) == 0 && k.DefaultSigma == nil {
		missing.Add("sigma")
	}
	if err := sigma.CheckList("sigma", false); err != nil {
		return kernelChoice{}, err
	}
	for _, s := range sigma {
		if err := spd.CheckSigma(s); err != nil {
			return kernelChoice{}, fmt.Errorf("sigma: %w", err)
		}
	}
	return kernelChoice{k, sigma, pseudo, warnings}, nil
}

// required is a key that a method requires beside its kernel's, and
// whether it is given.
type required struct {
	key   string
	given bool
}

// kernelKeys resolves a kernel method's keys (resolveKernel) once every
// required key is there: σ unless the kernel has a default, and the keys
// of others, all missing ones named at once (param.Missing).
func kernelKeys(name *string, sigma param.Floats, pseudo bool, others ...required) (kernelChoice, error) {
	var missing param.Missing
	k, err := resolveKernel(name, sigma, pseudo, &missing)
	if err != nil {
		return kernelChoice{}, err
	}
	for _, r := range others {
		if !r.given {
			missing.Add(r.key)
		}
	}
	return k, missing.Err()
}

// sigmasFor returns the σ candidates for d×d matrices: those given, or
// the kernel's default.
func (k kernelChoice) sigmasFor(d int) []float64 {
	if len(k.sigmas) > 0 || k.kernel.DefaultSigma == nil {
		return k.sigmas
	}
	return []float64{k.kernel.DefaultSigma(d)}
}

// deprecated returns a warning when value, the value of key, is a
// deprecated metric name (spd.DeprecatedMetricName).
func deprecated(key, value string) []string {
	if c, ok := spd.DeprecatedMetricName(value); ok {
		return []string{fmt.Sprintf("%s: %q is deprecated and will be removed; write %q", key, value, c)}
	}
	return nil
}

// checkDim checks every σ for d×d matrices (the kernel's Check: Theorem 1
// for the Stein kernel, unless pseudo).
func (k kernelChoice) checkDim(d int) error {
	for _, s := range k.sigmasFor(d) {
		if err := k.kernel.Check(s, d, k.pseudo); err != nil {
			return err
		}
	}
	return nil
}

// spec is the Spec of a kernel method with these resolved parameters and
// candidates: σ checked against Theorem 1 by checkDim, the pairwise
// quantity the kernel maps, and the warnings of the kernel's name.
func (k kernelChoice) spec(params any, candidates int) classify.Spec {
	return classify.Spec{Params: params, Candidates: candidates, CheckDim: k.checkDim, Scores: true,
		Quantities: []classify.Quantity{k.kernel.Quantity}, Warnings: k.warnings}
}

// kernelMap checks σ for d's matrices and returns the map to kernel
// values with parameter σ, exp(−σ q), of the kernel's quantity q.
func (k kernelChoice) kernelMap(d *classify.Data, sigma float64) (classify.Map, error) {
	if err := k.kernel.Check(sigma, d.Set.Dim(), k.pseudo); err != nil {
		return classify.Identity, err
	}
	return classify.Exp(sigma), nil
}

// pairs returns the kernel's pairwise quantity between d's items and t's
// training items (Train.Pairs), and kernelMap's map.
func (k kernelChoice) pairs(t *classify.Train, d *classify.Data, sigma float64) (classify.Pairs, classify.Map, error) {
	f, err := k.kernelMap(d, sigma)
	if err != nil {
		return nil, f, err
	}
	p, err := t.Pairs(d, k.kernel.Quantity)
	return p, f, err
}

// kernelMethod is what the kernel methods (rsr, rlpp, svm) share: their
// kernel, their parameter candidates and the memo of the chosen one.
type kernelMethod[C comparable] struct {
	memo   classify.Memo[C]
	kernel kernelChoice
	// cross returns the candidates of σ values sigmas crossed with the
	// method's other parameters.
	cross func(sigmas []float64) []C
}

// spec is the method's Spec with the parameters params (kernelChoice.spec).
// The number of candidates does not depend on d: a default σ is one.
func (k *kernelMethod[C]) spec(params any) classify.Spec {
	return k.kernel.spec(params, len(k.cross(k.kernel.sigmasFor(1))))
}

// choose checks every σ for the training items' matrices
// (kernelChoice.checkDim) and chooses a candidate by cross-validation of
// fit (classify.Choose over folds) among those of the σ for their d.
func (k *kernelMethod[C]) choose(ctx context.Context, t *classify.Train, fit func(d *classify.Data, train []int, c C) (predictor, error)) (classify.Candidate[C], *classify.Data, error) {
	d := t.Data.Set.Dim()
	if err := k.kernel.checkDim(d); err != nil {
		return classify.Candidate[C]{}, nil, err
	}
	return classify.Choose(ctx, t, k.cross(k.kernel.sigmasFor(d)), &k.memo, folds(ctx, t, fit))
}
