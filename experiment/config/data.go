package config

import (
	"fmt"

	"github.com/covpipe/covpipe/param"
	"go.yaml.in/yaml/v3"
)

// DataConfig says how images become descriptors.
type DataConfig struct {
	// Dataset is a datasets.Open spec relative to the data root, e.g.
	// "feret:feret-b-32" or "mars:mini-mars". Mosaic tasks need none. A
	// relative path must stay under the data root (no ".." out of it); an
	// absolute path reads a dataset anywhere.
	Dataset string `yaml:"dataset,omitempty" json:"dataset,omitempty"`
	// Features is a features.Parse spec, e.g. "face" or "I,Ix,Iy,Ixx,Iyy".
	Features string `yaml:"features" json:"features"`
	// GaborBorder is the border extension of Gabor planes: zero (MATLAB's
	// conv2(I, G, 'same'), the default) or symmetric. It may instead be
	// written in Features ("face; gabor-border=symmetric"), not both. For
	// features with Gabor planes, validation fills in the default, so that
	// results.json records the border in force.
	GaborBorder string `yaml:"gabor_border,omitempty" json:"gabor_border,omitempty"`
	// Resize is an optional "WxH" (columns × rows) applied on loading.
	Resize string `yaml:"resize,omitempty" json:"resize,omitempty"`
	// Filter is the resampling filter (linear, nearest, box, catmullrom,
	// lanczos3); default linear.
	Filter string `yaml:"filter,omitempty" json:"filter,omitempty"`
	// JPEGScale is how JPEGs are decoded for Resize: auto (the default:
	// at 1/2, 1/4 or 1/8 of their size from the DCT coefficients when
	// that is still at least twice the target), fast (when it covers the
	// target) or off (always at full size); see imageio.JPEGScale.
	JPEGScale string `yaml:"jpeg_scale,omitempty" json:"jpeg_scale,omitempty"`
	// Regions is a covariance layout: whole (default), grid:RxC or
	// blocks:N:S.
	Regions string `yaml:"regions,omitempty" json:"regions,omitempty"`
	// Ridge is the regularisation strength ε (0: none); a list gives
	// candidates for parameter selection. Default 1e-4.
	Ridge param.Floats `yaml:"ridge,omitempty" json:"ridge,omitempty"`
	// RidgeKind is trace-ridge (C + ε·tr(C)/d·I, the default), diag-ridge
	// (C + ε·diag C, equivariant to feature units: use it when features of
	// very different scales are mixed, such as pixel coordinates with
	// intensities) or ridge (C + ε·I).
	RidgeKind string `yaml:"ridge_kind,omitempty" json:"ridge_kind,omitempty"`
	// SkipBad leaves out the images of data.dataset that fail to load or
	// describe (as describe --skip-bad does), counting them in the log
	// and the report, instead of failing the run on the first.
	SkipBad bool `yaml:"skip_bad,omitempty" json:"skip_bad,omitempty"`
	// Estimator is the covariance estimator, applied before the ridge:
	// scm (the sample covariance, the default), lwf (Ledoit–Wolf
	// shrinkage) or oas (Oracle Approximating Shrinkage); see
	// covariance.Estimator. lwf and oas are positive definite without a
	// ridge (ridge: 0) where scm is singular.
	Estimator string `yaml:"estimator,omitempty" json:"estimator,omitempty"`
	// Normalize scales each descriptor after the ridge: none (the
	// default), trace, det or corr; see covariance.Normalization.
	Normalize string `yaml:"normalize,omitempty" json:"normalize,omitempty"`
	// Parts makes each image one item of several region descriptors,
	// which the selectors and split protocols classify region by region
	// and fuse (docs/results.md, "Several regions per image"). It
	// excludes Regions.
	Parts *PartsConfig `yaml:"parts,omitempty" json:"parts,omitempty"`
}

// PartsConfig describes items of several regions: each image gives one
// descriptor per region of its layout, all from one feature pass; methods
// that give class costs (rsr, logE-SR, stein-svm, nn but AIRM) classify each region
// apart, and the class costs are fused by a rule of Fusion. With several
// layouts or rules (or the weighted rule) the layout and the rule are
// chosen together by cross-validation on the training items; the regions
// of every layout are then extracted in the one pass. The other methods
// classify the first region alone (whole, with whole+).
type PartsConfig struct {
	// Regions is a layout of regions at the same place in every image, or
	// a list of candidates: grid:RxC, grid:RxC:S, either after whole+, or
	// whole (covariance.Layout), e.g. whole+grid:3x3:16, or several of
	// these joined by commas as one layout (whole+grid:3x3:16,grid:4x4:16).
	Regions layoutList `yaml:"regions" json:"regions"`
	// Fusion lists the rules to choose among: sum (of class residuals or
	// distances), normalized (each region's costs divided by its
	// smallest), vote (majority, ties by normalized sum) and weighted
	// (normalized, each region weighted by its cross-validated
	// accuracy). Default [sum].
	Fusion []string `yaml:"fusion,omitempty" json:"fusion,omitempty"`
}

// layoutList is a region layout or a list of candidates, as YAML takes
// either.
type layoutList []string

func (l *layoutList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = layoutList{n.Value}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return fmt.Errorf("line %d: regions: a layout or a list of layouts", n.Line)
	}
	*l = list
	return nil
}
