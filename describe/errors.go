package describe

import (
	"fmt"

	"github.com/covpipe/covpipe/covariance"
)

// resizeHint is what the error for a grid that does not divide a w×h
// image suggests: a size for every image that it divides, near w×h, or
// the grid's remainder policies; "" for other layouts and for sizes the
// grid divides.
func (p *plan) resizeHint(w, h int) string {
	l := p.layout
	if l.Kind != covariance.LayoutGrid || l.Side > 0 || l.Remainder != covariance.RemainderFail || w < 1 || h < 1 || w%l.Cols == 0 && h%l.Rows == 0 {
		return ""
	}
	near := func(n, k int) int { return max(k, (n+k/2)/k*k) }
	size := fmt.Sprintf("%dx%d", near(w, l.Cols), near(h, l.Rows))
	crop, spread := l, l
	crop.Remainder, spread.Remainder = covariance.RemainderCrop, covariance.RemainderSpread
	return fmt.Sprintf("; resize the images to a size the grid divides, such as %s (--resize %s, data.resize: %s, Options.Width and Height), or give the grid a remainder policy: %s (equal cells, the remainder cropped) or %s (cells differing by a pixel at most)", size, size, size, crop, spread)
}

// ImageError is the error of Describe, Collect and Extractor.Run for an
// image that failed without Options.SkipBad: it could not be loaded or
// decoded, was over the memory limit, had non-finite pixels, did not fit
// the region layout or gave a descriptor that is not positive definite.
// Its message is that of Err, which names the image.
type ImageError struct {
	// Path is the image's path (datasets.Item.Path).
	Path string
	Err  error
}

func (e *ImageError) Error() string { return e.Err.Error() }

func (e *ImageError) Unwrap() error { return e.Err }
