package plots

import (
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/foldertest"
)

// TestConfusionMatrixPNG checks the shading of a confusion matrix: with
// rows [3 0] and [1 1], the full cell of the first row is the darkest
// shade and the two halves of the second the middle one, each covering
// about a quarter of the cells' area, and no cell is left white but the
// empty one.
func TestConfusionMatrixPNG(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "confusion.png")
	m := Confusion{Title: "2 classes", Rows: []string{"cat", "dog"}, Cols: []string{"cat", "dog"}, Counts: [][]int{{3, 0}, {1, 1}}}
	if err := ConfusionMatrix(path, m); err != nil {
		t.Fatal(err)
	}
	onlyFile(t, dir, "confusion.png")
	img := decodePNG(t, path)
	full, half := countColour(img, cellColour(1)), countColour(img, cellColour(0.5))
	if full < 10000 || half < 2*10000 || half < full*3/2 || half > full*5/2 {
		t.Errorf("%d pixels of the full share's shade, %d of the half's: want a cell of one and two of the other", full, half)
	}
	if got := cellColour(0); got != (color.RGBA{255, 255, 255, 255}) {
		t.Errorf("no share is %v, want white", got)
	}
	for _, tc := range []struct {
		m    Confusion
		want string
	}{
		{Confusion{}, "no classes"},
		{Confusion{Rows: []string{"a"}, Cols: []string{"a"}}, "0 rows of counts for 1 true classes"},
		{Confusion{Rows: []string{"a"}, Cols: []string{"a", "b"}, Counts: [][]int{{1}}}, `row 0 ("a") has 1 counts for 2 classes`},
		{Confusion{Rows: []string{"a"}, Cols: []string{"a"}, Counts: [][]int{{-1}}}, "count -1"},
	} {
		if err := ConfusionMatrix(filepath.Join(dir, "bad.png"), tc.m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.m, err, tc.want)
		}
	}
	onlyFile(t, dir, "confusion.png")
}

// TestMontagePNG checks a montage of three tiles: one row, as wide as
// three cells of 108 pt and two margins of 10 pt (344 pt, 458.7 px at 96
// dpi), each tile's pure colour drawn over the area of its fitted
// image: a square image 128 px a side, a 2:1 one 128×64.
func TestMontagePNG(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "montage.png")
	solid := func(w, h int, c color.RGBA) image.Image {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				img.SetRGBA(x, y, c)
			}
		}
		return img
	}
	red, green := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 255, 0, 255}
	tiles := []Tile{
		{solid(8, 8, red), []string{"true: cat", "given: dog 0.91", "a caption far too long to fit under its tile"}},
		{solid(16, 8, green), []string{"true: dog"}},
		{solid(4, 4, red), nil},
	}
	if err := Montage(path, "", tiles); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(foldertest.Open(t, path))
	if err != nil {
		t.Fatal(err)
	}
	// 96 pt = 128 px; 3 cells of 108 pt and 2 margins of 10 pt = 344 pt.
	if got := img.Bounds().Dx(); got < 457 || got > 460 {
		t.Errorf("width %d px, want 344 pt = 458.7 px", got)
	}
	if n, want := countColour(img, red), 2*128*128; n < want*9/10 || n > want*11/10 {
		t.Errorf("%d red pixels, want about %d: two square tiles of 128 px", n, want)
	}
	if n, want := countColour(img, green), 128*64; n < want*9/10 || n > want*11/10 {
		t.Errorf("%d green pixels, want about %d: one 2:1 tile of 128×64 px", n, want)
	}
	if err := Montage(filepath.Join(dir, "none.png"), "", nil); err == nil || !strings.Contains(err.Error(), "no tiles") {
		t.Errorf("no tiles: %v", err)
	}
	if err := Montage(filepath.Join(dir, "nil.png"), "", []Tile{{}}); err == nil || !strings.Contains(err.Error(), "tile 0 has no image") {
		t.Errorf("a tile without an image: %v", err)
	}
	onlyFile(t, dir, "montage.png")
}
