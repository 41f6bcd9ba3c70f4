package model

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
)

// Format is the format of a model's folder, the "format" of its
// meta.json.
const Format = store.FormatModel

// DefaultFolds is the default number of cross-validation folds,
// covpipe run's.
const DefaultFolds = 3

// Methods lists the method types a model can be fitted with: every type
// of package method, and best (Options.Candidates).
func Methods() []string { return slices.Sorted(slices.Values(append(method.Names(), bestType))) }

// bestType is the method type of a model that chooses among candidates
// (classify.Best).
const bestType = "best"

// Candidate is a method that a best model chooses among: its name, type
// and parameters, as a config's method entry gives them.
type Candidate struct {
	Name   string         `json:"name"`
	Method string         `json:"method"`
	Params map[string]any `json:"params"`
}

// Options configure Fit.
type Options struct {
	// Method is the method's type, one of Methods.
	Method string
	// Candidates are the methods that a best model (Method best) chooses
	// among by cross-validation, two or more, in the order of preference
	// of the one-standard-error rule (Params may hold "rule": one-se, the
	// default, or max).
	Candidates []Candidate
	// Params are the method's parameters, as the method's entry of an
	// experiment file gives them (docs/experiments.md, "Methods"),
	// such as {"sigma": 0.5, "lambda_ratio": []float64{0.05,
	// 0.1}}: a list gives candidates, chosen by cross-validation.
	Params map[string]any
	// Folds is the number of stratified cross-validation folds inside the
	// training set that choose among candidates (0: DefaultFolds).
	Folds int
	// FoldsBy, when its Key is set, makes the folds group folds of that
	// metadata key of the input images (datasets.Item.Meta: FERET's
	// pose, a re-id tracklet), across or within classes
	// (classify.Data.ValidationFolds), as an experiment file's folds_by
	// and folds_within do. Fit reads the groups from the images'
	// metadata; FitOutput, whose descriptors carry none, from Groups.
	FoldsBy classify.FoldGroups
	// Groups are, for FitOutput, each descriptor's value of FoldsBy.Key
	// (one per row of its out, the same for the rows of one image), as
	// scikit-learn's GroupKFold takes groups beside the labels. Fit
	// ignores them.
	Groups []string
	// Seed fixes the folds, and the SVM's calibration folds.
	Seed uint64
	// Workers bounds the goroutines of fitting, and of extraction unless
	// Describe.Workers is set (0: GOMAXPROCS). The model does not depend
	// on it.
	Workers int
	// Describe are the extraction options of Fit's images; the model
	// records them, and Predict extracts with the same.
	Describe describe.Options
	// MaxMemory bounds, in bytes, what the sizes of o make a fit hold
	// (the Folds: each keeps the indices of its training items) before
	// anything is fitted (0: 4 GiB, describe.DefaultMaxMemory); a fit
	// over it is refused with an error wrapping describe.ErrMemory that
	// names the setting and its estimate. Negative is an error.
	MaxMemory int64
	// Fusion, when not empty, makes each image one item of its regions
	// (several per image: Describe.Regions such as whole+grid:3x3:16)
	// and lists the rules that fuse their class costs
	// (classify.FusionRules: sum, normalized, vote, weighted), chosen
	// among by cross-validation as covpipe run chooses data.parts.fusion.
	// The method must give class costs (rsr, logE-SR, stein-svm, nn with
	// the Stein or log-Euclidean metric).
	Fusion []string
	// Atoms is the size of the dictionary of a method that makes one
	// (method type codes: random, k-means or learned atoms), which a
	// model makes from its own training items: the paper's Section 6.2
	// learns the dictionary from images of their own, which covpipe learn
	// and encode take. It is required for such a method, in [1, the
	// number of training items], and refused for any other.
	Atoms int
}

// Model is a fitted recogniser (see the package documentation): Fit or
// FitOutput makes one, Load reads one back. It is safe for concurrent
// use.
type Model struct {
	rec    record
	method classify.Method // the method as rec records it
	fitted classify.Fitted
	train  *classify.Data // the training items, which queries join
	dir    string         // the folder it was loaded from, "" for a fitted one
	// probs and costs say that the fitted method (a best model's
	// chosen candidate) gives class probabilities (Spec.Probabilities)
	// and class costs (Spec.Costs, which a model of several regions per
	// image fuses into its answer rather than giving them).
	probs, costs bool
}

