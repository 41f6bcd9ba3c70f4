package method

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/internal/hashkey"
	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/rsr"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// pcaParams are the parameters of method types pca-src and gsr.
type pcaParams struct {
	// Dims is the PCA dimension (default 100), reduced to the training
	// set's rank when it is larger.
	Dims int `yaml:"dims,omitempty" json:"dims,omitempty" help:"the PCA dimension, reduced to the training set's rank when larger" default:"100"`
	// Step samples the vector's planes every Step pixels (pca-src default
	// 1, gsr default 4: Yang and Zhang's downsampling of the Gabor
	// magnitudes).
	Step int `yaml:"step,omitempty" json:"step,omitempty" help:"sample the vector's planes every STEP pixels" default:"1 for pca-src, 4 for gsr"`
	// Normalise is none (the default) or plane: plane scales each
	// plane's samples in each vector to zero mean and unit variance (Liu
	// and Wechsler's augmented Gabor feature vector, IEEE TIP 2002, on
	// which Yang and Zhang build). On FERET 32×32 it costs GSR 5.6 points
	// (docs/results.md), so gsr does not default to it.
	Normalise string `yaml:"normalise,omitempty" json:"normalise,omitempty" help:"none, or plane: each plane's samples to zero mean and unit variance" default:"none"`
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
	grams   once.Cache[gramKey, gramFit]
	bases   once.Cache[baseKey, *pcaBase]
}

// gramKey identifies a PCA fit: the data, the training set and, for a
// cross-validation fold's fit, the fold's training items (hashed in fold).
// The sparsity candidates of a fold, and tasks sharing a training set,
// share one fit through a once.Cache of gramCacheSize entries (a fit
// per cross-validation fold and one of the whole training set, with room
// for repeats run in parallel). The fits of a training set and of its
// folds start from one pcaBase, kept for baseCacheSize training sets.
type gramKey struct {
	data   *classify.Data
	train  uint64
	isFold bool
	fold   uint64
}

type baseKey struct {
	data  *classify.Data
	train uint64
}

type gramFit struct {
	g    classify.Pairs
	dims int
}

const (
	gramCacheSize = 8
	baseCacheSize = 2
)

func newPCASRC(n *yaml.Node) (classify.Method, error) { return newPCA(n, "pca-src", "I", 1, "none") }

func newGSR(n *yaml.Node) (classify.Method, error) { return newPCA(n, "gsr", "gabor", 4, "none") }

func newPCA(n *yaml.Node, typ, spec string, step int, normalise string) (classify.Method, error) {
	m := &pcaSRC{}
	m.grams.Max = gramCacheSize
	m.bases.Max = baseCacheSize
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
	return classify.Spec{Params: m.p, Candidates: len(m.cands), Vectors: m.vectors, Scores: true, Probabilities: true}
}

func (m *pcaSRC) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	if len(m.cands) > 1 {
		// The fit on the whole training set is only needed after
		// cross-validation, whose runs fit the folds; starting it now
		// computes the training set's Gram matrix, from which the folds'
		// fits start, and lets its serial eigendecomposition overlap them.
		// Fit waits for it, so that no work outlives the call.
		var wg sync.WaitGroup
		defer wg.Wait()
		for _, d := range t.AllVariants() {
			wg.Go(func() { m.fit(ctx, d, t.Items, nil, t.Workers) }) // an error surfaces in the later call
		}
	}
	// A validation fold's fit projects the training items, which its runs
	// classify, from the training set's Gram matrix (pcaBase.fitFold);
	// the final fit projects every item of the Data from its vector, as
	// the tasks that share a training set (FERET's four test poses) share
	// it.
	fold := func(d *classify.Data, train []int, w weight) (predictor, error) {
		fit, err := m.fit(ctx, d, t.Items, train, t.Workers)
		if err != nil {
			return nil, err
		}
		return fitSRCOn(ctx, func(*classify.Data) (classify.Pairs, error) { return fit.g, nil }, d, classify.Identity, train, w.set(m.opts), t.Workers, trainBlocks(t, &m.blocks))
	}
	c, d, err := classify.Choose(ctx, t, m.cands, &m.memo, folds(ctx, t, fold))
	if err != nil {
		return nil, err
	}
	fit, err := m.fit(ctx, d, t.Items, nil, t.Workers)
	if err != nil {
		return nil, err
	}
	p, err := fitSRCOn(ctx, m.projections(ctx, t), d, classify.Identity, t.Items, c.Params.set(m.opts), t.Workers, trainBlocks(t, &m.blocks))
	if err != nil {
		return nil, err
	}
	p.rec = c.Params.record()
	return &fitted{p: p, variant: c.Variant, chosen: map[string]float64{"dims": float64(fit.dims), c.Params.key(): c.Params.value, "ridge": d.Ridge}}, nil
}

