// Package appearance holds the colour-appearance pieces that the person
// re-identification baselines share: an RGB pedestrian image, its HSV
// conversion, a foreground mask, weighted HSV histograms and the
// Bhattacharyya distance between histograms. SDALF (package sdalf;
// Farenzena et al., CVPR 2010) builds its weighted colour histograms from
// them, and HPE (Bazzani et al., ICPR 2010) accumulates the same
// histograms over an identity's images.
//
// These methods compare images, not covariance descriptors: they are the
// re-identification baselines of the paper's Fig. 6 (Section 5.1 of
// Harandi et al., ECCV 2012).
package appearance

import (
	"fmt"
	"math"
)

// Image is an RGB image of W×H pixels: R, G and B hold pixel (x, y) at
// index y*W+x, each value in [0, 1].
type Image struct {
	W, H    int
	R, G, B []float64
}

// NewImage returns the image of the planes r, g and b (not copied) of w×h
// pixels. It returns an error when a size is below 1, a plane's length is
// not w·h, or a value is outside [0, 1] or not finite.
func NewImage(w, h int, r, g, b []float64) (*Image, error) {
	img := &Image{W: w, H: h, R: r, G: g, B: b}
	if err := img.Validate(); err != nil {
		return nil, err
	}
	return img, nil
}

// Validate returns an error when a size is below 1, a plane's length is
// not W·H, or a value is outside [0, 1] or not finite: the checks of
// NewImage, for images built as struct literals. The functions of this
// package and of package sdalf that take an Image call it.
func (img *Image) Validate() error {
	w, h := img.W, img.H
	if w < 1 || h < 1 {
		return fmt.Errorf("image size %d×%d, want at least 1×1", w, h)
	}
	for c, p := range [][]float64{img.R, img.G, img.B} {
		if len(p) != w*h {
			return fmt.Errorf("plane %c has %d values, want %d×%d = %d", "RGB"[c], len(p), w, h, w*h)
		}
		for i, v := range p {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("plane %c pixel (%d, %d) = %v, want a value in [0, 1]", "RGB"[c], i%w, i/w, v)
			}
		}
	}
	return nil
}

// HSV is an image in the HSV colour space (Smith, SIGGRAPH 1978): for
// each pixel, with M and m the largest and smallest of R, G and B,
// V = M, S = (M − m)/M (0 when M = 0) and the hue H in [0, 1) (the angle
// divided by 360°; 0 for a grey pixel, where M = m).
type HSV struct {
	// W and H are the image's width and height.
	W, H int
	// Hu, S and V are the hue, saturation and value planes, pixel (x, y)
	// at index y*W+x.
	Hu, S, V []float64
}

// Validate returns an error unless both sizes are at least 1 and each
// plane has W·H values.
func (h *HSV) Validate() error {
	n := h.W * h.H
	if h.W < 1 || h.H < 1 || len(h.Hu) != n || len(h.S) != n || len(h.V) != n {
		return fmt.Errorf("HSV image of %d×%d pixels with planes of %d, %d and %d values", h.W, h.H, len(h.Hu), len(h.S), len(h.V))
	}
	return nil
}

// ToHSV returns the HSV conversion of img, or an error when img is
// invalid (Image.Validate).
func ToHSV(img *Image) (*HSV, error) {
	var h HSV
	if err := HSVTo(&h, img); err != nil {
		return nil, err
	}
	return &h, nil
}

// HSVTo writes the HSV conversion of img into dst, reusing its planes
// when they are large enough. It returns an error when img is invalid
// (Image.Validate), leaving dst unchanged.
func HSVTo(dst *HSV, img *Image) error {
	if err := img.Validate(); err != nil {
		return err
	}
	n := img.W * img.H
	dst.W, dst.H = img.W, img.H
	dst.Hu, dst.S, dst.V = Grow(dst.Hu, n), Grow(dst.S, n), Grow(dst.V, n)
	for i := range n {
		dst.Hu[i], dst.S[i], dst.V[i] = hsv(img.R[i], img.G[i], img.B[i])
	}
	return nil
}

// hsv converts one pixel (see HSV).
func hsv(r, g, b float64) (h, s, v float64) {
	hi, lo := max(r, g, b), min(r, g, b)
	if hi <= 0 {
		return 0, 0, 0
	}
	c := hi - lo
	if c <= 0 {
		return 0, 0, hi
	}
	switch hi {
	case r:
		h = (g - b) / c
		if h < 0 {
			h += 6
		}
	case g:
		h = (b-r)/c + 2
	default:
		h = (r-g)/c + 4
	}
	h /= 6
	if h >= 1 {
		h = 0
	}
	return h, c / hi, hi
}

// Cone returns the point of the HSV cone of a pixel's hue h, saturation
// s and value v: (s·v·cos 2πh, s·v·sin 2πh, v). Euclidean distances there
// treat hue as the angle it is (hues 0.99 and 0.01 are close) and ignore
// the hue of dark and grey pixels, where it means nothing; the largest
// squared distance between two points is 4.
func Cone(h, s, v float64) (x, y, z float64) {
	sn, cs := math.Sincos(2 * math.Pi * h)
	return s * v * cs, s * v * sn, v
}

// Grow returns b resliced to n values, reallocated (zeroed) when too
// short: the way the workspaces of this package, sdalf and hpe reuse
// their buffers from image to image.
func Grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}
