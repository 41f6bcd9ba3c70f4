package method

import (
	"context"
	"math"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/spd"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// nnParams are the parameters of method type nn.
type nnParams struct {
	// Metric names the distance: one of spd.Metrics, by spd.ParseMetric;
	// default stein.
	Metric string `yaml:"metric" json:"metric" help:"the distance: airm, stein, log-euclidean, thompson, wasserstein or euclid" default:"stein"`
}

// nn is the nearest-neighbour classifier: classes rank by their nearest
// training member under the metric. The Stein divergence reads the
// divergences the Data caches; the AIRM prunes with them (airmRanking);
// other metrics compute every query-to-training distance.
type nn struct {
	memo     classify.Memo[struct{}]
	blocks   classify.Scratch // divergence blocks of the method's runs
	metric   spd.Metric
	warnings []string
	p        nnParams
}

func newNN(n *yaml.Node) (classify.Method, error) {
	m := &nn{}
	if err := decode(n, &m.p, "nn"); err != nil {
		return nil, err
	}
	var err error
	m.metric, m.warnings, err = parseMetric(&m.p.Metric)
	return m, err
}

// parseMetric resolves a metric parameter, stein when *name is empty,
// by spd.ParseMetric: it returns the metric and the warning of a
// deprecated spelling, and sets *name to the canonical name that the
// method records.
func parseMetric(name *string) (spd.Metric, []string, error) {
	if *name == "" {
		*name = spd.SteinMetric.String()
	}
	m, err := spd.ParseMetric(*name)
	if err != nil {
		return 0, nil, err
	}
	warnings := deprecated("metric", *name)
	*name = m.String()
	return m, warnings, nil
}

// Spec declares the split's Stein divergences, which the Stein and AIRM
// rankings read. The class probabilities are the softmax of −d² over the
// classes' nearest members (nearest), d² the Stein divergence itself for
// stein (as mdm's).
func (m *nn) Spec() classify.Spec {
	// The AIRM ranking prunes classes that cannot be nearest, so it has no
	// distance to every class to give as costs or probabilities.
	all := m.metric != spd.AIRMMetric
	s := classify.Spec{Params: m.p, Candidates: 1, Warnings: m.warnings, Scores: true, Costs: all, Probabilities: all}
	if m.metric == spd.SteinMetric || m.metric == spd.AIRMMetric {
		s.Quantities = []classify.Quantity{classify.Stein{}}
	}
	return s
}

func (m *nn) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	return fitRidge(ctx, t, &m.memo, func(_ *classify.Data, train []int) (predictor, error) {
		return &nnFit{m: m, t: t, train: train}, nil
	})
}

// nnFit is the nearest-neighbour classifier of training items train of
// t: it keeps nothing but them.
type nnFit struct {
	m     *nn
	t     *classify.Train
	train []int
}

// save keeps nothing: the training items are the model's.
func (f *nnFit) save(context.Context, *classify.State) (any, error) { return nil, nil }

func (m *nn) Load(_ context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	return restore(st, func(struct{}) (predictor, error) { return &nnFit{m: m, t: t, train: t.Items}, nil })
}

