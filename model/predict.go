package model

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/progress"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"gonum.org/v1/gonum/mat"
)

// PredictOptions configure Predict.
type PredictOptions struct {
	// Workers bounds the goroutines of extraction and prediction (0:
	// GOMAXPROCS). The predictions do not depend on it.
	Workers int
	// Reject, when positive, rejects the answers whose confidence is
	// below it: the sparsity concentration index for SRC methods, the
	// score otherwise (classify.ItemScore.Confidence). Both lie in [0,
	// 1], and so must Reject (see Validate).
	Reject float64
	// Reporter, if not nil, receives the progress of extraction.
	Reporter progress.Reporter
	// Probabilities asks for each answer's class probabilities
	// (Prediction.Probabilities); a model whose method gives none
	// (Model.Probabilities) refuses it.
	Probabilities bool
	// Costs asks for each answer's class costs (Prediction.Costs); a
	// model whose method gives none (Model.Costs) refuses it.
	Costs bool
}

// ready returns an error for a nil or zero model, for options that
// Validate refuses, and for probabilities asked of a model that gives
// none, before anything is described.
func (m *Model) ready(o PredictOptions) error {
	if err := m.check(); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	if o.Probabilities && !m.probs {
		return fmt.Errorf("%s: %s gives no class probabilities (sdalf, hpe and nn with the AIRM metric give none; see covpipe predict --help)", m.name(), m.answerer())
	}
	if o.Costs && !m.costs {
		what := m.answerer()
		if m.rec.Parts != nil {
			what = "a model of several regions per image"
		}
		return fmt.Errorf("%s: %s gives no class costs (rsr, logE-SR, stein-svm, mdm and nn with a metric but AIRM give them, on one descriptor per image)", m.name(), what)
	}
	return nil
}

// answerer names, in errors, the method that answers: the model's, or a
// best model's chosen candidate.
func (m *Model) answerer() string {
	if m.rec.ChosenMethod != "" {
		return fmt.Sprintf("method best's chosen candidate %q (%s)", m.rec.ChosenMethod, m.rec.chosenType())
	}
	return "method " + m.rec.Method
}

// Probabilities reports whether the model's answers can carry class
// probabilities (PredictOptions.Probabilities): whether its method, a
// best model's chosen candidate, gives them (classify.Spec.Probabilities;
// classify.Outcome.Probabilities says what they are for each method).
func (m *Model) Probabilities() bool { return m != nil && m.probs }

// Costs reports whether the model's answers can carry class costs
// (PredictOptions.Costs): whether its method, a best model's chosen
// candidate, gives them (classify.Spec.Costs; classify.Outcome.Costs
// says what they are for each method) and the model answers for one
// descriptor per image (a model of several regions fuses its regions'
// costs into its answer, by a rule that may vote).
func (m *Model) Costs() bool { return m != nil && m.costs }

// Validate returns an error unless o.Reject is a confidence threshold in
// [0, 1], where the SCI and the scores lie: a threshold above 1 would
// reject every answer, and NaN none. Predict, PredictOutput and
// PredictSet call it.
func (o PredictOptions) Validate() error {
	if !(o.Reject >= 0 && o.Reject <= 1) {
		return fmt.Errorf("model: rejection threshold %v: want a confidence in [0, 1], where the SCI and the scores lie (0: reject nothing)", o.Reject)
	}
	return nil
}

// Prediction is the model's answer on one descriptor: a region of an
// image, or a matrix given to PredictSet; for a model of several regions
// per image (Parts), on one image, its Region the bounds of its regions.
type Prediction struct {
	// Input is the number of the input the image came from and Path its
	// path relative to that input (datasets.Item.Rel), Region the
	// region of the (resized) image; for PredictSet, Index is the
	// matrix's index and the others are zero.
	Input  int
	Path   string
	Region covariance.Region
	Index  int
	// Label is the predicted class and Score its score in [0, 1];
	// Second is the class ranked second ("" for a model of one class)
	// and SecondScore its score (see the package documentation).
	Label       string
	Score       float64
	Second      string
	SecondScore float64
	// SCI is the sparsity concentration index of an SRC method's code,
	// NaN for other methods.
	SCI float64
	// Truth is the label of the image (or of the descriptor's manifest
	// row) that the answer is for, its true class when the inputs are
	// labelled (class folders, a manifest's label column, a dataset's
	// naming scheme); "" for an unlabelled image and for PredictSet. It
	// may be a class the model does not know.
	Truth string
	// Probabilities holds, when PredictOptions.Probabilities asks, the
	// probability of each class of Model.Classes, in that order (see the
	// package documentation); nil otherwise.
	Probabilities []float64
	// Costs holds, when PredictOptions.Costs asks, the cost of each class
	// of Model.Classes, in that order, lower meaning more likely (see
	// the package documentation); nil otherwise.
	Costs []float64
	// Rejected says that the answer's confidence is below
	// PredictOptions.Reject.
	Rejected bool
}

