package describe

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/memlimit"
	"github.com/covpipe/covpipe/progress"
	"github.com/covpipe/covpipe/store"
)

// DefaultFeatures is the feature spec of the set used when
// Options.Features is nil: the paper's texture set I, Ix, Iy, Ixx, Iyy
// (Sec. 5.1).
const DefaultFeatures = "texture"

// Options configures Describe, Collect and an Extractor. The zero value
// describes the whole of each native-size image with the texture features,
// the sample covariance and the default trace ridge
// (covariance.DefaultRegularization), without normalisation, on all
// cores. Every setting is typed: parse user text once, where it is read
// (features.Parse, covariance.ParseLayout, covariance.NewRegularization,
// covariance.ParseEstimator, covariance.ParseNormalization,
// store.ParseShard), and pass the values.
type Options struct {
	// Features is the feature set F(x, y); nil means the set of
	// DefaultFeatures.
	Features *features.Set
	// Width and Height, when both positive, are the size (columns, rows)
	// that every image is resized to with Filter before its features are
	// computed; both zero keep the native size.
	Width, Height int
	Filter        imageio.Filter
	// JPEGScale, when resizing, lets JPEGs be decoded at 1/2, 1/4 or 1/8
	// of their size when that is still at least twice Width x Height (the
	// zero value, imageio.JPEGScaleAuto) or at least Width x Height
	// (imageio.JPEGScaleFast), or decodes them at full size
	// (imageio.JPEGScaleOff); see imageio's package documentation.
	JPEGScale imageio.JPEGScale
	// Regions places the regions of each image; the zero value is the
	// whole image.
	Regions covariance.Layout
	// Seed is the run's seed for random block layouts: the blocks of an
	// image come from a seed derived from Seed and the image's relative
	// path only (see the package documentation).
	Seed uint64
	// Reg regularises each descriptor; the zero value is
	// covariance.DefaultRegularization, Kind covariance.None disables it.
	Reg covariance.Regularization
	// Estimator is the covariance estimator, applied before Reg; the zero
	// value is the sample covariance, covariance.SCM.
	Estimator covariance.Estimator
	// Normalize scales each descriptor after Reg; the zero value is
	// covariance.NormNone.
	Normalize covariance.Normalization
	// Workers is the number of images processed concurrently; 0 means
	// GOMAXPROCS. It does not change the output.
	Workers int
	// MaxMemory bounds, in bytes, the planes of the images being described
	// at once, as estimated from each file's header before it is decoded
	// (see "Memory" in the package documentation); 0 means
	// DefaultMaxMemory. An image whose estimate
	// alone exceeds it fails naming its size (listed in failures.csv with
	// SkipBad); otherwise workers wait until the images in progress leave
	// room for theirs, so that the output does not depend on Workers.
	MaxMemory int64
	// SkipBad passes images that fail to the sink (failures.csv) and goes
	// on, instead of failing the run on the first one.
	SkipBad bool
	// Shard selects a contiguous part of the inputs; the zero value is
	// the whole.
	Shard store.Shard
	// Reporter, if not nil, receives progress: Begin("describe", n) with
	// the number of images of the run (or shard), Advance as images reach
	// the sink, End at the end, all from one goroutine.
	Reporter progress.Reporter
	// Vectors, when its Features are set, asks for a feature vector per
	// image beside the descriptors (see VectorSpec), which meta.json
	// records (store.Vectors); only sinks that implement VectorSink take
	// them (Describe's, into vectors.npy, and Collect's do).
	Vectors VectorSpec
}

// VectorSpec asks for one vector per image: the planes of Features,
// sampled every Step pixels along rows and columns (from pixel 0),
// concatenated plane by plane, row-major. With Features "I" and Step 1 it
// is the image's intensities (the input of PCA-SRC, Wright et al. 2009);
// with "gabor" and Step 4, the downsampled Gabor magnitudes of Yang and
// Zhang's Gabor SRC (ECCV 2010). Vectors need the whole-image layout
// (one descriptor per image) and images of one size (Width and Height).
type VectorSpec struct {
	Features *features.Set
	Step     int
}

// DefaultMaxMemory is the default Options.MaxMemory, 4 GiB: a fixed
// amount rather than a share of the machine's memory, so that which
// images fail does not depend on the machine. It admits one 8192×8192
// image (imageio.MaxPixels) with the texture features (6 planes: 3 GiB),
// or 12 million pixels with the 43 planes of the face features.
const DefaultMaxMemory = memlimit.Default

