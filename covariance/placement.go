package covariance

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// Windows returns rows×cols windows of side×side pixels spread evenly
// over a w×h image, listed row by row: window (i, j) has its top-left
// corner at column ⌊j·(w−side)/(cols−1)⌉ and row ⌊i·(h−side)/(rows−1)⌉
// (rounded to nearest; a single column or row is centred, rounding
// down). Windows overlap when they do not tile the image: grid:3x3:16 in
// a 32×32 face gives nine 16×16 windows at stride 8, the layout of the
// part-based region covariances of Pang et al. (IEEE TCSVT 2008). The
// error wraps ErrRegion when a window does not fit the image.
func Windows(w, h, rows, cols, side int) ([]Region, error) {
	if err := (Layout{Kind: LayoutGrid, Rows: rows, Cols: cols, Side: side}).Check(); err != nil {
		return nil, err
	}
	if side < 2 {
		return nil, fmt.Errorf("%w: window side %d: must be >= 2", ErrRegion, side)
	}
	return appendWindows(nil, w, h, rows, cols, side)
}

func appendWindows(dst []Region, w, h, rows, cols, side int) ([]Region, error) {
	if side > w || side > h {
		return dst, fmt.Errorf("%w: %dx%d windows do not fit the %dx%d image", ErrRegion, side, side, w, h)
	}
	at := func(k, n, free int) int {
		if n == 1 {
			return free / 2
		}
		return (2*k*free + n - 1) / (2 * (n - 1))
	}
	for i := range rows {
		for j := range cols {
			dst = append(dst, Region{X: at(j, cols, w-side), Y: at(i, rows, h-side), W: side, H: side})
		}
	}
	return dst, nil
}

// Remainder is what a grid of cells does with an image whose width is
// not a multiple of its columns or whose height is not a multiple of its
// rows.
type Remainder int

const (
	// RemainderFail rejects the image (Grid): every cell has the same
	// number of pixels, as in the paper's 256×256 images split into 64
	// cells of 32×32 (Sec. 5.1.3).
	RemainderFail Remainder = iota
	// RemainderCrop keeps the cells equal, ⌊w/cols⌋×⌊h/rows⌋, and crops
	// the w mod cols leftover columns evenly from both sides (the extra
	// one, if odd, on the right), and likewise the rows (GridCrop).
	RemainderCrop
	// RemainderSpread covers the whole image with cells whose bounds are
	// rounded: column j spans [⌊j·w/cols⌉, ⌊(j+1)·w/cols⌉), so that cell
	// sizes differ by at most one pixel (GridSpread).
	RemainderSpread
)

// remainders maps the names of the text form (grid:RxC:P) to policies.
var remainders = map[string]Remainder{"fail": RemainderFail, "crop": RemainderCrop, "spread": RemainderSpread}

var remainderNames = map[Remainder]string{RemainderFail: "fail", RemainderCrop: "crop", RemainderSpread: "spread"}

// String returns the policy's name in a layout's text form: fail, crop
// or spread.
func (r Remainder) String() string {
	if s, ok := remainderNames[r]; ok {
		return s
	}
	return fmt.Sprintf("Remainder(%d)", int(r))
}

// Grid splits a w×h image into rows×cols regions of equal size
// (w/cols)×(h/rows), listed row by row (region k is in grid row k/cols and
// column k%cols). Sizes that are not multiples are rejected, not rounded:
// equal regions keep every descriptor's sample size n the same, as in the
// paper's 256×256 images split into 64 regions of 32×32 (Sec. 5.1.3);
// resize the image to a multiple, or use GridCrop or GridSpread. The
// error wraps ErrRegion and also reports rows or cols < 1, more than
// MaxRegions cells, cells of fewer than 2 pixels and an image of more
// than MaxRegions pixels (larger than any image covpipe reads,
// imageio.MaxPixels), whose grid could hold more regions than memory.
func Grid(w, h, rows, cols int) ([]Region, error) {
	return grid(w, h, rows, cols, RemainderFail)
}

// GridCrop is Grid for any size at least the grid's: cells of
// ⌊w/cols⌋×⌊h/rows⌋ pixels, the grid centred in the image (the leftover
// columns and rows split between the two sides, the odd one on the right
// or bottom). Its errors are Grid's but for sizes that are not multiples.
func GridCrop(w, h, rows, cols int) ([]Region, error) {
	return grid(w, h, rows, cols, RemainderCrop)
}

// GridSpread is Grid for any size at least the grid's: cell (i, j) spans
// columns [⌊j·w/cols⌉, ⌊(j+1)·w/cols⌉) and rows [⌊i·h/rows⌉,
// ⌊(i+1)·h/rows⌉) (rounding halves up), so that the cells cover the image
// and their sizes differ by at most one pixel. Its errors are Grid's but
// for sizes that are not multiples.
func GridSpread(w, h, rows, cols int) ([]Region, error) {
	return grid(w, h, rows, cols, RemainderSpread)
}

