package main

/*
#include <stdint.h>
*/
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"unsafe"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
)

// fitOptions are covpipe_fit's options: model.Options's fields, the
// label of each descriptor, and optionally the extraction metadata of
// the descriptors (covpipe_describe's meta), which lets the model
// describe images itself (covpipe predict on images), and their rows
// (covpipe_describe's), which a model of several regions per image
// (fusion) groups by image. Vectors says what the per-image vectors
// given beside the matrices are (their features and step; by default,
// those of Extraction), for a method that reads them.
type fitOptions struct {
	Method     string            `json:"method"`
	Params     map[string]any    `json:"params"`
	Candidates []model.Candidate `json:"candidates"`
	Seed       uint64            `json:"seed"`
	Folds      int               `json:"folds"`
	Atoms      int               `json:"atoms"`
	Workers    int               `json:"workers"`
	Fusion     []string          `json:"fusion"`
	Labels     []string          `json:"labels"`
	Extraction *store.Meta       `json:"extraction"`
	Rows       []row             `json:"rows"`
	Vectors    *store.Vectors    `json:"vectors"`
	// Groups are each matrix's group (scikit-learn's groups), which make
	// the folds that choose among candidates group folds: across classes
	// (folds_by), or within each class when GroupsWithin is set
	// (folds_within). model.json records the key "group".
	Groups       []string `json:"groups"`
	GroupsWithin bool     `json:"groups_within"`
}

// groupKey is the metadata key under which covpipe_fit's groups fold.
const groupKey = "group"

// foldGroups returns the fold groups of o's groups (none without them).
func (o *fitOptions) foldGroups() (classify.FoldGroups, error) {
	if o.Groups == nil {
		if o.GroupsWithin {
			return classify.FoldGroups{}, fmt.Errorf("fit: groups_within without groups")
		}
		return classify.FoldGroups{}, nil
	}
	return classify.FoldGroups{Key: groupKey, WithinClass: o.GroupsWithin}, nil
}

// output returns the labelled descriptors of set as FitOutput takes them,
// with vecs the vectors of the items, one after another (nil for none).
func (o *fitOptions) output(data []float64, n, d int, vecs []float64) (*store.Output, error) {
	if len(o.Labels) != n {
		return nil, fmt.Errorf("fit: %d labels for %d matrices", len(o.Labels), n)
	}
	if o.Rows != nil && len(o.Rows) != n {
		return nil, fmt.Errorf("fit: %d rows for %d matrices", len(o.Rows), n)
	}
	out := &store.Output{Meta: store.Meta{Dim: d}, Data: data, Rows: make([]store.Row, n)}
	if o.Extraction != nil {
		if o.Extraction.Dim != d {
			return nil, fmt.Errorf("fit: extraction of %d×%d descriptors for matrices of %d×%d", o.Extraction.Dim, o.Extraction.Dim, d, d)
		}
		out.Meta = *o.Extraction
	}
	for i := range out.Rows {
		r := store.Row{Index: i, Label: o.Labels[i]}
		if o.Rows != nil {
			g := o.Rows[i].Region
			r.Input, r.Path = o.Rows[i].Input, o.Rows[i].Path
			r.Region.X, r.Region.Y, r.Region.W, r.Region.H = g[0], g[1], g[2], g[3]
		}
		out.Rows[i] = r
	}
	if vecs != nil {
		v := o.Vectors
		if v == nil && o.Extraction != nil {
			v = o.Extraction.Vectors
		}
		if v == nil {
			return nil, fmt.Errorf("fit: vectors given without what they are: give their features and step (covpipe_describe's vectors)")
		}
		out.Meta.Vectors, out.Vectors, out.VectorLen = v, vecs, len(vecs)/n
	}
	return out, nil
}

// vectorsOf returns a copy of the vectors of n items at v, vlen values
// in all (nil for a NULL v), refusing a length that is not n whole
// vectors of at least one value.
func vectorsOf(v unsafe.Pointer, vlen, n int64) ([]float64, error) {
	if v == nil {
		return nil, nil
	}
	if vlen < n || vlen%n != 0 || vlen > maxValues {
		return nil, fmt.Errorf("vectors: %d values for %d matrices: want a vector of the same length for each", vlen, n)
	}
	return slices.Clone(unsafe.Slice((*float64)(v), vlen)), nil
}

