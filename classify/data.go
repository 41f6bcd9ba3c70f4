package classify

import (
	"fmt"
	"sync"

	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/spd"
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
	// Parts holds, when each item is a set of region descriptors (the data
	// section's parts), one Data per region: Parts[r].Set holds every
	// item's descriptor of region r, with Labels, Classes and Meta shared
	// with this Data, whose Set is Parts[0].Set. Methods that give class
	// costs (Spec.Costs) classify each part apart and the engine fuses
	// them; nil when each item has one descriptor.
	Parts []*Data
	// Vectors holds the feature vectors that the data stage made for the
	// methods' requests (Spec.Vectors), one row per item (row i: item i);
	// nil when no method asked for any.
	Vectors map[VectorRequest]*Vectors
	// Workers bounds the parallelism of the pairwise computations.
	Workers int

	// state holds what the quantities compute once per Data (the Stein
	// divergences of recent training sets, the items' log-vectors), each
	// under a key of the quantity's own type (dataState).
	state once.Cache[any, any]
	// same, when not nil, is the Data of the same descriptors whose state
	// this one uses (SetParts: the first part's), so that what either
	// computes the other reuses.
	same *Data
}

// NewData wraps a validated set and its labels.
func NewData(set *spd.Set, labels []int, workers int) *Data {
	return &Data{Set: set, Labels: labels, Workers: workers}
}

// PartSets splits set, whose matrices are the regions of items, regions
// per item, item after item, into one Set per region: PartSets(set, R)[r]
// holds every item's region r, the Sets of Data.Parts. They are
// spd.Set.Subset's copies, with the cached log-determinants, so no matrix
// is factorised again. It returns an
// error when set's length is not a multiple of regions.
func PartSets(set *spd.Set, regions int) ([]*spd.Set, error) {
	n := set.Len()
	if regions < 1 || n%regions != 0 {
		return nil, fmt.Errorf("%d descriptors are not %d regions per item", n, regions)
	}
	idx := make([]int, n/regions)
	out := make([]*spd.Set, regions)
	for r := range out {
		for i := range idx {
			idx[i] = i*regions + r
		}
		out[r] = set.Subset(idx)
	}
	return out, nil
}

// SetParts makes d's items items of several regions (Parts): set holds
// each item's regions, regions per item, item after item (the order of
// a layout's extraction), and Parts[r] gets every item's region r,
// sharing d's Labels, Classes, Meta, Ridge and Workers; d.Set becomes
// Parts[0].Set. set is regrouped in place (spd.Regroup), with its cached
// log-determinants, so that no matrix is copied or factorised again, and
// must not be used afterwards. Regions whose descriptors are identical
// bit for bit (the whole image, which every candidate layout of
// data.parts may start with) share one part Data, and d shares the
// pairwise quantities of Parts[0]: what is computed on one of them is
// never computed again on another. It returns an error when set's
// length is not a multiple of regions.
func (d *Data) SetParts(set *spd.Set, regions int) error {
	sets, err := spd.Regroup(set, regions)
	if err != nil {
		return fmt.Errorf("%d descriptors are not %d regions per item: %w", set.Len(), regions, err)
	}
	d.SetPartSets(sets)
	return nil
}

// SetPartSets makes d's items items of several regions (Parts) as
// SetParts does, from the Sets of each region: sets[r] holds every
// item's region r (spd.Regroup's Sets, or spd.Packer's, packed). Regions
// whose Sets are one or identical bit for bit share one part Data.
func (d *Data) SetPartSets(sets []*spd.Set) {
	d.Parts = make([]*Data, len(sets))
	for r, s := range sets {
		for q := range r {
			if s == sets[q] || spd.Equal(s, sets[q]) {
				d.Parts[r] = d.Parts[q]
				break
			}
		}
		if d.Parts[r] == nil {
			d.Parts[r] = &Data{Set: s, Labels: d.Labels, Classes: d.Classes, Meta: d.Meta, Ridge: d.Ridge, Workers: d.Workers}
		}
	}
	d.Set, d.same = d.Parts[0].Set, d.Parts[0]
}

