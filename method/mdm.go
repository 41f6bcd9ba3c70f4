package method

import (
	"context"
	"fmt"
	"math"
	"slices"
	"weak"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/hashkey"
	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/spd"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// mdmParams are the parameters of method type mdm.
type mdmParams struct {
	// Metric names the mean and the distance: airm, log-euclidean,
	// stein, wasserstein or euclid, by spd.ParseMetric; default stein.
	Metric string `yaml:"metric" json:"metric" help:"the mean and distance: airm, log-euclidean, stein, wasserstein or euclid" default:"stein"`
}

// mdmTol is the tolerance of the iterative means (spd.MeanOptions.Tol):
// the Karcher mean's whitened gradient norm, the Stein mean's fixed-point
// residual, the Wasserstein mean's relative gradient, all free of the
// data's scale. It is looser than spd's default (1e-10), which float64
// cannot always reach at the sizes of face descriptors (d = 43).
const mdmTol = 1e-8

// mdm is minimum distance to the class means (Barachant, Bonnet, Congedo
// and Jutten, "Multiclass Brain–Computer Interface Classification by
// Riemannian Geometry", IEEE TBME 2012; pyRiemann's MDM): Fit computes the
// mean M_c of each training class c under the metric, and Predict labels
// an item X by its nearest mean, argmin_c d(X, M_c). The means and
// distances are
//
//	airm           M_c = argmin_M Σ_i d_g²(M, X_i), the Karcher mean
//	               (Pennec, Fillard and Ayache, IJCV 2006; spd.KarcherMean),
//	               d_g(X, M) = ‖log(X^{−1/2} M X^{−1/2})‖_F;
//	log-euclidean  M_c = exp((1/n_c) Σ_i log X_i), in closed form
//	               (Arsigny, Fillard, Pennec and Ayache, SIAM J. Matrix
//	               Anal. Appl. 2007; spd.LogEuclideanMean),
//	               d_LE(X, M) = ‖log X − log M‖_F;
//	stein          M_c = argmin_M Σ_i S(M, X_i), the Stein (S-) mean
//	               (Sra 2012; Cherian, Sra, Banerjee and Papanikolopoulos,
//	               IEEE PAMI 2013; spd.SteinMean), d(X, M) = √S(X, M) with
//	               S(X, M) = log det((X+M)/2) − ½ log det(XM);
//	wasserstein    M_c = argmin_M Σ_i d_BW²(M, X_i), the Bures–Wasserstein
//	               barycentre (Agueh and Carlier 2011; Álvarez-Esteban et
//	               al. 2016; spd.WassersteinMean),
//	               d_BW(X, M) = (tr X + tr M − 2 tr (X^{1/2} M X^{1/2})^{1/2})^{1/2};
//	euclid         M_c = (1/n_c) Σ_i X_i, the arithmetic mean
//	               (spd.ArithmeticMean), d(X, M) = ‖X − M‖_F,
//
// the sums over the n_c training items X_i of class c (pyRiemann's MDM
// with metric riemann, logeuclid, logdet, wasserstein and euclid). For stein the
// distance is √S, the metric of Sra 2012, as pyRiemann's MDM with metric
// "logdet" pairs distance_logdet (√S) with mean_logdet (the minimiser of
// Σ_i S, the same mean as spd.SteinMean's); it ranks as S does.
//
// Each class's cost is its distance d(X, M_c) (Outcome.Costs), so that
// region fusion and best take the method. The scores are pyRiemann's
// MDM.predict_proba, the softmax of −d² over the classes,
//
//	p_c(X) = exp(−d²(X, M_c)) / Σ_k exp(−d²(X, M_k)),
//
// computed as exp(−(d_c² − d_min²)) over their sum, which neither
// underflows for the nearest class nor overflows; for stein d² is S
// itself. An item's ItemScore holds p of the predicted class and of the
// second, and a NaN SCI. Classes rank by d² (for stein S), ties by label.
//
// An iterative mean that does not reach its tolerance (mdmTol) within
// spd's iteration cap is an error wrapping spd.ErrNoConvergence naming
// the class, as is a mean or distance of
// matrices that are not positive definite (spd.ErrNotSPD). The ridge of
// the descriptors is chosen among the training set's variants by
// cross-validation (classify.Choose), and the fitted state holds the
// class means, so that Load restores them without fitting again.
type mdm struct {
	memo classify.Memo[struct{}]
	// fits remembers the class means of recent training sets, which the
	// tasks that share one (FERET's four test poses) share.
	fits     once.Cache[trainKey, *mdmFit]
	metric   spd.Metric
	warnings []string
	p        mdmParams
}

func newMDM(n *yaml.Node) (classify.Method, error) {
	m := &mdm{fits: once.Cache[trainKey, *mdmFit]{Max: mdmFits}}
	if err := decode(n, &m.p, "mdm"); err != nil {
		return nil, err
	}
	var err error
	if m.metric, m.warnings, err = parseMetric(&m.p.Metric); err != nil {
		return nil, fmt.Errorf("metric: %w", err)
	}
	if spd.MeanOf(m.metric) != nil {
		return m, nil
	}
	return nil, fmt.Errorf("metric: %w: mdm has no mean for metric %v (want airm, log-euclidean, stein, wasserstein or euclid)", spd.ErrParameter, m.metric)
}

// Spec declares scores, class costs and class probabilities (the
// scores' softmax over every class); the method needs no pairwise
// quantities.
func (m *mdm) Spec() classify.Spec {
	return classify.Spec{Params: m.p, Candidates: 1, Warnings: m.warnings, Scores: true, Costs: true, Probabilities: true}
}

func (m *mdm) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	return fitRidge(ctx, t, &m.memo, func(d *classify.Data, train []int) (predictor, error) {
		return m.fits.Do(newTrainKey(d, train), func() (*mdmFit, error) {
			return m.fit(ctx, d, train, t.Workers)
		})
	})
}

