package method

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/covpipe/covpipe/experiment/classify"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/rsr"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// pcaParams are the parameters of method types pca-src and gsr.
type pcaParams struct {
	// Dims is the PCA dimension (default 100), reduced to the training
	// set's rank when it is larger.
	Dims int `yaml:"dims,omitempty" json:"dims,omitempty"`
	// Step samples the vector's planes every Step pixels (pca-src default
	// 1, gsr default 4: Yang and Zhang's downsampling of the Gabor
	// magnitudes).
	Step int `yaml:"step,omitempty" json:"step,omitempty"`
	// Normalise is none (the default) or plane: plane scales each
	// plane's samples in each vector to zero mean and unit variance (Liu
	// and Wechsler's augmented Gabor feature vector, IEEE TIP 2002, on
	// which Yang and Zhang build). On FERET 32×32 it costs GSR 5.6 points
	// (docs/results.md), so gsr does not default to it.
	Normalise string `yaml:"normalise,omitempty" json:"normalise,omitempty"`
	sparse    `yaml:",inline"`
}

// pcaSRC is sparse representation classification (Wright et al., PAMI
// 2009) of per-image feature vectors: PCA fitted on the training items
// only, projections normalised to unit length (SRC's column
// normalisation), a Euclidean Lasso on their linear Gram matrix (rsr's
// solver), class residuals. pca-src takes the pixel intensities (the
// paper's PCA-SR column of Table 2); gsr the 40 Gabor magnitude planes
// downsampled (Yang and Zhang, ECCV 2010, without the occlusion
// dictionary their method adds for occluded faces, which Table 2's
// protocol does not need).
type pcaSRC struct {
	memo    classify.Memo[weight]
	blocks  classify.Scratch // kernel blocks of the method's runs (src)
	cands   []weight
	opts    rsr.ClassifierOptions // without the weight, which cands hold
	vectors classify.VectorRequest
	planes  int // planes per vector
	p       pcaParams
	grams   classify.Once[gramKey, gramFit]
}

// gramKey identifies a PCA fit: the data and the training set. The
// sparsity candidates of a cross-validation fold, and tasks sharing a
// training set, share one fit through a classify.Once of gramCacheSize
// entries (a fold per cross-validation fold and the final training set,
// with room for repeats run in parallel).
type gramKey struct {
	data  *classify.Data
	train uint64
}

type gramFit struct {
	g    classify.Pairs
	dims int
}

const gramCacheSize = 8

func newPCASRC(n *yaml.Node) (classify.Method, error) { return newPCA(n, "pca-src", "I", 1, "none") }

func newGSR(n *yaml.Node) (classify.Method, error) { return newPCA(n, "gsr", "gabor", 4, "none") }

func newPCA(n *yaml.Node, typ, spec string, step int, normalise string) (classify.Method, error) {
	m := &pcaSRC{}
	m.grams.Max = gramCacheSize
	if err := decode(n, &m.p, typ); err != nil {
		return nil, err
	}
	if m.p.Dims == 0 {
		m.p.Dims = 100
	}
	if m.p.Step == 0 {
		m.p.Step = step
	}
	switch m.p.Normalise {
	case "":
		m.p.Normalise = normalise
	case "none", "plane":
	default:
		return nil, fmt.Errorf("normalise = %q, want none or plane", m.p.Normalise)
	}
	set, err := features.Parse(spec)
	if err != nil {
		return nil, err
	}
	m.planes = set.Dim()
	if m.p.Dims < 1 || m.p.Step < 1 {
		return nil, fmt.Errorf("dims = %d and step = %d must be >= 1", m.p.Dims, m.p.Step)
	}
	sc, err := m.p.resolve()
	if err != nil {
		return nil, err
	}
	m.opts, m.cands = sc.opts, sc.weights
	m.vectors = classify.VectorRequest{Features: spec, Step: m.p.Step}
	return m, nil
}

// Spec declares the sparsity candidates and asks for the method's
// vectors.
func (m *pcaSRC) Spec() classify.Spec {
	return classify.Spec{Params: m.p, Candidates: len(m.cands), Vectors: m.vectors, Scores: true}
}

func (m *pcaSRC) Classify(ctx context.Context, s *classify.Split) (*classify.Outcome, error) {
	if len(m.cands) > 1 {
		// The fit on the whole training set is only needed after
		// cross-validation, whose runs fit the folds; starting it now lets
		// its serial eigendecomposition overlap them.
		// Classify waits for it, so that no work outlives the call.
		var wg sync.WaitGroup
		defer wg.Wait()
		for _, d := range s.AllVariants() {
			wg.Go(func() { m.fit(ctx, d, s.Train) }) // an error surfaces in the later call
		}
	}
	// Each run records the PCA dimensions it used; Select returns the
	// chosen candidate's run. (Validation runs go in parallel: they must
	// not share a variable.)
	o, c, d, err := classify.Select(ctx, s, m.cands, &m.memo, func(d *classify.Data, train, test []int, w weight) (*classify.Outcome, error) {
		fit, err := m.fit(ctx, d, train)
		if err != nil {
			return nil, err
		}
		o, err := src(ctx, fit.g, classify.Identity, d.Labels, train, test, w.set(m.opts), s.Workers, &m.blocks)
		if err != nil {
			return nil, err
		}
		o.Params = map[string]float64{"dims": float64(fit.dims)}
		return o, nil
	})
	if err != nil {
		return nil, err
	}
	o.Params[c.Params.key()] = c.Params.value
	o.Params["ridge"] = d.Ridge
	return o, nil
}