// projections returns the linear kernel of the PCA projections of a
// Data's items, the fit on t's training items of its vectors: a Data
// that holds the training items at t's indices and other items beside
// them (a model's queries) gets its own fit, the same as the training
// Data's on the training items. That fit runs when the fitted method
// answers, after Fit or Load has returned, so it keeps ctx's values but
// not its cancellation: a caller that cancels the context of a finished
// Fit must still be able to predict with its result.
func (m *pcaSRC) projections(ctx context.Context, t *classify.Train) func(d *classify.Data) (classify.Pairs, error) {
	ctx = context.WithoutCancel(ctx)
	return func(d *classify.Data) (classify.Pairs, error) {
		fit, err := m.fit(ctx, d, t.Items, nil, t.Workers)
		return fit.g, err
	}
}

func (m *pcaSRC) Load(ctx context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	return restore(st, func(r weightRecord) (predictor, error) {
		w, err := r.weight()
		if err != nil {
			return nil, err
		}
		return loadSRC(st, t, m.projections(ctx, t), classify.Identity, w.set(m.opts), trainBlocks(t, &m.blocks), r)
	})
}

// fit returns the PCA fit on the training items train of d's vectors,
// projecting every item, or with fold, a validation fold's training items
// (a subset of train), the fit on fold projecting the items of train
// (pcaBase.fitFold); computed once per training set and fold (grams), its
// Gram matrix on workers goroutines (the fit does not depend on them); a
// fit that ctx cancelled is not kept.
func (m *pcaSRC) fit(ctx context.Context, d *classify.Data, train, fold []int, workers int) (gramFit, error) {
	key := gramKey{d, hashkey.Ints(train), fold != nil, hashkey.Ints(fold)}
	return m.grams.Do(key, func() (gramFit, error) {
		b, err := m.base(ctx, d, train, workers)
		if err != nil {
			return gramFit{}, err
		}
		var g classify.Pairs
		var dims int
		runs := fold // the training items of the fit's runs
		if fold == nil {
			g, dims, err = b.fit(ctx, m.p.Dims)
			runs = train
		} else {
			g, dims, err = b.fitFold(ctx, fold, m.p.Dims)
		}
		if err != nil {
			return gramFit{}, err
		}
		return gramFit{&trainKept{Pairs: g, train: runs}, dims}, nil
	})
}

// trainKept is a fit's linear kernel keeping the block of its runs'
// training items, which every sparsity candidate of a fold, and every
// task sharing a training set, asks for (src): one matrix product
// instead of one per run, the same values.
type trainKept struct {
	classify.Pairs
	train []int
	block once.Cache[struct{}, *mat.Dense]
}

// Block returns the block of rows×cols, f applied (BlockTo).
func (p *trainKept) Block(ctx context.Context, rows, cols []int, f classify.Map) (*mat.Dense, error) {
	if len(rows) == 0 || len(cols) == 0 {
		return p.Pairs.Block(ctx, rows, cols, f)
	}
	k := mat.NewDense(len(rows), len(cols), nil)
	if err := p.BlockTo(ctx, k, rows, cols, f); err != nil {
		return nil, err
	}
	return k, nil
}

// BlockTo writes the block of rows×cols, f applied, into dst: a copy of
// the kept training block when rows and cols are the training items and f
// is the identity, computed on the first such call.
func (p *trainKept) BlockTo(ctx context.Context, dst *mat.Dense, rows, cols []int, f classify.Map) error {
	if f != classify.Identity || !slices.Equal(rows, p.train) || !slices.Equal(cols, p.train) {
		return p.Pairs.BlockTo(ctx, dst, rows, cols, f)
	}
	k, err := p.block.Do(struct{}{}, func() (*mat.Dense, error) {
		return p.Pairs.Block(ctx, rows, cols, f)
	})
	if err != nil {
		return err
	}
	if r, c := dst.Dims(); r != len(rows) || c != len(cols) {
		return fmt.Errorf("block of %d×%d items into a %d×%d matrix", len(rows), len(cols), r, c)
	}
	dst.Copy(k)
	return nil
}

// base returns the centred training set train of d's vectors and its Gram
// matrix (newPCABase), computed once per training set (bases).
func (m *pcaSRC) base(ctx context.Context, d *classify.Data, train []int, workers int) (*pcaBase, error) {
	return m.bases.Do(baseKey{d, hashkey.Ints(train)}, func() (*pcaBase, error) {
		x := d.Vectors[m.vectors]
		if x == nil {
			return nil, fmt.Errorf("no feature vectors (%v): the protocol's data stage does not make them (an image dataset with regions: whole is needed)", m.vectors)
		}
		v, err := x.Dense()
		if err != nil {
			return nil, err
		}
		if m.p.Normalise == "plane" {
			if v, err = normalisePlanes(v, m.planes); err != nil {
				return nil, err
			}
		}
		return newPCABase(ctx, v, train, workers)
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