// trainKey identifies a training set: its Data, held weakly, and items.
// Methods that remember what they compute of a training set (mdm's class
// means, tangent-space's reference and vectors) key it so, for the tasks
// that share one (FERET's four test poses).
type trainKey struct {
	data  weak.Pointer[classify.Data]
	train uint64
}

func newTrainKey(d *classify.Data, train []int) trainKey {
	return trainKey{weak.Make(d), hashkey.Ints(train)}
}

// mdmFits bounds the training sets whose means an mdm keeps.
const mdmFits = 4

// mdmFit is the class means of a fitted MDM: means holds the mean of
// class classes[c] at index c, and for the log-Euclidean metric logs its
// logarithm's vector (spd.LogVecTo), so that a query's distances need one
// logarithm, its own; for the AIRM targets holds the means factorised
// (spd.NewTarget), so that a query's distances factorise it once (its
// spd.Anchor) and no mean again.
type mdmFit struct {
	m       *mdm
	classes []int
	means   *spd.Set
	logs    [][]float64
	targets []*spd.Target
}

// withLogs returns f with the log-vectors of its means when its metric is
// the log-Euclidean one, and with its means as AIRM targets when it is
// the AIRM (none when a mean is refused as one: predict then takes
// spd.Workspace.Distance, which says why).
func (f *mdmFit) withLogs() (*mdmFit, error) {
	if f.m.metric == spd.AIRMMetric {
		targets := make([]*spd.Target, f.means.Len())
		for c := range targets {
			var err error
			if targets[c], err = spd.NewTarget(f.means.View(c)); err != nil {
				return f, nil
			}
		}
		f.targets = targets
	}
	if f.m.metric != spd.LogEuclideanMetric {
		return f, nil
	}
	d := f.means.Dim()
	w := spd.NewWorkspace(d)
	f.logs = make([][]float64, f.means.Len())
	for c := range f.logs {
		f.logs[c] = make([]float64, d*(d+1)/2)
		if err := w.LogVecTo(f.logs[c], f.means.View(c), nil); err != nil {
			return nil, fmt.Errorf("mdm: the mean of class %d: %w", f.classes[c], err)
		}
	}
	return f, nil
}

// fit computes the mean of each class of the items train of d, the
// classes on workers goroutines.
func (m *mdm) fit(ctx context.Context, d *classify.Data, train []int, workers int) (*mdmFit, error) {
	byClass := classify.ByClass(d.Labels, train)
	classes := classify.SortedKeys(byClass)
	dim := d.Set.Dim()
	data := make([]float64, len(classes)*dim*dim)
	err := pool.ForCtx(ctx, len(classes), workers, func(_, c int) error {
		mean, err := m.mean(ctx, d.Set, byClass[classes[c]])
		if err != nil {
			return fmt.Errorf("mdm: the %v mean of class %d: %w", m.metric, classes[c], err)
		}
		fullTo(data[c*dim*dim:(c+1)*dim*dim], mean)
		return nil
	})
	if err != nil {
		return nil, err
	}
	means, err := spd.NewSetFromData(dim, data)
	if err != nil {
		return nil, fmt.Errorf("mdm: class means: %w", err)
	}
	return (&mdmFit{m: m, classes: classes, means: means}).withLogs()
}