// covpipe_fit fits a model (model.FitOutput) on the n labelled d×d
// matrices at x, with the n vectors at v (vlen values in all; NULL for
// none) for a method that reads images' vectors, with options, a JSON fitOptions: {"method": TYPE,
// "params": {...}, "labels": [...], "seed", "folds", "atoms", "workers",
// "groups", "groups_within", ...}, the parameters as an experiment file's method entry gives them
// (a list gives candidates, chosen by cross-validation). *res is set to
// the model's handle. The model is bit for bit covpipe fit's on a
// describe folder of the same descriptors, labels, seed and folds. It
// returns FitOutput's errors (parameters the method refuses, naming the
// key; matrices that are not SPD, naming the index) and a "c:" error once
// tok is cancelled.
//
//export covpipe_fit
func covpipe_fit(tok uintptr, options *C.char, x unsafe.Pointer, n, d int64, v unsafe.Pointer, vlen int64, res *uintptr) *C.char {
	return call(func() error {
		ctx, err := contextOf(tok)
		if err != nil {
			return err
		}
		var o fitOptions
		if err := decodeJSON(options, "fit options", &o); err != nil {
			return err
		}
		// The copy is validated as FitOutput will validate it again, so
		// that a bad matrix is named as the caller's X.
		set, err := matrices("X", x, n, d)
		if err != nil {
			return err
		}
		vecs, err := vectorsOf(v, vlen, n)
		if err != nil {
			return err
		}
		out, err := o.output(set.Data(), int(n), int(d), vecs)
		if err != nil {
			return err
		}
		groups, err := o.foldGroups()
		if err != nil {
			return err
		}
		fitCtx, detach := outliving(ctx)
		defer detach()
		m, err := model.FitOutput(fitCtx, out, model.Options{Method: o.Method, Params: o.Params, Candidates: o.Candidates,
			Seed: o.Seed, Folds: o.Folds, FoldsBy: groups, Groups: o.Groups, Atoms: o.Atoms, Workers: o.Workers, Fusion: o.Fusion})
		if err != nil {
			return err
		}
		return newHandle(res, m)
	})
}

// outliving returns a context that ctx's cancellation cancels until
// detach is called, and that lives on after: a fitted model may keep the
// context of its fit (pca-src and gsr project later queries with it),
// and the caller's cancel token, cancelled when it is released after the
// call, must not stop the model's later answers.
func outliving(ctx context.Context) (c context.Context, detach func()) {
	c, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	if ctx.Err() != nil {
		cancel() // at once, not when AfterFunc's goroutine runs
	}
	return c, func() { stop() }
}

// predictOptions are covpipe_predict's options (model.PredictOptions).
type predictOptions struct {
	Reject        float64 `json:"reject"`
	Workers       int     `json:"workers"`
	Probabilities bool    `json:"probabilities"`
	Costs         bool    `json:"costs"`
}

// predictionsResult returns the result of ps, answers of m: arrays
// "label" and "second" (indices into the model's classes, as doubles;
// −1 for no second class), "score", "second_score", "sci" and "rejected"
// (1 or 0), when asked "probabilities" and "costs" of shape (n, classes)
// (model.Prediction's, in the order of the model's classes), and the
// text of their rows (input, path, region; index for PredictSet's).
func predictionsResult(m *model.Model, ps []model.Prediction, o model.PredictOptions) (*result, error) {
	classes := m.Classes()
	class := func(name string) float64 {
		if i, ok := slices.BinarySearch(classes, name); ok {
			return float64(i)
		}
		return -1
	}
	n := len(ps)
	names := []string{"label", "second", "score", "second_score", "sci", "rejected"}
	r := &result{arrays: map[string]array{}}
	for _, name := range names {
		r.arrays[name] = array{shape: []int{n}, data: make([]float64, n)}
	}
	rows := make([]row, n)
	for i, p := range ps {
		rejected := 0.0
		if p.Rejected {
			rejected = 1
		}
		for k, v := range []float64{class(p.Label), class(p.Second), p.Score, p.SecondScore, p.SCI, rejected} {
			r.arrays[names[k]].data[i] = v
		}
		g := p.Region
		rows[i] = row{Index: p.Index, Input: p.Input, Path: p.Path, Label: p.Label, Region: [4]int{g.X, g.Y, g.W, g.H}}
	}
	for _, a := range []struct {
		name  string
		asked bool
		of    func(p model.Prediction) []float64
	}{
		{"probabilities", o.Probabilities, func(p model.Prediction) []float64 { return p.Probabilities }},
		{"costs", o.Costs, func(p model.Prediction) []float64 { return p.Costs }},
	} {
		if !a.asked {
			continue
		}
		data := make([]float64, 0, n*len(classes))
		for i, p := range ps {
			if len(a.of(p)) != len(classes) {
				return nil, fmt.Errorf("answer %d: %d %s for %d classes", i, len(a.of(p)), a.name, len(classes))
			}
			data = append(data, a.of(p)...)
		}
		r.arrays[a.name] = array{shape: []int{n, len(classes)}, data: data}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return nil, err
	}
	r.text = string(b)
	return r, nil
}

