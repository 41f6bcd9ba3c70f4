package covariance_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/covariance"
)

func TestGrid(t *testing.T) {
	rs, err := covariance.Grid(256, 256, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 64 {
		t.Fatalf("%d regions, want 64", len(rs))
	}
	// The regions tile the image: every pixel is covered exactly once.
	cover := make([]int, 256*256)
	for k, r := range rs {
		if r.W != 32 || r.H != 32 {
			t.Errorf("region %d is %v, want 32x32", k, r)
		}
		if want := (covariance.Region{X: k % 8 * 32, Y: k / 8 * 32, W: 32, H: 32}); r != want {
			t.Errorf("region %d is %v, want %v (row by row)", k, r, want)
		}
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				cover[y*256+x]++
			}
		}
	}
	for i, c := range cover {
		if c != 1 {
			t.Fatalf("pixel (%d, %d) covered %d times", i%256, i/256, c)
		}
	}
	rs, err = covariance.Grid(30, 20, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []covariance.Region{{0, 0, 10, 10}, {10, 0, 10, 10}, {20, 0, 10, 10}, {0, 10, 10, 10}, {10, 10, 10, 10}, {20, 10, 10, 10}}; !slices.Equal(rs, want) {
		t.Errorf("Grid(30, 20, 2, 3) = %v, want %v", rs, want)
	}
}

func TestRandomBlocks(t *testing.T) {
	const w, h, n, side = 640, 480, 500, 32
	a, err := covariance.RandomBlocks(w, h, n, side, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := covariance.RandomBlocks(w, h, n, side, 42)
	c, _ := covariance.RandomBlocks(w, h, n, side, 43)
	if len(a) != n || !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Fatalf("%d blocks; same seed equal: %v; other seed equal: %v", len(a), slices.Equal(a, b), slices.Equal(a, c))
	}
	var minX, maxX, minY, maxY = w, 0, h, 0
	for _, r := range a {
		if err := r.Validate(w, h); err != nil || r.W != side || r.H != side {
			t.Fatalf("block %v: %v", r, err)
		}
		minX, maxX, minY, maxY = min(minX, r.X), max(maxX, r.X), min(minY, r.Y), max(maxY, r.Y)
	}
	// 500 uniform draws over 609 and 449 positions reach near both ends.
	if minX > 20 || maxX < w-side-20 || minY > 20 || maxY < h-side-20 {
		t.Errorf("corners span x in [%d, %d], y in [%d, %d]: not uniform over [0, %d]×[0, %d]", minX, maxX, minY, maxY, w-side, h-side)
	}
	// The exact positions are part of the manifests: pin them.
	got, _ := covariance.RandomBlocks(640, 640, 3, 32, 1)
	want := []covariance.Region{{X: 247, Y: 294, W: 32, H: 32}, {X: 290, Y: 136, W: 32, H: 32}, {X: 303, Y: 514, W: 32, H: 32}}
	if !slices.Equal(got, want) {
		t.Errorf("RandomBlocks(640, 640, 3, 32, 1) = %#v, want %#v", got, want)
	}
	// A block as large as the image has one position.
	one, err := covariance.RandomBlocks(32, 32, 2, 32, 7)
	if err != nil || !slices.Equal(one, []covariance.Region{{W: 32, H: 32}, {W: 32, H: 32}}) {
		t.Errorf("RandomBlocks(32, 32, 2, 32) = %v, %v", one, err)
	}
}

