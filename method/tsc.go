package method

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/param"
	"github.com/covpipe/covpipe/tsc"
	"go.yaml.in/yaml/v3"
)

// tscParams are the parameters of method type tsc.
type tscParams struct {
	// Lambda is the sparsity weight λ >= 0 of the MAXDET problem; a list
	// gives candidates.
	Lambda param.Floats `yaml:"lambda" json:"lambda" help:"the sparsity weight λ >= 0 of the MAXDET problem; a list gives candidates"`
	// Tolerance is the relative duality gap at which coding stops
	// (default 1e-8, tsc.Options.Tol).
	Tolerance float64 `yaml:"tolerance,omitempty" json:"tolerance,omitempty" help:"the relative duality gap at which coding stops" default:"1e-8"`
	// WorkingSet is the first working set's size of large dictionaries
	// (tsc.Options.WorkingSet: default 32, -1 solves on every atom; the
	// certificate is the whole problem's either way).
	WorkingSet int `yaml:"working_set,omitempty" json:"working_set,omitempty" help:"the first working set's size on large dictionaries, -1 for every atom" default:"32"`
}

// tscMethod is tensor sparse coding (Sivalingam et al., ECCV 2010), the
// paper's Riemannian baseline: each test item is coded over the training
// items by the MAXDET problem of package tsc and given the class with the
// least class-wise Burg residual.
type tscMethod struct {
	memo classify.Memo[keyed]
	p    tscParams
}

func newTSC(n *yaml.Node) (classify.Method, error) {
	m := &tscMethod{}
	if err := decode(n, &m.p, "tsc"); err != nil {
		return nil, err
	}
	if len(m.p.Lambda) == 0 {
		var missing param.Missing
		missing.Add("lambda")
		return nil, missing.Err()
	}
	if err := m.p.Lambda.CheckList("lambda", true); err != nil {
		return nil, err
	}
	for _, l := range m.p.Lambda {
		if err := tsc.CheckLambda(l); err != nil {
			return nil, fmt.Errorf("lambda: %w", err)
		}
	}
	if t := m.p.Tolerance; math.IsNaN(t) || t < 0 || t >= 1 {
		return nil, fmt.Errorf("tolerance = %v, want in (0, 1) (default 1e-8)", t)
	}
	if m.p.WorkingSet < -1 {
		return nil, fmt.Errorf("working_set = %d, want >= 1, 0 (default 32) or -1 (every atom)", m.p.WorkingSet)
	}
	return m, nil
}

// Spec declares the λ candidates and class probabilities: the softmax of
// minus the Burg residuals (tscFit.predict).
func (m *tscMethod) Spec() classify.Spec {
	return classify.Spec{Params: m.p, Candidates: len(m.p.Lambda), Probabilities: true}
}

func (m *tscMethod) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	return fitChoosing(ctx, t, "lambda", m.p.Lambda, &m.memo, func(d *classify.Data, train []int, lambda float64) (predictor, error) {
		return fitTSC(d, train, tsc.Options{Lambda: lambda, Tol: m.p.Tolerance, WorkingSet: m.p.WorkingSet})
	})
}

// tscFit is TSC's coder over training items: the atoms, and the class of
// each.
type tscFit struct {
	coder   *tsc.Coder
	lambda  float64
	classes []int // the training items' labels, ascending
	class   []int // each atom's position in classes
}

func fitTSC(d *classify.Data, train []int, o tsc.Options) (*tscFit, error) {
	coder, err := tsc.NewCoder(d.Set.Subset(train), o)
	if err != nil {
		return nil, err
	}
	classes := classify.SortedKeys(classify.ByClass(d.Labels, train))
	class := make([]int, len(train))
	for a, j := range train {
		class[a], _ = slices.BinarySearch(classes, d.Labels[j])
	}
	return &tscFit{coder: coder, lambda: o.Lambda, classes: classes, class: class}, nil
}

// predict codes every item of test over the atoms on a.workers
// goroutines, one tsc.Workspace each, and ranks the classes by their Burg
// residuals r_c, the Burg divergence of class c's part of the
// reconstruction, Σ_{l(j)=c} x_j A_j, from the item X
// (tsc.Coder.ClassResidualsTo), ties by label. The class
// probabilities are their softmax, exp(−r_c) / Σ_k exp(−r_k), the Burg
// divergence standing for a squared distance as the Stein divergence
// does for nn and mdm (near X, D_B ≈ d_g²/2 and S ≈ d_g²/8 of the AIRM
// distance d_g); every class has 1/k when no class has a finite residual
// (a degenerate code). Each item's result depends on that item only, so
// the outcome does not depend on the worker count. Once ctx is cancelled
// it starts no more items, stops the ones under way between Newton
// steps, and returns an error wrapping ctx.Err().
func (f *tscFit) predict(ctx context.Context, d *classify.Data, test []int, a answer) (*classify.Outcome, error) {
	coder, classes, class, workers := f.coder, f.classes, f.class, a.workers
	n := len(class)
	out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test)), Lambdas: make([]float64, len(test))}
	if a.probs {
		out.Probabilities, out.CostClasses = classify.Rows(len(test), len(classes)), classes
	}
	nw := pool.Workers(workers)
	type buffers struct {
		ws  *tsc.Workspace
		x   []float64
		res []float64
	}
	bufs := make([]*buffers, nw)
	unconverged := make([]bool, len(test))
	degenerate := make([]bool, len(test))
	err := pool.ForCtx(ctx, len(test), workers, func(w, q int) error {
		b := bufs[w]
		if b == nil {
			b = &buffers{coder.NewWorkspace(), make([]float64, n), make([]float64, len(classes))}
			bufs[w] = b
		}
		query := d.Set.View(test[q])
		cert, err := coder.SolveTo(ctx, b.x, query, b.ws)
		if err != nil {
			return fmt.Errorf("test item %d: %w", test[q], err)
		}
		if err := coder.ClassResidualsTo(b.res, query, b.x, class, b.ws); err != nil {
			return fmt.Errorf("test item %d: %w", test[q], err)
		}
		unconverged[q] = !cert.Converged
		degenerate[q] = true
		for _, r := range b.res {
			if !math.IsInf(r, 1) {
				degenerate[q] = false
			}
		}
		r := make([]int, len(classes))
		for k := range r {
			r[k] = k
		}
		slices.SortFunc(r, func(a, c int) int { return cmp.Or(cmp.Compare(b.res[a], b.res[c]), a-c) })
		for k, c := range r {
			r[k] = classes[c]
		}
		out.Ranking[q], out.Pred[q], out.Lambdas[q] = r, r[0], f.lambda
		if p := out.Probabilities; p != nil {
			if degenerate[q] {
				for k := range p[q] {
					p[q][k] = 1 / float64(len(classes))
				}
			} else {
				softmaxNegTo(p[q], b.res)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for q := range test {
		if unconverged[q] {
			out.Unconverged++
		}
		if degenerate[q] {
			out.Degenerate++
		}
	}
	return out, nil
}

// save records λ: the coder is the training items themselves.
func (f *tscFit) save(context.Context, *classify.State) (any, error) { return f.lambda, nil }

func (m *tscMethod) Load(_ context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	return restore(st, func(lambda float64) (predictor, error) {
		if err := tsc.CheckLambda(lambda); err != nil {
			return nil, fmt.Errorf("state record: %w", err)
		}
		return fitTSC(t.Data, t.Items, tsc.Options{Lambda: lambda, Tol: m.p.Tolerance, WorkingSet: m.p.WorkingSet})
	})
}