// covpipe_predict answers for the n d×d matrices at x with the model h
// (model.Model.PredictSet; a model of several regions per image takes
// each image's regions one after another), options a JSON
// predictOptions or NULL. A model that reads the images' vectors
// (model.Model.Vectors) takes the n vectors at v too, vlen values in all
// (NULL for none), made as its training vectors were, and answers as
// model.Model.PredictOutput does on descriptors with those vectors. *res
// is set to a result (predictionsResult). It returns PredictSet's and
// PredictOutput's errors, one for vectors given to a model that reads
// none, and a "c:" error once tok is cancelled.
//
//export covpipe_predict
func covpipe_predict(tok uintptr, h uintptr, x unsafe.Pointer, n, d int64, v unsafe.Pointer, vlen int64, options *C.char, res *uintptr) *C.char {
	return answer(tok, h, options, res, func(ctx context.Context, m *model.Model, o model.PredictOptions) ([]model.Prediction, error) {
		set, err := matrices("X", x, n, d)
		if err != nil {
			return nil, err
		}
		vecs, err := vectorsOf(v, vlen, n)
		if err != nil {
			return nil, err
		}
		if vecs == nil {
			return m.PredictSet(ctx, set, o)
		}
		return predictVectors(ctx, m, set, vecs, o)
	})
}

// predictVectors answers for the matrices of set with their vectors vecs
// (one after another) with the model m, which reads them: as
// PredictOutput on descriptors made as the model's training descriptors
// were, each answer's Index its matrix's.
func predictVectors(ctx context.Context, m *model.Model, set *spd.Set, vecs []float64, o model.PredictOptions) ([]model.Prediction, error) {
	v := m.Vectors()
	if v == nil {
		return nil, fmt.Errorf("predict: vectors given, but the model (method %s) reads none", m.Method())
	}
	out := &store.Output{Meta: store.Meta{Dim: m.Dim()}, Data: set.Data(), Rows: make([]store.Row, set.Len()), VectorLen: len(vecs) / set.Len(), Vectors: vecs}
	if e := m.Extraction(); e != nil {
		out.Meta = *e
	}
	out.Meta.Vectors = v
	for i := range out.Rows {
		out.Rows[i].Index = i
	}
	ps, err := m.PredictOutput(ctx, out, o)
	if err != nil {
		return nil, err
	}
	for i := range ps {
		ps[i].Index = i
	}
	return ps, nil
}

// covpipe_predict_paths describes the images that paths names (a JSON
// array, as covpipe_describe takes) with the model's extraction options
// and answers for them (model.Model.Predict), as covpipe predict does.
// *res is set to a result (predictionsResult) whose rows name the
// images. It returns Predict's errors (a model fitted without extraction
// options) and a "c:" error once tok is cancelled.
//
//export covpipe_predict_paths
func covpipe_predict_paths(tok uintptr, h uintptr, paths *C.char, options *C.char, res *uintptr) *C.char {
	return answer(tok, h, options, res, func(ctx context.Context, m *model.Model, o model.PredictOptions) ([]model.Prediction, error) {
		inputs, err := openInputs(paths)
		if err != nil {
			return nil, err
		}
		return m.Predict(ctx, inputs, o)
	})
}

// answer sets *res to the result of the answers that predict gives with
// the model h, the context of tok and the JSON predictOptions options.
func answer(tok, h uintptr, options *C.char, res *uintptr, predict func(context.Context, *model.Model, model.PredictOptions) ([]model.Prediction, error)) *C.char {
	return call(func() error {
		ctx, m, o, err := modelCall(tok, h, options)
		if err != nil {
			return err
		}
		po := model.PredictOptions{Reject: o.Reject, Workers: o.Workers, Probabilities: o.Probabilities, Costs: o.Costs}
		ps, err := predict(ctx, m, po)
		if err != nil {
			return err
		}
		r, err := predictionsResult(m, ps, po)
		if err != nil {
			return err
		}
		return newHandle(res, r)
	})
}

// modelCall returns the context of tok, the model h and the options.
func modelCall(tok, h uintptr, options *C.char) (context.Context, *model.Model, predictOptions, error) {
	var o predictOptions
	ctx, err := contextOf(tok)
	if err != nil {
		return nil, nil, o, err
	}
	m, err := handleOf[*model.Model](h, "model")
	if err != nil {
		return nil, nil, o, err
	}
	if err := decodeJSON(options, "predict options", &o); err != nil {
		return nil, nil, o, err
	}
	return ctx, m, o, nil
}

