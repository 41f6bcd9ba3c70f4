package sdalf

import (
	"fmt"
	"math"

	"github.com/covpipe/covpipe/appearance"
)

// DefaultSigma is the standard deviation of the weighted histograms'
// Gaussian about a symmetry axis, as a fraction of the image width: the
// paper's σ = J/4 (Farenzena et al., CVPR 2010, Sec. 3.2).
const DefaultSigma = 0.25

// Options configure Describe; the zero value gives the defaults, with no
// foreground mask (set Mask.Kind to appearance.BorderMask for one).
type Options struct {
	// Mask is the foreground mask's settings.
	Mask appearance.MaskOptions
	// Axes are the axes' settings.
	Axes AxesOptions
	// Bins are the weighted histograms' bins; zero: appearance.DefaultBins.
	Bins appearance.Bins
	// Sigma is the standard deviation of the Gaussian weight about a
	// symmetry axis, a fraction of the width, > 0; 0: DefaultSigma.
	Sigma float64
	// MSCR are the blobs' settings.
	MSCR MSCROptions
}

// Validate returns an error naming the option out of range.
func (o Options) Validate() error {
	if err := o.Mask.Validate(); err != nil {
		return err
	}
	if err := o.Axes.Validate(); err != nil {
		return err
	}
	if o.Bins != (appearance.Bins{}) {
		if err := o.Bins.Validate(); err != nil {
			return err
		}
	}
	if !(o.Sigma >= 0) || math.IsInf(o.Sigma, 1) {
		return fmt.Errorf("sigma = %v, want a finite fraction of the width > 0", o.Sigma)
	}
	_, err := o.MSCR.resolve()
	return err
}

// Signature is the SDALF description of one pedestrian image
// (Farenzena et al., CVPR 2010, Sec. 3.2): its axes, the weighted HSV
// histograms of torso and legs, and its maximally stable colour regions.
type Signature struct {
	// W and H are the image's size.
	W, H int
	// Axes are the image's axes (FindAxes).
	Axes Axes
	// WHSV is the wHSV descriptor: the weighted HSV histograms
	// (appearance.WeightedHistogramTo) of the torso's and the legs' rows,
	// each pixel weighted by its foreground mask times
	// exp(−(x − j)²/(2σ²)) with j the part's symmetry column, concatenated
	// and each halved, so that the whole sums to 1 (0 for a part without
	// weight).
	WHSV []float64
	// Blobs are the image's maximally stable colour regions in its
	// foreground (MSCR), the head's excluded.
	Blobs []Blob

	root   []float64    // element-wise √WHSV, for Distance
	byRise []heightBlob // Blobs by increasing height, for Distance
}

// Describe returns the SDALF signature of the pedestrian image img with
// the options o: the foreground mask (o.Mask), the axes (FindAxes), the
// wHSV histograms of torso and legs about their symmetry axes, and the
// MSCR blobs of the foreground below the head. It returns an error when
// o or img is invalid (appearance.Image.Validate) or img is too small for
// the axes (8 rows × 3 columns).
func Describe(img *appearance.Image, o Options) (*Signature, error) {
	var ws Workspace
	return ws.Describe(img, o)
}

// Describe is the function Describe on the workspace's buffers.
func (ws *Workspace) Describe(img *appearance.Image, o Options) (*Signature, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := img.Validate(); err != nil {
		return nil, err
	}
	w, h := img.W, img.H
	if h < minRows || w < minCols {
		return nil, fmt.Errorf("sdalf of a %d×%d image: want at least %d rows and %d columns", w, h, minRows, minCols)
	}
	ws.fg = appearance.Grow(ws.fg, w*h) // kept apart from ws.mask, which FindAxes fills
	mask := ws.fg
	if err := appearance.ForegroundTo(mask, img, o.Mask); err != nil {
		return nil, err
	}
	if err := appearance.HSVTo(&ws.hsv, img); err != nil {
		return nil, err
	}
	axes, err := ws.FindAxes(&ws.hsv, mask, o.Axes)
	if err != nil {
		return nil, err
	}
	bins := o.Bins
	if bins == (appearance.Bins{}) {
		bins = appearance.DefaultBins()
	}
	sigma := o.Sigma
	if sigma == 0 {
		sigma = DefaultSigma
	}
	sigma *= float64(w)
	n := bins.Len()
	s := &Signature{W: w, H: h, Axes: axes, WHSV: make([]float64, 2*n), root: make([]float64, 2*n)}
	ws.weight = appearance.Grow(ws.weight, w*h)
	parts := [2]struct{ r0, r1, axis int }{{axes.HeadTorso, axes.TorsoLegs, axes.TorsoSym}, {axes.TorsoLegs, h, axes.LegsSym}}
	for k, p := range parts {
		for y := p.r0; y < p.r1; y++ {
			for x := range w {
				d := float64(x - p.axis)
				ws.weight[y*w+x] = mask[y*w+x] * math.Exp(-d*d/(2*sigma*sigma))
			}
		}
		hist := s.WHSV[k*n : (k+1)*n]
		if err := appearance.WeightedHistogramTo(hist, &ws.hsv, ws.weight, p.r0, p.r1, bins); err != nil {
			return nil, err
		}
		for i := range hist {
			hist[i] /= 2
		}
	}
	for i, v := range s.WHSV {
		s.root[i] = math.Sqrt(v)
	}
	// The head carries little identity and much background: its blobs go.
	for i := range axes.HeadTorso * w {
		mask[i] = 0
	}
	if s.Blobs, err = ws.MSCR(nil, img, mask, o.MSCR); err != nil {
		return nil, err
	}
	s.byRise = byHeight(s.Blobs, h)
	return s, nil
}