// PackParts keeps the descriptors of each of d's parts packed
// (spd.Pack: the upper triangles, about half the dense size), unpacked
// within r's budget when a quantity or method reads them, so that items
// of many regions hold one part's dense descriptors at a time rather
// than all of them; every value read is bit for bit the dense one. Call
// it after SetParts and before anything is computed on d: it replaces
// the parts' Sets (and d.Set, Parts[0]'s). It returns an error when d
// has no parts.
func (d *Data) PackParts(r *spd.Residency) error {
	if d.Parts == nil {
		return fmt.Errorf("packing the parts of %d items without parts", d.Set.Len())
	}
	done := map[*Data]bool{}
	for _, p := range d.Parts {
		if done[p] {
			continue
		}
		done[p] = true
		if p.Set.Packed() {
			continue
		}
		s, err := spd.Pack(p.Set, r)
		if err != nil {
			return err
		}
		p.Set = s
	}
	d.Set = d.Parts[0].Set
	return nil
}

// Shared returns the value that d keeps under key, made by f on first
// use (concurrent first uses wait for one f; an error of f is returned
// and not kept), so that a method shares what it computes from d's
// descriptors with the other methods of a run for as long as d lives, as
// the pairwise quantities are shared. key must be comparable and of a
// type of the caller's package, so that keys never collide; the value
// must not be modified once returned, and one that grows with the run
// (a cache of sets) must bound itself.
func Shared[T any](d *Data, key any, f func() (T, error)) (T, error) {
	return dataState(d, key, f)
}

// dataState returns the state that d keeps under key, made by f on first
// use; concurrent first uses wait for one f.
func dataState[T any](d *Data, key any, f func() (T, error)) (T, error) {
	if d.same != nil {
		d = d.same
	}
	v, err := d.state.Do(key, func() (any, error) { return f() })
	if err != nil {
		var zero T
		return zero, err
	}
	return v.(T), nil
}

// NumClasses returns 1 + the largest label.
func (d *Data) NumClasses() int {
	n := 0
	for _, l := range d.Labels {
		n = max(n, l+1)
	}
	return max(n, len(d.Classes))
}

// ItemMeta returns item i's metadata (nil when the data has none).
func (d *Data) ItemMeta(i int) map[string]string {
	if d.Meta == nil {
		return nil
	}
	return d.Meta[i]
}

// Split is one train/test partition of a Data, as item indices: the unit
// of an experiment, which Run fits on Train and answers on Test.
type Split struct {
	// Data holds the descriptors made with the first ridge candidate.
	Data *Data
	// Variants holds one Data per ridge candidate, Variants[0] == Data;
	// methods select among them by cross-validation.
	Variants []*Data
	Train    []int
	Test     []int
	// Dictionary is the part that dictionary methods learn from; nil
	// unless the protocol gives one (Spec.Dictionary).
	Dictionary *Dictionary
	// Workers bounds the method's parallelism on this split.
	Workers int
	// Seed fixes any random choice the method makes (validation folds).
	Seed uint64
	// Folds is the number of cross-validation folds for parameter
	// selection inside Train.
	Folds int
	// FoldsBy says which items the validation folds keep together
	// (Data.ValidationFolds); the zero value: stratified folds.
	FoldsBy FoldGroups
	// Ranks is how many top classes must be ranked exactly (CMC length);
	// 0 means the prediction alone.
	Ranks int
	// Costs asks methods that declare Spec.Costs for Outcome.Costs.
	Costs bool
	// Share lists the methods whose outcome on the split Run keeps for
	// the split's later methods: the candidates of a Best, whose chosen
	// one then answers the split's test items with the outcome it gave
	// when it ran on the split itself, rather than predicting them again
	// (a method answers a split the same whenever it runs: the
	// reproducibility the contract asks of it). Nil keeps none.
	Share []Method
	// Scratch, when set, lends the kernel blocks of all the split's
	// methods (Train.Scratch, Query.Scratch), so that the methods of a
	// run hold one set of block buffers rather than a set each; nil: each
	// method its own.
	Scratch *Scratch

	pairs pairsCache  // Pairs in use by the split's methods
	ran   ranOutcomes // the outcomes of the methods of Share
	// within, when not nil, is a split over the same Data whose training
	// set holds this one's (the training set of which this one is a
	// cross-validation fold): Pairs are views of its (pairsWithin).
	within *Split
}

// pairsCache holds a training set's Pairs, one per ridge variant and
// quantity.
type pairsCache = once.Cache[splitPairsKey, Pairs]

// AllVariants returns the split's ridge variants: Variants, or Data alone.
func (s *Split) AllVariants() []*Data { return allVariants(s.Data, s.Variants) }

