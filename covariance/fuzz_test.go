package covariance_test

import (
	"testing"

	"github.com/covpipe/covpipe/covariance"
)

// FuzzParseRegion: the parser never panics, and a parsed region prints to
// a string that parses back to it.
func FuzzParseRegion(f *testing.F) {
	for _, s := range []string{"32x32+64+0", "1x2+3+4", "0x1+0+0", "32x32+-1+0", "x++", "9223372036854775807x1+0+0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := covariance.ParseRegion(s)
		if err != nil {
			return
		}
		if r.W < 1 || r.H < 1 || r.X < 0 || r.Y < 0 {
			t.Fatalf("ParseRegion(%q) = %v", s, r)
		}
		if back, err := covariance.ParseRegion(r.String()); err != nil || back != r {
			t.Fatalf("ParseRegion(%q) = %v, whose string %q parses to %v, %v", s, r, r.String(), back, err)
		}
		_ = r.Validate(640, 480)
	})
}

// FuzzParseLayout: the parser never panics, a parsed layout round-trips
// through its string and places 1 to MaxRegions regions per image, and
// placing it in an image either fails or gives valid regions.
func FuzzParseLayout(f *testing.F) {
	for _, s := range []string{"whole", "grid:8x8", "blocks:50:32", "grid:0x1", "blocks:1:1", "grid:x", "blocks::",
		"blocks:100000000:2", "blocks:1099511627776:2", "grid:100000x100000", "grid:9223372036854775807x2"} {
		f.Add(s, 64, 48, uint64(1))
	}
	f.Fuzz(func(t *testing.T, s string, w, h int, seed uint64) {
		l, err := covariance.ParseLayout(s)
		if err != nil {
			return
		}
		if back, err := covariance.ParseLayout(l.String()); err != nil || back != l {
			t.Fatalf("ParseLayout(%q) = %+v, whose string %q parses to %+v, %v", s, l, l.String(), back, err)
		}
		if n := l.Count(); n < 1 || n > covariance.MaxRegions {
			t.Fatalf("ParseLayout(%q) accepted %d regions per image", s, n)
		}
		if l.N > 1000 || w > 1<<12 || h > 1<<12 {
			return // keep each input cheap
		}
		rs, err := l.Regions(w, h, seed)
		if err != nil {
			return
		}
		for _, r := range rs {
			if err := r.Validate(w, h); err != nil {
				t.Fatalf("%s on %dx%d: %v", s, w, h, err)
			}
		}
	})
}
