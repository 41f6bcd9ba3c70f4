package datasets

import (
	"encoding/csv"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/atomicfile"
	"github.com/covpipe/covpipe/internal/enum"
)

// Layout is how BuildMosaic partitions the canvas among its textures.
type Layout int

const (
	// GridLayout splits the canvas into r = round(√k) horizontal bands,
	// the first k mod r of them with ⌈k/r⌉ cells and the others with
	// ⌊k/r⌋, each band as tall as its share of cells and its cells of
	// equal width, so that all k cells have the same area up to rounding:
	// a 4x4 grid for k = 16, bands of 3 and 2 cells for k = 5.
	GridLayout Layout = iota
	// VoronoiLayout draws k seeds uniformly on the canvas, moves them by
	// four Lloyd iterations (each to the centroid of its cell) to even out
	// the cell sizes while keeping irregular polygonal boundaries, and
	// gives each pixel centre to its nearest seed (ties to the lower
	// index). Draws whose smallest cell is below the minimum area are
	// rejected and redrawn, up to 200 times.
	VoronoiLayout
)

// layoutNames are the names of the layouts, by Layout.
var layoutNames = enum.Names[Layout]{GridLayout: "grid", VoronoiLayout: "voronoi"}

// String returns the layout's name, such as "grid".
func (l Layout) String() string { return layoutNames.String(l) }

// lloydIterations is the number of Lloyd relaxations of Voronoi seeds.
const lloydIterations = 4

// maxLayoutDraws bounds the Voronoi draws before BuildMosaic gives up.
const maxLayoutDraws = 200

// MosaicOptions describe a synthetic texture mosaic. The zero value of a
// field means its default.
type MosaicOptions struct {
	// K is the number of textures, 2..255, when Textures is empty. The
	// paper's nine mosaics (Sec. 5.1, "Texture Classification") have 5, 10
	// and 16 textures.
	K int
	// Textures are the labels of the album items to use (such as "D12"),
	// in label order; empty means K distinct items drawn from the seed.
	Textures []string
	// Size is the side of the square canvas, default 256, the size to
	// which the paper resizes its mosaics.
	Size int
	// Scale is the number of album pixels per mosaic pixel, default 2: a
	// texture is seen as in a 2·Size mosaic made at album resolution and
	// downsampled to Size, as the paper's 256x256 mosaics are.
	Scale float64
	// Layout is the partition of the canvas, default GridLayout.
	Layout Layout
	// MinArea is the least area of a texture's region as a fraction of the
	// mean area Size²/K, in (0, 1], default 0.5.
	MinArea float64
}

// withDefaults validates the options and fills in defaults, K from
// Textures when they are given.
func (o MosaicOptions) withDefaults() (MosaicOptions, error) {
	if len(o.Textures) > 0 {
		if o.K != 0 && o.K != len(o.Textures) {
			return o, fmt.Errorf("%w: mosaic: K = %d but %d textures given", ErrConfig, o.K, len(o.Textures))
		}
		o.K = len(o.Textures)
	}
	if o.Size == 0 {
		o.Size = 256
	}
	if o.Scale == 0 {
		o.Scale = 2
	}
	if o.MinArea == 0 {
		o.MinArea = 0.5
	}
	switch {
	case o.K < 2 || o.K > 255:
		return o, fmt.Errorf("%w: mosaic: %d textures, want 2..255", ErrConfig, o.K)
	case o.Size < 1 || o.Size > 1<<13:
		return o, fmt.Errorf("%w: mosaic: size %d, want 1..8192", ErrConfig, o.Size)
	case !(o.Scale > 0) || math.IsInf(o.Scale, 0):
		return o, fmt.Errorf("%w: mosaic: scale %v, want finite and positive", ErrConfig, o.Scale)
	case o.Layout != GridLayout && o.Layout != VoronoiLayout:
		return o, fmt.Errorf("%w: mosaic: unknown %v", ErrConfig, o.Layout)
	case !(o.MinArea > 0 && o.MinArea <= 1):
		return o, fmt.Errorf("%w: mosaic: minimum area %v of the mean, want in (0, 1]", ErrConfig, o.MinArea)
	}
	return o, nil
}

