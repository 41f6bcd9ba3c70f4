package main

/*
#include <stdint.h>
*/
import "C"

import (
	"encoding/json"
	"fmt"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/store"
)

// describeOptions are covpipe_describe's options, the settings of
// covpipe describe's flags of the same names (with '_' for '-'); a
// missing key takes the flag's default. Vectors asks for a vector per
// image beside its descriptor (describe.Options.Vectors; covpipe
// describe's --vectors-features and --vectors-step), those that a method
// reads (covpipe_method_spec's vectors).
type describeOptions struct {
	describe.Settings
	Seed    uint64         `json:"seed"`
	Workers int            `json:"workers"`
	SkipBad bool           `json:"skip_bad"`
	Vectors *store.Vectors `json:"vectors"`
}

// options parses o, once, into describe's typed options; the errors name
// the key.
func (o describeOptions) options() (describe.Options, error) {
	out, err := o.Settings.Options(func(key string) string { return key })
	if err != nil {
		return out, err
	}
	out.Seed, out.SkipBad, out.Workers = o.Seed, o.SkipBad, o.Workers
	if v := o.Vectors; v != nil {
		if out.Vectors.Features, err = features.Parse(v.FeatureSpec); err != nil {
			return out, fmt.Errorf("describe: vectors: features %q: %w", v.FeatureSpec, err)
		}
		if out.Vectors.Step = v.Step; v.Step < 1 {
			return out, fmt.Errorf("describe: vectors: step %d, want >= 1", v.Step)
		}
	}
	return out, nil
}

// row is a manifest row as covpipe_describe's text gives it: the
// descriptor's index, its image's input (an index into the paths) and
// path relative to it, its label, and its region (x, y, w, h) of the
// resized image.
type row struct {
	Index  int    `json:"index"`
	Input  int    `json:"input"`
	Path   string `json:"path"`
	Label  string `json:"label"`
	Region [4]int `json:"region"`
}

// rowOf returns r as covpipe_describe's text gives it.
func rowOf(r store.Row) row {
	g := r.Region
	return row{Index: r.Index, Input: r.Input, Path: r.Path, Label: r.Label, Region: [4]int{g.X, g.Y, g.W, g.H}}
}

// openInputs opens the inputs that the JSON array of specs names
// (datasets.Open: folders, manifests, image files, KIND:PATH).
func openInputs(specs *C.char) ([]*datasets.List, error) {
	var paths []string
	if err := decodeJSON(specs, "paths", &paths); err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no paths: want images, folders or manifests")
	}
	inputs := make([]*datasets.List, len(paths))
	for i, p := range paths {
		l, err := datasets.Open(p)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, err)
		}
		inputs[i] = l
	}
	return inputs, nil
}

// covpipe_describe extracts the covariance descriptors of the images
// that paths names (a JSON array of covpipe describe's INPUTs: image
// files, folders of class folders, manifests, KIND:PATH) with options (a
// JSON describeOptions, or NULL for covpipe describe's defaults), as
// describe.Collect does, bit for bit the descriptors.npy of covpipe
// describe with the same options. *res is set to a result handle: array
// "X" of shape (n, d, d), array "vectors" when the features ask for
// them, and text {"rows": [row...], "meta": the store.Meta of meta.json}.
// It returns describe's errors (an image that cannot be read names its
// path) and a "c:" error once tok is cancelled.
//
//export covpipe_describe
func covpipe_describe(tok uintptr, paths *C.char, options *C.char, res *uintptr) *C.char {
	return call(func() error {
		ctx, err := contextOf(tok)
		if err != nil {
			return err
		}
		var o describeOptions
		if err := decodeJSON(options, "describe options", &o); err != nil {
			return err
		}
		do, err := o.options()
		if err != nil {
			return err
		}
		inputs, err := openInputs(paths)
		if err != nil {
			return err
		}
		out, err := describe.Collect(ctx, inputs, do)
		if err != nil {
			return err
		}
		r, err := outputResult(out)
		if err != nil {
			return err
		}
		return newHandle(res, r)
	})
}

// outputResult returns the result of the descriptors out.
func outputResult(out *store.Output) (*result, error) {
	d := out.Meta.Dim
	r := &result{arrays: map[string]array{"X": {shape: []int{len(out.Rows), d, d}, data: out.Data}}}
	if out.Meta.Vectors != nil {
		r.arrays["vectors"] = array{shape: []int{len(out.Rows), out.VectorLen}, data: out.Vectors}
	}
	rows := make([]row, len(out.Rows))
	for i, x := range out.Rows {
		rows[i] = rowOf(x)
	}
	b, err := json.Marshal(struct {
		Rows []row      `json:"rows"`
		Meta store.Meta `json:"meta"`
	}{rows, out.Meta})
	if err != nil {
		return nil, err
	}
	r.text = string(b)
	return r, nil
}