// fullTo writes the d×d symmetric x into dst row by row, both triangles,
// as spd.NewSetFromData and a state's arrays hold matrices.
func fullTo(dst []float64, x mat.Symmetric) {
	d := x.SymmetricDim()
	for i := range d {
		for j := range d {
			dst[i*d+j] = x.At(i, j)
		}
	}
}

// mean returns the mean of the matrices of set at the indices idx under
// m's metric, on one worker (fit runs the classes in parallel).
func (m *mdm) mean(ctx context.Context, set *spd.Set, idx []int) (*mat.SymDense, error) {
	return meanOfItems(ctx, m.metric, set, idx, 1)
}

// meanOfItems returns the mean under metric (spd.MeanOf) of the matrices
// of set at the indices idx, to mdmTol, on workers goroutines (0: all
// cores; the mean does not depend on it).
func meanOfItems(ctx context.Context, metric spd.Metric, set *spd.Set, idx []int, workers int) (*mat.SymDense, error) {
	xs := make([]*mat.SymDense, len(idx))
	for k, i := range idx {
		xs[k] = set.View(i)
	}
	mean, _, err := spd.MeanOf(metric)(ctx, xs, &spd.MeanOptions{Tol: mdmTol, Workers: workers})
	return mean, err
}

// mdmRecord is the record of a fitted MDM's state: the class labels of the
// means, in the order of the means array.
type mdmRecord struct {
	Classes []int `json:"classes"`
}

// meansArray is the array of an MDM's state that holds the class means,
// of shape (classes, d, d).
const meansArray = "means"

// save keeps the class means and their labels.
func (f *mdmFit) save(_ context.Context, st *classify.State) (any, error) {
	d := f.means.Dim()
	st.Put(meansArray, slices.Clone(f.means.Data()), f.means.Len(), d, d)
	return mdmRecord{Classes: f.classes}, nil
}

// Load restores the class means of st; it refuses a state whose classes
// are not those of t's training items or whose means are not of t's size.
func (m *mdm) Load(_ context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	return restore(st, func(r mdmRecord) (predictor, error) { return m.loadMeans(st, t, r) })
}

// loadMeans restores the class means of st whose record is r, refusing
// classes other than those of t's training items and means of another
// size.
func (m *mdm) loadMeans(st *classify.State, t *classify.Train, r mdmRecord) (*mdmFit, error) {
	want := classify.SortedKeys(classify.ByClass(t.Data.Labels, t.Items))
	if !slices.Equal(r.Classes, want) {
		return nil, fmt.Errorf("mdm: state has the means of classes %v; the training items have classes %v", r.Classes, want)
	}
	dim := t.Data.Set.Dim()
	data, err := st.Get(meansArray, len(r.Classes), dim, dim)
	if err != nil {
		return nil, err
	}
	means, err := spd.NewSetFromData(dim, slices.Clone(data))
	if err != nil {
		return nil, fmt.Errorf("state array %q: %w", meansArray, err)
	}
	return (&mdmFit{m: m, classes: r.Classes, means: means}).withLogs()
}

