package classify

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/spd"
)

// Method is a classifier compared in an experiment, as a method type of
// package method constructs it: its parameters decoded, checked
// and resolved into typed options once, so that Classify parses nothing.
//
// A method declares in its Spec, in one place, everything optional that
// it needs from or offers to the engine: the parameters to record, the
// number of parameter candidates, a check of its parameters against the
// matrix size, the pairwise quantities to compute ahead, per-item feature
// vectors, a dictionary split, an energy tracer. The engine (package
// experiment) reads the Spec once, when the plan is built, and guarantees
// before it calls Classify on a split:
//
//   - Spec.CheckDim accepted the size d of the split's matrices, and the
//     split meets every request of the Spec (a Dictionary when
//     Spec.Dictionary; Data.Vectors holding Spec.Vectors): a config in
//     which a method runs on a task that cannot meet them fails to load,
//     naming the method, the task and what is missing;
//   - Split.Folds >= 2 when Spec.Candidates > 1;
//   - the Spec's Quantities were computed on the split (PrepareSplit),
//     timed as the run's "pairwise" stage.
//
// Classify runs concurrently on different splits (the repeats of a task)
// and on splits of different tasks; a method keeps no state between calls
// except caches safe for concurrent use (a Memo, a Scratch). It returns
// an error wrapping ctx.Err() soon after ctx is cancelled: Select,
// ForBlocks, the Pairs, the methods' loops over test items and the library
// calls they make (fitting, batches of queries, solves) look at ctx
// between their units of work.
type Method interface {
	// Spec declares the method's optional needs and offers.
	Spec() Spec
	// Classify predicts the labels of split.Test from split.Train.
	Classify(ctx context.Context, split *Split) (*Outcome, error)
}

// Spec is what a method declares to the engine (see Method); the zero
// Spec declares nothing and asks for nothing.
type Spec struct {
	// Params are the method's parameters as resolved (defaults filled in,
	// names canonical): a struct with json tags that results.json records
	// under config.methods.
	Params any
	// Candidates is the number of parameter settings that cross-validation
	// (Select) chooses among on each ridge variant; with more than one the
	// loader requires folds >= 2.
	Candidates int
	// CheckDim checks the parameters that depend on the matrix size d (the
	// Stein kernel's σ, Theorem 1) against every task's d when the config
	// loads; nil when none do.
	CheckDim func(d int) error
	// Quantities lists the pairwise quantities that the method reads
	// through Split.Pairs, which the engine computes ahead on every split.
	Quantities []Quantity
	// Vectors asks the data stage for a feature vector per item
	// (Data.Vectors); the zero request asks for none. Only image datasets
	// with whole-image regions give them.
	Vectors VectorRequest
	// Dictionary says that the method learns from the Dictionary part of
	// a split, which only dictionary tasks give.
	Dictionary bool
	// Energy traces the energy of the method's dictionary as it is built,
	// which energy-curve tasks (the paper's Fig. 7) run instead of
	// Classify; nil for a method that cannot, which such tasks refuse.
	Energy EnergyTracer
	// Scores says that the method's Outcomes hold Scores, each test
	// item's answer with its confidence, which results.json records and
	// open-set tasks threshold.
	Scores bool
	// Costs says that the method's Outcomes hold Costs, a cost per test
	// item and class, which the engine needs to classify items of several
	// regions (Data.Parts) part by part and fuse the answers.
	Costs bool
	// Warnings are notes on the method's configuration for the user, such
	// as a deprecated spelling; the loader collects them
	// (experiment.Plan.Warnings).
	Warnings []string
}

// VectorRequest asks the data stage for one feature vector per item: the
// planes of the features spec Features (features.Parse) sampled every Step
// pixels along rows and columns, concatenated plane by plane
// (describe.VectorSpec). It is comparable: Data.Vectors is keyed by it,
// and methods that ask for the same vectors share them.
type VectorRequest struct {
	Features string
	Step     int
}

// IsZero reports whether r asks for nothing.
func (r VectorRequest) IsZero() bool { return r == VectorRequest{} }

// String describes the request for messages, e.g. "features I, step 1".
func (r VectorRequest) String() string {
	return fmt.Sprintf("features %s, step %d", r.Features, r.Step)
}

// Dictionary is the part of a split that a dictionary method learns from
// (the paper's Section 6.2 and Table 3): items to learn a dictionary of
// Atoms atoms from, whose labels the method must not use.
type Dictionary struct {
	// Learn lists the items, ascending, disjoint from Train and Test.
	Learn []int
	// Atoms is the dictionary size N >= 1.
	Atoms int
}

// EnergyTracer traces the representation energy J of the paper's Eqn. 10,
// J = Σ_i min_v ‖φ(X_i) − Σ_j v_j φ(D_j)‖² + λ‖v‖₁ over a training set,
// of a method's dictionary D as it is built (Fig. 7). Both methods return
// an error wrapping ctx.Err() soon after ctx is cancelled.
type EnergyTracer interface {
	// Curve returns J over train of the method's dictionary of atoms atoms
	// after 0, 1, ..., iters iterations of its construction, from seed.
	Curve(ctx context.Context, train *spd.Set, atoms, iters int, seed uint64, workers int) ([]float64, error)
	// Energy returns J over train of the dictionary atoms, with the
	// method's kernel and sparsity weight.
	Energy(ctx context.Context, train, atoms *spd.Set, workers int) (float64, error)
}