// Mosaic is a synthetic texture mosaic with its ground truth.
type Mosaic struct {
	W, H int
	// Gray is the mosaic, row-major, in 8-bit grey levels 0..255 (whole
	// numbers, so that it equals the PNG that WritePNGs writes).
	Gray []float64
	// Labels is the label map: the pixels of texture i carry Levels[i].
	Labels *LabelMap
	// Textures are the album labels of the textures, such as "D12".
	Textures []string
	// Levels are the textures' labels in Labels, LabelLevel(i, k).
	Levels []int
	// Crops are the windows of the album images, in their pixel
	// coordinates, that were resized to fill the canvas.
	Crops []image.Rectangle
}

// LabelLevel returns the grey level of label i of k in a mosaic's label
// map, min(255, ⌊256·(i+1)/k⌋): 32, 64, ..., 224, 255 for k = 8, as in the
// USC-SIPI maps, and distinct for every k up to 255 (consecutive levels are
// more than one apart before the last is capped).
func LabelLevel(i, k int) int {
	return min(255, 256*(i+1)/k)
}

// BuildMosaic composes a texture mosaic from album images (such as
// Brodatz(dir)), standing in for the Randen & Husøy mosaics of the paper
// (T. Randen and J. H. Husøy, "Filtering for texture classification: a
// comparative study", PAMI 1999), which are not available.
//
// The seed fixes everything that is drawn, in this order: the textures (K
// distinct album items, unless o.Textures names them), the layout (see
// Layout), and for each texture a window of side round(Size·Scale) at a
// uniformly random position inside its album image. Each window is
// resized to Size x Size with imageio's Linear filter (antialiased when
// shrinking) and rounded to 8 bits, and the mosaic takes, in the region of
// texture i, the pixels of window i at the same canvas positions, so that
// boundaries between textures are sharp, as in a mosaic built at canvas
// resolution. Every texture covers at least MinArea·Size²/K pixels.
//
// It returns an error (ErrConfig) for invalid options, texture labels not
// found once in the album, or a layout that cannot meet the minimum area,
// and an error naming the file for an album image that cannot be loaded or
// is smaller than the window.
func BuildMosaic(album *List, o MosaicOptions, seed uint64) (*Mosaic, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x4d4f53414943)) // "MOSAIC"
	items, err := pickTextures(album, o, rng)
	if err != nil {
		return nil, err
	}
	n := o.Size
	cells, err := layout(o, rng)
	if err != nil {
		return nil, err
	}

	m := &Mosaic{
		W: n, H: n, Gray: make([]float64, n*n),
		Labels: &LabelMap{W: n, H: n, Pix: make([]int, n*n)},
	}
	for i, c := range cells {
		m.Labels.Pix[i] = LabelLevel(c, o.K)
	}
	win := int(math.Round(float64(n) * o.Scale))
	if win < 1 {
		return nil, fmt.Errorf("%w: mosaic: scale %v gives an empty album window for size %d", ErrConfig, o.Scale, n)
	}
	for i, it := range items {
		m.Textures = append(m.Textures, it.Label)
		m.Levels = append(m.Levels, LabelLevel(i, o.K))
		tex, crop, err := textureWindow(it.Path, win, n, rng)
		if err != nil {
			return nil, fmt.Errorf("mosaic texture %s: %w", it.Label, err)
		}
		m.Crops = append(m.Crops, crop)
		for p, c := range cells {
			if c == i {
				m.Gray[p] = tex[p]
			}
		}
	}
	return m, nil
}