// predict labels each item of test by its nearest class mean.
func (f *mdmFit) predict(ctx context.Context, d *classify.Data, test []int, a answer) (*classify.Outcome, error) {
	k := len(f.classes)
	out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test)), Scores: make([]classify.ItemScore, len(test))}
	if a.costs {
		out.Costs, out.CostClasses = make([][]float64, len(test)), slices.Clone(f.classes)
	}
	if a.probs {
		out.Probabilities, out.CostClasses = classify.Rows(len(test), k), slices.Clone(f.classes)
	}
	ws := make([]*spd.Workspace, pool.Workers(a.workers))
	anchors := make([]*spd.Anchor, len(ws))
	batches := make([][]float64, len(ws)) // per worker, AIRMTargets' distances
	vecs, tmps := make([][]float64, len(ws)), make([]*mat.SymDense, len(ws))
	sqs, probs := make([][]float64, len(ws)), make([][]float64, len(ws)) // per worker, reused item after item
	dim := d.Set.Dim()
	// Under the Stein metric, the divergences to all the means in one
	// block, eight means at a time (spd.SteinBlockTo: one Cholesky
	// factorisation an entry, the log-determinants cached), bit for bit
	// Distance's; on an error the loop below takes each in turn and names
	// what is wrong.
	var stein *mat.Dense
	if f.m.metric == spd.SteinMetric && len(test) > 0 {
		stein = mat.NewDense(len(test), k, nil)
		if spd.SteinBlockTo(ctx, stein, d.Set, test, f.means, classify.Seq(0, k), &spd.GramOptions{Workers: a.workers}) != nil {
			stein = nil
		}
	}
	err := pool.ForCtx(ctx, len(test), a.workers, func(w, q int) error {
		if ws[w] == nil {
			ws[w], vecs[w], tmps[w] = spd.NewWorkspace(dim), make([]float64, dim*(dim+1)/2), mat.NewSymDense(dim, nil)
			sqs[w], probs[w] = make([]float64, k), make([]float64, k)
		}
		x := d.Set.View(test[q])
		// The query's factor, once for all the means; a query the anchor
		// refuses takes Distance, which names what is wrong with it.
		var anchor *spd.Anchor
		if f.targets != nil {
			if anchors[w] == nil {
				anchors[w], _ = spd.NewAnchor(x)
			}
			if anchors[w] != nil && anchors[w].Reset(x) {
				anchor = anchors[w]
			}
		}
		if f.logs != nil {
			if err := ws[w].LogVecTo(vecs[w], x, tmps[w]); err != nil {
				return fmt.Errorf("mdm: item %d: %w", test[q], err)
			}
		}
		sq := sqs[w]
		var dist []float64 // the item's costs, kept in the outcome
		if a.costs {
			dist = make([]float64, k)
		}
		// The distances to all the means at once, eight at a time, bit for
		// bit AIRMTarget's; on an error the loop below takes each in turn
		// and names what is wrong.
		var batch []float64
		if anchor != nil && f.logs == nil {
			if batches[w] == nil {
				batches[w] = make([]float64, k)
			}
			if anchor.AIRMTargets(batches[w], f.targets) == nil {
				batch = batches[w]
			}
		}
		for c := range k {
			if f.logs != nil {
				// ‖log X − log M_c‖_F, the Euclidean distance of the
				// log-vectors.
				var s float64
				for i, u := range vecs[w] {
					s += (u - f.logs[c][i]) * (u - f.logs[c][i])
				}
				sq[c] = s
				if dist != nil {
					dist[c] = math.Sqrt(s)
				}
				continue
			}
			var v float64
			var err error
			if stein != nil {
				v = stein.At(q, c)
			} else if batch != nil {
				v = batch[c]
			} else if anchor != nil {
				v, err = anchor.AIRMTarget(f.targets[c]) // bit for bit Distance's
			}
			if stein == nil && (anchor == nil || err != nil) {
				v, err = ws[w].Distance(f.m.metric, x, f.means.View(c))
			}
			if err != nil {
				return fmt.Errorf("mdm: item %d, class %d: %w", test[q], f.classes[c], err)
			}
			var dc float64
			sq[c], dc = mdmSquares(f.m.metric, v)
			if dist != nil {
				dist[c] = dc
			}
		}
		r, _ := classify.RankCosts(f.classes, sq)
		out.Ranking[q], out.Pred[q] = r, r[0]
		p := probs[w]
		if out.Probabilities != nil {
			p = out.Probabilities[q]
		}
		out.Scores[q] = classify.RankedScore(r, f.classes, softmaxNegTo(p, sq), math.NaN())
		if a.costs {
			out.Costs[q] = dist
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// mdmSquares returns the squared distance d² and the distance d of the
// value v that spd.Workspace.Distance gives for metric: the Stein
// divergence S for stein (d² = S, d = √S), the distance itself otherwise.
func mdmSquares(metric spd.Metric, v float64) (sq, dist float64) {
	if metric == spd.SteinMetric {
		return v, math.Sqrt(v)
	}
	return v * v, v
}

// softmaxNegTo writes into p, of len(sq), and returns the softmax of
// −sq, exp(−(sq_c − min sq)) over their sum.
func softmaxNegTo(p, sq []float64) []float64 {
	lo := slices.Min(sq)
	var sum float64
	for c, v := range sq {
		p[c] = math.Exp(-(v - lo))
		sum += p[c]
	}
	for c := range p {
		p[c] /= sum
	}
	return p
}