func TestRegionString(t *testing.T) {
	for _, tc := range []struct {
		r covariance.Region
		s string
	}{
		{covariance.Region{X: 64, Y: 0, W: 32, H: 32}, "32x32+64+0"},
		{covariance.Whole(643, 641), "643x641+0+0"},
		{covariance.Region{X: 1, Y: 2, W: 3, H: 4}, "3x4+1+2"},
	} {
		if s := tc.r.String(); s != tc.s {
			t.Errorf("%#v.String() = %q, want %q", tc.r, s, tc.s)
		}
		r, err := covariance.ParseRegion(tc.s)
		if err != nil || r != tc.r {
			t.Errorf("ParseRegion(%q) = %v, %v", tc.s, r, err)
		}
	}
	for _, s := range []string{"", "32x32", "32x32+1", "32+1+2", "0x32+0+0", "32x0+0+0", "32x32+-1+0", "32x32++1+0", "+32x32+0+0",
		"32x32+1+2+3", " 32x32+0+0", "32X32+0+0", "3.5x2+0+0", "32x32+0+99999999999999999999", "x+0+0"} {
		if r, err := covariance.ParseRegion(s); !errors.Is(err, covariance.ErrRegion) {
			t.Errorf("ParseRegion(%q) = %v, %v; want an ErrRegion error", s, r, err)
		}
	}
}

func TestRegionValidate(t *testing.T) {
	for _, tc := range []struct {
		r  covariance.Region
		ok bool
	}{
		{covariance.Region{W: 10, H: 8}, true},
		{covariance.Region{X: 9, Y: 6, W: 1, H: 2}, true},
		{covariance.Region{X: 8, Y: 7, W: 2, H: 1}, true},
		{covariance.Region{W: 1, H: 1}, false},
		{covariance.Region{W: 0, H: 5}, false},
		{covariance.Region{X: 9, W: 2, H: 2}, false},
		{covariance.Region{Y: 7, W: 2, H: 2}, false},
		{covariance.Region{X: -1, W: 2, H: 2}, false},
		{covariance.Region{W: 11, H: 1}, false},
		{covariance.Region{X: 1 << 62, W: 1 << 62, H: 2}, false},
	} {
		if err := tc.r.Validate(10, 8); (err == nil) != tc.ok || (err != nil && !errors.Is(err, covariance.ErrRegion)) {
			t.Errorf("%v.Validate(10, 8) = %v, want ok = %v", tc.r, err, tc.ok)
		}
	}
}

func TestLayout(t *testing.T) {
	for _, tc := range []struct {
		spec string
		l    covariance.Layout
		w, h int
		n    int
	}{
		{"whole", covariance.Layout{Kind: covariance.LayoutWhole}, 64, 32, 1},
		{"grid:8x8", covariance.Layout{Kind: covariance.LayoutGrid, Rows: 8, Cols: 8}, 256, 256, 64},
		{"grid:2x3", covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2, Cols: 3}, 30, 20, 6},
		{"blocks:50:32", covariance.Layout{Kind: covariance.LayoutBlocks, N: 50, Side: 32}, 640, 640, 50},
		{"grid:3x3:16", covariance.Layout{Kind: covariance.LayoutGrid, Rows: 3, Cols: 3, Side: 16}, 32, 32, 9},
		{"grid:3x3:crop", covariance.Layout{Kind: covariance.LayoutGrid, Rows: 3, Cols: 3, Remainder: covariance.RemainderCrop}, 64, 64, 9},
		{"whole+grid:3x2:spread", covariance.Layout{Kind: covariance.LayoutGrid, Rows: 3, Cols: 2, Remainder: covariance.RemainderSpread, Whole: true}, 33, 64, 7},
		{"whole+grid:2x2", covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2, Cols: 2, Whole: true}, 32, 32, 5},
		{"whole+grid:3x3:16", covariance.Layout{Kind: covariance.LayoutGrid, Rows: 3, Cols: 3, Side: 16, Whole: true}, 32, 32, 10},
		{"whole+blocks:4:8", covariance.Layout{Kind: covariance.LayoutBlocks, N: 4, Side: 8, Whole: true}, 32, 32, 5},
		{"whole+grid:3x3:16,grid:2x2", covariance.Layout{Kind: covariance.LayoutGrid, Rows: 3, Cols: 3, Side: 16, Whole: true, Then: &covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2, Cols: 2}}, 32, 32, 14},
	} {
		if tc.l.Count() != tc.n {
			t.Errorf("%s: Count %d, want %d", tc.spec, tc.l.Count(), tc.n)
		}
		l, err := covariance.ParseLayout(tc.spec)
		if err != nil || !reflect.DeepEqual(l, tc.l) || l.String() != tc.spec {
			t.Errorf("ParseLayout(%q) = %+v, %v (String %q)", tc.spec, l, err, l.String())
			continue
		}
		rs, err := l.Regions(tc.w, tc.h, 5)
		if err != nil || len(rs) != tc.n {
			t.Errorf("%s on %dx%d: %d regions, %v", tc.spec, tc.w, tc.h, len(rs), err)
		}
		for _, r := range rs {
			if err := r.Validate(tc.w, tc.h); err != nil {
				t.Error(err)
			}
		}
	}
	grid, _ := covariance.ParseLayout("grid:8x8")
	direct, _ := covariance.Grid(256, 256, 8, 8)
	if rs, _ := grid.Regions(256, 256, 0); !slices.Equal(rs, direct) {
		t.Error("grid layout differs from Grid")
	}
	blocks, _ := covariance.ParseLayout("blocks:50:32")
	direct, _ = covariance.RandomBlocks(640, 640, 50, 32, 11)
	if rs, _ := blocks.Regions(640, 640, 11); !slices.Equal(rs, direct) {
		t.Error("blocks layout differs from RandomBlocks")
	}
	if rs, _ := (covariance.Layout{}).Regions(64, 32, 0); !slices.Equal(rs, []covariance.Region{covariance.Whole(64, 32)}) {
		t.Errorf("whole layout: %v", rs)
	}
}

