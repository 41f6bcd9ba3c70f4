package datasets

import (
	"errors"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/imagetest"
)

// bruteLabel counts the labels of a region of a map at its own size.
func bruteLabel(m *LabelMap, r image.Rectangle) (label int, purity float64) {
	count := map[int]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			count[m.Pix[y*m.W+x]]++
		}
	}
	best := -1
	for l, c := range count {
		if best < 0 || c > count[best] || (c == count[best] && l < best) {
			best = l
		}
	}
	return best, float64(count[best]) / float64(r.Dx()*r.Dy())
}

func TestLabelRegionsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const w, h = 40, 30
	m := &LabelMap{W: w, H: h, Pix: make([]int, w*h)}
	// Blobs of labels 10, 20, 30, 40 on a coarse grid, plus noise, so that
	// regions have varied purities and ties happen.
	for y := range h {
		for x := range w {
			m.Pix[y*w+x] = 10 * (1 + (x/7+y/5)%4)
			if rng.IntN(5) == 0 {
				m.Pix[y*w+x] = 10 * (1 + rng.IntN(4))
			}
		}
	}
	var rects []image.Rectangle
	for range 300 {
		x0, y0 := rng.IntN(w), rng.IntN(h)
		rects = append(rects, image.Rect(x0, y0, x0+1+rng.IntN(w-x0), y0+1+rng.IntN(h-y0)))
	}
	const minPurity = 0.6
	got, err := m.LabelRegions(rects, RegionOptions{MinPurity: minPurity})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Kept)+len(got.Dropped) != len(rects) || len(got.Kept) == 0 || len(got.Dropped) == 0 {
		t.Fatalf("%d kept + %d dropped, want %d with some of each", len(got.Kept), len(got.Dropped), len(rects))
	}
	for _, rl := range slices.Concat(got.Kept, got.Dropped) {
		label, purity := bruteLabel(m, rects[rl.Index])
		if rl.Rect != rects[rl.Index] || rl.Label != label || math.Abs(rl.Purity-purity) > 1e-12 {
			t.Errorf("region %d %v: label %d purity %v, want %d %v", rl.Index, rl.Rect, rl.Label, rl.Purity, label, purity)
		}
	}
	for _, rl := range got.Kept {
		if rl.Purity < minPurity {
			t.Errorf("kept region %d has purity %v < %v", rl.Index, rl.Purity, minPurity)
		}
	}
	for _, rl := range got.Dropped {
		if rl.Purity >= minPurity {
			t.Errorf("dropped region %d has purity %v >= %v", rl.Index, rl.Purity, minPurity)
		}
	}
	if !slices.IsSortedFunc(got.Kept, func(a, b RegionLabel) int { return a.Index - b.Index }) {
		t.Error("kept regions not in input order")
	}
}