// Confidence is what rejection thresholds: SCI for SRC methods, Score
// otherwise (classify.ItemScore.Confidence).
func (p Prediction) Confidence() float64 {
	return classify.ItemScore{Score: p.Score, SCI: p.SCI}.Confidence()
}

// Predict describes the images of inputs with the options the model
// was fitted with (describe.OptionsOf of its training descriptors'
// metadata), streaming, and answers for each descriptor, in input order,
// in blocks of classify.BlockSize descriptors, so that memory does not
// grow with the number of images. It returns an error for options that
// Validate refuses, one naming the model
// for a model fitted without extraction options, and for colour features
// on a grey image (naming both); the errors of describe's extraction
// (an image that cannot be read names its path); and, once ctx is
// cancelled, an error wrapping ctx.Err().
func (m *Model) Predict(ctx context.Context, inputs []*datasets.List, o PredictOptions) ([]Prediction, error) {
	if err := m.ready(o); err != nil {
		return nil, err
	}
	if m.rec.Extraction == nil {
		return nil, fmt.Errorf("%s: %w", m.name(), errNoExtraction)
	}
	do, err := describe.OptionsOf(m.rec.Extraction)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name(), err)
	}
	do.Workers, do.Reporter = o.Workers, o.Reporter
	if v := m.rec.Vectors; v != nil {
		set, err := features.Parse(v.FeatureSpec)
		if err != nil {
			return nil, fmt.Errorf("%s: vectors: %w", m.name(), err)
		}
		do.Vectors = describe.VectorSpec{Features: set, Step: v.Step}
	}
	ex, err := describe.NewExtractor(do)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name(), err)
	}
	if do.Features.NeedsColor() {
		if err := m.checkColour(inputs, do); err != nil {
			return nil, err
		}
	}
	s := &sink{ctx: ctx, m: m, o: o}
	if _, err := ex.Run(ctx, inputs, s); err != nil {
		return nil, err
	}
	return s.out, nil
}

// checkColour returns an error naming the model and the image for the
// first grey image of inputs (its colour model, from its header), which
// colour features cannot describe.
func (m *Model) checkColour(inputs []*datasets.List, do describe.Options) error {
	for _, l := range inputs {
		for _, it := range l.Items {
			f, err := os.Open(it.Path)
			if err != nil {
				return err
			}
			cfg, _, err := image.DecodeConfig(f)
			f.Close()
			if err == nil && (cfg.ColorModel == color.GrayModel || cfg.ColorModel == color.Gray16Model) {
				return fmt.Errorf("%s takes colour features (%s), but %s is a grey image: fit a model on grey features for grey images", m.name(), do.Features, it.Path)
			}
		}
	}
	return nil
}

// sink is the describe.Sink of Predict: it answers for the descriptors
// in blocks.
type sink struct {
	ctx  context.Context
	m    *Model
	o    PredictOptions
	meta *store.Meta
	data []float64
	vecs []float64    // the block's vectors, when the model reads them
	rows []Prediction // the block's, without answers
	out  []Prediction
}

func (s *sink) Vector(_ int, _ *datasets.Item, v []float64) error {
	s.vecs = append(s.vecs, v...)
	return nil
}

func (s *sink) Begin(meta *store.Meta) error {
	s.meta = meta
	return s.m.checkMeta(meta, "the images")
}