func grid(w, h, rows, cols int, r Remainder) ([]Region, error) {
	if err := (Layout{Kind: LayoutGrid, Rows: rows, Cols: cols, Remainder: r}).Check(); err != nil {
		return nil, err
	}
	return appendGrid(nil, w, h, rows, cols, r)
}

func appendGrid(dst []Region, w, h, rows, cols int, r Remainder) ([]Region, error) {
	if w > MaxRegions/max(h, 1) {
		return dst, fmt.Errorf("%w: grid %dx%d of a %dx%d image: more than %d pixels, the largest image (imageio.MaxPixels)", ErrRegion, rows, cols, w, h, MaxRegions)
	}
	if w < 1 || h < 1 || r == RemainderFail && (w%cols != 0 || h%rows != 0) {
		return dst, fmt.Errorf("%w: grid %dx%d does not divide the %dx%d image into equal regions (width must be a multiple of %d columns, height of %d rows)",
			ErrRegion, rows, cols, w, h, cols, rows)
	}
	cw, ch := w/cols, h/rows
	if cw*ch < 2 {
		return dst, fmt.Errorf("%w: grid %dx%d of the %dx%d image gives %dx%d regions; a covariance needs at least 2 pixels", ErrRegion, rows, cols, w, h, cw, ch)
	}
	if r == RemainderSpread {
		// Bounds rounded to nearest, halves up: ⌊(2jw + cols)/(2cols)⌋.
		at := func(k, n, size int) int { return (2*k*size + n) / (2 * n) }
		for i := range rows {
			y0, y1 := at(i, rows, h), at(i+1, rows, h)
			for j := range cols {
				x0, x1 := at(j, cols, w), at(j+1, cols, w)
				dst = append(dst, Region{X: x0, Y: y0, W: x1 - x0, H: y1 - y0})
			}
		}
		return dst, nil
	}
	ox, oy := (w-cw*cols)/2, (h-ch*rows)/2
	for i := range rows {
		for j := range cols {
			dst = append(dst, Region{X: ox + j*cw, Y: oy + i*ch, W: cw, H: ch})
		}
	}
	return dst, nil
}

// blockStream is the second PCG seed (the stream) of RandomBlocks: the
// bytes of "covpipe".
const blockStream = 0x636f7670697065

// RandomBlocks returns n square blocks of side×side pixels placed
// independently and uniformly over the (w−side+1)·(h−side+1) valid top-left
// corners of a w×h image, as the paper's 50 random 32×32 blocks per Brodatz
// image (Sec. 5.2.2). Blocks may overlap. The positions are a deterministic
// function of seed, the same on every platform: block k takes the
// (2k+1)-th and (2k+2)-th draws of rand.NewPCG(seed, 0x636f7670697065),
// mapped to [0, w−side] and [0, h−side] as rand.Rand.IntN does on 64-bit
// platforms, for its X and Y. Use
// a different seed per image, derived from the run's seed and the image's
// index, so that results do not depend on the order images are processed.
// The error wraps ErrRegion and reports n < 1, n > MaxRegions, side < 2
// and a side larger than the image.
func RandomBlocks(w, h, n, side int, seed uint64) ([]Region, error) {
	if err := (Layout{Kind: LayoutBlocks, N: n, Side: side}).Check(); err != nil {
		return nil, err
	}
	return appendBlocks(make([]Region, 0, n), w, h, n, side, seed)
}

func appendBlocks(dst []Region, w, h, n, side int, seed uint64) ([]Region, error) {
	if side > w || side > h {
		return dst, fmt.Errorf("%w: %dx%d blocks do not fit in the %dx%d image", ErrRegion, side, side, w, h)
	}
	var src rand.PCG
	src.Seed(seed, blockStream)
	for range n {
		x := uniform(&src, uint64(w-side+1))
		y := uniform(&src, uint64(h-side+1))
		dst = append(dst, Region{X: int(x), Y: int(y), W: side, H: side})
	}
	return dst, nil
}

// uniform returns an integer uniform in [0, n), n ≥ 1, from the 64-bit
// outputs of src by Lemire's multiply-and-reject method ("Fast random
// integer generation in an interval", ACM TOMACS 2019). It is the algorithm
// of rand.Rand.IntN on 64-bit platforms, written out so that block
// positions are the same on every platform and need no allocation.
func uniform(src *rand.PCG, n uint64) uint64 {
	if n&(n-1) == 0 {
		return src.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}
