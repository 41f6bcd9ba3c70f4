package experiment

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

func (s SyntheticConfig) options() datasets.SyntheticOptions {
	return datasets.SyntheticOptions{Classes: s.Classes, Dim: s.Dim, Samples: s.Samples, Train: s.Train, Spread: s.Spread, Variance: s.Variance}
}

// Data is a labelled set of SPD matrices with lazily computed, shared
// pairwise quantities. Methods evaluated on the same Data reuse them across
// methods and random splits: the Stein divergence matrix over all items is
// computed at most once, and any σ's Gram matrix is exp(−σ S) of it.
// Data is safe for concurrent use.
type Data struct {
	Set    *spd.Set
	Labels []int
	// Classes names the labels: Classes[l] for label l (nil: l itself).
	Classes []string
	// Meta holds per-item metadata (pose, camera, ...); nil when absent.
	Meta []map[string]string
	// Ridge is the regularisation the descriptors were made with, for
	// reports (0 for synthetic data).
	Ridge float64
	// Workers bounds the parallelism of the pairwise computations.
	Workers int
	// Reporter, if not nil, receives the progress of pairwise computations.
	Reporter Reporter

	steinOnce sync.Once
	stein     *mat.SymDense
	steinErr  error
	// steinComputations counts Stein divergence matrix computations, so
	// that tests can prove the reuse.
	steinComputations atomic.Int64

	logOnce sync.Once
	logGram *mat.SymDense
	logErr  error
}

// NewData wraps a validated set and its labels.
func NewData(set *spd.Set, labels []int, workers int) *Data {
	return &Data{Set: set, Labels: labels, Workers: workers}
}

// ClassName returns the name of label l.
func (d *Data) ClassName(l int) string {
	if d.Classes != nil && l >= 0 && l < len(d.Classes) {
		return d.Classes[l]
	}
	return fmt.Sprint(l)
}

// NumClasses returns 1 + the largest label.
func (d *Data) NumClasses() int {
	n := 0
	for _, l := range d.Labels {
		n = max(n, l+1)
	}
	return max(n, len(d.Classes))
}

// SteinDivergences returns the symmetric matrix S_ij = S(X_i, X_j) over all
// items, computing it on first use.
func (d *Data) SteinDivergences() (*mat.SymDense, error) {
	d.steinOnce.Do(func() {
		d.steinComputations.Add(1)
		n := d.Set.Len()
		opts := &spd.GramOptions{Workers: d.Workers}
		if d.Reporter != nil {
			d.Reporter.Begin(fmt.Sprintf("Stein divergences of %d×%d matrices (%d pairs)", d.Set.Dim(), d.Set.Dim(), n*(n-1)/2), n*(n+1)/2)
			opts.Progress = d.Reporter.Advance
			defer d.Reporter.End()
		}
		d.stein, d.steinErr = spd.SteinDivergencesSym(d.Set, opts)
	})
	return d.stein, d.steinErr
}

// SteinComputations reports how many times the Stein divergence matrix was
// computed (0 or 1).
func (d *Data) SteinComputations() int64 { return d.steinComputations.Load() }

// LogEuclideanGram returns the cosine Gram matrix of the log-Euclidean
// vectors v_i = vec(log X_i) (spd.LogVecTo: upper triangle, off-diagonals
// times √2), G_ij = v_iᵀv_j / (‖v_i‖‖v_j‖), computing it on first use. The
// unit normalisation is the one Wright et al.'s SRC applies to dictionary
// atoms and queries; it also gives k(x, x) = 1 as for the Stein kernel.
func (d *Data) LogEuclideanGram() (*mat.SymDense, error) {
	d.logOnce.Do(func() {
		n, dim := d.Set.Len(), d.Set.Dim()
		m := spd.VecLen(dim)
		vecs := make([]float64, n*m)
		w := spd.NewWorkspace(dim)
		tmp := mat.NewSymDense(dim, nil)
		for i := range n {
			v := vecs[i*m : (i+1)*m]
			if err := w.LogVecTo(v, d.Set.View(i), tmp); err != nil {
				d.logErr = fmt.Errorf("log of matrix %d: %w", i, err)
				return
			}
			var ss float64
			for _, x := range v {
				ss += x * x
			}
			if !(ss > 0) {
				d.logErr = fmt.Errorf("log of matrix %d is zero: cannot normalise", i)
				return
			}
			inv := 1 / math.Sqrt(ss)
			for j := range v {
				v[j] *= inv
			}
		}
		g := mat.NewSymDense(n, nil)
		blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: n, Cols: m, Stride: m, Data: vecs}, 0, g.RawSymmetric())
		d.logGram = g
	})
	return d.logGram, d.logErr
}

// Split is one train/test partition of a Data, as item indices.
type Split struct {
	// Data holds the descriptors made with the first ridge candidate.
	Data *Data
	// Variants holds one Data per ridge candidate, Variants[0] == Data;
	// methods select among them by cross-validation.
	Variants []*Data
	Train    []int
	Test     []int
	// Workers bounds the method's parallelism on this split.
	Workers int
	// Seed fixes any random choice the method makes (validation folds).
	Seed uint64
	// Folds is the number of cross-validation folds for parameter
	// selection inside Train.
	Folds int
	// Ranks is how many top classes must be ranked exactly (CMC length);
	// 0 means the prediction alone.
	Ranks int
}

func (s *Split) variants() []*Data {
	if len(s.Variants) == 0 {
		return []*Data{s.Data}
	}
	return s.Variants
}

// Outcome is a method's answer on a split.
type Outcome struct {
	// Pred holds the predicted label of each test item, in Split.Test order.
	Pred []int
	// Ranking optionally holds, per test item, class labels ordered from
	// most to least likely (at least Split.Ranks of them), for CMC curves.
	Ranking [][]int
	// Degenerate counts test items whose sparse code was all zeros (the
	// prediction is then arbitrary: λ is too large for the kernel's scale).
	Degenerate int
	// Unconverged counts test items whose solver hit its iteration cap.
	Unconverged int
	// Params records the hyper-parameters used (chosen, if selected).
	Params map[string]float64
	// Lambdas holds, for sparse-coding methods, the λ each test item was
	// coded with (λ_max-relative weights give one per item).
	Lambdas []float64
}

// gather returns the |rows|×|cols| submatrix of the symmetric s mapped
// through f.
func gather(s mat.Symmetric, rows, cols []int, f func(float64) float64) *mat.Dense {
	out := mat.NewDense(len(rows), len(cols), nil)
	raw := out.RawMatrix()
	for a, i := range rows {
		row := raw.Data[a*raw.Stride : a*raw.Stride+len(cols)]
		for b, j := range cols {
			row[b] = f(s.At(i, j))
		}
	}
	return out
}

func identity(x float64) float64 { return x }
