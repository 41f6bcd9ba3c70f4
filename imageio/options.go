package imageio

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/covpipe/covpipe/internal/enum"
)

// Filter is a resampling filter for resizing. The filters and their kernels
// k(x) are those of PIL and github.com/disintegration/imaging.
type Filter int

const (
	// Linear is the triangle (bilinear) filter, k(x) = max(0, 1-|x|),
	// support 1. It is the default.
	Linear Filter = iota
	// Nearest takes the source sample whose cell contains the output
	// sample's centre: index floor((d+0.5)*m/n). It never low-passes.
	Nearest
	// Box is the box filter, k(x) = 1 for |x| <= 1/2, support 1/2: a
	// downscale by an integer factor f averages f x f blocks.
	Box
	// CatmullRom is the cubic Catmull-Rom spline (Mitchell-Netravali with
	// B = 0, C = 1/2), support 2.
	CatmullRom
	// Lanczos3 is the Lanczos filter k(x) = sinc(x) sinc(x/3) for |x| < 3.
	Lanczos3

	numFilters
)

// filterNames are the names of the filters, by Filter.
var filterNames = enum.Names[Filter]{Linear: "Linear", Nearest: "Nearest", Box: "Box", CatmullRom: "CatmullRom", Lanczos3: "Lanczos3"}

// String returns the filter's name, such as "Linear".
func (f Filter) String() string { return filterNames.String(f) }

// ParseFilter returns the filter named s, case-insensitively: linear,
// nearest, box, catmullrom or lanczos3; the empty string is Linear, the
// default. It is the parser of configs' and the command line's filter
// names.
func ParseFilter(s string) (Filter, error) {
	if s == "" {
		return Linear, nil
	}
	for f, name := range filterNames {
		if strings.EqualFold(s, name) {
			return Filter(f), nil
		}
	}
	return 0, fmt.Errorf("%q is not a filter: want linear, nearest, box, catmullrom or lanczos3", s)
}

// JPEGScale says whether a JPEG that is to be resized may be decoded at
// reduced scale (see "Reduced-scale JPEG decoding" in the package
// documentation).
type JPEGScale int

const (
	// JPEGScaleAuto decodes a JPEG at 1/2, 1/4 or 1/8 of its size when
	// that is still at least twice the resize target in both dimensions,
	// so that the resize filter still reduces the image at least twofold
	// and low-passes across the DCT blocks as it does a full decode. It
	// is the default.
	JPEGScaleAuto JPEGScale = iota
	// JPEGScaleOff always decodes JPEGs at full size with image/jpeg.
	JPEGScaleOff
	// JPEGScaleFast decodes a JPEG at the smallest of 1/2, 1/4 and 1/8
	// of its size that still covers the resize target: a 128x256 image to
	// be resized to 32x64 is decoded at 1/4, straight to the target size,
	// so the resize filter does nothing and each pixel is the DCT's
	// estimate of a 4x4 block mean. Fastest, but the planes, and above all
	// their derivatives, are sharper than a full decode's resized.
	JPEGScaleFast

	numJPEGScales
)

// jpegScaleNames are the names of the JPEGScale values.
var jpegScaleNames = enum.Names[JPEGScale]{JPEGScaleAuto: "auto", JPEGScaleOff: "off", JPEGScaleFast: "fast"}

// String returns the setting's name, "auto", "off" or "fast".
func (s JPEGScale) String() string { return jpegScaleNames.String(s) }

// ParseJPEGScale returns the setting named s, case-insensitively: auto,
// off or fast; the empty string is JPEGScaleAuto, the default. It is the
// parser of configs' and the command line's jpeg-scale settings.
func ParseJPEGScale(s string) (JPEGScale, error) {
	if s == "" {
		return JPEGScaleAuto, nil
	}
	if v, ok := jpegScaleNames.Parse(strings.ToLower(s)); ok {
		return v, nil
	}
	return 0, fmt.Errorf("%q is not a JPEG scale setting: want auto, off or fast", s)
}

