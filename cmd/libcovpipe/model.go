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

	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"go.yaml.in/yaml/v3"
)

// methodInfo is a method type as covpipe_registry lists it: its name,
// description and example parameters (method.Type), its declared
// parameters (method.Type.Parameters), and what its Spec declares: scored
// answers, class costs, per-image vectors beside the descriptors, and a
// dictionary made from the training items (model.Options.Atoms).
type methodInfo struct {
	Name       string      `json:"name"`
	Doc        string      `json:"doc"`
	Example    string      `json:"example"`
	Params     []paramInfo `json:"params"`
	Scores     bool        `json:"scores"`
	Costs      bool        `json:"costs"`
	Vectors    bool        `json:"vectors"`
	Dictionary bool        `json:"dictionary"`
}

// paramInfo is a declared parameter (param.Decl): its key, help, kind
// (number, list, int, string, bool) and the text of its default.
type paramInfo struct {
	Key     string `json:"key"`
	Help    string `json:"help"`
	Kind    string `json:"kind"`
	Default string `json:"default"`
}

// registry returns every method type of package method, sorted by name,
// its Spec read from the type constructed with its Example.
func registry() ([]methodInfo, error) {
	types := method.Types()
	var out []methodInfo
	for _, name := range method.Names() {
		t := types[name]
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(t.Example), &doc); err != nil || len(doc.Content) != 1 {
			return nil, fmt.Errorf("registry: method %s: example %q: %v", name, t.Example, err)
		}
		m, err := t.New(doc.Content[0])
		if err != nil {
			return nil, fmt.Errorf("registry: method %s: example %q: %w", name, t.Example, err)
		}
		spec := m.Spec()
		info := methodInfo{Name: name, Doc: t.Doc, Example: t.Example, Params: []paramInfo{},
			Scores: spec.Scores, Costs: spec.Costs, Vectors: !spec.Vectors.IsZero(), Dictionary: spec.Dictionary}
		for _, d := range t.Parameters() {
			info.Params = append(info.Params, paramInfo{Key: d.Key, Help: d.Help, Kind: d.Kind.String(), Default: d.Default})
		}
		out = append(out, info)
	}
	return out, nil
}

// covpipe_registry sets *out to JSON {"version", "metrics", "methods":
// [methodInfo...]}: covpipe's version, the metric names of
// spd.ParseMetric (canonical ones) and every method type a model fits,
// which the caller frees.
//
//export covpipe_registry
func covpipe_registry(out **C.char) *C.char {
	return call(func() error {
		methods, err := registry()
		if err != nil {
			return err
		}
		var metrics []string
		for _, m := range spd.Metrics() {
			metrics = append(metrics, m.String())
		}
		b, err := json.Marshal(map[string]any{"version": version.String(), "metrics": metrics, "methods": methods})
		if err != nil {
			return err
		}
		return setText(out, string(b))
	})
}

// fitOptions are covpipe_fit's options: model.Options's fields, the
// label of each descriptor, and optionally the extraction metadata of
// the descriptors (covpipe_describe's meta), which lets the model
// describe images itself (covpipe predict on images), and their rows
// (covpipe_describe's), which a model of several regions per image
// (fusion) groups by image.
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
}

// output returns the labelled descriptors of set as FitOutput takes them.
func (o *fitOptions) output(data []float64, n, d int) (*store.Output, error) {
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
	return out, nil
}

// covpipe_fit fits a model (model.FitOutput) on the n labelled d×d
// matrices at x with options, a JSON fitOptions: {"method": TYPE,
// "params": {...}, "labels": [...], "seed", "folds", "atoms", "workers",
// ...}, the parameters as an experiment file's method entry gives them
// (a list gives candidates, chosen by cross-validation). *res is set to
// the model's handle. The model is bit for bit covpipe fit's on a
// describe folder of the same descriptors, labels, seed and folds. It
// returns FitOutput's errors (parameters the method refuses, naming the
// key; matrices that are not SPD, naming the index) and a "c:" error once
// tok is cancelled.
//
//export covpipe_fit
func covpipe_fit(tok uintptr, options *C.char, x unsafe.Pointer, n, d int64, res *uintptr) *C.char {
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
		out, err := o.output(set.Data(), int(n), int(d))
		if err != nil {
			return err
		}
		m, err := model.FitOutput(ctx, out, model.Options{Method: o.Method, Params: o.Params, Candidates: o.Candidates,
			Seed: o.Seed, Folds: o.Folds, Atoms: o.Atoms, Workers: o.Workers, Fusion: o.Fusion})
		if err != nil {
			return err
		}
		return newHandle(res, m)
	})
}

// predictOptions are covpipe_predict's options (model.PredictOptions).
type predictOptions struct {
	Reject  float64 `json:"reject"`
	Workers int     `json:"workers"`
}

// predictionsResult returns the result of ps, answers of m: arrays
// "label" and "second" (indices into the model's classes, as doubles;
// −1 for no second class), "score", "second_score", "sci" and "rejected"
// (1 or 0), and the text of their rows (input, path, region; index for
// PredictSet's).
func predictionsResult(m *model.Model, ps []model.Prediction) (*result, error) {
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
// predictOptions or NULL. *res is set to a result (predictionsResult).
// It returns PredictSet's errors and a "c:" error once tok is cancelled.
//
//export covpipe_predict
func covpipe_predict(tok uintptr, h uintptr, x unsafe.Pointer, n, d int64, options *C.char, res *uintptr) *C.char {
	return answer(tok, h, options, res, func(ctx context.Context, m *model.Model, o model.PredictOptions) ([]model.Prediction, error) {
		set, err := matrices("X", x, n, d)
		if err != nil {
			return nil, err
		}
		return m.PredictSet(ctx, set, o)
	})
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
		ps, err := predict(ctx, m, model.PredictOptions{Reject: o.Reject, Workers: o.Workers})
		if err != nil {
			return err
		}
		r, err := predictionsResult(m, ps)
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
	Parts        *model.Parts       `json:"parts"`
	Extraction   *store.Meta        `json:"extraction"`
}

// covpipe_model_info sets *out to JSON of what the model h is: its
// method type, class names (sorted), d, the parameters cross-validation
// chose, a best model's chosen candidate, whether it maps matrices to
// feature vectors (covpipe_transform), how a model of several regions
// per image fuses them, and the extraction options of its training
// descriptors (null for matrices given without them).
//
//export covpipe_model_info
func covpipe_model_info(h uintptr, out **C.char) *C.char {
	return call(func() error {
		m, err := handleOf[*model.Model](h, "model")
		if err != nil {
			return err
		}
		b, err := json.Marshal(modelInfo{Method: m.Method(), Classes: m.Classes(), Dim: m.Dim(), Chosen: m.Chosen(),
			ChosenMethod: m.ChosenMethod(), Transforms: m.Transforms(), Parts: m.Parts(), Extraction: m.Extraction()})
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
