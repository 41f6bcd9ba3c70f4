package datasets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/imagetest"
)

// testAlbum writes n grey noise textures of side size, D1.png .. Dn.png,
// and returns them as a Brodatz list.
func testAlbum(t *testing.T, n, size int) *List {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(size)))
	for i := 1; i <= n; i++ {
		imagetest.Write(t, filepath.Join(dir, fmt.Sprintf("D%d.png", i)), imagetest.NoiseGray(rng, size, size))
	}
	l, err := Brodatz(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func loadGray(t *testing.T, path string) *imageio.Image {
	t.Helper()
	img, err := imageio.Load(path, imageio.Options{Scale: 255})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestLabelLevel(t *testing.T) {
	for _, tc := range []struct {
		k    int
		want []int
	}{
		{8, []int{32, 64, 96, 128, 160, 192, 224, 255}}, // USC-SIPI
		{5, []int{51, 102, 153, 204, 255}},
		{10, []int{25, 51, 76, 102, 128, 153, 179, 204, 230, 255}},
		{2, []int{128, 255}},
	} {
		var got []int
		for i := range tc.k {
			got = append(got, LabelLevel(i, tc.k))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("k=%d: levels %v, want %v", tc.k, got, tc.want)
		}
	}
	for k := 2; k <= 255; k++ {
		prev := 0
		for i := range k {
			l := LabelLevel(i, k)
			if l <= prev || l > 255 {
				t.Fatalf("k=%d: level %d of label %d after %d", k, l, i, prev)
			}
			prev = l
		}
	}
}

func TestGridCells(t *testing.T) {
	for _, tc := range []struct{ n, k, rows int }{{256, 5, 2}, {256, 10, 3}, {256, 16, 4}, {30, 7, 3}} {
		cells := make([]int, tc.n*tc.n)
		gridCells(cells, tc.n, tc.k)
		area := make([]int, tc.k)
		for _, c := range cells {
			area[c]++
		}
		mean := float64(tc.n*tc.n) / float64(tc.k)
		for c, a := range area {
			// Rounding of band and cell edges moves at most a row and a
			// column of pixels per cell.
			if math.Abs(float64(a)-mean) > 2*float64(tc.n) {
				t.Errorf("n=%d k=%d: cell %d has %d pixels, mean %.0f", tc.n, tc.k, c, a, mean)
			}
		}
		// Every cell is a rectangle: its pixel count equals its bounding box.
		for c := range tc.k {
			box := image.Rectangle{}
			for p, v := range cells {
				if v == c {
					box = box.Union(image.Rect(p%tc.n, p/tc.n, p%tc.n+1, p/tc.n+1))
				}
			}
			if box.Dx()*box.Dy() != area[c] {
				t.Errorf("n=%d k=%d: cell %d is not a rectangle (%d pixels, box %v)", tc.n, tc.k, c, area[c], box)
			}
		}
		bands := map[int]bool{}
		for y := range tc.n {
			bands[cells[y*tc.n]] = true
		}
		if len(bands) != tc.rows {
			t.Errorf("n=%d k=%d: %d bands, want %d", tc.n, tc.k, len(bands), tc.rows)
		}
	}
}

func TestBuildMosaicProvenance(t *testing.T) {
	album := testAlbum(t, 8, 48)
	for _, layout := range []Layout{GridLayout, VoronoiLayout} {
		t.Run(layout.String(), func(t *testing.T) {
			const k, n = 5, 40
			m, err := BuildMosaic(album, MosaicOptions{K: k, Size: n, Scale: 1, Layout: layout}, 3)
			if err != nil {
				t.Fatal(err)
			}
			checkMosaicShape(t, m, k, n, 0.5)
			// At scale 1 the mosaic is a plain cut: pixel (x, y) of texture
			// i is the album pixel at the window's offset.
			for i, name := range m.Textures {
				src := loadGray(t, filepath.Join(album.Root, name+".png"))
				c := m.Crops[i]
				if c.Dx() != n || c.Dy() != n || !c.In(image.Rect(0, 0, src.W, src.H)) {
					t.Fatalf("texture %s: window %v", name, c)
				}
				for p, l := range m.Labels.Pix {
					if l != m.Levels[i] {
						continue
					}
					x, y := p%n, p/n
					if want := src.Gray[(c.Min.Y+y)*src.W+c.Min.X+x]; m.Gray[p] != want {
						t.Fatalf("texture %s pixel (%d, %d) = %v, want %v", name, x, y, m.Gray[p], want)
					}
				}
			}
		})
	}
}

// checkMosaicShape checks the label map of a k-texture n x n mosaic: k
// labels, LabelLevel(i, k) for texture i, each covering at least
// minArea·n²/k pixels.
func checkMosaicShape(t *testing.T, m *Mosaic, k, n int, minArea float64) {
	t.Helper()
	if m.W != n || m.H != n || len(m.Gray) != n*n || m.Labels.W != n || m.Labels.H != n || len(m.Labels.Pix) != n*n {
		t.Fatalf("mosaic %dx%d, map %dx%d, want %dx%d", m.W, m.H, m.Labels.W, m.Labels.H, n, n)
	}
	if len(m.Textures) != k || len(m.Levels) != k || len(m.Crops) != k {
		t.Fatalf("%d textures, %d levels, %d crops, want %d", len(m.Textures), len(m.Levels), len(m.Crops), k)
	}
	var levels []int
	for i := range k {
		levels = append(levels, LabelLevel(i, k))
	}
	if !slices.Equal(m.Levels, levels) || !slices.Equal(m.Labels.Labels(), levels) {
		t.Errorf("levels %v, map labels %v, want %v", m.Levels, m.Labels.Labels(), levels)
	}
	if s := slices.Clone(m.Textures); len(slices.Compact(slices.Sorted(slices.Values(s)))) != k {
		t.Errorf("textures %v are not distinct", m.Textures)
	}
	least := minArea * float64(n*n) / float64(k)
	for l, c := range m.Labels.Counts() {
		if float64(c) < least {
			t.Errorf("label %d covers %d pixels, want at least %.0f", l, c, least)
		}
	}
	for i, v := range m.Gray {
		if v != math.Round(v) || v < 0 || v > 255 {
			t.Fatalf("pixel %d = %v, want an 8-bit level", i, v)
		}
	}
}

func TestBuildMosaicResized(t *testing.T) {
	album := testAlbum(t, 6, 64)
	const n = 24
	m, err := BuildMosaic(album, MosaicOptions{Textures: []string{"D4", "D2", "D6"}, Size: n, Scale: 2.5, Layout: VoronoiLayout}, 11)
	if err != nil {
		t.Fatal(err)
	}
	checkMosaicShape(t, m, 3, n, 0.5)
	if !slices.Equal(m.Textures, []string{"D4", "D2", "D6"}) {
		t.Errorf("textures %v, want the given order", m.Textures)
	}
	for i, name := range m.Textures {
		c := m.Crops[i]
		if c.Dx() != 60 || c.Dy() != 60 {
			t.Errorf("window %v, want 60x60 (24 x 2.5)", c)
		}
		// Independently: cut the window from the decoded PNG and resize it.
		f, err := os.Open(filepath.Join(album.Root, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		src, _, err := image.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		sub := src.(*image.Gray).SubImage(c)
		want, err := imageio.FromImage(sub, imageio.Options{Width: n, Height: n, Scale: 255})
		if err != nil {
			t.Fatal(err)
		}
		matched := 0
		for p, l := range m.Labels.Pix {
			if l == m.Levels[i] {
				if math.Abs(m.Gray[p]-want.Gray[p]) > 0.5+1e-9 {
					t.Fatalf("texture %s pixel %d = %v, want %v rounded", name, p, m.Gray[p], want.Gray[p])
				}
				matched++
			}
		}
		if matched == 0 {
			t.Errorf("texture %s covers nothing", name)
		}
	}
}

func TestBuildMosaicDeterministic(t *testing.T) {
	album := testAlbum(t, 10, 40)
	o := MosaicOptions{K: 4, Size: 32, Scale: 1, Layout: VoronoiLayout}
	a, err := BuildMosaic(album, o, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BuildMosaic(album, o, 7)
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b *Mosaic) bool {
		return slices.Equal(a.Gray, b.Gray) && slices.Equal(a.Labels.Pix, b.Labels.Pix) &&
			slices.Equal(a.Textures, b.Textures) && slices.Equal(a.Crops, b.Crops)
	}
	if !same(a, b) {
		t.Error("same seed gave different mosaics")
	}
	c, err := BuildMosaic(album, o, 8)
	if err != nil {
		t.Fatal(err)
	}
	if same(a, c) || slices.Equal(a.Labels.Pix, c.Labels.Pix) {
		t.Error("seeds 7 and 8 gave the same mosaic or layout")
	}
}

func TestBuildMosaicRegionLabels(t *testing.T) {
	album := testAlbum(t, 20, 64)
	// A 4x4 grid on 64x64 has 16x16 cells: 16x16 tiles are all pure and
	// carry their cell's label.
	m, err := BuildMosaic(album, MosaicOptions{K: 16, Size: 64, Scale: 0.5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkMosaicShape(t, m, 16, 64, 0.5)
	rl, err := m.Labels.LabelRegions(Tiles(64, 64, 16), RegionOptions{MinPurity: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rl.Kept) != 16 || len(rl.Dropped) != 0 {
		t.Fatalf("grid: %d kept, %d dropped, want 16, 0", len(rl.Kept), len(rl.Dropped))
	}
	for i, r := range rl.Kept {
		if r.Label != LabelLevel(i, 16) {
			t.Errorf("tile %d: label %d, want %d", i, r.Label, LabelLevel(i, 16))
		}
	}
	// Voronoi: every tile is labelled, its purity matches a count, and a
	// 5-texture 64x64 mosaic has pure tiles of every texture.
	m, err = BuildMosaic(album, MosaicOptions{K: 5, Size: 64, Scale: 1, Layout: VoronoiLayout}, 2)
	if err != nil {
		t.Fatal(err)
	}
	rl, err = m.Labels.LabelRegions(Tiles(64, 64, 8), RegionOptions{MinPurity: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rl.Kept) + len(rl.Dropped); n != 64 {
		t.Fatalf("%d regions, want 64", n)
	}
	pure := map[int]int{}
	for _, r := range rl.Kept {
		if label, purity := bruteLabel(m.Labels, r.Rect); label != r.Label || purity != r.Purity {
			t.Errorf("tile %v: %d %v, want %d %v", r.Rect, r.Label, r.Purity, label, purity)
		}
		if r.Purity == 1 {
			pure[r.Label]++
		}
	}
	if len(pure) != 5 {
		t.Errorf("pure tiles per label %v, want all 5 labels", pure)
	}
	t.Logf("voronoi k=5 64x64, 8x8 tiles: %d kept (purity >= 0.75), %d dropped; pure per label %v", len(rl.Kept), len(rl.Dropped), pure)
}

func TestMosaicWritePNGs(t *testing.T) {
	album := testAlbum(t, 6, 50)
	m, err := BuildMosaic(album, MosaicOptions{K: 3, Size: 32, Scale: 1.5, Layout: VoronoiLayout}, 5)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := m.WritePNGs(dir); err != nil {
		t.Fatal(err)
	}
	gray := loadGray(t, filepath.Join(dir, "mosaic.png"))
	if gray.W != 32 || gray.H != 32 || gray.Depth != 8 {
		t.Fatalf("mosaic.png %dx%d depth %d", gray.W, gray.H, gray.Depth)
	}
	for i, v := range gray.Gray {
		if math.Abs(v-m.Gray[i]) > 1e-9 {
			t.Fatalf("mosaic.png pixel %d = %v, want %v", i, v, m.Gray[i])
		}
	}
	labels, err := LoadLabelMap(filepath.Join(dir, "labels.png"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(labels.Pix, m.Labels.Pix) {
		t.Error("labels.png differs from the label map")
	}
	f, err := os.Open(filepath.Join(dir, "textures.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || !slices.Equal(recs[0], []string{"level", "texture", "x0", "y0", "x1", "y1"}) {
		t.Fatalf("textures.csv %v", recs)
	}
	for i, r := range recs[1:] {
		c := m.Crops[i]
		want := []string{strconv.Itoa(m.Levels[i]), m.Textures[i], strconv.Itoa(c.Min.X), strconv.Itoa(c.Min.Y), strconv.Itoa(c.Max.X), strconv.Itoa(c.Max.Y)}
		if !slices.Equal(r, want) {
			t.Errorf("textures.csv row %d = %v, want %v", i+1, r, want)
		}
	}
}

func TestBuildMosaicErrors(t *testing.T) {
	album := testAlbum(t, 4, 32)
	for _, tc := range []struct {
		name string
		o    MosaicOptions
		is   error
	}{
		{"one texture", MosaicOptions{K: 1}, ErrConfig},
		{"more than the album", MosaicOptions{K: 5, Size: 16, Scale: 1}, ErrConfig},
		{"K and Textures disagree", MosaicOptions{K: 3, Textures: []string{"D1", "D2"}}, ErrConfig},
		{"unknown texture", MosaicOptions{Textures: []string{"D1", "D9"}, Size: 16, Scale: 1}, ErrConfig},
		{"texture twice", MosaicOptions{Textures: []string{"D1", "D1"}, Size: 16, Scale: 1}, ErrConfig},
		{"negative size", MosaicOptions{K: 2, Size: -1}, ErrConfig},
		{"NaN scale", MosaicOptions{K: 2, Scale: math.NaN()}, ErrConfig},
		{"unknown layout", MosaicOptions{K: 2, Layout: Layout(7)}, ErrConfig},
		{"min area above 1", MosaicOptions{K: 2, MinArea: 1.5}, ErrConfig},
		{"window too large", MosaicOptions{K: 2, Size: 16, Scale: 2.5}, ErrConfig},
		{"grid cells too small", MosaicOptions{K: 4, Size: 3, Scale: 1}, ErrConfig},
		{"voronoi cells cannot all be the mean", MosaicOptions{K: 3, Size: 16, Scale: 1, Layout: VoronoiLayout, MinArea: 1}, ErrConfig},
	} {
		if _, err := BuildMosaic(album, tc.o, 1); !errors.Is(err, tc.is) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.is)
		}
	}
	broken := &List{Root: album.Root, Items: []Item{album.Items[0], {Path: filepath.Join(album.Root, "gone.png"), Label: "D99"}}}
	if _, err := BuildMosaic(broken, MosaicOptions{K: 2, Size: 16, Scale: 1}, 1); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing album image: error %v", err)
	}
}
