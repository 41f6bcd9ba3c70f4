package features

import "github.com/covpipe/covpipe/imageio"

// coordinates is the family of the pixel's column x and row y.
var coordinates = family{
	planes: []string{"x", "y"},
	build:  shared(coordinatePass{}),
}

// coordinatePass fills the planes x and y, which depend only on the image
// size.
type coordinatePass struct{}

func (coordinatePass) compute(out [][]float64, img *imageio.Image) error {
	if out[0] != nil {
		fillX(out[0], img.W)
	}
	if out[1] != nil {
		fillY(out[1], img.W)
	}
	return nil
}

// fillX writes the column index x into each pixel of dst, whose rows have
// w pixels.
func fillX(dst []float64, w int) {
	row := dst[:w]
	for x := range row {
		row[x] = float64(x)
	}
	for i := w; i < len(dst); i += w {
		copy(dst[i:i+w], row)
	}
}

// fillY writes the row index y into each pixel of dst, whose rows have w
// pixels.
//
// It is kept out of line so that its store loop sits where its own code
// puts it: inlined, the loop lands wherever the caller's code leaves it,
// and measurably slows down where that is across a cache-line boundary.
//
//go:noinline
func fillY(dst []float64, w int) {
	for y, i := 0, 0; i < len(dst); y, i = y+1, i+w {
		row := dst[i : i+w]
		v := float64(y)
		for x := range row {
			row[x] = v
		}
	}
}