// record is model.json: everything but the arrays.
type record struct {
	Version string `json:"covpipe_version"`
	// Method is the method's type; Params its parameters as resolved
	// (defaults filled in, names canonical; candidates as given) and
	// Chosen those that cross-validation chose (classify.Fitted.Chosen);
	// a best model's Candidates its candidates and ChosenMethod the one
	// it chose.
	Method       string             `json:"method"`
	Params       map[string]any     `json:"params"`
	Candidates   []Candidate        `json:"candidates,omitempty"`
	Chosen       map[string]float64 `json:"chosen"`
	ChosenMethod string             `json:"chosen_method,omitempty"`
	Folds        int                `json:"folds"`
	FoldsBy      string             `json:"folds_by,omitempty"`
	FoldsWithin  string             `json:"folds_within,omitempty"`
	Seed         uint64             `json:"seed"`
	// Atoms is the size of the dictionary made from the training items
	// (Options.Atoms), 0 for a method that makes none.
	Atoms int `json:"atoms,omitempty"`
	// Classes are the class names; Labels the class (index into Classes)
	// of each training item (an image, for a model of several regions per
	// image).
	Classes []string `json:"classes"`
	Labels  []int    `json:"labels"`
	Dim     int      `json:"dim"`
	// Trained counts the training items.
	Trained int `json:"trained_items"`
	// Extraction is the metadata of the training descriptors (their
	// extraction options and inputs), nil for descriptors without it.
	Extraction *store.Meta `json:"extraction,omitempty"`
	// Vectors are the per-image vectors that the method reads beside the
	// descriptors (vectors.npy), nil for none.
	Vectors *store.Vectors `json:"vectors,omitempty"`
	// Parts, for a model of several regions per image, is how their
	// answers are fused.
	Parts *partsRecord `json:"parts,omitempty"`
	// CV holds the tables of the choices that cross-validation made in
	// the fit (classify.CVTable), in the order they were made; none for
	// a fit without a choice.
	CV []classify.CVTable `json:"cv,omitempty"`
	// Notes are what the fit found wrong with the training data
	// (Model.Notes).
	Notes []string `json:"notes,omitempty"`
	// State is the fitted method's record (classify.State), whose arrays
	// are the files Arrays lists.
	State  json.RawMessage `json:"state"`
	Arrays []string        `json:"arrays,omitempty"`
}

// Fit extracts the descriptors of the labelled images of inputs with
// o.Describe (describe.Collect) and fits a model on them (FitOutput).
// Every image needs a label (class folders, a manifest's label column, a
// dataset's naming scheme). It returns the errors of describe.Collect and
// of FitOutput (the folds checked against o.MaxMemory before any image is
// extracted), and one wrapping ctx.Err() once ctx is cancelled.
func Fit(ctx context.Context, inputs []*datasets.List, o Options) (*Model, error) {
	images := 0
	for _, l := range inputs {
		if l != nil {
			images += len(l.Items)
		}
	}
	// Every image gives at least one descriptor: the folds are checked
	// before any is extracted, and again by FitOutput.
	if err := checkFolds(cmp.Or(o.Folds, DefaultFolds), images, o.MaxMemory); err != nil {
		return nil, err
	}
	do := o.Describe
	if do.Workers == 0 {
		do.Workers = o.Workers
	}
	specs := o.vectorSpecs()
	if do.Vectors.Features == nil && len(specs) > 0 {
		do.Vectors = specs[0]
	}
	out, err := describe.Collect(ctx, inputs, do)
	if err != nil {
		return nil, err
	}
	// A best model's candidates may read other vectors too: the images
	// are described again for each, for the cross-validation.
	var more []*store.Output
	for _, v := range specs[min(1, len(specs)):] {
		do.Vectors = v
		mo, err := describe.Collect(ctx, inputs, do)
		if err != nil {
			return nil, err
		}
		more = append(more, mo)
	}
	var meta []map[string]string
	if o.FoldsBy.Key != "" {
		if meta, err = rowMeta(inputs, out.Rows); err != nil {
			return nil, err
		}
	}
	return fitOutput(ctx, out, more, meta, o)
}

