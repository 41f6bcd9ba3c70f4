// Package classify holds what an experiment's classification methods see:
// a Split of labelled Data into training and test items, the Method
// interface a method implements, its Outcome, and cross-validated choice
// among a method's parameter candidates (Select). Data computes the
// pairwise matrices that methods share (Stein divergences, the
// log-Euclidean Gram matrix) once.
//
// The experiment engine (package experiment) builds the splits of each
// protocol; the methods (package experiment/method) classify them.
package classify

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/covpipe/covpipe/progress"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

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
	// Vectors holds, by VectorUser.VectorSpec key, one feature vector per
	// item (row i: item i) that the data stage made for methods that ask
	// for them; nil when none did.
	Vectors map[string]*mat.Dense
	// Workers bounds the parallelism of the pairwise computations.
	Workers int
	// Reporter, if not nil, receives the progress of pairwise computations.
	Reporter progress.Reporter

	steinOnce sync.Once
	stein     *mat.SymDense
	steinErr  error
	// steinComputations counts Stein divergence matrix computations, so
	// that tests can prove the reuse.
	steinComputations atomic.Int64

	logOnce sync.Once
	logGram *mat.SymDense
	logErr  error

	leOnce sync.Once
	leDist *mat.SymDense
	leErr  error
}

// NewData wraps a validated set and its labels.
func NewData(set *spd.Set, labels []int, workers int) *Data {
	return &Data{Set: set, Labels: labels, Workers: workers}
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
		n := d.Set.Len()
		vecs, m, err := d.logVectors()
		if err != nil {
			d.logErr = err
			return
		}
		for i := range n {
			v := vecs[i*m : (i+1)*m]
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

// logVectors returns the isometric log-vectors vec(log X_i) of all items
// (spd.LogVecTo), m values each, one after another.
func (d *Data) logVectors() ([]float64, int, error) {
	n, dim := d.Set.Len(), d.Set.Dim()
	m := spd.VecLen(dim)
	vecs := make([]float64, n*m)
	w := spd.NewWorkspace(dim)
	tmp := mat.NewSymDense(dim, nil)
	for i := range n {
		if err := w.LogVecTo(vecs[i*m:(i+1)*m], d.Set.View(i), tmp); err != nil {
			return nil, 0, fmt.Errorf("log of matrix %d: %w", i, err)
		}
	}
	return vecs, m, nil
}

// LogEuclideanDistances returns the symmetric matrix of squared
// log-Euclidean distances ‖log X_i − log X_j‖²_F over all items (Arsigny
// et al. 2007), the exponent of the log-Euclidean kernel
// exp(−γ ‖log X − log Y‖²_F) of Li et al. (ICCV 2013), which is positive
// definite for every γ > 0. It is computed on first use from the Gram
// matrix of the isometric log-vectors (spd.LogVecTo), D_ij = G_ii + G_jj −
// 2G_ij, clamped at 0 against round-off.
func (d *Data) LogEuclideanDistances() (*mat.SymDense, error) {
	d.leOnce.Do(func() {
		n := d.Set.Len()
		vecs, m, err := d.logVectors()
		if err != nil {
			d.leErr = err
			return
		}
		g := mat.NewSymDense(n, nil)
		blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: n, Cols: m, Stride: m, Data: vecs}, 0, g.RawSymmetric())
		dist := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i + 1; j < n; j++ {
				dist.SetSym(i, j, math.Max(0, g.At(i, i)+g.At(j, j)-2*g.At(i, j)))
			}
		}
		d.leDist = dist
	})
	return d.leDist, d.leErr
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
	// Learn lists items a method may learn an unsupervised model from (a
	// dictionary, in the paper's Section 6.2), without their labels; empty
	// for protocols that have none.
	Learn []int
	// Atoms is the dictionary size the protocol asks for (0: none).
	Atoms int
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

// AllVariants returns the split's ridge variants: Variants, or Data alone.
func (s *Split) AllVariants() []*Data {
	if len(s.Variants) == 0 {
		return []*Data{s.Data}
	}
	return s.Variants
}

// Method is a classifier compared in an experiment.
type Method interface {
	// Classify predicts the labels of split.Test from split.Train.
	Classify(split *Split) (*Outcome, error)
}

// DimChecker is implemented by methods whose parameters depend on the
// matrix size d (the Stein kernel's σ, Theorem 1), so that experiments
// fail when they load, before any computation.
type DimChecker interface {
	CheckDim(d int) error
}

// Preparer is implemented by methods that warm a Data's shared caches, so
// that the engine can time that work as its own stage.
type Preparer interface {
	Prepare(d *Data) error
}

// VectorUser is implemented by methods that classify per-item feature
// vectors rather than the SPD descriptors, such as PCA-SRC on pixel
// intensities: the data stage makes the vectors of the feature spec
// (features.Parse), sampled every step pixels, and stores them in
// Data.Vectors under VectorKey(spec, step).
type VectorUser interface {
	VectorSpec() (features string, step int)
}

// VectorKey is the key of Data.Vectors for a VectorUser's spec.
func VectorKey(features string, step int) string { return fmt.Sprintf("%s/%d", features, step) }

// ItemMeta returns item i's metadata (nil when the data has none).
func (d *Data) ItemMeta(i int) map[string]string {
	if d.Meta == nil {
		return nil
	}
	return d.Meta[i]
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

// Gather returns the |rows|×|cols| submatrix of the symmetric s mapped
// through f (Identity for none).
func Gather(s mat.Symmetric, rows, cols []int, f func(float64) float64) *mat.Dense {
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

// Identity is the map of Gather that keeps the entries.
func Identity(x float64) float64 { return x }
