package method

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/param"
	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// codesParams are the parameters of method type codes.
type codesParams struct {
	// Dictionary is how the atoms are made from the split's learning
	// items (classify.Dictionary): random (Atoms random items),
	// random-spd (random SPD matrices of the items' spectrum,
	// rsr.RandomSPDAtoms), wishart (Wishart matrices of mean I, blind to
	// the items, rsr.WishartAtoms), kmeans (Riemannian k-means centroids)
	// or learned (the paper's Algorithm 1, rsr.FitDictionary).
	Dictionary string `yaml:"dictionary" json:"dictionary" help:"how the atoms are made: random, random-spd, wishart, kmeans or learned (Algorithm 1)"`
	// Sigma is the Stein kernel's σ (Eqn. 5) for coding and learning.
	Sigma float64 `yaml:"sigma" json:"sigma" help:"the Stein kernel's σ for coding and learning (Theorem 1)"`
	// Lambda or LambdaRatio is the sparsity weight of the codes.
	Lambda      float64 `yaml:"lambda,omitempty" json:"lambda,omitempty" help:"the codes' sparsity weight λ on the paper's scale"`
	LambdaRatio float64 `yaml:"lambda_ratio,omitempty" json:"lambda_ratio,omitempty" help:"the codes' sparsity weight relative to each item, in (0, 1), instead of lambda"`
	// KMeans is the metric of k-means (for kmeans, and for learned with
	// init kmeans), by its spd.ParseMetric name: airm (Karcher-mean
	// centroids, the paper's choice) or stein (Stein-mean centroids,
	// several times faster). Default airm.
	KMeans string `yaml:"kmeans,omitempty" json:"kmeans,omitempty" help:"the metric of k-means: airm (Karcher means) or stein" default:"airm"`
	// Init is how learned starts: random, kmeans, random-spd or wishart
	// (default random).
	Init string `yaml:"init,omitempty" json:"init,omitempty" help:"how learned starts: random, kmeans, random-spd or wishart" default:"random"`
	// Iters bounds Algorithm 1's iterations (default 10).
	Iters int `yaml:"iters,omitempty" json:"iters,omitempty" help:"the bound on Algorithm 1's iterations" default:"10"`
	// KeepScale skips Algorithm 1's atom normalisation.
	KeepScale bool `yaml:"keep_scale,omitempty" json:"keep_scale,omitempty" help:"skip Algorithm 1's atom normalisation"`
	// LearnLambda or LearnLambdaRatio, when given, is the sparsity weight
	// of Algorithm 1's own codes, while learning; the dictionary's probes
	// and gallery are coded with Lambda or LambdaRatio all the same.
	// Default: the coding weight.
	LearnLambda      float64 `yaml:"learn_lambda,omitempty" json:"learn_lambda,omitempty" help:"the sparsity weight λ of Algorithm 1's own codes" default:"the coding weight"`
	LearnLambdaRatio float64 `yaml:"learn_lambda_ratio,omitempty" json:"learn_lambda_ratio,omitempty" help:"the relative sparsity weight of Algorithm 1's own codes" default:"the coding weight"`
	// Update is Algorithm 1's atom update: fixed-point (default, the
	// paper's) or riemannian (a Riemannian gradient step with Armijo's
	// line search, rsr.RiemannianGradient).
	Update string `yaml:"update,omitempty" json:"update,omitempty" help:"Algorithm 1's atom update: fixed-point or riemannian" default:"fixed-point"`
	// Distance compares codes: euclidean (default) or cosine.
	Distance string `yaml:"distance,omitempty" json:"distance,omitempty" help:"the distance of codes: euclidean or cosine" default:"euclidean"`
}

// codes classifies by sparse codes as features (the paper's Section 3.2
// (ii) and Table 3): a dictionary is made from the unlabelled items of the
// split's Dictionary part, probes (Test) and the labelled gallery (Train)
// are coded against it by the kernel Lasso, and each probe takes the
// label of its nearest gallery code; classes rank by their nearest
// member. It also traces its dictionary's energy (classify.EnergyTracer).
type codes struct {
	p      codesParams
	kernel spd.SteinKernel
	lasso  rsr.LassoOptions
	// learnLasso codes while learning (Algorithm 1), update is its atom
	// update.
	learnLasso rsr.LassoOptions
	update     rsr.AtomUpdate
	metric     spd.Metric
	init       rsr.InitMethod
	cosine     bool
}

