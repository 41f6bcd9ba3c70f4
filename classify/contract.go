package classify

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// Method is an estimator of SPD items compared in an experiment and kept
// in models, as a method type of package method constructs it: its
// parameters decoded, checked and resolved into typed options once, so
// that Fit parses nothing. As scikit-learn's and pyRiemann's estimators
// do, it splits fitting from predicting: Fit sees the training items
// only and returns a Fitted, which answers any other items.
//
// A method declares in its Spec, in one place, everything optional that
// it needs from or offers to the engine: the parameters to record, the
// number of parameter candidates, a check of its parameters against the
// matrix size, the pairwise quantities to compute ahead, per-item feature
// vectors, a dictionary, an energy tracer, scores and class costs. The
// engine (package experiment) and models (package model) read the Spec
// once, and guarantee before they call Fit:
//
//   - Spec.CheckDim accepted the size d of the training items' matrices,
//     and the Train meets every request of the Spec (a Dictionary when
//     Spec.Dictionary; Data.Vectors holding Spec.Vectors): a config in
//     which a method runs on a task that cannot meet them fails to load,
//     naming the method, the task and what is missing;
//   - Train.Folds >= 2 when Spec.Candidates > 1;
//   - in a run, the Spec's Quantities were computed on the split
//     (PrepareSplit), timed as the run's "pairwise" stage.
//
// Fit, and the Predict of what it returns, run concurrently on different
// training sets (the repeats of a task, the folds of cross-validation);
// a method keeps no state between calls except caches safe for
// concurrent use (a Memo, a Scratch). They return an error wrapping
// ctx.Err() soon after ctx is cancelled: Choose, ForBlocks, the Pairs,
// the methods' loops over items and the library calls they make (fitting,
// batches of queries, solves) look at ctx between their units of work.
type Method interface {
	// Spec declares the method's optional needs and offers.
	Spec() Spec
	// Fit fits the method on t's training items, choosing among its
	// parameter candidates (and t's ridge variants) by cross-validation
	// inside them (Choose).
	Fit(ctx context.Context, t *Train) (Fitted, error)
	// Load restores the Fitted whose Save returned st, on t, the
	// training items it was fitted on with the labels they had: in a
	// model, every item of a Data of the saved training descriptors (and
	// their vectors, for a method whose Spec asks for vectors). It returns
	// an error for a state that the method did not save or that does not
	// match t.
	Load(ctx context.Context, st *State, t *Train) (Fitted, error)
}

// Fitted is a method fitted on a training set. It is safe for concurrent
// use.
type Fitted interface {
	// Predict answers the items q.Items of q.Data, which must hold the
	// training items at the indices that Fit saw (see Query).
	Predict(ctx context.Context, q *Query) (*Outcome, error)
	// Chosen returns the parameters in force, as cross-validation chose
	// them among the candidates (σ, λ, C, the ridge of the descriptors),
	// which Outcome.Params records.
	Chosen() map[string]float64
	// Save returns the fitted method's state, from which its method's
	// Load restores it to answer as it does, bit for bit.
	Save(ctx context.Context) (*State, error)
}

// Transformer is a Fitted whose method maps items to feature vectors
// before it classifies them, such as the sparse codes of the items
// against a dictionary (method type codes): Transform returns those
// vectors, a row per item of q.Items in their order, which a user may
// feed to a classifier of their own (covpipe encode --model). Its
// columns are the same for every query of one Fitted.
type Transformer interface {
	Fitted
	Transform(ctx context.Context, q *Query) (*mat.Dense, error)
}

// Run fits m on s's training items and predicts its test items: the
// transductive form of the contract that an experiment's split asks for.
// The split's pairwise quantities (Split.Pairs) serve both calls, so the
// test items' divergences to the training items are computed once, as a
// cache, not as part of the contract.
func Run(ctx context.Context, m Method, s *Split) (*Outcome, error) {
	t := s.Fitting()
	t.CV = new(CVLog)
	f, err := m.Fit(ctx, t)
	if err != nil {
		return nil, err
	}
	o, err := f.Predict(ctx, s.Query())
	if err != nil {
		return nil, err
	}
	o.Params = f.Chosen()
	o.CV = t.CV.Tables()
	s.ran.put(s.Share, m, o)
	return o, nil
}

// Spec is what a method declares to the engine (see Method); the zero
// Spec declares nothing and asks for nothing.
type Spec struct {
	// Params are the method's parameters as resolved (defaults filled in,
	// names canonical): a struct with json tags that results.json records
	// under config.methods.
	Params any
	// Candidates is the number of parameter settings that cross-validation
	// (Choose) chooses among on each ridge variant; with more than one the
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
	// Fit; nil for a method that cannot, which such tasks refuse.
	Energy EnergyTracer
	// Scores says that the method's Outcomes hold Scores, each test
	// item's answer with its confidence, which results.json records and
	// open-set tasks threshold.
	Scores bool
	// Costs says that the method's Outcomes hold Costs, a cost per test
	// item and class, which the engine needs to classify items of several
	// regions (Data.Parts) part by part and fuse the answers.
	Costs bool
	// Probabilities says that the method's Outcomes hold Probabilities,
	// a probability per item and class, when the Query asks
	// (Query.Probabilities); models write them (covpipe predict
	// --probabilities).
	Probabilities bool
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