// ErrMemory is wrapped by the error for an image whose estimated memory
// exceeds Options.MaxMemory, and by every other error of covpipe that
// refuses a size over a memory limit.
var ErrMemory = memlimit.ErrMemory

// ParseMemory parses an amount of memory for Options.MaxMemory: a
// non-negative number, possibly fractional, then optionally a unit: B,
// KiB, MiB, GiB, TiB (powers of 1024; also K, M, G, T, as Slurm's --mem
// writes them) or KB, MB, GB, TB (powers of 1000), in any case, such as
// "8GiB", "512M" or "1.5GB"; a plain number is bytes. It returns an error
// for anything else and for amounts of 2⁶³ bytes or more.
func ParseMemory(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	scale, ok := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	}[unit]
	if num == "" || err != nil || !ok || v*scale >= math.MaxInt64 {
		return 0, fmt.Errorf("memory %q: want a number of bytes with an optional unit B, KiB, MiB, GiB, TiB (or K, M, G, T), KB, MB, GB or TB, e.g. 8GiB", s)
	}
	return int64(v * scale), nil
}

// formatMemory returns n bytes in the largest binary unit that leaves
// at least 1, with one decimal: "3.2 GiB", "512.0 KiB", "100 bytes".
func formatMemory(n int64) string {
	for i, unit := range []string{"TiB", "GiB", "MiB", "KiB"} {
		if f := float64(n) / float64(int64(1)<<(10*(4-i))); f >= 1 {
			return fmt.Sprintf("%.1f %s", f, unit)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// covOptions returns the options of the run's covariance extractors.
func (p *plan) covOptions() covariance.Options {
	return covariance.Options{Reg: p.reg, Estimator: p.est, Normalize: p.norm}
}

// plan holds the validated options of a run.
type plan struct {
	set       *features.Set
	load      imageio.Options
	layout    covariance.Layout
	reg       covariance.Regularization // resolved: the default strength filled in
	est       covariance.Estimator
	norm      covariance.Normalization
	seed      uint64
	skipBad   bool
	shard     store.Shard
	workers   int
	maxMemory int64             // resolved: > 0
	rep       progress.Reporter // never nil
	vec       VectorSpec        // Features nil: no vectors
}

// newPlan validates o. The errors name the offending option.
func newPlan(o Options) (*plan, error) {
	set := o.Features
	if set == nil {
		var err error
		if set, err = features.Parse(DefaultFeatures); err != nil {
			return nil, fmt.Errorf("describe: %w", err)
		}
	}
	load := imageio.Options{Color: set.NeedsColor(), Width: o.Width, Height: o.Height, Filter: o.Filter, JPEGScale: o.JPEGScale}
	if _, err := imageio.NewLoader(load); err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	if err := o.Regions.Check(); err != nil {
		return nil, fmt.Errorf("describe: region layout %v: %w", o.Regions, err)
	}
	if _, err := covariance.NewExtractor(set.Dim(), covariance.Options{Reg: o.Reg, Estimator: o.Estimator, Normalize: o.Normalize}); err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	// NewExtractor has checked Reg; meta.json records the strength it
	// uses, the default one when Eps is zero.
	reg := o.Reg
	if reg.Kind != covariance.None && reg.Eps == 0 {
		reg.Eps = covariance.DefaultEps
	}
	if err := o.Shard.Check(); err != nil {
		return nil, err
	}
	if o.Workers < 0 {
		return nil, fmt.Errorf("describe: %d workers: want >= 0 (0: GOMAXPROCS)", o.Workers)
	}
	maxMemory := o.MaxMemory
	switch {
	case maxMemory < 0:
		return nil, fmt.Errorf("describe: memory limit %d bytes: want >= 0 (0: %s)", maxMemory, formatMemory(DefaultMaxMemory))
	case maxMemory == 0:
		maxMemory = DefaultMaxMemory
	}
	if v := o.Vectors; v.Features != nil {
		switch {
		case v.Step < 1:
			return nil, fmt.Errorf("describe: vector step %d: want >= 1", v.Step)
		case o.Regions.Kind != covariance.LayoutWhole:
			return nil, fmt.Errorf("describe: vectors need the whole-image layout, not %v", o.Regions)
		case v.Features.NeedsColor() && !set.NeedsColor():
			load.Color = true
		}
	}
	return &plan{
		set: set, load: load, layout: o.Regions, reg: reg, est: o.Estimator, norm: o.Normalize, seed: o.Seed,
		skipBad: o.SkipBad, shard: o.Shard, workers: o.Workers, maxMemory: maxMemory, rep: progress.Or(o.Reporter),
		vec: o.Vectors,
	}, nil
}
