package datasets

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/imageio"
)

// LabelMap is a ground-truth image of per-pixel class labels, such as the
// label map of a texture mosaic, whose labels are its grey levels.
type LabelMap struct {
	W, H int
	// Pix holds the label of pixel (x, y) at index y*W+x.
	Pix []int
}

// LoadLabelMap loads a label map image: each pixel's label is its grey
// level 0..255 (USC-SIPI maps use 32, 64, ..., 224, 255 for 8 textures).
// The map is read at its native size: resampling would invent levels.
// It returns an error naming the file when it cannot be loaded, and
// (ErrFormat) when a pixel is not grey (R, G, B differ) or its level is not
// an integer (a 16-bit map must hold multiples of 257).
func LoadLabelMap(path string) (*LabelMap, error) {
	img, err := imageio.Load(path, imageio.Options{Color: true, Scale: 255})
	if err != nil {
		return nil, fmt.Errorf("label map: %w", err)
	}
	m := &LabelMap{W: img.W, H: img.H, Pix: make([]int, len(img.Gray))}
	for i, r := range img.R {
		v := math.Round(r)
		if math.Abs(r-v) > 1e-6 || math.Abs(img.G[i]-r) > 1e-6 || math.Abs(img.B[i]-r) > 1e-6 {
			return nil, fmt.Errorf("%w: label map %s: pixel (%d, %d) has colour (%g, %g, %g), want an integer grey level",
				ErrFormat, path, i%img.W, i/img.W, r, img.G[i], img.B[i])
		}
		m.Pix[i] = int(v)
	}
	return m, nil
}

