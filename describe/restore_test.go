package describe

import (
	"errors"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/store"
)

// TestOptionsOf checks that the options a folder's metadata records give
// that metadata back, for every kind of setting, and that metadata that
// does not parse is refused.
func TestOptionsOf(t *testing.T) {
	list := openFolders(t, writeImages(t, testImages, 1))
	// meta is the metadata that an extractor with options o records for
	// list.
	meta := func(o Options) store.Meta {
		t.Helper()
		ex, err := NewExtractor(o)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ex.Meta([]*datasets.List{list})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, o := range []Options{
		{},
		{Features: fset("face; gabor-border=symmetric"), Width: 32, Height: 32, Filter: imageio.Lanczos3, Reg: covariance.Regularization{Kind: covariance.DiagRidge, Eps: 0.1}},
		{Features: fset("reid"), Width: 16, Height: 32, Regions: covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2, Cols: 2}, Reg: covariance.Regularization{Kind: covariance.None}},
		{Features: fset("reid"), Width: 16, Height: 32, JPEGScale: imageio.JPEGScaleOff},
		{Features: fset("I,Ix"), Regions: covariance.Layout{Kind: covariance.LayoutBlocks, N: 3, Side: 4}, Seed: 9, Reg: covariance.Regularization{Kind: covariance.Ridge, Eps: 1e-3}},
		{Features: fset("I,Ix,Iy"), Estimator: covariance.LedoitWolf, Normalize: covariance.NormTrace, Reg: covariance.Regularization{Kind: covariance.Ridge, Eps: 1e-4}},
		{Features: fset("I,Ix,Iy"), Estimator: covariance.OAS, Normalize: covariance.NormCorr, Reg: covariance.Regularization{Kind: covariance.Ridge, Eps: 1e-4}},
	} {
		want := meta(o)
		back, err := OptionsOf(&want)
		if err != nil {
			t.Fatalf("%+v: %v", want, err)
		}
		got := meta(back)
		if d := got.Diff(&want); d != "" {
			t.Errorf("options of %s (%s) give other metadata: %s", want.FeatureSpec, want.Regions, d)
		}
	}
	// JPEG scale: recorded as "auto" when resizing with the default; left
	// out with JPEGScaleOff, as by the versions that always decoded at
	// full size, whose folders therefore restore to JPEGScaleOff.
	for _, tc := range []struct {
		scale imageio.JPEGScale
		rec   string
	}{{imageio.JPEGScaleAuto, "auto"}, {imageio.JPEGScaleOff, ""}, {imageio.JPEGScaleFast, "fast"}} {
		m := meta(Options{Width: 8, Height: 8, JPEGScale: tc.scale})
		if m.JPEGScale != tc.rec {
			t.Errorf("JPEG scale %v recorded as %q, want %q", tc.scale, m.JPEGScale, tc.rec)
		}
		if o, err := OptionsOf(&m); err != nil || o.JPEGScale != tc.scale {
			t.Errorf("JPEG scale %v restored as %v, %v", tc.scale, o.JPEGScale, err)
		}
	}
	if m := meta(Options{JPEGScale: imageio.JPEGScaleAuto}); m.JPEGScale != "" {
		t.Errorf("JPEG scale recorded without resizing: %q", m.JPEGScale)
	}
	for _, m := range []store.Meta{
		{},
		{FeatureSpec: "I,Ix", Dim: 3, Regions: "whole"},
		{FeatureSpec: "I,Ix", Dim: 2, Regions: "rings"},
		{FeatureSpec: "I,Ix", Dim: 2, Regions: "whole", Filter: "linear"},
		{FeatureSpec: "I,Ix", Dim: 2, Regions: "whole", JPEGScale: "auto"},
		{FeatureSpec: "I,Ix", Dim: 2, Regions: "whole", Resize: &store.Size{Width: 8, Height: 8}, Filter: "linear", JPEGScale: "half"},
		{FeatureSpec: "I,Ix", Dim: 2, Regions: "whole", Ridge: store.Ridge{Kind: "lasso", Eps: 1}},
		{FeatureSpec: "I,Ix", Dim: 2, Regions: "whole", Ridge: store.Ridge{Kind: "ridge", Eps: 1e-3}, Estimator: "mle"},
		{FeatureSpec: "I,Ix", Dim: 2, Regions: "whole", Ridge: store.Ridge{Kind: "ridge", Eps: 1e-3}, Normalize: "unit"},
	} {
		if _, err := OptionsOf(&m); err == nil {
			t.Errorf("%+v: no error", m)
		} else if m.FeatureSpec == "" && !errors.Is(err, store.ErrInvalid) {
			t.Errorf("no features: %v, want ErrInvalid", err)
		}
	}
}