func (s *sink) Descriptors(input int, item *datasets.Item, regions []covariance.Region, data []float64) error {
	if n := s.m.regions(); n > 0 {
		if len(regions) != n {
			return fmt.Errorf("%s fuses %d regions per image, %s gives %d: resize the images as the training images were", s.m.name(), n, item.Path, len(regions))
		}
		if err := s.m.checkRegions(regions, item.Path); err != nil {
			return err
		}
		s.rows = append(s.rows, Prediction{Input: input, Path: item.Rel, Region: bounds(regions), Truth: item.Label})
	} else {
		for _, r := range regions {
			s.rows = append(s.rows, Prediction{Input: input, Path: item.Rel, Region: r, Truth: item.Label})
		}
	}
	s.data = append(s.data, data...)
	if len(s.rows) >= classify.BlockSize {
		return s.flush()
	}
	return nil
}

func (s *sink) Failed(int, *datasets.Item, error) error { return nil }

func (s *sink) Commit(*store.Meta) error { return s.flush() }

func (s *sink) Abort() {}

// flush answers for the descriptors of the block and starts the next.
func (s *sink) flush() error {
	if len(s.rows) == 0 {
		return nil
	}
	set, err := spd.NewSetFromData(s.m.rec.Dim, s.data)
	if err != nil {
		return err
	}
	ans, err := s.m.predictSet(s.ctx, set, s.vecs, s.rows, s.o)
	if err != nil {
		return err
	}
	s.out = append(s.out, ans...)
	s.rows, s.data, s.vecs = s.rows[:0], s.data[:0], s.vecs[:0]
	return nil
}

// PredictOutput answers for the descriptors of out (a descriptor folder
// read by store.Read, or describe.Collect's), in order. It returns an
// error for options that Validate refuses, one naming the model and out's folder when out's descriptors were
// not made with the model's extraction options (another feature set, d,
// ridge, resize or layout: the first that differs), and, once ctx is
// cancelled, an error wrapping ctx.Err().
func (m *Model) PredictOutput(ctx context.Context, out *store.Output, o PredictOptions) ([]Prediction, error) {
	if err := m.ready(o); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("%s: a nil *store.Output", m.name())
	}
	what := "the descriptors"
	switch {
	case out.Dir != "":
		what = "the descriptors of " + out.Dir
	case len(out.Meta.Inputs) > 0:
		what = "the descriptors of " + out.Meta.Inputs[0].Root
	}
	if m.rec.Extraction != nil || out.Meta.Dim != m.rec.Dim {
		if err := m.checkMeta(&out.Meta, what); err != nil {
			return nil, err
		}
	}
	set, err := spd.NewSetFromData(out.Meta.Dim, out.Data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	rows := make([]Prediction, len(out.Rows))
	for i, r := range out.Rows {
		rows[i] = Prediction{Input: r.Input, Path: r.Path, Region: r.Region, Truth: r.Label}
	}
	if m.rec.Vectors != nil && (out.Meta.Vectors == nil || !sameVectors(m.rec.vectorRequest(), *out.Meta.Vectors)) {
		return nil, fmt.Errorf("%s reads the images' vectors (features %s, step %d), which %s lack: describe them with those vectors, or give the images", m.name(), m.rec.Vectors.FeatureSpec, m.rec.Vectors.Step, what)
	}
	if n := m.regions(); n > 0 {
		images, regions, err := imagesOf(out.Rows)
		if err == nil && regions != n {
			err = fmt.Errorf("%d regions per image", regions)
		}
		if err != nil {
			return nil, fmt.Errorf("%s fuses %d regions per image, %s: %w", m.name(), n, what, err)
		}
		for i := range images {
			rs := make([]covariance.Region, n)
			for r := range rs {
				rs[r] = rows[i*n+r].Region
			}
			if err := m.checkRegions(rs, rows[i*n].Path); err != nil {
				return nil, err
			}
			rows[i] = rows[i*n]
			rows[i].Region = bounds(rs)
		}
		rows = rows[:images]
	}
	var vecs []float64
	if m.rec.Vectors != nil {
		vecs = out.Vectors
	}
	return m.predictSet(ctx, set, vecs, rows, o)
}

