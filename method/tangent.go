package method

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/logistic"
	"github.com/covpipe/covpipe/param"
	"github.com/covpipe/covpipe/spd"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// tangentParams are the parameters of method type tangent-space.
type tangentParams struct {
	// Reference is the point whose tangent space the items are mapped to:
	// mean or identity (TangentReference).
	Reference string `yaml:"reference" json:"reference" help:"the tangent space's point: mean (the training items' affine-invariant Karcher mean) or identity (log X, the log-Euclidean vectors)" default:"mean"`
	// C is the logistic regression's inverse L2 weight, C > 0; a list
	// gives candidates.
	C param.Floats `yaml:"c" json:"c" help:"the logistic regression's inverse L2 weight C > 0 (scikit-learn's C); a list gives candidates" default:"1"`
	// Tolerance is the L-BFGS stop on the gradient's largest entry
	// (logistic.Options.Tol).
	Tolerance float64 `yaml:"tolerance,omitempty" json:"tolerance,omitempty" help:"L-BFGS's stop on the largest entry of the objective's gradient (scikit-learn's tol)" default:"1e-4"`
	// MaxIter bounds the L-BFGS iterations (logistic.Options.MaxIter).
	MaxIter int `yaml:"max_iter,omitempty" json:"max_iter,omitempty" help:"the bound on L-BFGS iterations (scikit-learn's max_iter)" default:"100"`
}

// TangentReference names the reference point P of tangent-space
// vectors: the affine-invariant Karcher mean of the training items
// ("mean"), or the identity ("identity"), at which the vectors are the
// log-Euclidean vec(log X).
type TangentReference string

// The reference points of tangent-space vectors.
const (
	TangentMean     TangentReference = "mean"
	TangentIdentity TangentReference = "identity"
)

// ParseTangentReference returns the reference point named name, mean
// for an empty name.
func ParseTangentReference(name string) (TangentReference, error) {
	switch r := TangentReference(name); r {
	case "":
		return TangentMean, nil
	case TangentMean, TangentIdentity:
		return r, nil
	}
	return "", fmt.Errorf("%w: reference %q, want mean (the training items' Karcher mean) or identity", spd.ErrParameter, name)
}

// TangentReferencePoint returns the reference point r of the matrices of
// set at the indices idx: their Karcher mean under the AIRM (to the
// Riemannian gradient norm mdmTol, as pyRiemann's
// mean_riemann) for TangentMean, the d×d identity for TangentIdentity. A
// Karcher mean that does not converge within spd's iteration cap is an
// error wrapping spd.ErrNoConvergence.
func TangentReferencePoint(ctx context.Context, r TangentReference, set *spd.Set, idx []int) (*mat.SymDense, error) {
	d := set.Dim()
	if r == TangentIdentity {
		p := mat.NewSymDense(d, nil)
		for i := range d {
			p.SetSym(i, i, 1)
		}
		return p, nil
	}
	mean, err := meanOfItems(ctx, spd.AIRMMetric, set, idx, 0)
	if err != nil {
		return nil, fmt.Errorf("the Karcher mean of %d items: %w", len(idx), err)
	}
	return mean, nil
}

// tangentSpace is multinomial logistic regression on the tangent-space
// vectors of the items (Barachant, Bonnet, Congedo and Jutten, IEEE TBME
// 2012, "tangent space LDA", and Neurocomputing 2013; Tuzel, Porikli and
// Meer, IEEE PAMI 2008, for classifiers on the tangent space of region
// covariances; pyRiemann's make_pipeline(TangentSpace(metric="riemann"),
// LogisticRegression())). Fit computes the reference point P of the
// training items (TangentReferencePoint: their Karcher mean under the
// AIRM, or the identity) and their vectors
//
//	t_P(X) = vec(log(P^{−1/2} X P^{−1/2})),
//
// the upper triangle with the off-diagonal entries times √2
// (spd.TangentSpace), so that ‖t_P(X)‖ = d_g(P, X); and fits on them the
// multinomial logistic regression of package logistic, minimising
// C·Σ_i −log p_{y_i} + ½‖W‖²_F with unpenalised intercepts (scikit-learn's
// LogisticRegression with lbfgs). Predict maps a query to the same
// tangent space and answers its most probable class.
//
// Each class's cost is −log p_c(X) (Outcome.Costs), so that fusion of
// regions adds log-likelihoods; the scores are the probabilities p of
// the predicted and the second class, with a NaN SCI. Classes rank by
// probability, ties by label. The C candidates and the ridge variants are
// chosen by cross-validation (classify.Choose); a fit that stops at
// max_iter before its tolerance counts every query as unconverged
// (Outcome.Unconverged). The state holds the reference point, the
// weights and the intercepts.
type tangentSpace struct {
	memo classify.Memo[keyed]
	tangentBases
	// fits remembers the fitted models.
	fits once.Cache[tangentFitKey, *tangentFit]
	opts logistic.Options
	p    tangentParams
}

