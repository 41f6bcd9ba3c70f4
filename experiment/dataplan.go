package experiment

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/param"
)

// dataPlan is a config.DataConfig resolved into typed values, once.
type dataPlan struct {
	dataset  string
	skipBad  bool
	features *features.Set
	w, h     int
	filter   imageio.Filter
	jpeg     imageio.JPEGScale
	layout   covariance.Layout
	// fusion holds the rules of data.parts (nil without parts, whose
	// regions are then layout: the candidate layouts joined).
	fusion []classify.FusionRule
	// partSets holds, per candidate layout of data.parts, the indices of
	// its regions among layout's, and layouts their names.
	partSets [][]int
	layouts  []string
	// regs holds one regularisation per ridge candidate, in order.
	regs      []covariance.Regularization
	estimator covariance.Estimator
	normalize covariance.Normalization
}

// resolveParts checks data.parts (config.PartsConfig) into p.layout and
// p.fusion.
func (p *dataPlan) resolveParts(d *config.DataConfig) error {
	if d.Regions != "" {
		return fmt.Errorf("parts and regions exclude each other: parts.regions gives the regions of each item")
	}
	if len(d.Parts.Regions) == 0 {
		return fmt.Errorf("parts: regions is required (e.g. whole+grid:3x3:16)")
	}
	// all holds the single layouts of every candidate in turn (a
	// candidate joined by commas gives several), which one chain places.
	var all []covariance.Layout
	next := 0
	for _, spec := range d.Parts.Regions {
		l, err := covariance.ParseLayout(spec)
		if err != nil {
			return fmt.Errorf("parts: %w", err)
		}
		for _, one := range l.Layouts() {
			if one.Kind != covariance.LayoutGrid && one.Kind != covariance.LayoutWhole {
				return fmt.Errorf("parts: regions %s: want regions at the same place in every image: grid:RxC or grid:RxC:S, optionally after whole+, or whole, or several of these joined by commas (a list gives candidates)", l)
			}
		}
		if slices.Contains(p.layouts, l.String()) {
			return fmt.Errorf("parts: regions %s listed twice", l)
		}
		p.layouts = append(p.layouts, l.String())
		p.partSets = append(p.partSets, classify.Seq(next, next+l.Count()))
		next += l.Count()
		all = append(all, l.Layouts()...)
	}
	if next < 2 {
		return fmt.Errorf("parts: regions %s: want at least two regions per image", p.layouts[0])
	}
	for k := len(all) - 2; k >= 0; k-- {
		all[k].Then = &all[k+1]
	}
	p.layout = all[0]
	var err error
	if p.fusion, err = classify.ParseFusionRules(d.Parts.Fusion); err != nil {
		return fmt.Errorf("parts: %w", err)
	}
	return nil
}

// resolveData checks d and returns its typed form, filling in the defaults
// that results.json records (ridge, ridge kind, Gabor border). The
// estimator and the normalisation stay empty at their defaults, so that
// the record of a config without them does not change.
func resolveData(d *config.DataConfig) (*dataPlan, error) {
	if d.Features == "" {
		return nil, errors.New("features is required (e.g. face, texture, reid or I,Ix,Iy)")
	}
	p := &dataPlan{dataset: d.Dataset, skipBad: d.SkipBad}
	var err error
	if p.features, err = features.ParseWithGaborBorder(d.Features, d.GaborBorder); err != nil {
		return nil, err
	}
	if _, opts, _ := strings.Cut(d.Features, ";"); p.features.HasGabor() && !strings.Contains(opts, "gabor-border") {
		d.GaborBorder = p.features.GaborBorder().String()
	}
	if d.Resize != "" {
		if p.w, p.h, err = imageio.ParseSize(d.Resize); err != nil {
			return nil, fmt.Errorf("resize %w", err)
		}
	}
	if p.filter, err = imageio.ParseFilter(d.Filter); err != nil {
		return nil, fmt.Errorf("filter %w", err)
	}
	if p.jpeg, err = imageio.ParseJPEGScale(d.JPEGScale); err != nil {
		return nil, fmt.Errorf("jpeg_scale %w", err)
	}
	regions := d.Regions
	if regions == "" {
		regions = "whole"
	}
	if p.layout, err = covariance.ParseLayout(regions); err != nil {
		return nil, err
	}
	if d.Parts != nil {
		if err := p.resolveParts(d); err != nil {
			return nil, err
		}
	}
	if len(d.Ridge) == 0 {
		d.Ridge = param.Floats{covariance.DefaultEps}
	}
	if d.RidgeKind == "" {
		d.RidgeKind = covariance.TraceRidge.String()
	}
	if k, err := covariance.ParseRegKind(d.RidgeKind); err != nil || k == covariance.None {
		return nil, fmt.Errorf("ridge_kind %q: want trace-ridge, diag-ridge or ridge (ridge: 0 for none)", d.RidgeKind)
	}
	if err := d.Ridge.Check("ridge", true, 0, true); err != nil {
		return nil, err
	}
	for _, eps := range d.Ridge {
		r, err := covariance.NewRegularization(d.RidgeKind, eps)
		if err != nil {
			return nil, err
		}
		p.regs = append(p.regs, r)
	}
	if d.Estimator != "" {
		if p.estimator, err = covariance.ParseEstimator(d.Estimator); err != nil {
			return nil, fmt.Errorf("estimator %q: want scm, lwf or oas", d.Estimator)
		}
	}
	if d.Normalize != "" {
		if p.normalize, err = covariance.ParseNormalization(d.Normalize); err != nil {
			return nil, fmt.Errorf("normalize %q: want none, trace, det or corr", d.Normalize)
		}
	}
	return p, nil
}