// bounds returns the smallest region that holds every region of rs: the
// image of a parts model's answer.
func bounds(rs []covariance.Region) covariance.Region {
	x0, y0, x1, y1 := rs[0].X, rs[0].Y, rs[0].X+rs[0].W, rs[0].Y+rs[0].H
	for _, r := range rs[1:] {
		x0, y0, x1, y1 = min(x0, r.X), min(y0, r.Y), max(x1, r.X+r.W), max(y1, r.Y+r.H)
	}
	return covariance.Region{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// checkMeta returns an error naming the model and what when the
// descriptors of meta were not made as the model's.
func (m *Model) checkMeta(meta *store.Meta, what string) error {
	if meta.Dim != m.rec.Dim {
		return fmt.Errorf("%s takes %d×%d descriptors (features %s), %s are %d×%d (features %s)",
			m.name(), m.rec.Dim, m.rec.Dim, m.features(), what, meta.Dim, meta.Dim, meta.FeatureSpec)
	}
	if m.rec.Extraction == nil {
		return nil
	}
	want := *m.rec.Extraction
	want.Version, want.Inputs, want.ItemsSHA256, want.Vectors = meta.Version, meta.Inputs, meta.ItemsSHA256, meta.Vectors
	want.SkipBad = meta.SkipBad
	if ds := meta.Differences(&want); len(ds) > 0 {
		var diffs []string
		for _, d := range ds {
			diffs = append(diffs, fmt.Sprintf("%s %s, the model's %s", d.Field, d.This, d.Other))
		}
		return fmt.Errorf("%s was fitted on descriptors made otherwise than %s: %s: describe them with the model's options, or give their images", m.name(), what, strings.Join(diffs, "; "))
	}
	return nil
}

// features names the model's features in errors.
func (m *Model) features() string {
	if m.rec.Extraction == nil {
		return "unknown"
	}
	return m.rec.Extraction.FeatureSpec
}

// PredictSet answers for the matrices of set, descriptors made as the
// model's training descriptors were (PredictOutput checks that, given
// their metadata): one answer per matrix, or for a model of several
// regions per image (Parts), one per image, each image's regions one
// after another in the model's region order. It returns an error for
// options that Validate refuses, one naming the model for matrices of another size or not a whole number of
// images, and, once ctx is cancelled, an error wrapping ctx.Err().
func (m *Model) PredictSet(ctx context.Context, set *spd.Set, o PredictOptions) ([]Prediction, error) {
	if err := m.ready(o); err != nil {
		return nil, err
	}
	if err := m.checkSet(set); err != nil {
		return nil, err
	}
	n := set.Len()
	if r := m.regions(); r > 0 {
		if n%r != 0 {
			return nil, fmt.Errorf("%s fuses %d regions per image, the set's %d matrices are not whole images (each image's regions one after another)", m.name(), r, n)
		}
		n /= r
	}
	rows := make([]Prediction, n)
	for i := range rows {
		rows[i].Index = i
	}
	return m.predictSet(ctx, set, nil, rows, o)
}

// checkSet checks that the model answers for the matrices of set alone.
func (m *Model) checkSet(set *spd.Set) error {
	switch {
	case set == nil:
		return fmt.Errorf("%s: a nil *spd.Set", m.name())
	case set.Dim() != m.rec.Dim:
		return fmt.Errorf("%s takes %d×%d descriptors (features %s), the set's are %d×%d", m.name(), m.rec.Dim, m.rec.Dim, m.features(), set.Dim(), set.Dim())
	case m.rec.Vectors != nil:
		return fmt.Errorf("%s reads the images' vectors beside their descriptors: predict from the images or from descriptors described with vectors", m.name())
	}
	return nil
}

// predictSet fills in rows, one per item of set (a matrix, or an
// image's regions one after another for a model of several regions per
// image), with the model's answers; vecs holds their vectors, one after
// another, for a model that reads them.
func (m *Model) predictSet(ctx context.Context, set *spd.Set, vecs []float64, rows []Prediction, o PredictOptions) ([]Prediction, error) {
	if set.Len() == 0 {
		return rows, nil
	}
	data, err := m.queries(set, vecs, len(rows), o.Workers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name(), err)
	}
	n := len(m.train.Labels)
	ans, err := m.fitted.Predict(ctx, &classify.Query{Data: data, Items: classify.Seq(n, n+len(rows)), Probabilities: o.Probabilities, Costs: o.Costs, Workers: o.Workers})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name(), err)
	}
	probs, err := m.byClass(ans.Probabilities, ans.CostClasses, o.Probabilities, len(rows), 0, "class probability")
	if err != nil {
		return nil, err
	}
	costs, err := m.byClass(ans.Costs, ans.CostClasses, o.Costs, len(rows), math.Inf(1), "class cost")
	if err != nil {
		return nil, err
	}
	out := slices.Clone(rows)
	for i := range out {
		m.fill(&out[i], itemScore(ans, i), o)
		if probs != nil {
			out[i].Probabilities = probs[i]
		}
		if costs != nil {
			out[i].Costs = costs[i]
		}
	}
	return out, nil
}