func TestLabelRegionsScaled(t *testing.T) {
	m := &LabelMap{W: 4, H: 4, Pix: []int{
		1, 1, 2, 2,
		1, 1, 2, 2,
		3, 3, 3, 4,
		3, 3, 4, 4,
	}}
	got, err := m.LabelRegions(Tiles(2, 2, 1), RegionOptions{Width: 2, Height: 2, MinPurity: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	want := RegionLabels{
		Kept: []RegionLabel{
			{0, image.Rect(0, 0, 1, 1), 1, 1},
			{1, image.Rect(1, 0, 2, 1), 2, 1},
			{2, image.Rect(0, 1, 1, 2), 3, 1},
		},
		Dropped: []RegionLabel{{3, image.Rect(1, 1, 2, 2), 4, 0.75}},
	}
	if !slices.Equal(got.Kept, want.Kept) || !slices.Equal(got.Dropped, want.Dropped) {
		t.Errorf("2x downscale: %+v, want %+v", got, want)
	}

	// Non-integer scale 3 → 2: the second region covers [1.5, 3): half of
	// pixel 1 (label 5) and pixel 2 (label 7).
	row := &LabelMap{W: 3, H: 1, Pix: []int{5, 5, 7}}
	got, err = row.LabelRegions(Tiles(2, 1, 1), RegionOptions{Width: 2, Height: 1})
	if err != nil {
		t.Fatal(err)
	}
	if k := got.Kept; len(k) != 2 || k[0].Label != 5 || k[0].Purity != 1 || k[1].Label != 7 || math.Abs(k[1].Purity-2.0/3) > 1e-15 {
		t.Errorf("3→2: %+v, want labels 5, 7 with purities 1, 2/3", k)
	}

	// A tie goes to the smaller label.
	tie := &LabelMap{W: 2, H: 1, Pix: []int{9, 4}}
	got, err = tie.LabelRegions([]image.Rectangle{image.Rect(0, 0, 1, 1)}, RegionOptions{Width: 1, Height: 1})
	if err != nil {
		t.Fatal(err)
	}
	if k := got.Kept; len(k) != 1 || k[0].Label != 4 || k[0].Purity != 0.5 {
		t.Errorf("tie: %+v, want label 4 purity 0.5", k)
	}
}

func TestOverlaps(t *testing.T) {
	for _, tc := range []struct {
		d0, d1, m, n int
		want         []float64
		i0           int
	}{
		{0, 1, 3, 2, []float64{1, 0.5}, 0},
		{1, 2, 3, 2, []float64{0.5, 1}, 1},
		{1, 2, 2, 3, []float64{1.0 / 3, 1.0 / 3}, 0}, // upscaling
		{32, 34, 512, 256, []float64{1, 1, 1, 1}, 64},
		{3, 5, 7, 7, []float64{1, 1}, 3},
	} {
		got, i0 := overlaps(nil, tc.d0, tc.d1, tc.m, tc.n)
		ok := i0 == tc.i0 && len(got) == len(tc.want)
		for i := range got {
			ok = ok && math.Abs(got[i]-tc.want[i]) < 1e-15
		}
		if !ok {
			t.Errorf("overlaps([%d,%d), %d→%d) = %v from %d, want %v from %d", tc.d0, tc.d1, tc.m, tc.n, got, i0, tc.want, tc.i0)
		}
	}
}

func TestLabelRegionsErrors(t *testing.T) {
	m := &LabelMap{W: 4, H: 4, Pix: make([]int, 16)}
	ok := []image.Rectangle{image.Rect(0, 0, 2, 2)}
	for _, tc := range []struct {
		name  string
		rects []image.Rectangle
		o     RegionOptions
	}{
		{"negative purity", ok, RegionOptions{MinPurity: -0.1}},
		{"purity above 1", ok, RegionOptions{MinPurity: 1.1}},
		{"NaN purity", ok, RegionOptions{MinPurity: math.NaN()}},
		{"width only", ok, RegionOptions{Width: 4}},
		{"negative size", ok, RegionOptions{Width: -4, Height: -4}},
		{"outside", []image.Rectangle{image.Rect(2, 2, 5, 4)}, RegionOptions{}},
		{"outside resized", []image.Rectangle{image.Rect(0, 0, 3, 3)}, RegionOptions{Width: 2, Height: 2}},
		{"negative", []image.Rectangle{image.Rect(-1, 0, 1, 1)}, RegionOptions{}},
		{"empty", []image.Rectangle{image.Rect(1, 1, 1, 3)}, RegionOptions{}},
	} {
		if _, err := m.LabelRegions(tc.rects, tc.o); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: error %v, want ErrConfig", tc.name, err)
		}
	}
	bad := &LabelMap{W: 4, H: 4, Pix: make([]int, 15)}
	if _, err := bad.LabelRegions(ok, RegionOptions{}); !errors.Is(err, ErrConfig) {
		t.Errorf("inconsistent map: error %v, want ErrConfig", err)
	}
}

func TestTiles(t *testing.T) {
	tiles := Tiles(256, 256, 32)
	if len(tiles) != 64 || tiles[0] != image.Rect(0, 0, 32, 32) || tiles[1] != image.Rect(32, 0, 64, 32) || tiles[63] != image.Rect(224, 224, 256, 256) {
		t.Errorf("Tiles(256, 256, 32): %d tiles, first %v %v, last %v", len(tiles), tiles[0], tiles[1], tiles[len(tiles)-1])
	}
	if got := Tiles(70, 40, 32); !slices.Equal(got, []image.Rectangle{image.Rect(0, 0, 32, 32), image.Rect(32, 0, 64, 32)}) {
		t.Errorf("Tiles(70, 40, 32) = %v", got)
	}
	for _, a := range [][3]int{{0, 1, 1}, {1, -1, 1}, {4, 4, 0}} {
		if got := Tiles(a[0], a[1], a[2]); got != nil {
			t.Errorf("Tiles%v = %v, want nil", a, got)
		}
	}
}

func TestLoadLabelMap(t *testing.T) {
	dir := t.TempDir()
	g := image.NewGray(image.Rect(0, 0, 3, 2))
	copy(g.Pix, []uint8{32, 64, 255, 0, 32, 224})
	m, err := LoadLabelMap(imagetest.Write(t, filepath.Join(dir, "g.png"), g))
	if err != nil {
		t.Fatal(err)
	}
	if m.W != 3 || m.H != 2 || !slices.Equal(m.Pix, []int{32, 64, 255, 0, 32, 224}) {
		t.Errorf("8-bit map %+v", m)
	}
	if got := m.Labels(); !slices.Equal(got, []int{0, 32, 64, 224, 255}) {
		t.Errorf("Labels %v", got)
	}
	if c := m.Counts(); c[32] != 2 || c[0] != 1 || len(c) != 5 {
		t.Errorf("Counts %v", c)
	}

	g16 := image.NewGray16(image.Rect(0, 0, 2, 1))
	g16.SetGray16(0, 0, color.Gray16{Y: 32 * 257})
	g16.SetGray16(1, 0, color.Gray16{Y: 65535})
	m, err = LoadLabelMap(imagetest.Write(t, filepath.Join(dir, "g16.png"), g16))
	if err != nil || !slices.Equal(m.Pix, []int{32, 255}) {
		t.Errorf("16-bit map: %v, %v; want [32 255]", m, err)
	}
	g16.SetGray16(1, 0, color.Gray16{Y: 1000})
	p := imagetest.Write(t, filepath.Join(dir, "frac.png"), g16)
	if _, err := LoadLabelMap(p); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "(1, 0)") {
		t.Errorf("16-bit map with a fractional level: error %v, want ErrFormat at (1, 0)", err)
	}

	rgb := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	for i := range rgb.Pix {
		rgb.Pix[i] = 255
	}
	rgb.Set(1, 1, color.NRGBA{10, 20, 10, 255})
	p = imagetest.Write(t, filepath.Join(dir, "rgb.png"), rgb)
	if _, err := LoadLabelMap(p); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), p) {
		t.Errorf("colour map: error %v, want ErrFormat naming %s", err, p)
	}
	missing := filepath.Join(dir, "none.png")
	if _, err := LoadLabelMap(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing map: error %v", err)
	}
}

func TestUSCSIPIMosaics(t *testing.T) {
	dir := touch(t, t.TempDir(), "texmos1.p512.tiff", "texmos2.p512.tiff", "texmos2.s512.tiff",
		"texmos3.p512.tiff", "texmos3.s512.tif", "texmos3b.p512.tiff", "README.txt", "texmos4.s512.tiff")
	got, err := USCSIPIMosaics(dir)
	if err != nil {
		t.Fatal(err)
	}
	j := func(n string) string { return filepath.Join(dir, n) }
	want := []MosaicFile{
		{"texmos1", j("texmos1.p512.tiff"), ""},
		{"texmos2", j("texmos2.p512.tiff"), j("texmos2.s512.tiff")},
		{"texmos3", j("texmos3.p512.tiff"), j("texmos3.s512.tif")},
		{"texmos3b", j("texmos3b.p512.tiff"), j("texmos3.s512.tif")},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if _, err := USCSIPIMosaics(touch(t, t.TempDir(), "a.tiff")); !errors.Is(err, ErrEmpty) {
		t.Errorf("no mosaics: error %v, want ErrEmpty", err)
	}
}