func allVariants(d *Data, variants []*Data) []*Data {
	if len(variants) == 0 {
		return []*Data{d}
	}
	return variants
}

// Fitting returns the split's training part, what Fit sees: its Pairs
// are the split's.
func (s *Split) Fitting() *Train {
	return &Train{Data: s.Data, Variants: s.Variants, Items: s.Train, Dictionary: s.Dictionary,
		Workers: s.Workers, Seed: s.Seed, Folds: s.Folds, FoldsBy: s.FoldsBy, Scratch: s.Scratch, pairs: &s.pairs, ran: &s.ran, within: s.within}
}

// Query returns the split's test part, what Predict answers.
func (s *Split) Query() *Query {
	return &Query{Data: s.Data, Variants: s.Variants, Items: s.Test, Ranks: s.Ranks, Costs: s.Costs, Workers: s.Workers, Scratch: s.Scratch, ran: &s.ran}
}

// Train is what a method's Fit sees: the training items of a Data, never
// any other item's label.
type Train struct {
	// Data holds the descriptors made with the first ridge candidate.
	Data *Data
	// Variants holds one Data per ridge candidate, Variants[0] == Data,
	// over the same items; nil for one.
	Variants []*Data
	// Items are the training items, ascending.
	Items []int
	// Dictionary is the part that dictionary methods learn from; nil
	// unless the protocol gives one (Spec.Dictionary).
	Dictionary *Dictionary
	// Workers bounds the method's parallelism.
	Workers int
	// Seed fixes any random choice the method makes (validation folds).
	Seed uint64
	// Folds is the number of cross-validation folds for parameter
	// selection inside Items.
	Folds int
	// FoldsBy is Split.FoldsBy: which items the folds keep together.
	FoldsBy FoldGroups
	// CV, when not nil, receives the tables of the choices that
	// cross-validation makes in this fit (Choose, Best, Fused), not those
	// of the fits inside its folds: what a model records of its fit.
	CV *CVLog
	// Scratch is Split.Scratch: the block buffers the methods share; nil:
	// each method its own.
	Scratch *Scratch

	init   sync.Once
	pairs  *pairsCache  // shared with a Split's; made on first use otherwise
	ran    *ranOutcomes // a Split's, when t is its Fitting; nil otherwise
	within *Split       // the Split's within
}

// AllVariants returns the ridge variants: Variants, or Data alone.
func (t *Train) AllVariants() []*Data { return allVariants(t.Data, t.Variants) }

// Pairs returns d.Pairs(q, t.Items) for d, one of the training items'
// ridge variants or a Data that holds them at the same indices (a
// Query's), and keeps it while t is in use: however many fits run at
// once, the Data's bounded cache never makes a fit in progress compute
// its divergences twice. Methods ask their Train rather than the Data.
func (t *Train) Pairs(d *Data, q Quantity) (Pairs, error) {
	t.init.Do(func() {
		if t.pairs == nil {
			t.pairs = new(pairsCache)
		}
	})
	return t.pairs.Do(splitPairsKey{d, q}, func() (Pairs, error) { return pairsWithin(t.within, d, q, t.Items) })
}

// restrictable is a Pairs whose training set's subsets' Pairs are views
// of it: the same values, computed once for all of them.
type restrictable interface {
	restrict(train []int) (Pairs, error)
}

// pairsWithin returns d.Pairs(q, train), as a view of w's Pairs when w,
// a split over d whose training set holds train, has restrictable ones:
// the cross-validation folds of a training set then compute no pairwise
// quantity that the training set's own Pairs do not hold.
func pairsWithin(w *Split, d *Data, q Quantity, train []int) (Pairs, error) {
	if w != nil {
		p, err := w.Pairs(d, q)
		if err != nil {
			return nil, err
		}
		if r, ok := p.(restrictable); ok {
			return r.restrict(train)
		}
	}
	return d.Pairs(q, train)
}

