package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/store"
	"github.com/urfave/cli/v2"
)

func describeCommand() *cli.Command {
	return command("describe", "INPUT...", "compute the covariance descriptors of images into a folder",
		[]cli.Flag{
			outFlag("output `DIR` (required; created if needed)"),
			&cli.StringFlag{Name: "features", Value: describe.DefaultFeatures, Usage: "feature `LIST`: names or presets (texture, face, reid), e.g. I,Ix,Iy,Ixx,Iyy or I,x,y,gabor"},
			&cli.StringFlag{Name: "gabor-border", Usage: "`BORDER` of the Gabor convolutions: zero (default; MATLAB conv2(I, G, 'same'), as the paper's authors) or symmetric (mirror reflection); also written --features 'face;gabor-border=symmetric'"},
			&cli.StringFlag{Name: "resize", Usage: "resize every image to `WxH` (W columns, H rows), e.g. 32x64"},
			&cli.StringFlag{Name: "filter", Usage: "resampling filter `F` for --resize: linear (default), nearest, box, catmullrom or lanczos3"},
			&cli.StringFlag{Name: "jpeg-scale", Usage: "`MODE` of decoding JPEGs for --resize: auto (default: at 1/2, 1/4 or 1/8 size from the DCT coefficients when that is still at least twice the target, then resized; faster, the planes within a few grey levels of a full decode's), fast (at the smallest such size that covers the target: fastest, but sharper planes and derivatives) or off (always at full size)"},
			&cli.StringFlag{Name: "regions", Value: "whole", Usage: "region `LAYOUT`: whole, grid:RxC (equal cells; the grid must divide the image), grid:RxC:crop or grid:RxC:spread (any size: the remainder cropped evenly, or cells differing by a pixel at most), grid:RxC:S (R×C windows of S×S, spread evenly) or blocks:N:S, the grids and blocks optionally after whole+ (the whole image first)"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed `N` of random blocks (an image's blocks depend on N and its path only)"},
			&cli.Float64Flag{Name: "ridge", Value: covariance.DefaultEps, Usage: "regularise each descriptor with strength `EPS` (see --ridge-kind); 0: none"},
			&cli.StringFlag{Name: "ridge-kind", Value: covariance.TraceRidge.String(), Usage: "`KIND` of ridge: trace-ridge (C + EPS·tr(C)/d·I), diag-ridge (C + EPS·diag C, equivariant to feature units: use it when features of very different scales are mixed, such as x,y with intensities) or ridge (C + EPS·I)"},
			&cli.StringFlag{Name: "estimator", Value: covariance.SCM.String(), Usage: "covariance `ESTIMATOR`, before the ridge: scm (the sample covariance), lwf (Ledoit-Wolf shrinkage towards a multiple of I) or oas (Oracle Approximating Shrinkage); lwf and oas are positive definite without a ridge where scm is singular (fewer pixels than features)"},
			&cli.StringFlag{Name: "normalize", Value: covariance.NormNone.String(), Usage: "normalisation `KIND` of each descriptor, after the ridge: none, trace (C/tr C), det (C/det(C)^(1/d)) or corr (the correlation matrix)"},
			&cli.IntFlag{Name: "workers", Usage: "number `N` of images processed at once (0: all cores); the output does not depend on it"},
			&cli.StringFlag{Name: "shard", Usage: "describe only part `I/N` (0 <= I < N) of the images; auto (or auto/N) reads I and N from a Slurm array job's or a Kubernetes Indexed Job's environment (N from COVPIPE_SHARD_COUNT there)"},
			switchFlag("skip-bad", "list failing images in failures.csv and go on, instead of stopping at the first (a run where every image fails is still an error)"),
			maxMemoryFlag("the float64 planes of the images in progress, estimated from each file's header: images over it fail, the others wait for room"),
		},
		func(c *cli.Context) error {
			out, err := requiredOut(c, c.NArg() > 0, "at least one INPUT")
			if err != nil {
				return err
			}
			o, err := describeOptions(c)
			if err != nil {
				return err
			}
			o.Reporter = newReporter(c.Context, c.App.ErrWriter, newLogger(c.App.ErrWriter))
			ex, err := describe.NewExtractor(o)
			if err != nil {
				return err
			}
			// The output folder is taken before the inputs are listed.
			return intoFolder(c, out, store.Format, func(f *store.Folder) error {
				// An output folder inside an input is no input folder.
				inputs := make([]*datasets.List, c.NArg())
				for i, spec := range c.Args().Slice() {
					if inputs[i], err = datasets.OpenExcept(spec, out); err != nil {
						return fmt.Errorf("describe: input %s: %w", spec, err)
					}
				}
				start := time.Now()
				meta, err := ex.Into(c.Context, inputs, f)
				// A grid that does not divide the images fails them all: its
				// error suggests --resize instead.
				gridMisfit := errors.Is(err, covariance.ErrRegion) && o.Regions.Kind == covariance.LayoutGrid
				if ie := (*describe.ImageError)(nil); errors.As(err, &ie) && !gridMisfit {
					return fmt.Errorf("%w (--skip-bad lists failing images in %s and goes on)", err, store.FailuresFile)
				}
				if err != nil {
					return err
				}
				secs := time.Since(start).Seconds()
				n := meta.Counts
				fmt.Fprintf(c.App.Writer, "described %s: %s of %dx%d in %s (%.1f s, %.0f images/s)\n",
					plural.Of(n.Described, "image"), plural.Of(n.Descriptors, "descriptor"), meta.Dim, meta.Dim, filepath.Join(out, store.DescriptorsFile), secs, float64(n.Images)/secs)
				var skipped datasets.Skipped
				for _, in := range meta.Inputs {
					skipped = skipped.Add(in.Skipped)
				}
				if s := skipped.String(); s != "" {
					fmt.Fprintf(c.App.Writer, "skipped %s while listing the inputs (counted in %s)\n", s, filepath.Join(out, store.MetaFile))
				}
				switch {
				case n.Failed > 0:
					fmt.Fprintf(c.App.Writer, "%s failed, listed in %s\n", plural.Of(n.Failed, "image"), filepath.Join(out, store.FailuresFile))
				case meta.SkipBad:
					fmt.Fprintln(c.App.Writer, "0 images failed")
				}
				if n.Grey > 0 {
					fmt.Fprintf(c.App.Writer, "warning: %d of the %s described are grey (R = G = B), so their colour features repeat one plane and their descriptors are singular but for the ridge; describe grey images with grey features (I, Ix, ...)\n", n.Grey, plural.Of(n.Described, "image"))
				}
				return nil
			})
		})
}

// describeOptions reads the options of `covpipe describe` from its flags,
// parsing each once into the typed value describe takes.
func describeOptions(c *cli.Context) (describe.Options, error) {
	ridge := c.Float64("ridge")
	settings := describe.Settings{Features: c.String("features"), GaborBorder: c.String("gabor-border"),
		Resize: c.String("resize"), Filter: c.String("filter"), JPEGScale: c.String("jpeg-scale"), Regions: c.String("regions"),
		Ridge: &ridge, RidgeKind: c.String("ridge-kind"), Estimator: c.String("estimator"), Normalize: c.String("normalize")}
	o, err := settings.Options(func(key string) string { return "--" + strings.ReplaceAll(key, "_", "-") })
	if err != nil {
		return o, err
	}
	o.Seed, o.SkipBad = c.Uint64("seed"), c.Bool("skip-bad")
	if o.MaxMemory, err = maxMemory(c); err != nil {
		return o, err
	}
	// An image's descriptors are held at once; the planes' bound is
	// describe's own.
	limit, d := o.MaxMemory, float64(o.Features.Dim())
	if limit == 0 {
		limit = describe.DefaultMaxMemory
	}
	if per := float64(o.Regions.Count()) * 8 * d * d; per > float64(limit) {
		return o, fmt.Errorf("describe: --regions %s makes %d descriptors of %dx%d per image, about %.3g GiB, over --max-memory (%.3g GiB)",
			o.Regions, o.Regions.Count(), o.Features.Dim(), o.Features.Dim(), per/(1<<30), float64(limit)/(1<<30))
	}
	if o.Workers, err = workersFlag(c); err != nil {
		return o, err
	}
	if s := c.String("shard"); s != "" {
		if o.Shard, err = store.AutoShard(s, os.Getenv); err != nil {
			return o, fmt.Errorf("--shard: %w", err)
		}
	}
	return o, nil
}
