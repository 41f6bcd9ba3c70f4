package describe

import (
	"errors"
	"fmt"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/store"
)

// OptionsOf returns the extraction options that m, the metadata of a
// descriptor folder, records: the feature set, the resize and its
// filter and JPEG scale, the region layout and its seed, the covariance estimator, the
// regularisation and the normalisation, so
// that images described with them get descriptors made as those of m's
// folder were (a trained model extracts the images it labels so). The
// options' workers, memory bound, progress, shard and the handling of bad
// images are left at their zero values, and so are vectors: they do not
// change a descriptor. It returns an error naming the field for a value
// that does not parse, and one wrapping store.ErrInvalid for a Meta
// without features.
//
// Meta.Diff of the metadata the options give (Extractor.Meta) and m,
// inputs aside, is empty: a caller that must extract exactly as m says
// can check that, and so find a field that this version does not
// restore.
func OptionsOf(m *store.Meta) (Options, error) {
	if m.FeatureSpec == "" || m.Dim < 1 {
		return Options{}, fmt.Errorf("describe: %w: metadata without features", store.ErrInvalid)
	}
	var o Options
	var err error
	if o.Features, err = features.Parse(m.FeatureSpec); err != nil {
		return Options{}, fmt.Errorf("describe: feature_spec %q: %w", m.FeatureSpec, err)
	}
	if o.Features.Dim() != m.Dim {
		return Options{}, fmt.Errorf("describe: feature_spec %q has %d features, dim %d", m.FeatureSpec, o.Features.Dim(), m.Dim)
	}
	if r := m.Resize; r != nil {
		o.Width, o.Height = r.Width, r.Height
		if o.Filter, err = imageio.ParseFilter(m.Filter); err != nil {
			return Options{}, fmt.Errorf("describe: filter: %w", err)
		}
		// No jpeg_scale: every JPEG was decoded at full size.
		o.JPEGScale = imageio.JPEGScaleOff
		if m.JPEGScale != "" {
			if o.JPEGScale, err = imageio.ParseJPEGScale(m.JPEGScale); err != nil {
				return Options{}, fmt.Errorf("describe: jpeg_scale: %w", err)
			}
		}
	} else if m.Filter != "" || m.JPEGScale != "" {
		return Options{}, errors.New("describe: a filter or JPEG scale without a resize")
	}
	if o.Regions, err = covariance.ParseLayout(m.Regions); err != nil {
		return Options{}, fmt.Errorf("describe: regions: %w", err)
	}
	o.Seed = m.Seed
	if o.Reg, err = covariance.NewRegularization(m.Ridge.Kind, m.Ridge.Eps); err != nil {
		return Options{}, fmt.Errorf("describe: ridge: %w", err)
	}
	// Empty names are the defaults, which the metadata leaves out.
	if m.Estimator != "" {
		if o.Estimator, err = covariance.ParseEstimator(m.Estimator); err != nil {
			return Options{}, fmt.Errorf("describe: estimator: %w", err)
		}
	}
	if m.Normalize != "" {
		if o.Normalize, err = covariance.ParseNormalization(m.Normalize); err != nil {
			return Options{}, fmt.Errorf("describe: normalize: %w", err)
		}
	}
	return o, nil
}
