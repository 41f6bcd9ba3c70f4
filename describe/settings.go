package describe

import (
	"cmp"
	"fmt"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
)

// Settings are the extraction options as a user writes them, one text
// per setting, "" for its default: covpipe describe's and covpipe fit's
// flags, covpipe_describe's JSON keys (the json tags) and Python's
// covpipe.describe arguments. Options parses them, once, into Options,
// so that every front end accepts and refuses the same values with the
// same words.
type Settings struct {
	// Features is a features.Parse spec (default DefaultFeatures), and
	// GaborBorder the border of its Gabor planes (zero or symmetric;
	// default zero, as MATLAB's conv2(…, 'same')).
	Features    string `json:"features"`
	GaborBorder string `json:"gabor_border"`
	// Resize is "WxH" (none: the native size); Filter (default linear) and
	// JPEGScale (default auto) say how, and need it.
	Resize    string `json:"resize"`
	Filter    string `json:"filter"`
	JPEGScale string `json:"jpeg_scale"`
	// Regions is a covariance.ParseLayout layout (default whole).
	Regions string `json:"regions"`
	// Ridge is the regularisation's strength (nil: covariance.DefaultEps;
	// 0: none) and RidgeKind its kind (default trace-ridge).
	Ridge     *float64 `json:"ridge"`
	RidgeKind string   `json:"ridge_kind"`
	// Estimator is the covariance estimator (default scm), Normalize the
	// normalisation (default none).
	Estimator string `json:"estimator"`
	Normalize string `json:"normalize"`
	// MaxMemory bounds the extraction's memory (ParseMemory; default
	// DefaultMaxMemory).
	MaxMemory string `json:"max_memory"`
}

// Options returns the typed options of s (features, resize, filter,
// JPEG scale, regions, ridge, estimator, normalisation and memory bound;
// the rest left at their zero values). Its errors name the setting as
// name spells its key (the json tag: "jpeg_scale"), such as a flag
// "--jpeg-scale"; they refuse a value its parser refuses and a filter or
// JPEG scale without a resize, which would have no effect.
func (s Settings) Options(name func(key string) string) (Options, error) {
	var o Options
	var err error
	spec := cmp.Or(s.Features, DefaultFeatures)
	if o.Features, err = features.ParseWithGaborBorder(spec, s.GaborBorder); err != nil {
		if s.GaborBorder != "" {
			return o, fmt.Errorf("describe: %s %q %s %q: %w", name("features"), spec, name("gabor_border"), s.GaborBorder, err)
		}
		return o, fmt.Errorf("describe: %s %q: %w", name("features"), spec, err)
	}
	if s.Resize != "" {
		if o.Width, o.Height, err = imageio.ParseSize(s.Resize); err != nil {
			return o, fmt.Errorf("describe: %s %w", name("resize"), err)
		}
	}
	for _, c := range []struct {
		key, value string
		parse      func(string) error
	}{
		{"filter", s.Filter, func(v string) (err error) { o.Filter, err = imageio.ParseFilter(v); return err }},
		{"jpeg_scale", s.JPEGScale, func(v string) (err error) { o.JPEGScale, err = imageio.ParseJPEGScale(v); return err }},
	} {
		if c.value == "" {
			continue
		}
		if o.Width == 0 {
			return o, fmt.Errorf("describe: %s %s has no effect without %s", name(c.key), c.value, name("resize"))
		}
		if err := c.parse(c.value); err != nil {
			return o, fmt.Errorf("describe: %s %w", name(c.key), err)
		}
	}
	if o.Regions, err = covariance.ParseLayout(cmp.Or(s.Regions, "whole")); err != nil {
		return o, fmt.Errorf("describe: %s: %w", name("regions"), err)
	}
	eps := covariance.DefaultEps
	if s.Ridge != nil {
		eps = *s.Ridge
	}
	kind := cmp.Or(s.RidgeKind, covariance.TraceRidge.String())
	if o.Reg, err = covariance.NewRegularization(kind, eps); err != nil {
		return o, fmt.Errorf("describe: %s %v %s %s: %w", name("ridge"), eps, name("ridge_kind"), kind, err)
	}
	if o.Estimator, err = covariance.ParseEstimator(cmp.Or(s.Estimator, covariance.SCM.String())); err != nil {
		return o, fmt.Errorf("describe: %s: %w", name("estimator"), err)
	}
	if o.Normalize, err = covariance.ParseNormalization(cmp.Or(s.Normalize, covariance.NormNone.String())); err != nil {
		return o, fmt.Errorf("describe: %s: %w", name("normalize"), err)
	}
	if s.MaxMemory != "" {
		if o.MaxMemory, err = ParseMemory(s.MaxMemory); err != nil {
			return o, fmt.Errorf("describe: %s: %w", name("max_memory"), err)
		}
	}
	return o, nil
}