// FitOutput fits a model of method o.Method on the labelled descriptors
// of out (a descriptor folder read by store.Read, or describe.Collect's,
// with the per-image vectors of a method that reads them): the method's
// Fit chooses among the candidates of o.Params by o.Folds-fold stratified
// cross-validation inside the training set, as covpipe run does (folds
// drawn from o.Seed; group folds of o.FoldsBy when o.Groups gives each
// descriptor's group), and fits the method with the chosen parameters on
// all of out. The model records out.Meta's extraction options, so that
// Predict extracts images as out's were (a Meta without features leaves
// the model to PredictSet). o.Describe is not used.
//
// It returns an error for a method type the package does not fit,
// parameters the method refuses (naming the key), σ that Theorem 1
// refuses for the descriptors' d, candidates with fewer than 2 folds,
// folds whose training items' indices would take more than o.MaxMemory
// (wrapping describe.ErrMemory), descriptors that do not match out's
// rows or are not SPD, missing vectors for a method that reads them, a
// descriptor without a label, fewer than two classes, o.Groups without
// o.FoldsBy's key, not one per descriptor, empty, or different among an
// image's regions, o.FoldsBy without o.Groups, and, once ctx is
// cancelled, an error wrapping ctx.Err().
func FitOutput(ctx context.Context, out *store.Output, o Options) (*Model, error) {
	return fitOutput(ctx, out, nil, nil, o)
}