func newCodes(n *yaml.Node) (classify.Method, error) {
	m := &codes{}
	if err := decode(n, &m.p, "codes"); err != nil {
		return nil, err
	}
	p := &m.p
	var missing param.Missing
	if p.Dictionary == "" {
		missing.Add("dictionary")
	}
	if p.Sigma == 0 {
		missing.Add("sigma")
	}
	if p.Lambda == 0 && p.LambdaRatio == 0 {
		missing.Add("lambda", "lambda_ratio")
	}
	if err := missing.Err(); err != nil {
		return nil, err
	}
	switch p.Dictionary {
	case "random", "random-spd", "wishart", "kmeans", "learned":
	default:
		return nil, fmt.Errorf("dictionary %q: want random, random-spd, wishart, kmeans or learned", p.Dictionary)
	}
	if err := spd.CheckSigma(p.Sigma); err != nil {
		return nil, fmt.Errorf("sigma: %w", err)
	}
	m.kernel = spd.SteinKernel{Sigma: p.Sigma}
	ws, err := weights(nonZero(p.Lambda), nonZero(p.LambdaRatio))
	if err != nil {
		return nil, err
	}
	m.lasso = ws[0].set(rsr.ClassifierOptions{}).Lasso
	m.learnLasso = m.lasso
	if p.LearnLambda != 0 && p.LearnLambdaRatio != 0 {
		return nil, errors.New("give learn_lambda or learn_lambda_ratio, not both")
	}
	if p.LearnLambda != 0 || p.LearnLambdaRatio != 0 {
		// The errors name lambda or lambda_ratio: learn_ prefixes them.
		lw, err := weights(nonZero(p.LearnLambda), nonZero(p.LearnLambdaRatio))
		if err != nil {
			return nil, fmt.Errorf("learn_%w", err)
		}
		m.learnLasso = lw[0].set(rsr.ClassifierOptions{}).Lasso
	}
	if p.Update == "" {
		p.Update = rsr.FixedPoint.String()
	}
	if m.update, err = rsr.ParseAtomUpdate(p.Update); err != nil {
		return nil, err
	}
	if p.KMeans == "" {
		p.KMeans = spd.AIRMMetric.String()
	}
	m.metric, err = spd.ParseMetric(p.KMeans)
	if err != nil || m.metric != spd.AIRMMetric && m.metric != spd.SteinMetric {
		return nil, fmt.Errorf("kmeans %q: want airm or stein", p.KMeans)
	}
	p.KMeans = m.metric.String()
	if p.Init == "" {
		p.Init = "random"
	}
	if m.init, err = rsr.ParseInitMethod(p.Init); err != nil {
		return nil, err
	}
	if p.Iters == 0 {
		p.Iters = 10
	}
	if p.Iters < 0 {
		return nil, fmt.Errorf("iters = %d, want >= 1", p.Iters)
	}
	switch p.Distance {
	case "", "euclidean":
	case "cosine":
		m.cosine = true
	default:
		return nil, fmt.Errorf("distance %q: want euclidean or cosine", p.Distance)
	}
	return m, nil
}

// nonZero returns v as a list of candidates, none for 0 (not given).
func nonZero(v float64) param.Floats {
	if v == 0 {
		return nil
	}
	return param.Floats{v}
}

// Spec declares the σ check against Theorem 1, the need for a dictionary
// split, the energy tracer and class probabilities (predict).
func (m *codes) Spec() classify.Spec {
	return classify.Spec{Params: m.p, Candidates: 1, CheckDim: m.kernel.Check, Dictionary: true, Energy: m, Scores: true, Probabilities: true}
}

func (m *codes) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	d, dict := t.Data, t.Dictionary
	if dict == nil || len(dict.Learn) == 0 || dict.Atoms < 1 {
		return nil, errors.New("method type codes needs a split with items to learn a dictionary from and its size (a dictionary task)")
	}
	atoms, err := m.dictionary(ctx, d.Set.Subset(dict.Learn), dict.Atoms, t.Seed, t.Workers)
	if err != nil {
		return nil, fmt.Errorf("%s dictionary: %w", m.p.Dictionary, err)
	}
	gallery, _, err := rsr.Encode(ctx, d.Set.Subset(t.Items), atoms, m.kernel, m.lassoOn(t.Workers))
	if err != nil {
		return nil, fmt.Errorf("gallery codes: %w", err)
	}
	if m.cosine {
		normalizeRows(gallery)
	}
	f := &codesFit{m: m, atoms: atoms, gallery: gallery, labels: classify.Pick(d.Labels, t.Items)}
	return transforming(&fitted{p: f, chosen: map[string]float64{"atoms": float64(dict.Atoms), "sigma": m.p.Sigma, "ridge": d.Ridge}}), nil
}