// tangentBases gives the reference point and the training vectors of
// training sets (basis), which the candidates of a fold, the tasks that
// share a training set and the methods that share a reference share.
type tangentBases struct {
	ref TangentReference
}

func newTangentBases(ref TangentReference) tangentBases {
	return tangentBases{ref: ref}
}

// tangentFitKey identifies a fit: its training set and C.
type tangentFitKey struct {
	train trainKey
	c     float64
}

// tangentCacheSize bounds the training sets a tangentSpace keeps: the
// folds and final training sets of the splits in progress.
const tangentCacheSize = 8

func newTangentSpace(n *yaml.Node) (classify.Method, error) {
	m := &tangentSpace{fits: once.Cache[tangentFitKey, *tangentFit]{Max: tangentCacheSize}}
	if err := decode(n, &m.p, "tangent-space"); err != nil {
		return nil, err
	}
	ref, err := ParseTangentReference(m.p.Reference)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	m.p.Reference, m.tangentBases = string(ref), newTangentBases(ref)
	if len(m.p.C) == 0 {
		m.p.C = param.Floats{1}
	}
	if err := m.p.C.Check("c", true, 0, false); err != nil {
		return nil, err
	}
	m.opts = logistic.Options{C: 1, Tol: m.p.Tolerance, MaxIter: m.p.MaxIter}
	if err := m.opts.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Spec declares the C candidates, scores and class costs; the method
// needs no pairwise quantities.
func (m *tangentSpace) Spec() classify.Spec {
	return classify.Spec{Params: m.p, Candidates: len(m.p.C), Scores: true, Costs: true, Probabilities: true}
}

func (m *tangentSpace) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	return fitChoosing(ctx, t, "c", m.p.C, &m.memo, func(d *classify.Data, train []int, c float64) (predictor, error) {
		return m.fit(ctx, d, train, c, t.Workers)
	})
}

// tangentBasis is what the fits of one training set share: the reference
// point and the training items' tangent vectors, one row each.
type tangentBasis struct {
	ref     *mat.SymDense
	vectors *mat.Dense
}

// tangentFit is a logistic regression fitted on the tangent vectors at
// ref.
type tangentFit struct {
	ref   *mat.SymDense
	c     float64
	model *logistic.Model
}

// fit fits the logistic regression with C = c on the items train of d,
// once per training set and c.
func (m *tangentSpace) fit(ctx context.Context, d *classify.Data, train []int, c float64, workers int) (*tangentFit, error) {
	return m.fits.Do(tangentFitKey{newTrainKey(d, train), c}, func() (*tangentFit, error) {
		b, err := m.basis(ctx, d, train, workers)
		if err != nil {
			return nil, fmt.Errorf("tangent-space: %w", err)
		}
		o := m.opts
		o.C = c
		model, err := logistic.Fit(ctx, b.vectors, classify.Pick(d.Labels, train), o)
		if err != nil {
			return nil, fmt.Errorf("tangent-space (c = %v): %w", c, err)
		}
		return &tangentFit{ref: b.ref, c: c, model: model}, nil
	})
}