// fitOutput is FitOutput with more, the vectors of other features of the
// same images, for a best model's candidates, and meta, each row's image
// metadata, which o.FoldsBy groups.
func fitOutput(ctx context.Context, out *store.Output, more []*store.Output, meta []map[string]string, o Options) (*Model, error) {
	if out == nil {
		return nil, errors.New("model: fit on a nil *store.Output")
	}
	if meta == nil && o.Groups != nil {
		var err error
		if meta, err = groupMeta(o.FoldsBy.Key, o.Groups, len(out.Rows)); err != nil {
			return nil, err
		}
	}
	if o.FoldsBy.Key != "" && meta == nil {
		return nil, fmt.Errorf("model: %s: descriptors carry no image metadata to group by; give each descriptor's group (Options.Groups) or fit from the images (model.Fit, covpipe fit on image inputs)", o.FoldsBy)
	}
	folds := cmp.Or(o.Folds, DefaultFolds)
	if folds < 0 {
		return nil, fmt.Errorf("model: %d folds, want >= 2 (0: %d)", folds, DefaultFolds)
	}
	if err := checkFolds(folds, len(out.Rows), o.MaxMemory); err != nil {
		return nil, err
	}
	d := out.Meta.Dim
	if d < 1 || len(out.Data) != len(out.Rows)*d*d {
		return nil, fmt.Errorf("model: %d values of descriptors for %d rows of %d×%d", len(out.Data), len(out.Rows), d, d)
	}
	rec := record{Version: version.String(), Method: o.Method, Params: o.Params, Candidates: o.Candidates, Folds: folds, Seed: o.Seed, Atoms: o.Atoms, Dim: d, Extraction: extractionOf(out)}
	if o.FoldsBy.WithinClass {
		rec.FoldsWithin = o.FoldsBy.Key
	} else {
		rec.FoldsBy = o.FoldsBy.Key
	}
	rules, err := classify.ParseFusionRules(o.Fusion)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if len(o.Fusion) > 0 {
		rec.Parts = &partsRecord{}
		for _, r := range rules {
			rec.Parts.Rules = append(rec.Parts.Rules, r.String())
		}
	}
	set, err := spd.NewSetFromData(d, out.Data)
	if err != nil {
		return nil, fmt.Errorf("model: training descriptors: %w", err)
	}
	data, err := trainingData(out, set, &rec, o.Workers)
	if err != nil {
		return nil, err
	}
	rec.Notes = copiesNotes(out)
	if meta != nil {
		// One item per image: its first row's.
		regions := len(out.Rows) / len(data.Labels)
		data.Meta = make([]map[string]string, len(data.Labels))
		for i := range data.Meta {
			data.Meta[i] = meta[i*regions]
			for r := 1; r < regions && o.Groups != nil; r++ {
				if g := o.Groups[i*regions+r]; g != o.Groups[i*regions] {
					return nil, fmt.Errorf("model: descriptor %d has group %q but descriptor %d of the same image %q: an image's regions share its group", i*regions+r, g, i*regions, o.Groups[i*regions])
				}
			}
		}
	}
	m, spec, specs, err := rec.newMethods(data)
	if err != nil {
		return nil, err
	}
	for _, ts := range specs {
		err := vectors(ts.typ, ts.spec, data, out)
		for _, mo := range more {
			if err == nil {
				break
			}
			err = vectors(ts.typ, ts.spec, data, mo)
		}
		if err != nil {
			return nil, err
		}
	}
	if spec.Candidates > 1 && folds < 2 {
		return nil, fmt.Errorf("model: %d parameter candidates but %d folds: want folds >= 2", spec.Candidates, folds)
	}
	fusionChosen := rec.Parts != nil && (classify.Fusing{Sets: [][]int{nil}, Rules: rules}).Chooses()
	if fusionChosen && folds < 2 {
		return nil, fmt.Errorf("model: choosing among fusion rules %v needs folds >= 2, not %d", o.Fusion, folds)
	}
	if (spec.Candidates > 1 || fusionChosen) && o.FoldsBy.Key == "" {
		if err := checkClassFolds(data, folds); err != nil {
			return nil, err
		}
	}
	t := rec.training(data)
	t.Workers, t.CV = o.Workers, &classify.CVLog{}
	f, err := m.Fit(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("model: method %s: %w", o.Method, err)
	}
	rec.CV = t.CV.Tables()
	model := &Model{rec: rec, method: m, fitted: f, train: data}
	model.rec.Chosen, model.rec.ChosenMethod = f.Chosen(), classify.ChosenMethod(f)
	model.keepVectors(specs)
	model.declare(model.rec.chosenSpec(specs))
	if c, _, ok := classify.FusionOf(f); ok {
		model.rec.Parts.Rule, model.rec.Parts.Weights = c.Rule.String(), c.Weights
	}
	return model, nil
}

// training returns the Train of the training items of data that r
// records: its folds and seed, and a dictionary made of all its items
// for a method that makes one.
func (r *record) training(data *classify.Data) *classify.Train {
	t := &classify.Train{Data: data, Items: classify.Seq(0, r.Trained), Seed: r.Seed, Folds: r.Folds, FoldsBy: r.foldGroups()}
	if r.Atoms > 0 {
		t.Dictionary = &classify.Dictionary{Learn: t.Items, Atoms: r.Atoms}
	}
	return t
}

// chosenSpec returns the Spec of the method that answers, of specs, the
// methods' own (newMethods): a best model's chosen candidate's, the
// method's otherwise.
func (r *record) chosenSpec(specs []typeSpec) classify.Spec {
	if k := r.chosenIndex(); k >= 0 {
		return specs[k].spec
	}
	return specs[0].spec
}

// chosenType returns the type of the method that answers: a best model's
// chosen candidate's, the method's otherwise.
func (r *record) chosenType() string {
	if k := r.chosenIndex(); k >= 0 {
		return r.Candidates[k].Method
	}
	return r.Method
}

// chosenIndex returns the index of a best model's chosen candidate, −1
// for a model of one method.
func (r *record) chosenIndex() int {
	return slices.IndexFunc(r.Candidates, func(c Candidate) bool { return c.Name == r.ChosenMethod })
}