// codesFit is a dictionary and the codes of the training items against
// it (unit rows with the cosine distance), with their labels.
type codesFit struct {
	m       *codes
	atoms   *spd.Set
	gallery *mat.Dense
	labels  []int
}

// Arrays of a codes method's saved state.
const (
	atomsArray   = "atoms"
	galleryArray = "gallery"
)

// save keeps the atoms and the training items' codes.
func (f *codesFit) save(_ context.Context, st *classify.State) (any, error) {
	n, d := f.atoms.Len(), f.atoms.Dim()
	rows, _ := f.gallery.Dims()
	st.Put(atomsArray, f.atoms.Data(), n, d, d)
	st.Put(galleryArray, f.gallery.RawMatrix().Data, rows, n)
	return nil, nil
}

func (m *codes) Load(_ context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	return restore(st, func(struct{}) (predictor, error) {
		shape := st.Shape(atomsArray)
		if len(shape) != 3 {
			return nil, fmt.Errorf("state array %q has shape %v, want (atoms, d, d)", atomsArray, shape)
		}
		data, err := st.Get(atomsArray, shape...)
		if err != nil {
			return nil, err
		}
		atoms, err := spd.NewSetFromData(shape[1], data)
		if err != nil {
			return nil, fmt.Errorf("state array %q: %w", atomsArray, err)
		}
		n := atoms.Len()
		codes, err := st.Get(galleryArray, len(t.Items), n)
		if err != nil {
			return nil, err
		}
		return &codesFit{m: m, atoms: atoms, gallery: mat.NewDense(len(t.Items), n, codes), labels: classify.Pick(t.Data.Labels, t.Items)}, nil
	})
}

// transform gives the sparse codes of the items against the atoms, as
// the method compares them (unit rows with the cosine distance).
func (f *codesFit) transform(ctx context.Context, d *classify.Data, items []int, workers int) (*mat.Dense, error) {
	codes, _, err := f.encode(ctx, d, items, workers)
	return codes, err
}

// encode codes the items against the atoms (unit rows with the cosine
// distance), with each code's certificate.
func (f *codesFit) encode(ctx context.Context, d *classify.Data, items []int, workers int) (*mat.Dense, []rsr.Certificate, error) {
	codes, certs, err := rsr.Encode(ctx, d.Set.Subset(items), f.atoms, f.m.kernel, f.m.lassoOn(workers))
	if err != nil {
		return nil, nil, fmt.Errorf("probe codes: %w", err)
	}
	if f.m.cosine {
		normalizeRows(codes)
	}
	return codes, certs, nil
}

// predict codes the items of test and labels each by its nearest gallery
// code (squared Euclidean distance; cosine distance orders as it does on
// unit rows, 2(1 − cos)); the class probabilities are the softmax of
// minus the squared distances of the classes' nearest gallery codes.
func (f *codesFit) predict(ctx context.Context, d *classify.Data, test []int, a answer) (*classify.Outcome, error) {
	probes, certs, err := f.encode(ctx, d, test, a.workers)
	if err != nil {
		return nil, err
	}
	n, _ := probes.Dims()
	out, err := nearest(ctx, f.labels, classify.Seq(0, len(f.labels)), classify.Seq(0, n), a.workers, false, identitySquares(a), func(_, q, j int, _ float64) (float64, error) {
		p, g := probes.RawRowView(q), f.gallery.RawRowView(j)
		var dist float64
		for i, x := range p {
			dist += (x - g[i]) * (x - g[i])
		}
		return dist, nil
	})
	if err != nil {
		return nil, err
	}
	for _, c := range certs {
		out.Lambdas = append(out.Lambdas, c.Lambda)
		if c.NonZeros == 0 {
			out.Degenerate++
		}
	}
	return out, nil
}

// lassoOn returns the method's Lasso options on workers goroutines.
func (m *codes) lassoOn(workers int) rsr.LassoOptions {
	o := m.lasso
	o.Workers = workers
	return o
}