// byClass returns, when asked, the rows of an outcome's values per class
// (its Probabilities or Costs over columns) over the model's classes, a
// row for each of n answers, absent for a class of no column (0 for a
// probability, +Inf for a cost); what names them in errors.
func (m *Model) byClass(values [][]float64, columns []int, asked bool, n int, absent float64, what string) ([][]float64, error) {
	if !asked {
		return nil, nil
	}
	if len(values) != n {
		return nil, fmt.Errorf("%s: %d %s rows for %d answers", m.name(), len(values), what, n)
	}
	out := classify.Rows(n, len(m.rec.Classes))
	for i := range out {
		for c := range out[i] {
			out[i][c] = absent
		}
		// The outcome's columns are labels, which index the classes.
		for k, l := range columns {
			out[i][l] = values[i][k]
		}
	}
	return out, nil
}

// queries returns the Data of the model's training items followed by
// items queries, whose descriptors set holds (their regions one after
// another for a model of several regions per image) and vecs their
// vectors: a query's kernel values against the training items are then
// computed as covpipe run computes a test item's against its training
// set. The queries' labels are −1.
func (m *Model) queries(set *spd.Set, vecs []float64, items, workers int) (*classify.Data, error) {
	tr := m.train
	labels := slices.Concat(tr.Labels, slices.Repeat([]int{-1}, items))
	d := &classify.Data{Labels: labels, Classes: tr.Classes, Ridge: tr.Ridge, Workers: workers}
	if tr.Parts == nil {
		all, err := spd.Concat(tr.Set, set)
		if err != nil {
			return nil, err
		}
		d.Set = all
	} else {
		sets, err := classify.PartSets(set, len(tr.Parts))
		if err != nil {
			return nil, err
		}
		for r, p := range tr.Parts {
			all, err := spd.Concat(p.Set, sets[r])
			if err != nil {
				return nil, err
			}
			d.Parts = append(d.Parts, &classify.Data{Set: all, Labels: labels, Classes: tr.Classes, Ridge: tr.Ridge, Workers: workers})
		}
		d.Set = d.Parts[0].Set
	}
	for req, v := range tr.Vectors {
		x, err := v.Dense()
		if err != nil {
			return nil, err
		}
		rows, cols := x.Dims()
		if len(vecs) != items*cols {
			return nil, fmt.Errorf("%d vector values for %d queries of %d values each", len(vecs), items, cols)
		}
		if d.Vectors == nil {
			d.Vectors = map[classify.VectorRequest]*classify.Vectors{}
		}
		d.Vectors[req] = classify.NewVectors(mat.NewDense(rows+items, cols, slices.Concat(x.RawMatrix().Data[:rows*cols], vecs)))
	}
	return d, nil
}

// itemScore returns the answer for item q of out: its score, or for a
// method that does not score its answers, its two first classes with
// NaN scores.
func itemScore(out *classify.Outcome, q int) classify.ItemScore {
	if out.Scores != nil {
		return out.Scores[q]
	}
	r := out.Ranking[q]
	s := classify.ItemScore{Label: out.Pred[q], Second: -1, Score: math.NaN(), SecondScore: math.NaN(), SCI: math.NaN()}
	if len(r) > 1 {
		s.Second = r[1]
	}
	return s
}

// fill fills in p's answer from s, an answer's score over the model's
// classes.
func (m *Model) fill(p *Prediction, s classify.ItemScore, o PredictOptions) {
	p.Label, p.Score, p.SecondScore, p.SCI = m.rec.Classes[s.Label], s.Score, s.SecondScore, s.SCI
	if s.Second >= 0 {
		p.Second = m.rec.Classes[s.Second]
	}
	p.Rejected = o.Reject > 0 && p.Confidence() < o.Reject
}
