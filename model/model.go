package model

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/experiment/classify"
	"github.com/covpipe/covpipe/experiment/method"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"github.com/covpipe/covpipe/svm"
	"go.yaml.in/yaml/v3"
)

// Format is the format of a model's folder, the "format" of its
// meta.json.
const Format = store.FormatModel

// DefaultFolds is the default number of cross-validation folds,
// covpipe run's.
const DefaultFolds = 3

// Methods lists the method types a model can be fitted with.
func Methods() []string { return []string{"logE-SR", "nn", "rsr", "stein-svm"} }

// Options configure Fit.
type Options struct {
	// Method is the method's type, one of Methods.
	Method string
	// Params are the method's parameters, as the method's entry of an
	// experiment file gives them (see covpipe's README, "Experiment
	// files"), such as {"sigma": 0.5, "lambda_ratio": []float64{0.05,
	// 0.1}}: a list gives candidates, chosen by cross-validation.
	Params map[string]any
	// Folds is the number of stratified cross-validation folds inside the
	// training set that choose among candidates (0: DefaultFolds).
	Folds int
	// Seed fixes the folds, and the SVM's calibration folds.
	Seed uint64
	// Workers bounds the goroutines of fitting, and of extraction unless
	// Describe.Workers is set (0: GOMAXPROCS). The model does not depend
	// on it.
	Workers int
	// Describe are the extraction options of Fit's images; the model
	// records them, and Predict extracts with the same.
	Describe describe.Options
	// Fusion, when not empty, makes each image one item of its regions
	// (several per image: Describe.Regions such as whole+grid:3x3:16)
	// and lists the rules that fuse their class costs
	// (classify.FusionRules: sum, normalized, vote, weighted), chosen
	// among by cross-validation as covpipe run chooses data.parts.fusion.
	// The method must give class costs (rsr, logE-SR, stein-svm, nn with
	// the Stein or log-Euclidean metric).
	Fusion []string
}

// Model is a fitted recogniser (see the package documentation): Fit or
// FitOutput makes one, Load reads one back. It is safe for concurrent
// use.
type Model struct {
	rec   record
	train *spd.Set  // the descriptors queries are compared with
	gram  []float64 // SRC methods: the kernel matrix of train, row-major
	dir   string    // the folder it was loaded from, "" for a fitted one
	kind  kind
	// parts are the regions' models of a model of several regions per
	// image (rec.Parts), which has no train, gram or kind of its own.
	parts []*Model

	solvers classify.Once[int, solver] // by worker count
}

// record is model.json: everything but the arrays.
type record struct {
	Version string `json:"covpipe_version"`
	// Method is the method's type; Params its parameters as resolved
	// (defaults filled in, names canonical; candidates as given) and
	// Chosen those that cross-validation chose (classify.Outcome.Params).
	Method string             `json:"method"`
	Params map[string]any     `json:"params"`
	Chosen map[string]float64 `json:"chosen"`
	Folds  int                `json:"folds"`
	Seed   uint64             `json:"seed"`
	// Classes are the class names; Labels the class (index into Classes)
	// of each descriptor of descriptors.npy.
	Classes []string `json:"classes"`
	Labels  []int    `json:"labels"`
	Dim     int      `json:"dim"`
	// Trained counts the descriptors the model was fitted on.
	Trained int `json:"trained_descriptors"`
	// Extraction is the metadata of the training descriptors (their
	// extraction options and inputs), nil for descriptors without it.
	Extraction *store.Meta `json:"extraction,omitempty"`
	// Machines are stein-svm's one-vs-one machines over descriptors.npy
	// (the support vectors), with their Platt sigmoids (svm.Binary's
	// JSON form).
	Machines []svm.Binary `json:"machines,omitempty"`
	// Parts, for a model of several regions per image, is how their
	// answers are fused and each region's model; the record's Labels are
	// then the images' classes, and it has no arrays of its own.
	Parts *partsRecord `json:"parts,omitempty"`
}

// Fit extracts the descriptors of the labelled images of inputs with
// o.Describe (describe.Collect) and fits a model on them (FitOutput).
// Every image needs a label (class folders, a manifest's label column, a
// dataset's naming scheme). It returns the errors of describe.Collect and
// of FitOutput, and one wrapping ctx.Err() once ctx is cancelled.
func Fit(ctx context.Context, inputs []*datasets.List, o Options) (*Model, error) {
	do := o.Describe
	if do.Workers == 0 {
		do.Workers = o.Workers
	}
	out, err := describe.Collect(ctx, inputs, do)
	if err != nil {
		return nil, err
	}
	return FitOutput(ctx, out, o)
}

