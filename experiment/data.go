package experiment

import (
	"sync"
	"sync/atomic"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/spd"
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
	// Workers bounds the parallelism of the pairwise computations.
	Workers int

	steinOnce sync.Once
	stein     *mat.SymDense
	steinErr  error
	// steinComputations counts Stein divergence matrix computations, so
	// that tests can prove the reuse.
	steinComputations atomic.Int64
}

// NewData wraps a validated set and its labels.
func NewData(set *spd.Set, labels []int, workers int) *Data {
	return &Data{Set: set, Labels: labels, Workers: workers}
}

// SteinDivergences returns the symmetric matrix S_ij = S(X_i, X_j) over all
// items, computing it on first use.
func (d *Data) SteinDivergences() (*mat.SymDense, error) {
	d.steinOnce.Do(func() {
		d.steinComputations.Add(1)
		d.stein, d.steinErr = spd.SteinDivergencesSym(d.Set, &spd.GramOptions{Workers: d.Workers})
	})
	return d.stein, d.steinErr
}

// SteinComputations reports how many times the Stein divergence matrix was
// computed (0 or 1).
func (d *Data) SteinComputations() int64 { return d.steinComputations.Load() }

// Split is one random train/test partition of a Data, as item indices.
type Split struct {
	Data  *Data
	Train []int
	Test  []int
	// Workers bounds the method's parallelism on this split.
	Workers int
	// Seed fixes any random choice the method makes (e.g. validation folds).
	Seed uint64
}

// Outcome is a method's answer on a split.
type Outcome struct {
	// Pred holds the predicted label of each test item, in Split.Test order.
	Pred []int
	// Ranking optionally holds, per test item, every class label ordered
	// from most to least likely, for CMC curves.
	Ranking [][]int
	// Degenerate counts test items whose sparse code was all zeros (the
	// prediction is then arbitrary: λ is too large for the kernel's scale).
	Degenerate int
	// Unconverged counts test items whose solver hit its iteration cap.
	Unconverged int
	// Params records the hyper-parameters used (chosen, if selected).
	Params map[string]float64
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