// pickTextures returns the album items named by o.Textures, or o.K
// distinct ones drawn from rng.
func pickTextures(album *List, o MosaicOptions, rng *rand.Rand) ([]Item, error) {
	byLabel := make(map[string][]Item)
	var labels []string
	for _, it := range album.Items {
		if byLabel[it.Label] == nil {
			labels = append(labels, it.Label)
		}
		byLabel[it.Label] = append(byLabel[it.Label], it)
	}
	if len(o.Textures) == 0 {
		if len(labels) < o.K {
			return nil, fmt.Errorf("%w: mosaic: %d textures wanted but the album %s has %d labels", ErrConfig, o.K, album.Root, len(labels))
		}
		// Draw labels, not items, so that a class with several images is
		// not more likely to be drawn; take its first image.
		var out []Item
		for _, j := range rng.Perm(len(labels))[:o.K] {
			out = append(out, byLabel[labels[j]][0])
		}
		return out, nil
	}
	var out []Item
	seen := make(map[string]bool)
	for _, name := range o.Textures {
		switch its := byLabel[name]; {
		case seen[name]:
			return nil, fmt.Errorf("%w: mosaic: texture %s given twice", ErrConfig, name)
		case len(its) != 1:
			return nil, fmt.Errorf("%w: mosaic: texture %s has %d images in the album %s, want 1", ErrConfig, name, len(its), album.Root)
		default:
			seen[name] = true
			out = append(out, its[0])
		}
	}
	return out, nil
}

// layout returns the cell (texture index) of each canvas pixel, row-major.
func layout(o MosaicOptions, rng *rand.Rand) ([]int, error) {
	n, k := o.Size, o.K
	minArea := int(math.Ceil(o.MinArea * float64(n*n) / float64(k)))
	cells := make([]int, n*n)
	area := make([]int, k)
	if o.Layout == GridLayout {
		gridCells(cells, n, k)
		for _, c := range cells {
			area[c]++
		}
		if smallest := minOf(area); smallest < minArea {
			return nil, fmt.Errorf("%w: mosaic: a %dx%d grid of %d textures has a cell of %d pixels, fewer than the minimum %d", ErrConfig, n, n, k, smallest, minArea)
		}
		return cells, nil
	}
	sx, sy := make([]float64, k), make([]float64, k)
	cx, cy := make([]float64, k), make([]float64, k)
	for range maxLayoutDraws {
		for i := range k {
			sx[i], sy[i] = rng.Float64()*float64(n), rng.Float64()*float64(n)
		}
		for it := 0; ; it++ {
			voronoi(cells, n, sx, sy)
			if it == lloydIterations {
				break
			}
			clear(cx)
			clear(cy)
			clear(area)
			for p, c := range cells {
				cx[c] += float64(p%n) + 0.5
				cy[c] += float64(p/n) + 0.5
				area[c]++
			}
			for i := range k {
				if area[i] > 0 {
					sx[i], sy[i] = cx[i]/float64(area[i]), cy[i]/float64(area[i])
				}
			}
		}
		clear(area)
		for _, c := range cells {
			area[c]++
		}
		if minOf(area) >= minArea {
			return cells, nil
		}
	}
	return nil, fmt.Errorf("%w: mosaic: no Voronoi layout of %d textures on %dx%d with every cell of at least %d pixels in %d draws", ErrConfig, k, n, n, minArea, maxLayoutDraws)
}

// gridCells fills cells with the GridLayout of k cells on an n x n canvas.
func gridCells(cells []int, n, k int) {
	r := max(1, int(math.Round(math.Sqrt(float64(k)))))
	first, done := 0, 0 // first cell of the band, cells in earlier bands
	for b := range r {
		count := k / r
		if b < k%r {
			count++
		}
		y0, y1 := n*done/k, n*(done+count)/k
		for y := y0; y < y1; y++ {
			for x := range n {
				cells[y*n+x] = first + x*count/n
			}
		}
		first += count
		done += count
	}
}

// voronoi gives each pixel centre of an n x n canvas to its nearest seed.
func voronoi(cells []int, n int, sx, sy []float64) {
	for y := range n {
		py := float64(y) + 0.5
		for x := range n {
			px := float64(x) + 0.5
			best, bestD := 0, math.Inf(1)
			for i := range sx {
				dx, dy := px-sx[i], py-sy[i]
				if d := dx*dx + dy*dy; d < bestD {
					best, bestD = i, d
				}
			}
			cells[y*n+x] = best
		}
	}
}

