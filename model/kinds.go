package model

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/svm"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// kind is what a model of one method type does beside what every model
// does: fit the method with its chosen parameters, get ready to answer
// once read back, and answer queries.
type kind interface {
	// fit fits the method on all of data, the model's training
	// descriptors, filling in the model's arrays (m.gram, m.rec.Machines;
	// the SVM keeps its support vectors only in m.train and m.rec.Labels).
	fit(ctx context.Context, m *Model, data *classify.Data, workers int) error
	// check checks the arrays of a model read back against its record.
	check(m *Model) error
	// answers answers the queries of data, the items after the model's
	// m.train.Len() training descriptors, in order, and with costs gives
	// each query's cost of every class (index into m.rec.Classes, +Inf
	// for a class the method does not know), lower meaning more likely.
	answers(ctx context.Context, m *Model, data *classify.Data, workers int, costs bool) ([]classify.ItemScore, [][]float64, error)
}

// solver is what answers with a given worker count: an SRC classifier or
// an SVM, made once per worker count (Model.solvers).
type solver any

// kindOf returns the kind of the model that rec records, its parameters
// checked.
func kindOf(rec *record) (kind, error) {
	p := params{rec}
	switch rec.Method {
	case "rsr", "logE-SR":
		k := &srcKind{quantity: classify.LogCosine{}, f: classify.Identity}
		if rec.Method == "rsr" {
			var err error
			if k.quantity, k.f, err = p.kernel(); err != nil {
				return nil, err
			}
		}
		lasso := rsr.LassoOptions{Tol: p.float("tolerance"), NonNegative: p.bool("nonnegative")}
		switch {
		case p.has("lambda"):
			lasso.Lambda = p.chosen("lambda")
		case p.has("lambda_ratio"):
			lasso.LambdaRatio = p.chosen("lambda_ratio")
		default:
			return nil, errors.New("no chosen lambda or lambda_ratio")
		}
		if err := lasso.Validate(); err != nil {
			return nil, err
		}
		k.opts = rsr.ClassifierOptions{Lasso: lasso}
		if r := p.string("rule"); r != "" {
			var err error
			if k.opts.Rule, err = rsr.ParseRule(r); err != nil {
				return nil, err
			}
		}
		return k, nil
	case "stein-svm":
		k := &svmKind{c: p.chosen("c"), tol: p.float("tolerance")}
		var err error
		if k.quantity, k.f, err = p.kernel(); err != nil {
			return nil, err
		}
		if !(k.c > 0) || math.IsInf(k.c, 0) {
			return nil, fmt.Errorf("chosen c = %v, want finite and > 0", k.c)
		}
		return k, nil
	case "nn":
		var node yaml.Node
		if err := node.Encode(map[string]string{"metric": p.string("metric")}); err != nil {
			return nil, err
		}
		m, err := method.Types()["nn"].New(&node)
		if err != nil {
			return nil, err
		}
		return &nnKind{m: m}, nil
	}
	return nil, fmt.Errorf("method %q: want one of %v", rec.Method, Methods())
}

// params reads a record's parameters as resolved and as chosen.
type params struct{ rec *record }

func (p params) has(key string) bool { _, ok := p.rec.Chosen[key]; return ok }

func (p params) chosen(key string) float64 { return p.rec.Chosen[key] }

func (p params) float(key string) float64 {
	v, _ := p.rec.Params[key].(float64)
	return v
}

func (p params) bool(key string) bool {
	v, _ := p.rec.Params[key].(bool)
	return v
}

func (p params) string(key string) string {
	v, _ := p.rec.Params[key].(string)
	return v
}

// kernel returns the quantity of the kernel the parameters name and the
// map exp(−σ q) of the chosen σ.
func (p params) kernel() (classify.Quantity, classify.Map, error) {
	name := p.string("kernel")
	if name == "" {
		name = spd.SteinMetric.String()
	}
	k, err := classify.ParseKernel(name)
	if err != nil {
		return nil, classify.Identity, err
	}
	sigma := p.chosen("sigma")
	if err := spd.CheckSigma(sigma); err != nil {
		return nil, classify.Identity, fmt.Errorf("chosen sigma: %w", err)
	}
	return k.Quantity, classify.Exp(sigma), nil
}