// covpipe_transform sets *res to a result whose array "X" holds the
// feature vectors that the model h maps the n d×d matrices at x to, a
// row per matrix (model.Model.TransformSet: a codes model's sparse
// codes), on workers goroutines. It returns TransformSet's errors (a
// model whose method gives no vectors) and a "c:" error once tok is
// cancelled.
//
//export covpipe_transform
func covpipe_transform(tok uintptr, h uintptr, x unsafe.Pointer, n, d int64, workers int64, res *uintptr) *C.char {
	return call(func() error {
		ctx, m, _, err := modelCall(tok, h, nil)
		if err != nil {
			return err
		}
		set, err := matrices("X", x, n, d)
		if err != nil {
			return err
		}
		v, err := m.TransformSet(ctx, set, int(workers))
		if err != nil {
			return err
		}
		rows, cols := v.Dims()
		data := make([]float64, 0, rows*cols)
		for i := range rows {
			data = append(data, v.RawRowView(i)...)
		}
		return newHandle(res, &result{arrays: map[string]array{"X": {shape: []int{rows, cols}, data: data}}})
	})
}

// modelInfo is covpipe_model_info's text.
type modelInfo struct {
	Method       string             `json:"method"`
	Classes      []string           `json:"classes"`
	Dim          int                `json:"dim"`
	Chosen       map[string]float64 `json:"chosen"`
	ChosenMethod string             `json:"chosen_method"`
	Transforms   bool               `json:"transforms"`
	// Probabilities and Costs say whether its answers can carry class
	// probabilities and class costs (model.Model.Probabilities, Costs).
	Probabilities bool           `json:"probabilities"`
	Costs         bool           `json:"costs"`
	Vectors       *store.Vectors `json:"vectors"`
	Parts         *model.Parts   `json:"parts"`
	Extraction    *store.Meta    `json:"extraction"`
	// Folds and FoldsBy are the cross-validation's folds and their groups
	// ("folds_by: group", "" for stratified folds), CV its tables.
	Folds   int                `json:"folds"`
	FoldsBy string             `json:"folds_by"`
	CV      []classify.CVTable `json:"cv"`
	// Notes are what the fit found wrong with the training data.
	Notes []string `json:"notes"`
}

// covpipe_model_info sets *out to JSON of what the model h is: its
// method type, class names (sorted), d, the parameters cross-validation
// chose, a best model's chosen candidate, whether it maps matrices to
// feature vectors (covpipe_transform), whether its answers can carry
// class probabilities and costs, the per-image vectors it reads (null
// for none), how a model of several regions per image fuses them, and
// the extraction options of its training descriptors (null for matrices
// given without them), its cross-validation folds, their groups and the
// tables of the choices they made, and notes on the training data (the
// same descriptor under two labels).
//
//export covpipe_model_info
func covpipe_model_info(h uintptr, out **C.char) *C.char {
	return call(func() error {
		m, err := handleOf[*model.Model](h, "model")
		if err != nil {
			return err
		}
		info := m.Info()
		b, err := json.Marshal(modelInfo{Method: m.Method(), Classes: m.Classes(), Dim: m.Dim(), Chosen: m.Chosen(),
			ChosenMethod: m.ChosenMethod(), Transforms: m.Transforms(), Probabilities: m.Probabilities(), Costs: m.Costs(),
			Vectors: m.Vectors(), Parts: m.Parts(), Extraction: m.Extraction(), Folds: info.Folds, FoldsBy: info.FoldsBy.String(), CV: m.CV(), Notes: m.Notes()})
		if err != nil {
			return err
		}
		return setText(out, string(b))
	})
}

// covpipe_model_save writes the model h into the folder dir
// (model.Model.Save), which covpipe predict and covpipe_model_load read.
//
//export covpipe_model_save
func covpipe_model_save(h uintptr, dir *C.char) *C.char {
	return call(func() error {
		m, err := handleOf[*model.Model](h, "model")
		if err != nil {
			return err
		}
		return m.Save(goString(dir))
	})
}

// covpipe_model_load reads the model that the folder dir holds
// (model.Load: covpipe fit's, or covpipe_model_save's) and sets *res to
// its handle. It returns Load's errors, naming the folder.
//
//export covpipe_model_load
func covpipe_model_load(dir *C.char, res *uintptr) *C.char {
	return call(func() error {
		m, err := model.Load(goString(dir))
		if err != nil {
			return err
		}
		return newHandle(res, m)
	})
}