// ParseSize parses a resize target "WxH" (W columns and H rows, both >= 1;
// the x may be upper case).
func ParseSize(s string) (w, h int, err error) {
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		w, err = strconv.Atoi(ws)
		if err == nil {
			h, err = strconv.Atoi(hs)
		}
	}
	if !ok || err != nil || w < 1 || h < 1 {
		return 0, 0, fmt.Errorf("%q is not a size: want WxH with W columns and H rows >= 1, e.g. 32x64", s)
	}
	return w, h, nil
}

// support is the radius outside which the kernel is zero, at scale 1.
func (f Filter) support() float64 {
	switch f {
	case Box:
		return 0.5
	case Linear:
		return 1
	case CatmullRom:
		return 2
	case Lanczos3:
		return 3
	}
	return 0
}

// overshoots reports whether the kernel has negative lobes, so that
// resampled values can leave the range of the input.
func (f Filter) overshoots() bool { return f == CatmullRom || f == Lanczos3 }

// kernel evaluates the filter's kernel k(x).
func (f Filter) kernel(x float64) float64 {
	x = math.Abs(x)
	switch f {
	case Box:
		if x <= 0.5 {
			return 1
		}
	case Linear:
		if x < 1 {
			return 1 - x
		}
	case CatmullRom:
		// Mitchell-Netravali cubic with B = 0, C = 1/2.
		if x < 1 {
			return (3*x*x*x - 5*x*x + 2) / 2
		}
		if x < 2 {
			return (-x*x*x + 5*x*x - 8*x + 4) / 2
		}
	case Lanczos3:
		if x < 3 {
			return sinc(x) * sinc(x/3)
		}
	}
	return 0
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// Options says how Load and the other entry points convert an image. The
// zero value gives the native-size grey plane with values in [0,1].
type Options struct {
	// Color also produces the R, G and B planes. The grey plane is always
	// produced.
	Color bool
	// Width and Height, when both positive, are the size to resize the
	// (oriented) image to; both zero keep the native size.
	Width, Height int
	// Filter is the resampling filter for resizing (default Linear).
	Filter Filter
	// JPEGScale, with a resize target, lets JPEGs be decoded at 1/2, 1/4
	// or 1/8 of their size when that is still at least twice the target
	// (JPEGScaleAuto, the default) or at least the target
	// (JPEGScaleFast), or not (JPEGScaleOff). Without a resize target it
	// has no effect.
	JPEGScale JPEGScale
	// Scale multiplies every value; 0 means 1, values in [0,1]. For example
	// 255 gives the 8-bit grey levels of a label map.
	Scale float64
}

// validate checks the options and returns them with defaults filled in.
func (o Options) validate() (Options, error) {
	if o.Width < 0 || o.Height < 0 {
		return o, fmt.Errorf("imageio: negative resize target %dx%d", o.Width, o.Height)
	}
	if (o.Width == 0) != (o.Height == 0) {
		return o, fmt.Errorf("imageio: resize target %dx%d: give both width and height, or neither", o.Width, o.Height)
	}
	if int64(o.Width)*int64(o.Height) > MaxPixels {
		return o, fmt.Errorf("imageio: resize target %dx%d exceeds the limit of %d pixels", o.Width, o.Height, MaxPixels)
	}
	if o.Filter < 0 || o.Filter >= numFilters {
		return o, fmt.Errorf("imageio: unknown filter %v", o.Filter)
	}
	if o.JPEGScale < 0 || o.JPEGScale >= numJPEGScales {
		return o, fmt.Errorf("imageio: unknown JPEG scale setting %v", o.JPEGScale)
	}
	if o.Scale < 0 || math.IsNaN(o.Scale) || math.IsInf(o.Scale, 0) {
		return o, fmt.Errorf("imageio: scale %v must be finite and non-negative", o.Scale)
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	return o, nil
}
