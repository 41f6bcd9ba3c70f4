// Package classify holds what an experiment's classification methods see:
// a Split of labelled Data into training and test items, the Method
// interface a method implements, its Outcome, and cross-validated choice
// among a method's parameter candidates (Select). Data computes the
// pairwise quantities that methods share (Stein divergences, log-Euclidean
// distances) in the blocks that splits need, once (Pairs).
//
// The experiment engine (package experiment) builds the splits of each
// protocol; the methods (package experiment/method) classify them.
package classify

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// Data is a labelled set of SPD matrices with lazily computed, shared
// pairwise quantities (Pairs). Methods and cross-validation folds on the
// same split reuse them: the Stein divergences between a training set and
// the other items are computed at most once while the split is in use,
// and any σ's kernel values are exp(−σ S) of them. Memory grows with
// n_train·n, never n². Data is safe for concurrent use.
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

	// steinPairs keeps the Stein divergences of the most recent training
	// sets (Pairs).
	steinPairs     Once[uint64, *steinPairs]
	steinPairsInit sync.Once
	// steinEntries counts the Stein divergences computed, for tests.
	steinEntries atomic.Int64

	logOnce    sync.Once
	logVectors *itemVectors
	logErr     error
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

	pairsMu sync.Mutex
	pairs   map[splitPairsKey]Pairs // Pairs in use by the split's methods
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

// Preparer is implemented by methods that compute ahead the pairwise
// quantities they will ask for on a split (Data.Pairs), so that the engine
// can time that work as its own stage, before the methods run.
type Preparer interface {
	Prepare(s *Split) error
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
