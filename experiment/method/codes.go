package method

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/covpipe/covpipe/experiment/classify"
	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// codesParams are the parameters of method type codes.
type codesParams struct {
	// Dictionary is how the atoms are made from the split's learning
	// items (classify.Dictionary): random (Atoms random items), kmeans
	// (Riemannian k-means centroids) or learned (the paper's Algorithm 1,
	// rsr.FitDictionary).
	Dictionary string `yaml:"dictionary" json:"dictionary"`
	// Sigma is the Stein kernel's σ (Eqn. 5) for coding and learning.
	Sigma float64 `yaml:"sigma" json:"sigma"`
	// Lambda or LambdaRatio is the sparsity weight of the codes.
	Lambda      float64 `yaml:"lambda,omitempty" json:"lambda,omitempty"`
	LambdaRatio float64 `yaml:"lambda_ratio,omitempty" json:"lambda_ratio,omitempty"`
	// KMeans is the metric of k-means (for kmeans, and for learned with
	// init kmeans), by its spd.ParseMetric name: airm (Karcher-mean
	// centroids, the paper's choice) or stein (Stein-mean centroids,
	// several times faster). Default airm.
	KMeans string `yaml:"kmeans,omitempty" json:"kmeans,omitempty"`
	// Init is how learned starts: random or kmeans (default random).
	Init string `yaml:"init,omitempty" json:"init,omitempty"`
	// Iters bounds Algorithm 1's iterations (default 10).
	Iters int `yaml:"iters,omitempty" json:"iters,omitempty"`
	// KeepScale skips Algorithm 1's atom normalisation.
	KeepScale bool `yaml:"keep_scale,omitempty" json:"keep_scale,omitempty"`
	// Distance compares codes: euclidean (default) or cosine.
	Distance string `yaml:"distance,omitempty" json:"distance,omitempty"`
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
	metric spd.Metric
	init   rsr.InitMethod
	cosine bool
}

func newCodes(n *yaml.Node) (classify.Method, error) {
	m := &codes{}
	if err := decode(n, &m.p, "codes"); err != nil {
		return nil, err
	}
	p := &m.p
	switch p.Dictionary {
	case "random", "kmeans", "learned":
	case "":
		return nil, errors.New("dictionary is required: random, kmeans or learned")
	default:
		return nil, fmt.Errorf("dictionary %q: want random, kmeans or learned", p.Dictionary)
	}
	if p.Sigma == 0 {
		return nil, errors.New("sigma is required (> 0; Theorem 1 is checked against d)")
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
func nonZero(v float64) classify.Floats {
	if v == 0 {
		return nil
	}
	return classify.Floats{v}
}

// Spec declares the σ check against Theorem 1, the need for a dictionary
// split and the energy tracer.
func (m *codes) Spec() classify.Spec {
	return classify.Spec{Params: m.p, Candidates: 1, CheckDim: m.kernel.Check, Dictionary: true, Energy: m, Scores: true}
}

func (m *codes) Classify(ctx context.Context, s *classify.Split) (*classify.Outcome, error) {
	d, dict := s.Data, s.Dictionary
	if dict == nil || len(dict.Learn) == 0 || dict.Atoms < 1 {
		return nil, errors.New("method type codes needs a split with items to learn a dictionary from and its size (a dictionary task)")
	}
	atoms, err := m.dictionary(ctx, d.Set.Subset(dict.Learn), dict.Atoms, s.Seed, s.Workers)
	if err != nil {
		return nil, fmt.Errorf("%s dictionary: %w", m.p.Dictionary, err)
	}
	gallery, _, err := rsr.Encode(ctx, d.Set.Subset(s.Train), atoms, m.kernel, m.lassoOn(s.Workers))
	if err != nil {
		return nil, fmt.Errorf("gallery codes: %w", err)
	}
	probes, certs, err := rsr.Encode(ctx, d.Set.Subset(s.Test), atoms, m.kernel, m.lassoOn(s.Workers))
	if err != nil {
		return nil, fmt.Errorf("probe codes: %w", err)
	}
	out, err := m.nearest(ctx, gallery, probes, classify.Pick(d.Labels, s.Train), s.Workers)
	if err != nil {
		return nil, err
	}
	for _, c := range certs {
		out.Lambdas = append(out.Lambdas, c.Lambda)
		if c.NonZeros == 0 {
			out.Degenerate++
		}
	}
	out.Params = map[string]float64{"atoms": float64(dict.Atoms), "sigma": m.p.Sigma, "ridge": d.Ridge}
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
	case "kmeans":
		km, err := spd.KMeans(ctx, learn, spd.KMeansOptions{K: n, Metric: m.metric, Seed: seed, Workers: workers})
		if err != nil {
			return nil, err
		}
		return spd.NewSet(km.Centroids)
	}
	o := rsr.DictionaryOptions{Atoms: n, Kernel: m.kernel, Lasso: m.lasso, Iters: m.p.Iters, Init: m.init,
		KMeansMetric: m.metric, Seed: seed, Workers: workers, KeepScale: m.p.KeepScale}
	dict, err := rsr.FitDictionary(ctx, learn, o)
	if err != nil {
		return nil, err
	}
	return dict.Atoms, nil
}

// nearest labels each probe code by its nearest gallery code (squared
// Euclidean distance; cosine distance orders as it does on unit rows).
func (m *codes) nearest(ctx context.Context, gallery, probes *mat.Dense, labels []int, workers int) (*classify.Outcome, error) {
	if m.cosine {
		normalizeRows(gallery)
		normalizeRows(probes)
	}
	n, _ := probes.Dims()
	return nearest(ctx, labels, classify.Seq(0, len(labels)), classify.Seq(0, n), workers, false, func(_, q, a int) (float64, error) {
		p, g := probes.RawRowView(q), gallery.RawRowView(a)
		var dist float64
		for i, x := range p {
			dist += (x - g[i]) * (x - g[i])
		}
		return dist, nil
	})
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
		o := rsr.DictionaryOptions{Atoms: n, Kernel: m.kernel, Lasso: m.lasso, Iters: iters, Init: m.init,
			KMeansMetric: m.metric, Seed: seed, Workers: workers, KeepScale: m.p.KeepScale}
		dict, err := rsr.FitDictionary(ctx, train, o)
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