// Labels returns the distinct labels of the map, sorted.
func (m *LabelMap) Labels() []int {
	seen := make(map[int]bool)
	var out []int
	for _, v := range m.Pix {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// Counts returns the number of pixels carrying each label.
func (m *LabelMap) Counts() map[int]int {
	c := make(map[int]int)
	for _, v := range m.Pix {
		c[v]++
	}
	return c
}

// RegionOptions say how LabelRegions labels regions.
type RegionOptions struct {
	// Width and Height are the size of the image that the regions' pixel
	// coordinates refer to, such as the 256x256 to which the paper resizes
	// its mosaics (Sec. 5.1, "Texture Classification"); both zero mean the
	// map's own size.
	Width, Height int
	// MinPurity is the least purity, in [0, 1], of a kept region.
	MinPurity float64
}

// RegionLabel is the label of one region.
type RegionLabel struct {
	Index  int             // index of the region in LabelRegions' input
	Rect   image.Rectangle // the region, in the coordinates of the resized image
	Label  int             // the majority label
	Purity float64         // the fraction of the region's area carrying Label
}

// RegionLabels is the result of LabelRegions: the regions whose purity
// reaches the minimum, and the others, each in input order.
type RegionLabels struct {
	Kept, Dropped []RegionLabel
}

// LabelRegions gives each region (a rectangle in the pixel coordinates of
// the image resized to o.Width x o.Height) the majority label of the part
// of the map it covers, and keeps it when its purity (the fraction of its
// area carrying that label) is at least o.MinPurity; the others are
// returned in Dropped, with their majority label and purity, so that
// callers report how many were lost.
//
// The vote is taken on the original map, not on a resized copy: region
// [x0, x1) x [y0, y1) covers the source rectangle
// [x0·W/Width, x1·W/Width) x [y0·H/Height, y1·H/Height) (the
// pixel-area mapping the resizing filters use), and each map pixel votes
// with the area of its overlap with it. For an integer downscale such as
// 512 → 256 this counts the covered pixels exactly; a map resized with the
// Nearest filter would instead keep one pixel in four and invent
// boundaries. Ties go to the smaller label.
//
// It returns an error (ErrConfig) for a MinPurity outside [0, 1], only one
// of Width and Height set, or an empty region or one outside the image.
func (m *LabelMap) LabelRegions(rects []image.Rectangle, o RegionOptions) (RegionLabels, error) {
	var out RegionLabels
	w, h := o.Width, o.Height
	switch {
	case !(o.MinPurity >= 0 && o.MinPurity <= 1):
		return out, fmt.Errorf("%w: region labels: minimum purity %v, want in [0, 1]", ErrConfig, o.MinPurity)
	case w < 0 || h < 0 || (w == 0) != (h == 0):
		return out, fmt.Errorf("%w: region labels: image size %dx%d, want both positive or both zero", ErrConfig, w, h)
	case m.W <= 0 || m.H <= 0 || len(m.Pix) != m.W*m.H:
		return out, fmt.Errorf("%w: region labels: label map of %dx%d with %d pixels", ErrConfig, m.W, m.H, len(m.Pix))
	}
	if w == 0 {
		w, h = m.W, m.H
	}
	bounds := image.Rect(0, 0, w, h)
	for i, r := range rects {
		if r.Empty() || !r.In(bounds) {
			return out, fmt.Errorf("%w: region labels: region %d %v is empty or outside the %dx%d image", ErrConfig, i, r, w, h)
		}
	}

	labels := m.Labels()
	index := make(map[int]int, len(labels))
	for i, l := range labels {
		index[l] = i
	}
	dense := make([]int, len(m.Pix))
	for i, v := range m.Pix {
		dense[i] = index[v]
	}
	votes := make([]float64, len(labels))
	var wx, wy []float64
	for i, r := range rects {
		var x0, y0 int
		wx, x0 = overlaps(wx, r.Min.X, r.Max.X, m.W, w)
		wy, y0 = overlaps(wy, r.Min.Y, r.Max.Y, m.H, h)
		clear(votes)
		total := 0.0
		for dy, fy := range wy {
			row := dense[(y0+dy)*m.W+x0:]
			for dx, fx := range wx {
				a := fx * fy
				votes[row[dx]] += a
				total += a
			}
		}
		best := 0
		for j, v := range votes {
			if v > votes[best] {
				best = j
			}
		}
		rl := RegionLabel{Index: i, Rect: r, Label: labels[best], Purity: votes[best] / total}
		if rl.Purity >= o.MinPurity {
			out.Kept = append(out.Kept, rl)
		} else {
			out.Dropped = append(out.Dropped, rl)
		}
	}
	return out, nil
}

// overlaps maps the interval [d0, d1) of an axis of n samples onto the
// source axis of m samples, [d0·m/n, d1·m/n), and returns in dst the
// overlap of each source sample [i, i+1) with it, from the first sample
// i0 that it touches.
func overlaps(dst []float64, d0, d1, m, n int) ([]float64, int) {
	a := float64(d0*m) / float64(n)
	b := float64(d1*m) / float64(n)
	i0 := int(math.Floor(a))
	i1 := min(int(math.Ceil(b)), m)
	dst = dst[:0]
	for i := i0; i < i1; i++ {
		dst = append(dst, min(b, float64(i+1))-max(a, float64(i)))
	}
	return dst, i0
}

// Tiles returns the non-overlapping size x size squares that tile a w x h
// image from its top-left corner, row by row; a remainder narrower than
// size at the right or bottom is left out. The paper's mosaics are
// Tiles(256, 256, 32): 64 regions (Sec. 5.1, "Texture Classification").
// It returns nil when an argument is not positive.
func Tiles(w, h, size int) []image.Rectangle {
	if w <= 0 || h <= 0 || size <= 0 {
		return nil
	}
	var out []image.Rectangle
	for y := 0; y+size <= h; y += size {
		for x := 0; x+size <= w; x += size {
			out = append(out, image.Rect(x, y, x+size, y+size))
		}
	}
	return out
}

// MosaicFile is a texture mosaic image and its label map.
type MosaicFile struct {
	Name     string // such as "texmos3b"
	Image    string // path of the mosaic
	LabelMap string // path of its label map, "" when there is none
}

// uscMosaic is the USC-SIPI mosaic name scheme texmos<N><variant>.p<size>.tiff.
var uscMosaic = regexp.MustCompile(`^(texmos([0-9]+)[a-z]*)\.p([0-9]+)\.tiff?$`)

// USCSIPIMosaics lists the mosaics of the USC-SIPI "Textures" volume in
// dir, files texmos<N><variant>.p<size>.tiff, sorted by name, each with its
// label map texmos<N>.s<size>.tiff (or .tif) when it exists: variants such
// as texmos3b share the layout, and so the label map, of texmos3. Mosaics
// without a label map (texmos1) are listed with an empty LabelMap. It
// returns an error for an unreadable folder and ErrEmpty when it holds no
// mosaics.
func USCSIPIMosaics(dir string) ([]MosaicFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("USC-SIPI mosaics: %w", err)
	}
	var out []MosaicFile
	for _, e := range entries {
		m := uscMosaic.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		mf := MosaicFile{Name: m[1], Image: filepath.Join(dir, e.Name())}
		for _, ext := range []string{".tiff", ".tif"} {
			p := filepath.Join(dir, "texmos"+m[2]+".s"+m[3]+ext)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				mf.LabelMap = p
				break
			}
		}
		out = append(out, mf)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: USC-SIPI mosaics: no texmos<N>.p<size>.tiff in %s", ErrEmpty, dir)
	}
	slices.SortFunc(out, func(a, b MosaicFile) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
