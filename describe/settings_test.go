package describe

import (
	"reflect"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/imageio"
)

// TestSettingsOptions checks the defaults of empty settings against the
// parsers' own, a full set of settings against hand-parsed values, and
// that each refusal names its setting as the caller spells it.
func TestSettingsOptions(t *testing.T) {
	upper := func(key string) string { return "<" + strings.ToUpper(key) + ">" }
	o, err := Settings{}.Options(upper)
	if err != nil {
		t.Fatal(err)
	}
	if o.Features.String() != fset(DefaultFeatures).String() || o.Width != 0 || o.Regions.String() != "whole" ||
		o.Reg != covariance.DefaultRegularization() || o.Estimator != covariance.SCM || o.Normalize != covariance.NormNone || o.MaxMemory != 0 {
		t.Errorf("defaults: %+v", o)
	}
	zero := 0.0
	o, err = Settings{Features: "I,x,y", Resize: "32x64", Filter: "box", JPEGScale: "off", Regions: "grid:2x2",
		Ridge: &zero, Estimator: "lwf", Normalize: "trace", MaxMemory: "1MiB"}.Options(upper)
	if err != nil {
		t.Fatal(err)
	}
	layout, _ := covariance.ParseLayout("grid:2x2")
	want := Options{Width: 32, Height: 64, Filter: imageio.Box, JPEGScale: imageio.JPEGScaleOff, Regions: layout,
		Reg: covariance.Regularization{Kind: covariance.None}, Estimator: covariance.LedoitWolf, Normalize: covariance.NormTrace, MaxMemory: 1 << 20}
	got := o
	got.Features = nil
	if o.Features.Dim() != 3 || !reflect.DeepEqual(got, want) {
		t.Errorf("settings: %+v, want %+v (3 features)", o, want)
	}
	neg := -1.0
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{Features: "I,nope"}, `<FEATURES> "I,nope"`},
		{Settings{Features: "face", GaborBorder: "wrap"}, `<FEATURES> "face" <GABOR_BORDER> "wrap"`},
		{Settings{Resize: "32"}, "<RESIZE>"},
		{Settings{Filter: "box"}, "<FILTER> box has no effect without <RESIZE>"},
		{Settings{JPEGScale: "off"}, "<JPEG_SCALE> off has no effect without <RESIZE>"},
		{Settings{Resize: "8x8", Filter: "cubic"}, "<FILTER>"},
		{Settings{Resize: "8x8", JPEGScale: "half"}, "<JPEG_SCALE>"},
		{Settings{Regions: "grid:0x2"}, "<REGIONS>"},
		{Settings{Ridge: &neg}, "<RIDGE> -1 <RIDGE_KIND> trace-ridge"},
		{Settings{RidgeKind: "lasso"}, "<RIDGE> 0.0001 <RIDGE_KIND> lasso"},
		{Settings{Estimator: "mle"}, "<ESTIMATOR>"},
		{Settings{Normalize: "l2"}, "<NORMALIZE>"},
		{Settings{MaxMemory: "lots"}, "<MAX_MEMORY>"},
	} {
		if _, err := c.s.Options(upper); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", c.s, err, c.want)
		}
	}
}