// TestWindows checks the window corners against the formula worked by
// hand: nine 16×16 windows of a 32×32 image at stride 8, a single column
// centred, and the whole image first with whole+.
func TestWindows(t *testing.T) {
	rs, err := covariance.Windows(32, 32, 3, 3, 16)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.String())
	}
	want := []string{"16x16+0+0", "16x16+8+0", "16x16+16+0", "16x16+0+8", "16x16+8+8", "16x16+16+8", "16x16+0+16", "16x16+8+16", "16x16+16+16"}
	if !slices.Equal(got, want) {
		t.Errorf("grid:3x3:16 in 32x32: %v, want %v", got, want)
	}
	if rs, err := covariance.Windows(33, 20, 1, 2, 10); err != nil || rs[0] != (covariance.Region{X: 0, Y: 5, W: 10, H: 10}) || rs[1] != (covariance.Region{X: 23, Y: 5, W: 10, H: 10}) {
		t.Errorf("grid:1x2:10 in 33x20: %v, %v", rs, err)
	}
	l, _ := covariance.ParseLayout("whole+grid:3x3:16")
	if rs, err := l.Regions(32, 32, 0); err != nil || rs[0] != covariance.Whole(32, 32) || rs[1] != (covariance.Region{W: 16, H: 16}) {
		t.Errorf("whole+grid:3x3:16: %v, %v", rs, err)
	}
	l, _ = covariance.ParseLayout("whole+grid:3x3:16,grid:2x2")
	if rs, err := l.Regions(32, 32, 0); err != nil || len(rs) != 14 || rs[9] != (covariance.Region{X: 16, Y: 16, W: 16, H: 16}) || rs[10] != (covariance.Region{W: 16, H: 16}) || rs[13] != rs[9] {
		t.Errorf("whole+grid:3x3:16,grid:2x2: %v, %v", rs, err)
	}
	if got := len(l.Layouts()); got != 2 {
		t.Errorf("%d layouts, want 2", got)
	}
	if _, err := covariance.Windows(12, 32, 2, 2, 16); !errors.Is(err, covariance.ErrRegion) {
		t.Errorf("16x16 windows in a 12x32 image: %v", err)
	}
}