// FitOutput fits a model of method o.Method on the labelled descriptors
// of out (a descriptor folder read by store.Read, or describe.Collect's):
// it chooses among the candidates of o.Params by o.Folds-fold stratified
// cross-validation inside the training set (classify.Select, as covpipe
// run does, folds drawn from o.Seed), then fits the method with the
// chosen parameters on all of out. The model records out.Meta's
// extraction options, so that Predict extracts images as out's were (a
// Meta without features leaves the model to PredictSet). o.Describe is
// not used.
//
// It returns an error for a method type the package does not fit,
// parameters the method refuses (naming the key), σ that Theorem 1
// refuses for the descriptors' d, candidates with fewer than 2 folds,
// descriptors that do not match out's rows or are not SPD, a descriptor
// without a label, fewer than two classes, and, once ctx is cancelled,
// an error wrapping ctx.Err().
func FitOutput(ctx context.Context, out *store.Output, o Options) (*Model, error) {
	if out == nil {
		return nil, errors.New("model: fit on a nil *store.Output")
	}
	if !slices.Contains(Methods(), o.Method) {
		return nil, fmt.Errorf("model: method %q: want one of %v", o.Method, Methods())
	}
	folds := cmp.Or(o.Folds, DefaultFolds)
	if folds < 0 {
		return nil, fmt.Errorf("model: %d folds, want >= 2 (0: %d)", folds, DefaultFolds)
	}
	d := out.Meta.Dim
	if d < 1 || len(out.Data) != len(out.Rows)*d*d {
		return nil, fmt.Errorf("model: %d values of descriptors for %d rows of %d×%d", len(out.Data), len(out.Rows), d, d)
	}
	var node yaml.Node
	if err := node.Encode(o.Params); err != nil {
		return nil, fmt.Errorf("model: parameters: %w", err)
	}
	if node.Kind != yaml.MappingNode {
		node = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	m, err := method.Types()[o.Method].New(&node)
	if err != nil {
		return nil, fmt.Errorf("model: method %s: %w", o.Method, err)
	}
	spec := m.Spec()
	if spec.CheckDim != nil {
		if err := spec.CheckDim(d); err != nil {
			return nil, fmt.Errorf("model: method %s on %d×%d descriptors: %w", o.Method, d, d, err)
		}
	}
	if spec.Candidates > 1 && folds < 2 {
		return nil, fmt.Errorf("model: %d parameter candidates but %d folds: want folds >= 2", spec.Candidates, folds)
	}
	set, err := spd.NewSetFromData(d, out.Data)
	if err != nil {
		return nil, fmt.Errorf("model: training descriptors: %w", err)
	}
	if len(o.Fusion) > 0 {
		return fitParts(ctx, out, set, m, o, folds)
	}
	classes, labels, err := classesOf(out.Rows)
	if err != nil {
		return nil, err
	}
	data := &classify.Data{Set: set, Labels: labels, Classes: classes, Ridge: out.Meta.Ridge.Eps, Workers: o.Workers}
	model, err := fitOne(ctx, m, data, o, folds)
	if err != nil {
		return nil, err
	}
	model.rec.Extraction = extractionOf(out)
	return model, nil
}

// fitOne fits method m on all the items of data: it chooses m's
// parameters by cross-validation (m.Classify on a split without test
// items), then fits the kind with them.
func fitOne(ctx context.Context, m classify.Method, data *classify.Data, o Options, folds int) (*Model, error) {
	all := classify.Seq(0, data.Set.Len())
	split := &classify.Split{Data: data, Train: all, Workers: o.Workers, Seed: o.Seed, Folds: folds}
	chosen, err := m.Classify(ctx, split)
	if err != nil {
		return nil, fmt.Errorf("model: method %s: %w", o.Method, err)
	}
	b, err := json.Marshal(m.Spec().Params)
	if err != nil {
		return nil, err
	}
	rec := record{
		Version: version.String(), Method: o.Method, Chosen: chosen.Params, Folds: folds, Seed: o.Seed,
		Classes: data.Classes, Labels: data.Labels, Dim: data.Set.Dim(), Trained: data.Set.Len(),
	}
	if err := json.Unmarshal(b, &rec.Params); err != nil {
		return nil, err
	}
	model := &Model{rec: rec, train: data.Set}
	if model.kind, err = kindOf(&model.rec); err != nil {
		return nil, err
	}
	if err := model.kind.fit(ctx, model, data, o.Workers); err != nil {
		return nil, fmt.Errorf("model: method %s: %w", o.Method, err)
	}
	return model, nil
}

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

// Extraction returns the metadata of the descriptors the model was
// fitted on (their extraction options), nil when it has none.
func (m *Model) Extraction() *store.Meta {
	if m == nil || m.rec.Extraction == nil {
		return nil
	}
	meta := *m.rec.Extraction
	return &meta
}

// errNoModel is the error of a nil or zero Model asked to save or answer.
var errNoModel = errors.New("model: a nil or zero Model (not made by Fit, FitOutput or Load)")

// check returns errNoModel for a nil or zero Model.
func (m *Model) check() error {
	if m == nil || (m.train == nil && m.parts == nil) {
		return errNoModel
	}
	return nil
}

// name names the model in errors: its folder, or "the model".
func (m *Model) name() string {
	if m.dir == "" {
		return "the model"
	}
	return "model " + m.dir
}

// errNoExtraction is the error for a model without extraction options
// asked to describe images.
var errNoExtraction = errors.New("it was fitted on descriptors without their extraction options (not a describe folder's), so it cannot describe images: give descriptors (PredictSet)")
