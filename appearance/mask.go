package appearance

import (
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/enum"
)

// MaskKind names a foreground mask.
type MaskKind int

const (
	// NoMask takes every pixel as foreground (mask 1 everywhere): the
	// baseline against which a mask's effect is measured.
	NoMask MaskKind = iota
	// BorderMask models the background of each row from the image's
	// border columns (see MaskOptions).
	BorderMask
	// CentreMask is a Gaussian prior about the centre column (see
	// MaskOptions).
	CentreMask
)

var maskNames = enum.Names[MaskKind]{NoMask: "none", BorderMask: "border", CentreMask: "centre"}

// String returns the kind's name, as ParseMaskKind reads it.
func (k MaskKind) String() string { return maskNames.String(k) }

// ParseMaskKind returns the mask kind named s ("none", "border" or
// "centre"), and
// an error naming s for any other name.
func ParseMaskKind(s string) (MaskKind, error) {
	if k, ok := maskNames.Parse(s); ok {
		return k, nil
	}
	return 0, fmt.Errorf("foreground mask %q, want none, border or centre", s)
}

// Default mask settings (see MaskOptions): the border model's band of
// rows and RGB threshold, and the centre prior's σ as a fraction of the
// width.
const (
	DefaultMaskRows      = 2
	DefaultMaskThreshold = 0.15
	DefaultMaskSigma     = 0.25
)

// MaskOptions configure Foreground. The zero value is NoMask.
//
// SDALF (Farenzena et al., CVPR 2010, Sec. 3) segments the pedestrian
// with STEL (Jojic et al., CVPR 2009), a generative model learnt over the
// whole dataset. BorderMask is a per-image stand-in that needs no
// training, so that no information passes between training and test
// images: pedestrian crops from a detector (as MARS's, and ETHZ's) centre
// the person and show background at the left and right edges. The
// background colours of row y are the pixels of the Border leftmost and
// rightmost columns in rows y−Rows … y+Rows (clipped at the image), and a
// pixel is foreground (1) when the Euclidean RGB distance to the nearest
// of them exceeds Threshold, else background (0). Clothing that reaches
// an image edge in a row is taken for background there, and so is
// clothing of a colour that the background shows anywhere in the band:
// on tight crops (mini-mars) it keeps too little of the person.
//
// CentreMask is the soft prior m(x, y) = exp(−(x − c)²/(2σ²)) about the
// centre column c = (W − 1)/2 with σ = Sigma·W: it uses no colour, so it
// cannot mistake dark clothing for a dark background, as BorderMask does
// on tight crops, and it weights the pixels where detectors put the
// person.
type MaskOptions struct {
	Kind MaskKind
	// Border is the number of columns at each side that sample the
	// background; 0: max(1, W/8).
	Border int
	// Rows is the half-height of the band of rows sampled; 0:
	// DefaultMaskRows.
	Rows int
	// Threshold is the RGB distance above which a pixel is foreground; 0:
	// DefaultMaskThreshold.
	Threshold float64
	// Sigma is CentreMask's σ as a fraction of the width; 0:
	// DefaultMaskSigma.
	Sigma float64
}

// Validate returns an error naming the option that is out of range.
func (o MaskOptions) Validate() error {
	switch {
	case o.Kind < NoMask || o.Kind > CentreMask:
		return fmt.Errorf("foreground mask kind %d unknown", int(o.Kind))
	case o.Border < 0:
		return fmt.Errorf("mask border = %d, want >= 0", o.Border)
	case o.Rows < 0:
		return fmt.Errorf("mask rows = %d, want >= 0", o.Rows)
	case !(o.Threshold >= 0) || math.IsInf(o.Threshold, 1):
		return fmt.Errorf("mask threshold = %v, want a finite value >= 0", o.Threshold)
	case !(o.Sigma >= 0) || math.IsInf(o.Sigma, 1):
		return fmt.Errorf("mask sigma = %v, want a finite fraction of the width >= 0", o.Sigma)
	}
	return nil
}

// Foreground returns img's foreground mask (1 foreground, 0 background,
// at index y*W+x) with the options o; see MaskOptions. It returns an
// error when o or img is invalid (Image.Validate).
func Foreground(img *Image, o MaskOptions) ([]float64, error) {
	if err := img.Validate(); err != nil {
		return nil, err
	}
	m := make([]float64, img.W*img.H)
	if err := ForegroundTo(m, img, o); err != nil {
		return nil, err
	}
	return m, nil
}

// ForegroundTo writes img's foreground mask into dst (W·H values) and
// allocates nothing. It returns an error when o or img is invalid
// (Image.Validate) or dst has the wrong length, leaving dst unchanged.
func ForegroundTo(dst []float64, img *Image, o MaskOptions) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if err := img.Validate(); err != nil {
		return err
	}
	w, h := img.W, img.H
	if len(dst) != w*h {
		return fmt.Errorf("foreground mask of %d values for a %d×%d image", len(dst), w, h)
	}
	switch o.Kind {
	case NoMask:
		for i := range dst {
			dst[i] = 1
		}
		return nil
	case CentreMask:
		sigma := o.Sigma
		if sigma == 0 {
			sigma = DefaultMaskSigma
		}
		sigma *= float64(w)
		c := float64(w-1) / 2
		for x := range w {
			d := float64(x) - c
			dst[x] = math.Exp(-d * d / (2 * sigma * sigma))
		}
		for y := 1; y < h; y++ {
			copy(dst[y*w:(y+1)*w], dst[:w])
		}
		return nil
	}
	border := o.Border
	if border == 0 {
		border = max(1, w/8)
	}
	border = min(border, (w+1)/2)
	rows := o.Rows
	if rows == 0 {
		rows = DefaultMaskRows
	}
	t := o.Threshold
	if t == 0 {
		t = DefaultMaskThreshold
	}
	t2 := t * t
	for y := range h {
		y0, y1 := max(0, y-rows), min(h, y+rows+1)
		for x := range w {
			i := y*w + x
			r, g, b := img.R[i], img.G[i], img.B[i]
			fg := 1.0
		samples:
			for sy := y0; sy < y1; sy++ {
				for k := range 2 * border {
					sx := k
					if k >= border {
						sx = w - 1 - (k - border)
					}
					j := sy*w + sx
					dr, dg, db := r-img.R[j], g-img.G[j], b-img.B[j]
					if dr*dr+dg*dg+db*db <= t2 {
						fg = 0
						break samples
					}
				}
			}
			dst[i] = fg
		}
	}
	return nil
}