// trainKernel returns f of the quantity q among data's items, all of
// them the training set, as a run's Pairs give a training set's kernel
// matrix: row-major, both triangles.
func trainKernel(ctx context.Context, data *classify.Data, q classify.Quantity, f classify.Map) ([]float64, error) {
	all := classify.Seq(0, data.Set.Len())
	p, err := data.Pairs(q, all)
	if err != nil {
		return nil, err
	}
	k, err := p.Block(ctx, all, all, f)
	if err != nil {
		return nil, err
	}
	return k.RawMatrix().Data, nil
}

// srcKind is a sparse-representation classifier (rsr, logE-SR): the
// training descriptors are the atoms of the kernel Lasso.
type srcKind struct {
	quantity classify.Quantity
	f        classify.Map
	opts     rsr.ClassifierOptions // Workers set per solver
}

func (k *srcKind) fit(ctx context.Context, m *Model, data *classify.Data, _ int) error {
	var err error
	m.gram, err = trainKernel(ctx, data, k.quantity, k.f)
	return err
}

func (k *srcKind) check(m *Model) error {
	if n := m.train.Len(); len(m.gram) != n*n {
		return fmt.Errorf("%s has %d values, want the %d×%d kernel matrix of the descriptors", gramFile, len(m.gram), n, n)
	}
	return nil
}

// classifier returns the model's classifier on workers goroutines.
func (k *srcKind) classifier(m *Model, workers int) (*rsr.Classifier, error) {
	s, err := m.solvers.Do(workers, func() (solver, error) {
		o := k.opts
		o.Lasso.Workers = workers
		n := m.train.Len()
		return rsr.FitClassifier(mat.NewDense(n, n, m.gram), m.rec.Labels, o)
	})
	if err != nil {
		return nil, err
	}
	return s.(*rsr.Classifier), nil
}

func (k *srcKind) answers(ctx context.Context, m *Model, data *classify.Data, workers int, costs bool) ([]classify.ItemScore, [][]float64, error) {
	c, err := k.classifier(m, workers)
	if err != nil {
		return nil, nil, err
	}
	classes := c.Labels()
	// Both kernels are normalised: k(X, X) = 1 (as covpipe run's src),
	// one slice of ones for every block.
	kxx := make([]float64, min(data.Set.Len()-m.train.Len(), classify.BlockSize))
	for i := range kxx {
		kxx[i] = 1
	}
	return blockAnswers(ctx, m, data, k.quantity, k.f, costs, func(kb *mat.Dense, out []classify.ItemScore, cost [][]float64) error {
		n, _ := kb.Dims()
		ds, err := c.PredictBatch(ctx, kb, kxx[:n])
		if err != nil {
			return err
		}
		for q, d := range ds {
			out[q] = classify.RankedScore(c.Rank(d), classes, c.Shares(d), d.SCI)
			if cost != nil {
				cost[q] = classCosts(len(m.rec.Classes), classes, c.Costs(d))
			}
		}
		return nil
	})
}

// blockAnswers answers the queries of data (after the model's training
// descriptors) in blocks of classify.BlockSize, calling answer with each
// block's kernel values f(q) against the training descriptors and the
// block's answers to fill in, and with costs its costs (else nil).
func blockAnswers(ctx context.Context, m *Model, data *classify.Data, q classify.Quantity, f classify.Map, costs bool, answer func(k *mat.Dense, out []classify.ItemScore, cost [][]float64) error) ([]classify.ItemScore, [][]float64, error) {
	n := m.train.Len()
	train, test := classify.Seq(0, n), classify.Seq(n, data.Set.Len())
	p, err := data.Pairs(q, train)
	if err != nil {
		return nil, nil, err
	}
	out := make([]classify.ItemScore, len(test))
	var cost [][]float64
	if costs {
		cost = make([][]float64, len(test))
	}
	err = classify.ForBlocks(ctx, p, test, train, f, nil, func(off int, k *mat.Dense) error {
		rows, _ := k.Dims()
		var c [][]float64
		if cost != nil {
			c = cost[off : off+rows]
		}
		return answer(k, out[off:off+rows], c)
	})
	if err != nil {
		return nil, nil, err
	}
	return out, cost, nil
}