// Query is what a Fitted's Predict answers: items of a Data that holds
// the training items at the indices that Fit saw, and other items beside
// them. In a run that is the split's Data itself; a model read back from
// its folder builds one of its training descriptors followed by the
// queries.
type Query struct {
	// Data holds the items, with the ridge variant of Fit's Data.
	Data *Data
	// Variants holds the items of every ridge variant of Fit's Train, in
	// its order; nil for one.
	Variants []*Data
	// Items are the items to answer.
	Items []int
	// Ranks is how many top classes must be ranked exactly (CMC length);
	// 0 means the prediction alone.
	Ranks int
	// Costs asks methods that declare Spec.Costs for Outcome.Costs.
	Costs bool
	// Probabilities asks methods that declare Spec.Probabilities for
	// Outcome.Probabilities.
	Probabilities bool
	// Workers bounds the method's parallelism.
	Workers int
	// Scratch is Split.Scratch: the block buffers the methods share; nil:
	// each method its own.
	Scratch *Scratch

	ran *ranOutcomes // a Split's, when q is its Query (its test items as asked); nil otherwise
}

// Variant returns the query's items of ridge variant v, the one a
// method chose (Candidate.Variant).
func (q *Query) Variant(v int) *Data { return allVariants(q.Data, q.Variants)[v] }

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
	// Scores holds, for methods that declare Spec.Scores, each test
	// item's answer with its confidence, in Split.Test order.
	Scores []ItemScore
	// Costs holds, for methods that declare Spec.Costs, each test item's
	// cost of every class of CostClasses, lower meaning more likely: the
	// class residuals ε_c of an SRC method (Eqn. 9), a nearest-neighbour
	// method's distance to the class's nearest item, or 1 − p_c for an
	// SVM's class probability. Fusing the parts of multi-region items
	// adds them up (see package experiment).
	Costs [][]float64
	// Probabilities holds, for methods that declare Spec.Probabilities
	// when the Query asks, each test item's probability of every class of
	// CostClasses: nonnegative, summing to 1 (to rounding), made of the
	// quantities that the method ranks the classes by:
	//
	//   - SRC methods (rsr, logE-SR, pca-src, gsr): the classes' shares of
	//     the query's energy (rsr.Classifier.Shares), which the scores are;
	//   - stein-svm: the Platt probabilities coupled over the one-vs-one
	//     machines (svm.Decision.Prob), which the scores are; the label is
	//     the vote's, which need not be the most probable class;
	//   - mdm, nn (but with the AIRM metric, whose ranking prunes classes),
	//     rlpp, codes and tsc: the softmax of −d²,
	//     p_c = exp(−d_c²) / Σ_k exp(−d_k²), d_c² the squared distance of
	//     class c's mean (mdm) or nearest member in the method's space
	//     (rlpp's projection, codes' sparse codes), or the divergence that
	//     the method ranks by (the Stein divergence S for nn's and mdm's
	//     stein, the class's Burg residual for tsc); mdm's scores are
	//     these, nn's, rlpp's and codes' stay their distance ratios
	//     (NearestScores);
	//   - fused regions (Fused): the mean of the regions' probabilities,
	//     weighted by the parts' weights under the weighted rule.
	//
	// The predicted class has the largest probability (ties included)
	// for every method but stein-svm and fused regions, whose labels
	// follow their votes and fused costs. Only stein-svm's are calibrated
	// on held-out data (Platt's internal cross-validation); the others
	// are on the scale of the method's energies or distances, unit
	// variance for the softmax.
	Probabilities [][]float64
	// CostClasses lists, ascending, the class labels of Costs' and
	// Probabilities' columns.
	CostClasses []int
	// Fusion records how the engine fused the parts of multi-region items
	// into this outcome; nil when items have one descriptor.
	Fusion *Fusion
	// Chosen names the method whose outcome this is when a best method
	// chose it by cross-validation.
	Chosen string
	// CV holds the tables of the choices that cross-validation made in
	// the fit (Train.CV; Run fills it); nil when the fit chose nothing.
	CV []CVTable
}

// Fusion is how an outcome over items of several regions came about: the
// layout and the fusion rule chosen, the layout's regions (as
// "WxH+X+Y", in part order), each part's weight, each part's test
// accuracy (%) on its own and the parameters each part's method used
// (chosen per part where the method chooses by cross-validation, as
// RSR's σ and λ are; Outcome.Params holds the first part's).
type Fusion struct {
	Layout       string               `json:"layout"`
	Rule         string               `json:"rule"`
	Regions      []string             `json:"regions"`
	Weights      []float64            `json:"weights"`
	PartAccuracy []float64            `json:"part_accuracy"`
	PartParams   []map[string]float64 `json:"part_params,omitempty"`
}