// TestLayoutErrors: malformed specifications and layouts that do not fit
// the image give errors that say what is wrong.
func TestLayoutErrors(t *testing.T) {
	for _, tc := range []struct{ spec, msg string }{
		{"", `unknown kind ""`},
		{"Grid:8x8", "unknown kind"},
		{"whole:1", "no parameters"},
		{"grid", "rows x columns"},
		{"grid:8", "rows x columns"},
		{"grid:0x8", "rows and columns must be >= 1"},
		{"grid:8x-1", "not a non-negative decimal integer"},
		{"grid:8x8x8", "not a non-negative decimal integer"},
		{"blocks:50", "count and a side"},
		{"blocks:0:32", "count must be >= 1"},
		{"blocks:50:1", "must be >= 2"},
		{"blocks:50:0", "must be >= 2"},
		{"blocks:50:32:7", "not a non-negative decimal integer"},
		{"blocks: 50:32", "not a non-negative decimal integer"},
		{"blocks:100000000:2", "100000000 blocks: more than 67108864 regions per image"},
		{"grid:100000x100000", "grid 100000x100000: more than 67108864 regions per image"},
		{"grid:9223372036854775807x2", "more than 67108864 regions per image"},
		{"grid:3x3:1", "window side must be >= 2"},
		{"grid:3x3:", "window side"},
		{"grid:3x3:cropped", "or a remainder policy: crop, spread or fail"},
		{"grid:3x3:16:crop", "window side"},
		{"whole+whole", "no parameters"},
		{"whole+", "unknown kind"},
		{"grid:2x2,", `unknown kind ""`},
		{"grid:2x2,grid:0x1", "rows and columns must be >= 1"},
	} {
		_, err := covariance.ParseLayout(tc.spec)
		if !errors.Is(err, covariance.ErrRegion) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseLayout(%q): error %v, want one saying %q", tc.spec, err, tc.msg)
		}
	}
	for _, tc := range []struct {
		spec string
		w, h int
		msg  string
	}{
		{"grid:8x8", 250, 256, "does not divide the 250x256 image"},
		{"grid:3x1", 10, 10, "does not divide"},
		{"grid:4x4", 4, 4, "gives 1x1 regions"},
		{"grid:3x3:crop", 2, 64, "gives 0x21 regions; a covariance needs at least 2 pixels"},
		{"grid:3x3:spread", 64, 2, "gives 21x0 regions"},
		{"blocks:50:32", 31, 640, "do not fit in the 31x640 image"},
		{"blocks:50:32", 640, 16, "do not fit"},
		{"whole", 1, 1, "at least 2"},
		{"whole", 0, 5, "image size 0x5"},
	} {
		l, err := covariance.ParseLayout(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := l.Regions(tc.w, tc.h, 1)
		if !errors.Is(err, covariance.ErrRegion) || !strings.Contains(err.Error(), tc.msg) || rs != nil {
			t.Errorf("%s on %dx%d: %v, error %v, want one saying %q", tc.spec, tc.w, tc.h, rs, err, tc.msg)
		}
	}
	for _, err := range []error{
		func() error { _, err := covariance.Grid(64, 64, 0, 4); return err }(),
		func() error { _, err := covariance.Grid(64, 60, 8, 8); return err }(),
		func() error { _, err := covariance.RandomBlocks(64, 64, 0, 8, 1); return err }(),
		func() error { _, err := covariance.RandomBlocks(64, 64, 5, 1, 1); return err }(),
		func() error { _, err := covariance.RandomBlocks(64, 64, 5, 65, 1); return err }(),
		func() error { _, err := (covariance.Layout{Kind: 9}).Regions(64, 64, 1); return err }(),
		// Sizes that cannot be allocated are errors, not a crash.
		func() error { _, err := covariance.RandomBlocks(10, 10, 1<<40, 2, 1); return err }(),
		func() error { _, err := covariance.Grid(1<<31, 1<<31, 1<<30, 1<<30); return err }(),
		func() error {
			_, err := covariance.Grid(1e9, 1e9, 8000, 8000)
			if want := "grid 8000x8000 of a 1000000000x1000000000 image: more than 67108864 pixels"; err == nil || !strings.Contains(err.Error(), want) {
				return fmt.Errorf("Grid(1e9, 1e9, 8000, 8000): %v, want %q", err, want)
			}
			return err
		}(),
		func() error {
			_, err := (covariance.Layout{Kind: covariance.LayoutGrid, Rows: 8000, Cols: 8000}).Regions(1e9, 1e9, 1)
			return err
		}(),
		func() error {
			_, err := (covariance.Layout{Kind: covariance.LayoutBlocks, N: 1 << 40, Side: 2}).Regions(10, 10, 1)
			return err
		}(),
	} {
		if !errors.Is(err, covariance.ErrRegion) {
			t.Errorf("error %v, want ErrRegion", err)
		}
	}
}

