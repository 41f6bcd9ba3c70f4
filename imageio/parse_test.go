package imageio

import (
	"strings"
	"testing"
)

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

func TestParseJPEGScale(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want JPEGScale
		ok   bool
	}{
		{"", JPEGScaleAuto, true},
		{"auto", JPEGScaleAuto, true},
		{"Off", JPEGScaleOff, true},
		{"fast", JPEGScaleFast, true},
		{"on", 0, false},
		{"1/4", 0, false},
	} {
		s, err := ParseJPEGScale(tc.in)
		if (err == nil) != tc.ok || (tc.ok && s != tc.want) {
			t.Errorf("ParseJPEGScale(%q) = %v, %v; want %v, ok=%v", tc.in, s, err, tc.want, tc.ok)
		}
		if tc.ok && tc.in != "" && !strings.EqualFold(s.String(), tc.in) {
			t.Errorf("%v prints as %q", s, s.String())
		}
	}
}

// TestJPEGScaleDenom checks the choice of the reduced scale: the
// smallest image of 1/8, 1/4 and 1/2 scale (sizes rounded up) that is
// margin times the target once oriented.
func TestJPEGScaleDenom(t *testing.T) {
	for _, tc := range []struct {
		w, h, o, tw, th, margin, want int
	}{
		{128, 256, 1, 32, 64, 1, 4},
		{128, 256, 1, 32, 64, 2, 2},
		{128, 256, 1, 33, 64, 1, 2},
		{128, 256, 1, 32, 65, 1, 2},
		{128, 256, 1, 33, 64, 2, 1},
		{128, 256, 1, 16, 32, 1, 8},
		{128, 256, 1, 16, 32, 2, 4},
		{128, 256, 1, 17, 32, 1, 4},
		{128, 256, 1, 64, 128, 1, 2},
		{128, 256, 1, 64, 128, 2, 1},
		{128, 256, 1, 65, 128, 1, 1},
		{128, 256, 1, 128, 256, 1, 1},
		{128, 256, 1, 300, 600, 1, 1},
		// A 90-degree rotation (5..8) swaps width and height.
		{128, 256, 6, 64, 32, 1, 4},
		{128, 256, 6, 64, 32, 2, 2},
		{128, 256, 6, 32, 64, 1, 2},
		{128, 256, 6, 32, 64, 2, 1},
		{128, 256, 8, 16, 8, 1, 8},
		{128, 256, 3, 32, 64, 1, 4},
		// Sizes round up: 9 pixels make 2 at 1/8.
		{9, 9, 1, 2, 2, 1, 8},
		{9, 9, 1, 1, 1, 2, 8},
		{9, 9, 1, 3, 3, 1, 4},
		{9, 9, 1, 5, 5, 1, 2},
		{9, 9, 1, 6, 6, 1, 1},
		{1, 1, 1, 1, 1, 1, 8},
		{1, 1, 1, 1, 1, 2, 1},
	} {
		if got := jpegScaleDenom(tc.w, tc.h, tc.o, tc.tw, tc.th, tc.margin); got != tc.want {
			t.Errorf("%dx%d orientation %d to %d times %dx%d: 1/%d, want 1/%d", tc.w, tc.h, tc.o, tc.margin, tc.tw, tc.th, got, tc.want)
		}
	}
}
