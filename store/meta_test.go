package store

import (
	"reflect"
	"testing"
)

// TestDifferences checks that Differences names every extraction option
// that differs, readably, and Diff the first, as JSON; that what differs
// between shards, the plane names and the resampling of a resize that
// only one side made are left out.
func TestDifferences(t *testing.T) {
	base := Meta{FeatureSpec: "I,Ix", Features: []string{"I", "Ix"}, Dim: 2, Ridge: Ridge{Kind: "trace-ridge", Eps: 1e-4}, Regions: "whole"}
	for _, tc := range []struct {
		name string
		edit func(m *Meta)
		want []Difference
		diff string
	}{
		{"same", func(*Meta) {}, nil, ""},
		{"shards and counts", func(m *Meta) {
			m.Shard = &Shard{Index: 1, Count: 2}
			m.Counts.Images = 3
			m.Files = []File{{Name: "x"}}
		}, nil, ""},
		{"ridge and normalisation", func(m *Meta) { m.Ridge = Ridge{Kind: "ridge", Eps: 0.5}; m.Normalize = "trace" },
			[]Difference{{"ridge", "ridge 0.5", "trace-ridge 0.0001"}, {"normalize", "trace", "none"}}, `ridge {"kind":"ridge","eps":0.5} vs {"kind":"trace-ridge","eps":0.0001}`},
		{"no ridge", func(m *Meta) { m.Ridge = Ridge{Kind: "none"} }, []Difference{{"ridge", "none", "trace-ridge 0.0001"}}, `ridge {"kind":"none","eps":0} vs {"kind":"trace-ridge","eps":0.0001}`},
		{"features", func(m *Meta) { m.FeatureSpec, m.Features = "I,Iy", []string{"I", "Iy"} },
			[]Difference{{"feature_spec", "I,Iy", "I,Ix"}}, `feature_spec "I,Iy" vs "I,Ix"`},
		{"resize on one side", func(m *Meta) { m.Resize, m.Filter, m.JPEGScale = &Size{32, 64}, "linear", "auto" },
			[]Difference{{"resize", "32x64", "none"}}, `resize {"width":32,"height":64} vs null`},
		{"vectors and regions", func(m *Meta) { m.Vectors = &Vectors{FeatureSpec: "I", Step: 2}; m.Regions = "grid:2x2" },
			[]Difference{{"regions", "grid:2x2", "whole"}, {"vectors", "features I, step 2", "none"}}, `regions "grid:2x2" vs "whole"`},
	} {
		m := base
		tc.edit(&m)
		if got := m.Differences(&base); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Differences %q, want %q", tc.name, got, tc.want)
		}
		if got := m.Diff(&base); got != tc.diff {
			t.Errorf("%s: Diff %q, want %q", tc.name, got, tc.diff)
		}
	}
	// Both sides resized: the filter is an option of its own.
	a, b := base, base
	a.Resize, a.Filter, b.Resize, b.Filter = &Size{8, 8}, "linear", &Size{8, 8}, "box"
	if got, want := a.Differences(&b), []Difference{{"filter", "linear", "box"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("filters: %q, want %q", got, want)
	}
	// Settings lists every extraction option, readably.
	want := []Setting{{"feature_spec", "I,Ix"}, {"dim", "2"}, {"gabor_border", "none"}, {"ridge", "trace-ridge 0.0001"}, {"estimator", "scm"},
		{"normalize", "none"}, {"resize", "8x8"}, {"filter", "linear"}, {"jpeg_scale", "none"}, {"regions", "whole"}, {"seed", "0"}, {"skip_bad", "false"}, {"vectors", "none"}}
	if got := a.Settings(); !reflect.DeepEqual(got, want) {
		t.Errorf("Settings %q, want %q", got, want)
	}
}