// TestLayoutCheck: Check accepts the layouts ParseLayout returns and
// refuses, wrapping ErrRegion, the typed values ParseLayout would refuse.
func TestLayoutCheck(t *testing.T) {
	for _, spec := range []string{"whole", "grid:1x1", "grid:8x8", "blocks:1:2", "blocks:50:32", "blocks:67108864:2", "grid:8192x8192"} {
		l, err := covariance.ParseLayout(spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Check(); err != nil {
			t.Errorf("%s: %v", spec, err)
		}
	}
	for _, tc := range []struct {
		l   covariance.Layout
		msg string
	}{
		{covariance.Layout{Kind: covariance.LayoutGrid, Rows: 2}, "rows and columns must be >= 1"},
		{covariance.Layout{Kind: covariance.LayoutGrid, Cols: 2}, "rows and columns must be >= 1"},
		{covariance.Layout{Kind: covariance.LayoutBlocks, Side: 4}, "count must be >= 1"},
		{covariance.Layout{Kind: covariance.LayoutBlocks, N: 3, Side: 1}, "must be >= 2"},
		{covariance.Layout{Kind: 7}, "unknown region layout kind 7"},
		{covariance.Layout{Kind: covariance.LayoutBlocks, N: covariance.MaxRegions + 1, Side: 2}, "more than 67108864 regions"},
		{covariance.Layout{Kind: covariance.LayoutGrid, Rows: 1 << 13, Cols: 1<<13 + 1}, "more than 67108864 regions"},
		{covariance.Layout{Kind: covariance.LayoutGrid, Rows: 1 << 62, Cols: 1 << 62}, "more than 67108864 regions"},
	} {
		if err := tc.l.Check(); !errors.Is(err, covariance.ErrRegion) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%v: error %v, want one saying %q", tc.l, err, tc.msg)
		}
	}
}

// TestLayoutCount checks the regions per image a layout places against
// the regions it places in an image that fits it.
func TestLayoutCount(t *testing.T) {
	for _, spec := range []string{"whole", "grid:1x1", "grid:8x8", "grid:3x5", "blocks:1:2", "blocks:50:32"} {
		l, err := covariance.ParseLayout(spec)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := l.Regions(480, 480, 1)
		if err != nil || len(rs) != l.Count() {
			t.Errorf("%s: Count %d, %d regions placed (%v)", spec, l.Count(), len(rs), err)
		}
	}
}