func minOf(s []int) int {
	m := s[0]
	for _, v := range s[1:] {
		m = min(m, v)
	}
	return m
}

// textureWindow loads the album image at path, cuts a random win x win
// window and resizes it to n x n, rounded to 8-bit grey levels.
func textureWindow(path string, win, n int, rng *rand.Rand) ([]float64, image.Rectangle, error) {
	src, err := imageio.Load(path, imageio.Options{Scale: 255})
	if err != nil {
		return nil, image.Rectangle{}, err
	}
	if src.W < win || src.H < win {
		return nil, image.Rectangle{}, fmt.Errorf("%w: %s is %dx%d, smaller than the %dx%d window", ErrConfig, path, src.W, src.H, win, win)
	}
	x0, y0 := rng.IntN(src.W-win+1), rng.IntN(src.H-win+1)
	crop := image.Rect(x0, y0, x0+win, y0+win)
	// 16 bits keep the grey levels of any source exactly enough; an 8-bit
	// source's level v becomes 257·v, exactly v again after conversion.
	g := image.NewGray16(image.Rect(0, 0, win, win))
	for y := range win {
		for x := range win {
			v := src.Gray[(y0+y)*src.W+x0+x]
			g.SetGray16(x, y, color.Gray16{Y: uint16(math.Round(v * 257))})
		}
	}
	out, err := imageio.FromImage(g, imageio.Options{Width: n, Height: n, Scale: 255})
	if err != nil {
		return nil, image.Rectangle{}, fmt.Errorf("%s: %w", path, err)
	}
	for i, v := range out.Gray {
		out.Gray[i] = math.Round(max(0, min(255, v)))
	}
	return out.Gray, crop, nil
}

// WritePNGs writes the mosaic into dir, creating it when needed:
// mosaic.png (8-bit grey), labels.png (8-bit grey, the label map's levels)
// and textures.csv (columns level, texture and the album window x0, y0,
// x1, y1). It returns an error naming the file that could not be written,
// or a label outside 0..255.
func (m *Mosaic) WritePNGs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write mosaic: %w", err)
	}
	gray := image.NewGray(image.Rect(0, 0, m.W, m.H))
	for i, v := range m.Gray {
		gray.Pix[i] = uint8(math.Round(max(0, min(255, v))))
	}
	labels := image.NewGray(image.Rect(0, 0, m.Labels.W, m.Labels.H))
	for i, v := range m.Labels.Pix {
		if v < 0 || v > 255 {
			return fmt.Errorf("%w: write mosaic: label %d is not an 8-bit grey level", ErrConfig, v)
		}
		labels.Pix[i] = uint8(v)
	}
	if err := writeMosaicFile(filepath.Join(dir, "mosaic.png"), func(w io.Writer) error { return png.Encode(w, gray) }); err != nil {
		return err
	}
	if err := writeMosaicFile(filepath.Join(dir, "labels.png"), func(w io.Writer) error { return png.Encode(w, labels) }); err != nil {
		return err
	}
	return writeMosaicFile(filepath.Join(dir, "textures.csv"), func(f io.Writer) error {
		w := csv.NewWriter(f)
		w.Write([]string{"level", "texture", "x0", "y0", "x1", "y1"})
		for i, t := range m.Textures {
			c := m.Crops[i]
			w.Write([]string{strconv.Itoa(m.Levels[i]), t,
				strconv.Itoa(c.Min.X), strconv.Itoa(c.Min.Y), strconv.Itoa(c.Max.X), strconv.Itoa(c.Max.Y)})
		}
		w.Flush()
		return w.Error()
	})
}

// writeMosaicFile writes one output file of WritePNGs with write,
// atomically, so that a failed write leaves no partial file behind.
func writeMosaicFile(path string, write func(io.Writer) error) error {
	if err := atomicfile.Write(path, write); err != nil {
		return fmt.Errorf("write mosaic: %w", err)
	}
	return nil
}
