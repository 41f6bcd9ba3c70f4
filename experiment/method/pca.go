package method

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/covpipe/covpipe/experiment/classify"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// pcaParams are the parameters of method types pca-src and gsr.
type pcaParams struct {
	// Dims is the PCA dimension (default 100), reduced to the training
	// set's rank when it is larger.
	Dims int `yaml:"dims,omitempty" json:"dims,omitempty"`
	// Step samples the vector's planes every Step pixels (pca-src default
	// 1, gsr default 4: Yang and Zhang's downsampling of the Gabor
	// magnitudes).
	Step   int `yaml:"step,omitempty" json:"step,omitempty"`
	sparse `yaml:",inline"`
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
	memo     classify.Memo[weight]
	cands    []weight
	features string
	p        pcaParams
	grams    gramCache
}

// gramCache keeps the last PCA Gram matrices by training set: the PCA
// depends on the training items only, so the sparsity candidates of a
// cross-validation fold, and tasks sharing a training set, share one fit.
// It is safe for concurrent use.
type gramCache struct {
	mu      sync.Mutex
	entries []gramEntry // most recent last
}

type gramEntry struct {
	data  *classify.Data
	train uint64
	g     *mat.SymDense
	dims  int
}

// gramCacheSize bounds the fits kept: a fold per cross-validation fold
// and the final training set, with room for repeats run in parallel.
const gramCacheSize = 8

func (c *gramCache) get(d *classify.Data, train []int, fit func() (*mat.SymDense, int, error)) (*mat.SymDense, int, error) {
	key := classify.HashInts(train)
	c.mu.Lock()
	for _, e := range c.entries {
		if e.data == d && e.train == key {
			c.mu.Unlock()
			return e.g, e.dims, nil
		}
	}
	c.mu.Unlock()
	g, dims, err := fit()
	if err != nil {
		return nil, 0, err
	}
	c.mu.Lock()
	c.entries = append(c.entries, gramEntry{d, key, g, dims})
	if len(c.entries) > gramCacheSize {
		c.entries = c.entries[1:]
	}
	c.mu.Unlock()
	return g, dims, nil
}

func newPCASRC(n *yaml.Node) (classify.Method, error) { return newPCA(n, "pca-src", "I", 1) }

func newGSR(n *yaml.Node) (classify.Method, error) { return newPCA(n, "gsr", "gabor", 4) }

func newPCA(n *yaml.Node, typ, features string, step int) (classify.Method, error) {
	m := &pcaSRC{features: features}
	if err := decode(n, &m.p, typ); err != nil {
		return nil, err
	}
	if m.p.Dims == 0 {
		m.p.Dims = 100
	}
	if m.p.Step == 0 {
		m.p.Step = step
	}
	if m.p.Dims < 1 || m.p.Step < 1 {
		return nil, fmt.Errorf("dims = %d and step = %d must be >= 1", m.p.Dims, m.p.Step)
	}
	_, ws, err := m.p.options()
	if err != nil {
		return nil, err
	}
	m.cands = ws
	return m, nil
}

// VectorSpec asks the data stage for the method's vectors.
func (m *pcaSRC) VectorSpec() (string, int) { return m.features, m.p.Step }

// Params returns the decoded parameters, for the record of the run.
func (m *pcaSRC) Params() any { return m.p }

// Candidates returns the number of sparsity weights cross-validation
// chooses among.
func (m *pcaSRC) Candidates() int { return len(m.cands) }

func (m *pcaSRC) Classify(s *classify.Split) (*classify.Outcome, error) {
	opts, _, _ := m.p.options() // checked in newPCA
	key := classify.VectorKey(m.VectorSpec())
	used := 0
	o, c, d, err := classify.Select(s, m.cands, &m.memo, func(d *classify.Data, train, test []int, w weight) (*classify.Outcome, error) {
		x := d.Vectors[key]
		if x == nil {
			return nil, errors.New("no feature vectors: the protocol's data stage does not make them (an image dataset with regions: whole is needed)")
		}
		g, dims, err := m.grams.get(d, train, func() (*mat.SymDense, int, error) { return pcaGram(x, train, m.p.Dims) })
		if err != nil {
			return nil, err
		}
		used = dims
		return src(g, classify.Identity, d.Labels, train, test, w.set(opts), s.Workers)
	})
	if err != nil {
		return nil, err
	}
	o.Params = map[string]float64{c.Params.key(): c.Params.value, "dims": float64(used), "ridge": d.Ridge}
	return o, nil
}

// pcaGram fits PCA on the rows train of x (centred on their mean), keeps
// the leading dims components (fewer when the training rank is lower),
// projects every row, scales each projection to unit length and returns
// their linear Gram matrix, with the number of components kept.
func pcaGram(x *mat.Dense, train []int, dims int) (*mat.SymDense, int, error) {
	n, m := x.Dims()
	mean := make([]float64, m)
	for _, i := range train {
		for j, v := range x.RawRowView(i) {
			mean[j] += v / float64(len(train))
		}
	}
	xt := mat.NewDense(len(train), m, nil)
	for a, i := range train {
		row := xt.RawRowView(a)
		for j, v := range x.RawRowView(i) {
			row[j] = v - mean[j]
		}
	}
	var svd mat.SVD
	if !svd.Factorize(xt, mat.SVDThin) {
		return nil, 0, errors.New("PCA: the SVD of the training vectors did not converge")
	}
	sv := svd.Values(nil)
	k := 0
	for k < min(dims, len(sv)) && sv[k] > 1e-10*sv[0] {
		k++
	}
	if k == 0 {
		return nil, 0, errors.New("PCA: the training vectors are all equal")
	}
	var v mat.Dense
	svd.VTo(&v)
	comps := v.Slice(0, m, 0, k)
	centred := mat.NewDense(n, m, nil)
	for i := range n {
		row := centred.RawRowView(i)
		for j, val := range x.RawRowView(i) {
			row[j] = val - mean[j]
		}
	}
	var y mat.Dense
	y.Mul(centred, comps)
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
	g := mat.NewSymDense(n, nil)
	raw := y.RawMatrix()
	blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: n, Cols: k, Stride: raw.Stride, Data: raw.Data}, 0, g.RawSymmetric())
	return g, k, nil
}