// TestGridRemainder checks GridCrop and GridSpread against corners worked
// by hand, and on every size up to 40×40 against their definitions by
// brute force: spread cells cover each pixel once and differ by a pixel
// at most; crop cells are equal and centred; on sizes the grid divides
// both are Grid's cells.
func TestGridRemainder(t *testing.T) {
	rect := func(x, y, w, h int) covariance.Region { return covariance.Region{X: x, Y: y, W: w, H: h} }
	for _, tc := range []struct {
		name string
		got  func() ([]covariance.Region, error)
		want []covariance.Region
	}{
		// 11 = 3·3 + 2: one column of margin each side; 7 = 2·3 + 1: the odd row at the bottom.
		{"crop 11x7 by 2x3", func() ([]covariance.Region, error) { return covariance.GridCrop(11, 7, 2, 3) },
			[]covariance.Region{rect(1, 0, 3, 3), rect(4, 0, 3, 3), rect(7, 0, 3, 3), rect(1, 3, 3, 3), rect(4, 3, 3, 3), rect(7, 3, 3, 3)}},
		// Column bounds 0, 3.33, 6.67, 10 round to 0, 3, 7, 10; row bounds 0, 3.5, 7 to 0, 4, 7.
		{"spread 10x7 by 2x3", func() ([]covariance.Region, error) { return covariance.GridSpread(10, 7, 2, 3) },
			[]covariance.Region{rect(0, 0, 3, 4), rect(3, 0, 4, 4), rect(7, 0, 3, 4), rect(0, 4, 3, 3), rect(3, 4, 4, 3), rect(7, 4, 3, 3)}},
	} {
		got, err := tc.got()
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	const rows, cols = 3, 4
	for w := 2 * cols; w <= 40; w++ {
		for h := rows; h <= 40; h++ {
			spread, err := covariance.GridSpread(w, h, rows, cols)
			if err != nil {
				t.Fatalf("spread %dx%d: %v", w, h, err)
			}
			covered := make([]int, w*h)
			minW, maxW, minH, maxH := w, 0, h, 0
			for _, r := range spread {
				for y := r.Y; y < r.Y+r.H; y++ {
					for x := r.X; x < r.X+r.W; x++ {
						covered[y*w+x]++
					}
				}
				minW, maxW, minH, maxH = min(minW, r.W), max(maxW, r.W), min(minH, r.H), max(maxH, r.H)
			}
			if slices.ContainsFunc(covered, func(n int) bool { return n != 1 }) || maxW-minW > 1 || maxH-minH > 1 {
				t.Errorf("spread %dx%d: cells %v do not tile the image with sizes a pixel apart", w, h, spread)
			}
			crop, err := covariance.GridCrop(w, h, rows, cols)
			if err != nil {
				t.Fatalf("crop %dx%d: %v", w, h, err)
			}
			first, last := crop[0], crop[len(crop)-1]
			left, right := first.X, w-(last.X+last.W)
			top, bottom := first.Y, h-(last.Y+last.H)
			for k, r := range crop {
				i, j := k/cols, k%cols
				if r != rect(first.X+j*first.W, first.Y+i*first.H, w/cols, h/rows) {
					t.Errorf("crop %dx%d: cell %d is %v, want %dx%d cells in a row", w, h, k, r, w/cols, h/rows)
				}
			}
			if right-left < 0 || right-left > 1 || bottom-top < 0 || bottom-top > 1 {
				t.Errorf("crop %dx%d: margins left %d right %d top %d bottom %d, want centred (the odd one right, bottom)", w, h, left, right, top, bottom)
			}
			if w%cols == 0 && h%rows == 0 {
				exact, _ := covariance.Grid(w, h, rows, cols)
				if !slices.Equal(crop, exact) || !slices.Equal(spread, exact) {
					t.Errorf("%dx%d: crop %v, spread %v, want Grid's %v", w, h, crop, spread, exact)
				}
			}
		}
	}
	for _, l := range []covariance.Layout{
		{Kind: covariance.LayoutGrid, Rows: 2, Cols: 2, Side: 8, Remainder: covariance.RemainderCrop},
		{Kind: covariance.LayoutGrid, Rows: 2, Cols: 2, Remainder: covariance.Remainder(7)},
	} {
		if err := l.Check(); !errors.Is(err, covariance.ErrRegion) {
			t.Errorf("%+v: Check %v, want an ErrRegion", l, err)
		}
	}
}