// fit returns the PCA fit on the training items train of d's vectors,
// computed once per training set (grams); a fit that ctx cancelled is not
// kept.
func (m *pcaSRC) fit(ctx context.Context, d *classify.Data, train []int) (gramFit, error) {
	return m.grams.Do(gramKey{d, classify.HashInts(train)}, func() (gramFit, error) {
		x := d.Vectors[m.vectors]
		if x == nil {
			return gramFit{}, fmt.Errorf("no feature vectors (%v): the protocol's data stage does not make them (an image dataset with regions: whole is needed)", m.vectors)
		}
		v := x
		if m.p.Normalise == "plane" {
			var err error
			if v, err = normalisePlanes(x, m.planes); err != nil {
				return gramFit{}, err
			}
		}
		g, dims, err := pcaGram(ctx, v, train, m.p.Dims)
		return gramFit{g, dims}, err
	})
}

// normalisePlanes returns a copy of x whose rows are each made of planes
// equal blocks, every block scaled to zero mean and unit variance (a
// constant block to zeros). It depends on each row alone, so it uses no
// test information.
func normalisePlanes(x *mat.Dense, planes int) (*mat.Dense, error) {
	n, m := x.Dims()
	if planes < 1 || m%planes != 0 {
		return nil, fmt.Errorf("vectors of %d values do not split into %d planes", m, planes)
	}
	size := m / planes
	out := mat.NewDense(n, m, nil)
	for i := range n {
		row := out.RawRowView(i)
		copy(row, x.RawRowView(i))
		for p := range planes {
			b := row[p*size : (p+1)*size]
			mean, std := stat.PopMeanStdDev(b, nil)
			if !(std > 0) {
				std = math.Inf(1)
			}
			for k, v := range b {
				b[k] = (v - mean) / std
			}
		}
	}
	return out, nil
}

// pcaGram fits PCA on the rows train of x (centred on their mean), keeps
// the leading dims components (fewer when the training rank is lower),
// projects every row, scales each projection to unit length and returns
// their linear kernel (classify.LinearPairs), with the number of
// components kept.
//
// The fit is dual PCA (Turk and Pentland's eigenfaces trick): with n_t
// training rows of m > n_t values, the components are V = X_cᵀ U Σ⁻¹ for
// the eigenpairs (U, Σ²) of the n_t×n_t Gram matrix X_c X_cᵀ, which costs
// O(n_t² m) against the O(n_t m²) of the thin SVD of X_c. Components
// whose variance is below 1e-14 of the largest are dropped: the Gram
// matrix resolves no smaller ones. It looks at ctx between its stages
// (the Gram matrix, its eigendecomposition, the projections) and returns
// an error wrapping ctx.Err() once it is cancelled.
func pcaGram(ctx context.Context, x *mat.Dense, train []int, dims int) (classify.Pairs, int, error) {
	n, m := x.Dims()
	nt := len(train)
	mean := make([]float64, m)
	for _, i := range train {
		for j, v := range x.RawRowView(i) {
			mean[j] += v / float64(nt)
		}
	}
	centred := mat.NewDense(n, m, nil)
	for i := range n {
		row := centred.RawRowView(i)
		for j, val := range x.RawRowView(i) {
			row[j] = val - mean[j]
		}
	}
	xt := mat.NewDense(nt, m, nil)
	for a, i := range train {
		copy(xt.RawRowView(a), centred.RawRowView(i))
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	gt := mat.NewSymDense(nt, nil)
	gt.SymOuterK(1, xt)
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	var eig mat.EigenSym
	if !eig.Factorize(gt, true) {
		return nil, 0, errors.New("PCA: the eigendecomposition of the training Gram matrix did not converge")
	}
	vals := eig.Values(nil) // ascending
	top := vals[nt-1]
	k := 0
	for k < min(dims, nt) && top > 0 && vals[nt-1-k] > 1e-14*top {
		k++
	}
	if k == 0 {
		return nil, 0, errors.New("PCA: the training vectors are all equal")
	}
	var u mat.Dense
	eig.VectorsTo(&u)
	// Columns of u scaled by 1/σ, largest first.
	us := mat.NewDense(nt, k, nil)
	for c := range k {
		col := nt - 1 - c
		inv := 1 / math.Sqrt(vals[col])
		for r := range nt {
			us.Set(r, c, u.At(r, col)*inv)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	var comps mat.Dense
	comps.Mul(xt.T(), us)
	var y mat.Dense
	y.Mul(centred, &comps)
	for i := range n {
		row := y.RawRowView(i)
		var ss float64
		for _, val := range row {
			ss += val * val
		}
		if ss > 0 {
			inv := 1 / math.Sqrt(ss)
			for j := range row {
				row[j] *= inv
			}
		}
	}
	return classify.LinearPairs(&y), k, nil
}