// classCosts spreads cost, the costs of classes (labels), over n
// classes, +Inf for the others.
func classCosts(n int, classes []int, cost []float64) []float64 {
	out := make([]float64, n)
	for c := range out {
		out[c] = math.Inf(1)
	}
	for j, c := range classes {
		out[c] = cost[j]
	}
	return out
}

// svmKind is a one-vs-one SVM on a kernel's Gram matrix, calibrated:
// its model keeps the support vectors only.
type svmKind struct {
	quantity classify.Quantity
	f        classify.Map
	c, tol   float64
}

func (k *svmKind) fit(ctx context.Context, m *Model, data *classify.Data, workers int) error {
	gram, err := trainKernel(ctx, data, k.quantity, k.f)
	if err != nil {
		return err
	}
	n := m.train.Len()
	full, err := svm.Fit(ctx, mat.NewSymDense(n, gram), m.rec.Labels, svm.Options{C: k.c, Tol: k.tol, Workers: workers, Probability: true, Seed: m.rec.Seed})
	if err != nil {
		return err
	}
	compact, items := full.Compact()
	m.train = m.train.Subset(items)
	m.rec.Labels = classify.Pick(m.rec.Labels, items)
	m.rec.Machines = compact.Machines
	return nil
}

// model returns the model's SVM on workers goroutines.
func (k *svmKind) model(m *Model, workers int) (*svm.Model, error) {
	s, err := m.solvers.Do(workers, func() (solver, error) {
		return svm.Restore(classify.Seq(0, len(m.rec.Classes)), m.rec.Machines, m.train.Len(), svm.Options{Probability: true, Workers: workers})
	})
	if err != nil {
		return nil, err
	}
	return s.(*svm.Model), nil
}

func (k *svmKind) check(m *Model) error {
	_, err := k.model(m, 0)
	return err
}

func (k *svmKind) answers(ctx context.Context, m *Model, data *classify.Data, workers int, costs bool) ([]classify.ItemScore, [][]float64, error) {
	s, err := k.model(m, workers)
	if err != nil {
		return nil, nil, err
	}
	return blockAnswers(ctx, m, data, k.quantity, k.f, costs, func(kb *mat.Dense, out []classify.ItemScore, cost [][]float64) error {
		ds, err := s.PredictBatch(ctx, kb)
		if err != nil {
			return err
		}
		for q, d := range ds {
			out[q] = classify.RankedScore(s.Rank(d), s.Classes, d.Prob, math.NaN())
			if cost != nil {
				// 1 − p_c, as the run's stein-svm gives its costs.
				c := classCosts(len(m.rec.Classes), s.Classes, d.Prob)
				for k, p := range c {
					if !math.IsInf(p, 1) {
						c[k] = 1 - p
					}
				}
				cost[q] = c
			}
		}
		return nil
	})
}

// nnKind is the nearest-neighbour method under a metric: it answers as
// covpipe run's nn method does, on a split of the training descriptors
// and the queries.
type nnKind struct{ m classify.Method }

func (k *nnKind) fit(context.Context, *Model, *classify.Data, int) error { return nil }

func (k *nnKind) check(*Model) error { return nil }

func (k *nnKind) answers(ctx context.Context, m *Model, data *classify.Data, workers int, costs bool) ([]classify.ItemScore, [][]float64, error) {
	n := m.train.Len()
	split := &classify.Split{Data: data, Train: classify.Seq(0, n), Test: classify.Seq(n, data.Set.Len()), Workers: workers, Costs: costs}
	out, err := classify.Run(ctx, k.m, split)
	if err != nil {
		return nil, nil, err
	}
	if !costs {
		return out.Scores, nil, nil
	}
	if len(out.Costs) != len(split.Test) {
		return nil, nil, fmt.Errorf("nn under metric %s gives no class costs", m.rec.Params["metric"])
	}
	cost := make([][]float64, len(out.Costs))
	for q, c := range out.Costs {
		cost[q] = classCosts(len(m.rec.Classes), out.CostClasses, c)
	}
	return out.Scores, cost, nil
}
