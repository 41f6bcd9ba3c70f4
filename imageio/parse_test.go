package imageio

import "testing"

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w, h int
		ok   bool
	}{
		{"32x64", 32, 64, true},
		{"64X64", 64, 64, true},
		{"1x1", 1, 1, true},
		{"0x64", 0, 0, false},
		{"32x", 0, 0, false},
		{"32", 0, 0, false},
		{"-1x5", 0, 0, false},
		{"axb", 0, 0, false},
		{"", 0, 0, false},
	} {
		w, h, err := ParseSize(tc.in)
		if (err == nil) != tc.ok || w != tc.w || h != tc.h {
			t.Errorf("ParseSize(%q) = %d, %d, %v; want %d, %d, ok=%v", tc.in, w, h, err, tc.w, tc.h, tc.ok)
		}
	}
}

func TestParseFilter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Filter
		ok   bool
	}{
		{"", Linear, true},
		{"linear", Linear, true},
		{"Nearest", Nearest, true},
		{"BOX", Box, true},
		{"catmullrom", CatmullRom, true},
		{"lanczos3", Lanczos3, true},
		{"bicubic", 0, false},
	} {
		f, err := ParseFilter(tc.in)
		if (err == nil) != tc.ok || (tc.ok && f != tc.want) {
			t.Errorf("ParseFilter(%q) = %v, %v; want %v, ok=%v", tc.in, f, err, tc.want, tc.ok)
		}
	}
}