func (f *nnFit) predict(ctx context.Context, d *classify.Data, test []int, a answer) (*classify.Outcome, error) {
	m, train := f.m, f.train
	switch m.metric {
	case spd.AIRMMetric:
		p, err := f.t.Pairs(d, classify.Stein{})
		if err != nil {
			return nil, err
		}
		return airmRanking(ctx, d, p, train, test, a.ranks, a.workers, a.blocks(&m.blocks))
	case spd.SteinMetric:
		p, err := f.t.Pairs(d, classify.Stein{})
		if err != nil {
			return nil, err
		}
		out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test)), Scores: make([]classify.ItemScore, len(test))}
		classes := classify.SortedKeys(classify.ByClass(d.Labels, train))
		if a.costs {
			out.Costs, out.CostClasses = make([][]float64, len(test)), classes
		}
		if a.probs {
			out.Probabilities, out.CostClasses = make([][]float64, len(test)), classes
		}
		err = classify.ForBlocks(ctx, p, test, train, classify.Identity, a.blocks(&m.blocks), func(off int, k *mat.Dense) error {
			n, _ := k.Dims()
			o, err := nearest(ctx, d.Labels, train, test[off:off+n], 1, a.costs, m.squares(a), func(_, q, a int, _ float64) (float64, error) { return k.At(q, a), nil })
			if err != nil {
				return err
			}
			copy(out.Pred[off:], o.Pred)
			copy(out.Ranking[off:], o.Ranking)
			copy(out.Scores[off:], o.Scores)
			if a.costs {
				copy(out.Costs[off:], o.Costs)
			}
			if a.probs {
				copy(out.Probabilities[off:], o.Probabilities)
			}
			return nil
		})
		return out, err
	}
	ws := make([]*spd.Workspace, pool.Workers(a.workers))
	return nearest(ctx, d.Labels, train, test, a.workers, a.costs, m.squares(a), func(w, q, a int, _ float64) (float64, error) {
		if ws[w] == nil {
			ws[w] = spd.NewWorkspace(d.Set.Dim())
		}
		return ws[w].Distance(m.metric, d.Set.View(test[q]), d.Set.View(train[a]))
	})
}

// squares returns, when a asks for class probabilities, the squared
// distance d² of a value of the metric (mdmSquares: S itself for
// stein), which nearest takes the softmax of; nil otherwise.
func (m *nn) squares(a answer) func(v float64) float64 {
	if !a.probs {
		return nil
	}
	return func(v float64) float64 {
		sq, _ := mdmSquares(m.metric, v)
		return sq
	}
}

// identitySquares returns, when a asks for class probabilities, the
// identity, for the values of a nearest's dist that are squared
// distances already; nil otherwise.
func identitySquares(a answer) func(v float64) float64 {
	if !a.probs {
		return nil
	}
	return func(v float64) float64 { return v }
}

// nearest ranks the classes of train for each test item by their nearest
// member under dist(worker, q, a) between test[q] and train[a], ties by
// label, on workers goroutines, and scores it by the distances of its two
// nearest classes (classify.NearestScores); with costs, each class's cost
// is its nearest member's distance; with square, the squared distance d²
// of a value of dist, the class probabilities are the softmax of −d² of
// the classes' nearest members, exp(−d_c²) / Σ_k exp(−d_k²). Only the
// nearest member of each class counts: dist's bound is the distance of
// train[a]'s class's nearest member so far, and dist may return, for a
// distance not below it, any value not below it (a distance cut short).
// Once ctx is cancelled it starts no more test items and returns
// ctx.Err().
func nearest(ctx context.Context, labels, train, test []int, workers int, costs bool, square func(v float64) float64, dist func(w, q, a int, bound float64) (float64, error)) (*classify.Outcome, error) {
	classes := classify.SortedKeys(classify.ByClass(labels, train))
	class := make([]int, len(train)) // position in classes of each training item
	for a, j := range train {
		class[a], _ = slices.BinarySearch(classes, labels[j])
	}
	out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test)), Scores: make([]classify.ItemScore, len(test))}
	if costs {
		out.Costs, out.CostClasses = make([][]float64, len(test)), classes
	}
	if square != nil {
		out.Probabilities, out.CostClasses = classify.Rows(len(test), len(classes)), classes
	}
	bests := make([][]float64, pool.Workers(workers))
	err := pool.ForCtx(ctx, len(test), workers, func(w, q int) error {
		best := bests[w]
		if best == nil {
			best = make([]float64, len(classes))
			bests[w] = best
		}
		for k := range best {
			best[k] = math.Inf(1)
		}
		for a := range train {
			v, err := dist(w, q, a, best[class[a]])
			if err != nil {
				return err
			}
			if v < best[class[a]] {
				best[class[a]] = v
			}
		}
		r, score := classify.RankCosts(classes, best)
		out.Scores[q] = score
		if costs {
			out.Costs[q] = slices.Clone(best)
		}
		if square != nil {
			p := out.Probabilities[q]
			for k, v := range best {
				p[k] = square(v)
			}
			softmaxNegTo(p, p)
		}
		out.Ranking[q], out.Pred[q] = r, r[0]
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