// predict maps each item of test to the tangent space and classifies it,
// each worker with a spd.TangentSpace and buffers of its own.
func (f *tangentFit) predict(ctx context.Context, d *classify.Data, test []int, a answer) (*classify.Outcome, error) {
	classes := f.model.Classes
	k := len(classes)
	out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test)), Scores: make([]classify.ItemScore, len(test))}
	if a.costs {
		out.Costs, out.CostClasses = make([][]float64, len(test)), slices.Clone(classes)
	}
	if a.probs {
		out.Probabilities, out.CostClasses = classify.Rows(len(test), k), slices.Clone(classes)
	}
	vecs, err := f.transform(ctx, d, test, a.workers)
	if err != nil {
		return nil, err
	}
	costs, probs := make([][]float64, pool.Workers(a.workers)), make([][]float64, pool.Workers(a.workers))
	err = pool.ForCtx(ctx, len(test), a.workers, func(w, q int) error {
		if costs[w] == nil {
			costs[w], probs[w] = make([]float64, k), make([]float64, k)
		}
		cost := costs[w]
		if a.costs {
			cost = make([]float64, k) // kept in the outcome
		}
		if err := f.model.LogProbabilitiesTo(cost, vecs.RawRowView(q)); err != nil {
			return fmt.Errorf("tangent-space: item %d: %w", test[q], err)
		}
		for c, lp := range cost {
			cost[c], probs[w][c] = -lp, math.Exp(lp)
		}
		r, _ := classify.RankCosts(classes, cost)
		out.Ranking[q], out.Pred[q] = r, r[0]
		out.Scores[q] = classify.RankedScore(r, classes, probs[w], math.NaN())
		if a.costs {
			out.Costs[q] = cost
		}
		if a.probs {
			copy(out.Probabilities[q], probs[w])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !f.model.Converged {
		out.Unconverged = len(test)
	}
	return out, nil
}

// transform gives the items' tangent vectors at the reference point, the
// features the regression classifies (shared: tangentVectorsAt).
func (f *tangentFit) transform(ctx context.Context, d *classify.Data, items []int, workers int) (*mat.Dense, error) {
	v, err := tangentVectorsAt(ctx, d, items, f.ref, workers)
	if err != nil {
		return nil, fmt.Errorf("tangent-space: %w", err)
	}
	return v, nil
}

// tangentRecord is the record of a fitted tangent-space method's state:
// C, the classes of the weights' rows, in the order of the arrays, and
// whether the fit converged.
type tangentRecord struct {
	C         float64 `json:"c"`
	Classes   []int   `json:"classes"`
	Converged bool    `json:"converged"`
}

// The arrays of a tangent-space state: the reference point (d, d), the
// weights (classes, d(d+1)/2) and the intercepts (classes).
const (
	referenceArray  = "reference"
	weightsArray    = "weights"
	interceptsArray = "intercepts"
)

func (f *tangentFit) save(_ context.Context, st *classify.State) (any, error) {
	putReference(st, f.ref)
	k, p := f.model.Weights.Dims()
	st.Put(weightsArray, slices.Clone(f.model.Weights.RawMatrix().Data), k, p)
	st.Put(interceptsArray, slices.Clone(f.model.Intercepts), k)
	return tangentRecord{C: f.c, Classes: f.model.Classes, Converged: f.model.Converged}, nil
}

// Load restores the reference point and the logistic regression of st; it
// refuses a state whose classes are not those of t's training items or
// whose arrays are not of t's size.
func (m *tangentSpace) Load(_ context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	return restore(st, func(r tangentRecord) (predictor, error) {
		want := classify.SortedKeys(classify.ByClass(t.Data.Labels, t.Items))
		if !slices.Equal(r.Classes, want) {
			return nil, fmt.Errorf("tangent-space: state has the weights of classes %v; the training items have classes %v", r.Classes, want)
		}
		if err := logistic.CheckC(r.C); err != nil {
			return nil, fmt.Errorf("state record: %w", err)
		}
		p, err := getReference(st, t)
		if err != nil {
			return nil, err
		}
		k, n := len(r.Classes), spd.VecLen(p.SymmetricDim())
		w, err := st.Get(weightsArray, k, n)
		if err != nil {
			return nil, err
		}
		b, err := st.Get(interceptsArray, k)
		if err != nil {
			return nil, err
		}
		model, err := logistic.Restore(r.Classes, mat.NewDense(k, n, slices.Clone(w)), b)
		if err != nil {
			return nil, fmt.Errorf("tangent-space state: %w", err)
		}
		model.Converged = r.Converged
		return &tangentFit{ref: p, c: r.C, model: model}, nil
	})
}

// putReference keeps the reference point ref in st.
func putReference(st *classify.State, ref *mat.SymDense) {
	d := ref.SymmetricDim()
	data := make([]float64, d*d)
	fullTo(data, ref)
	st.Put(referenceArray, data, d, d)
}

// getReference returns the reference point that st keeps, refusing one
// of another size than t's items or one that is not SPD.
func getReference(st *classify.State, t *classify.Train) (*mat.SymDense, error) {
	d := t.Data.Set.Dim()
	data, err := st.Get(referenceArray, d, d)
	if err != nil {
		return nil, err
	}
	p := mat.NewSymDense(d, slices.Clone(data))
	if _, err := spd.NewTangentSpace(p); err != nil {
		return nil, fmt.Errorf("state array %q: %w", referenceArray, err)
	}
	return p, nil
}