// dictionary makes n atoms from the learning set.
func (m *codes) dictionary(ctx context.Context, learn *spd.Set, n int, seed uint64, workers int) (*spd.Set, error) {
	switch m.p.Dictionary {
	case "random":
		rng := rand.New(rand.NewPCG(seed, 0x52414e44)) // "RAND"
		idx := rng.Perm(learn.Len())[:n]
		return learn.Subset(idx), nil
	case "random-spd":
		return rsr.RandomSPDAtoms(learn, n, seed)
	case "wishart":
		return rsr.WishartAtoms(learn.Dim(), n, seed)
	case "kmeans":
		km, err := spd.KMeans(ctx, learn, spd.KMeansOptions{K: n, Metric: m.metric, Seed: seed, Workers: workers})
		if err != nil {
			return nil, err
		}
		return spd.NewSet(km.Centroids)
	}
	dict, err := rsr.FitDictionary(ctx, learn, m.learning(n, m.p.Iters, seed, workers))
	if err != nil {
		return nil, err
	}
	return dict.Atoms, nil
}

// learning returns the options of Algorithm 1 for n atoms, iters
// iterations.
func (m *codes) learning(n, iters int, seed uint64, workers int) rsr.DictionaryOptions {
	return rsr.DictionaryOptions{Atoms: n, Kernel: m.kernel, Lasso: m.learnLasso, Iters: iters, Init: m.init,
		KMeansMetric: m.metric, Seed: seed, Workers: workers, KeepScale: m.p.KeepScale, Update: m.update}
}

// normalizeRows scales each row to unit length (zero rows stay zero), so
// that Euclidean distances order as cosine distances.
func normalizeRows(a *mat.Dense) {
	r, _ := a.Dims()
	for i := range r {
		row := a.RawRowView(i)
		var ss float64
		for _, x := range row {
			ss += x * x
		}
		if ss > 0 {
			inv := 1 / math.Sqrt(ss)
			for j := range row {
				row[j] *= inv
			}
		}
	}
}

// Energy returns J of Eqn. 10 for the dictionary atoms over train: the
// summed optimal objectives of the codes of train against atoms.
func (m *codes) Energy(ctx context.Context, train, atoms *spd.Set, workers int) (float64, error) {
	_, certs, err := rsr.Encode(ctx, train, atoms, m.kernel, m.lassoOn(workers))
	if err != nil {
		return 0, err
	}
	var j float64
	for _, c := range certs {
		j += c.Objective
	}
	return j, nil
}

// Curve returns J (Eqn. 10) over train of the method's dictionary of n
// atoms after 0, 1, ..., iters iterations of its construction (the
// paper's Fig. 7): Algorithm 1's energy after each coding step for
// learned, the energy of the k-means centroids after each Lloyd iteration
// for kmeans, and a constant for random.
func (m *codes) Curve(ctx context.Context, train *spd.Set, n, iters int, seed uint64, workers int) ([]float64, error) {
	switch m.p.Dictionary {
	case "learned":
		dict, err := rsr.FitDictionary(ctx, train, m.learning(n, iters, seed, workers))
		if err != nil {
			return nil, err
		}
		var out []float64
		for _, it := range dict.History {
			out = append(out, it.J)
		}
		return append(out, dict.J), nil
	case "kmeans":
		var out []float64
		trace := func(t int, centroids []*mat.SymDense) error {
			if t > iters {
				return nil
			}
			atoms, err := spd.NewSet(centroids)
			if err != nil {
				return err
			}
			j, err := m.Energy(ctx, train, atoms, workers)
			out = append(out, j)
			return err
		}
		if _, err := spd.KMeans(ctx, train, spd.KMeansOptions{K: n, Metric: m.metric, Seed: seed, Workers: workers, MaxIter: iters, OnIteration: trace}); err != nil {
			return nil, err
		}
		for len(out) < iters+1 { // converged early: the centroids stay
			out = append(out, out[len(out)-1])
		}
		return out, nil
	}
	atoms, err := m.dictionary(ctx, train, n, seed, workers)
	if err != nil {
		return nil, err
	}
	j, err := m.Energy(ctx, train, atoms, workers)
	if err != nil {
		return nil, err
	}
	out := make([]float64, iters+1)
	for i := range out {
		out[i] = j
	}
	return out, nil
}