// keepVectors keeps of the training items' vectors those that the fitted
// method reads (a best model's chosen candidate's; specs are the
// methods' own), which the record names for Predict to extract.
func (m *Model) keepVectors(specs []typeSpec) {
	req := m.rec.chosenSpec(specs).Vectors
	x := m.train.Vectors[req]
	m.train.Vectors = nil
	if req.IsZero() || x == nil {
		return
	}
	m.train.Vectors = map[classify.VectorRequest]*classify.Vectors{req: x}
	m.rec.Vectors = &store.Vectors{FeatureSpec: req.Features, Step: req.Step}
}

// candidateNames names a best model's candidates.
func (r *record) candidateNames() []string {
	var out []string
	for _, c := range r.Candidates {
		out = append(out, c.Name)
	}
	return out
}

// foldBytes is what a cross-validation fold holds beside the indices of
// its training items: its test items' slice header and its training
// items' one.
const foldBytes = 48

// extractionOf is the metadata a model records of its training
// descriptors out: nil for descriptors without extraction options.
func extractionOf(out *store.Output) *store.Meta {
	if out.Meta.FeatureSpec == "" {
		return nil
	}
	meta := out.Meta
	meta.Files, meta.Shard = nil, nil
	return &meta
}

// classesOf returns the sorted distinct labels of rows and each row's
// class, an index into them. It returns an error for a row without a
// label and for fewer than two classes.
func classesOf(rows []store.Row) (classes []string, labels []int, err error) {
	for i, r := range rows {
		if r.Label == "" {
			return nil, nil, fmt.Errorf("model: descriptor %d (%s) has no label: a model learns from labelled images (class folders, a manifest's label column)", i, r.Path)
		}
		classes = append(classes, r.Label)
	}
	slices.Sort(classes)
	classes = slices.Compact(classes)
	if len(classes) < 2 {
		return nil, nil, fmt.Errorf("model: %d descriptors of %d class(es): want at least two classes", len(rows), len(classes))
	}
	labels = make([]int, len(rows))
	for i, r := range rows {
		labels[i], _ = slices.BinarySearch(classes, r.Label)
	}
	return classes, labels, nil
}

// Method returns the model's method type.
func (m *Model) Method() string {
	if m == nil {
		return ""
	}
	return m.rec.Method
}

// Classes returns the class names, sorted.
func (m *Model) Classes() []string {
	if m == nil {
		return nil
	}
	return slices.Clone(m.rec.Classes)
}

// Dim returns the size d of the d×d descriptors the model takes.
func (m *Model) Dim() int {
	if m == nil {
		return 0
	}
	return m.rec.Dim
}

// Chosen returns the parameters that cross-validation chose (σ, λ or the
// λ ratio, C, the ridge the descriptors were made with).
func (m *Model) Chosen() map[string]float64 {
	if m == nil {
		return map[string]float64{}
	}
	out := make(map[string]float64, len(m.rec.Chosen))
	for k, v := range m.rec.Chosen {
		out[k] = v
	}
	return out
}

// declare records what the answers of the method whose Spec is spec
// (the fitted method, a best model's chosen candidate) can carry.
func (m *Model) declare(spec classify.Spec) {
	m.probs, m.costs = spec.Probabilities, spec.Costs && m.rec.Parts == nil
}

// Vectors returns the per-image vectors that the model reads beside the
// descriptors (their features and sampling step: a model of pca-src,
// gsr, sdalf or hpe), nil for a model that reads none.
func (m *Model) Vectors() *store.Vectors {
	if m == nil || m.rec.Vectors == nil {
		return nil
	}
	v := *m.rec.Vectors
	return &v
}

// name names the model in errors: its folder, or "the model".
func (m *Model) name() string {
	if m.dir == "" {
		return "the model"
	}
	return "model " + m.dir
}

// errNoModel is the error of a nil or zero Model asked to save or answer.
var errNoModel = errors.New("model: a nil or zero Model (not made by Fit, FitOutput or Load)")

// check returns errNoModel for a nil or zero Model.
func (m *Model) check() error {
	if m == nil || m.fitted == nil || m.train == nil {
		return errNoModel
	}
	return nil
}

// errNoExtraction is the error for a model without extraction options
// asked to describe images.
var errNoExtraction = errors.New("it was fitted on descriptors without their extraction options (not a describe folder's), so it cannot describe images: give descriptors (PredictSet)")
