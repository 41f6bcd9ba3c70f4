package sdalf

import (
	"fmt"
	"math"

	"github.com/covpipe/covpipe/appearance"
)

// Axes are the axes of a pedestrian image of H rows (Farenzena et al.,
// CVPR 2010, Sec. 3.1). HeadTorso and TorsoLegs are the horizontal
// asymmetry axes: the first row of the torso and the first row of the
// legs, so that the head is rows [0, HeadTorso), the torso [HeadTorso,
// TorsoLegs) and the legs [TorsoLegs, H). TorsoSym and LegsSym are the
// columns of the vertical symmetry axes of torso and legs.
type Axes struct {
	HeadTorso, TorsoLegs int
	TorsoSym, LegsSym    int
}

// DefaultAlpha weights chromatic dissimilarity against foreground balance
// in the axes' criteria: equally, as the SDALF authors' code does.
const DefaultAlpha = 0.5

// AxesOptions configure FindAxes; the zero value gives the defaults.
type AxesOptions struct {
	// Alpha in (0, 1) weights the chromatic term C against the balance
	// term S; 0: DefaultAlpha.
	Alpha float64
	// RowDelta is the half-height δ of the horizontal strips; 0: H/4, the
	// paper's δ = I/4.
	RowDelta int
	// ColDelta is the half-width of the vertical strips; 0: W/4, the
	// paper's δ = J/4.
	ColDelta int
}

// Validate returns an error naming the option that is out of range.
func (o AxesOptions) Validate() error {
	switch {
	case o.Alpha != 0 && !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("axes alpha = %v, want a value in (0, 1)", o.Alpha)
	case o.RowDelta < 0 || o.ColDelta < 0:
		return fmt.Errorf("axes strip half-sizes %d (rows) and %d (columns), want >= 0", o.RowDelta, o.ColDelta)
	}
	return nil
}

// minRows and minCols are the smallest image sizes FindAxes accepts: a
// head, a torso and legs of two rows each, and a symmetry axis with a
// column at each side.
const (
	minRows = 8
	minCols = 3
)

// FindAxes returns the axes of the pedestrian image img with foreground
// mask (1 foreground, 0 background, index y*W+x; nil: all foreground).
//
// Each pixel p is taken as the point f(p) = (s·v·cos 2πh, s·v·sin 2πh, v)
// of the HSV cone (appearance.Cone: the paper takes Euclidean HSV
// distances, which put hues 0.99 and 0.01 far apart); m(p) is its
// foreground mask. For an axis and a strip of half-size δ about it, the chromatic
// term C is the mean of ‖f(p) − f(p̂)‖²/4 over the pairs of mirror pixels
// p, p̂ of the strip, weighted by m(p)·m(p̂) so that only foreground is
// compared (0 without foreground pairs), and the balance term S is
// |A₁ − A₂|/(n δ), the difference of the foreground areas of the strip's
// two halves over a half's n δ pixels; both lie in [0, 1]. With weight α
// (AxesOptions.Alpha):
//
//   - TorsoLegs, between rows i−1 and i with pairs (i−1−k, i+k), k < δ =
//     H/4, minimises α(1 − C) + (1 − α)S over i ∈ [δ, H − δ]: the parts
//     above and below differ most in colour with balanced foreground
//     (the paper's i_TL);
//   - HeadTorso minimises α(1 − C) + (1 − α)(1 − S) over i ∈ [2,
//     TorsoLegs − 2], the strip clipped to the rows above TorsoLegs
//     (δ_i = min(δ, i, TorsoLegs − i)): colour and foreground area both
//     change most at the neck. A balance term cannot place this axis,
//     since the head is far narrower and shorter than the torso; the
//     neck is where the silhouette widens to the shoulders. Without a
//     mask S is 0 and colour alone decides;
//   - TorsoSym and LegsSym, through column j with pairs (j − k, j + k),
//     1 ≤ k ≤ δ = W/4, over the rows of the torso and of the legs,
//     minimise αC + (1 − α)S over j ∈ [δ, W − 1 − δ]: the most symmetric
//     column with balanced foreground (the paper's j_LR1, j_LR2).
//
// Ties go to the smallest row or column. FindAxes returns an error when
// img is invalid (appearance.HSV.Validate) or smaller than 8 rows × 3
// columns, mask has the wrong length or a
// value outside [0, 1], or opts is invalid.
func FindAxes(img *appearance.HSV, mask []float64, opts AxesOptions) (Axes, error) {
	var ws Workspace
	return ws.FindAxes(img, mask, opts)
}

// Workspace holds the buffers of FindAxes and Describe, reused from call
// to call; its zero value is ready to use, and it is not safe for
// concurrent use.
type Workspace struct {
	width  int       // of the image whose cone points cone holds
	cone   []float64 // f(p), three values a pixel
	mask   []float64
	fg     []float64 // Describe's foreground mask
	weight []float64
	hsv    appearance.HSV
	mscr   mscrWork
}

// FindAxes is the function FindAxes on the workspace's buffers.
func (ws *Workspace) FindAxes(img *appearance.HSV, mask []float64, opts AxesOptions) (Axes, error) {
	if err := opts.Validate(); err != nil {
		return Axes{}, err
	}
	if err := img.Validate(); err != nil {
		return Axes{}, err
	}
	w, h := img.W, img.H
	if h < minRows || w < minCols {
		return Axes{}, fmt.Errorf("axes of a %d×%d image: want at least %d rows and %d columns", w, h, minRows, minCols)
	}
	if err := checkMask(mask, w, h); err != nil {
		return Axes{}, err
	}
	alpha := opts.Alpha
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	ws.width = w
	ws.cone = appearance.Grow(ws.cone, 3*w*h)
	ws.mask = appearance.Grow(ws.mask, w*h)
	for i := range w * h {
		ws.mask[i] = 1
		if mask != nil {
			ws.mask[i] = mask[i]
		}
		ws.cone[3*i], ws.cone[3*i+1], ws.cone[3*i+2] = appearance.Cone(img.Hu[i], img.S[i], img.V[i])
	}
	rd := opts.RowDelta
	if rd == 0 {
		rd = h / 4
	}
	rd = min(max(rd, 1), (h-1)/2)
	var a Axes
	a.TorsoLegs = ws.bestRow(rd, h-rd, rd, 0, h, alpha, true)
	a.HeadTorso = ws.bestRow(2, a.TorsoLegs-2, rd, 0, a.TorsoLegs, alpha, false)
	cd := opts.ColDelta
	if cd == 0 {
		cd = w / 4
	}
	cd = min(max(cd, 1), (w-1)/2)
	a.TorsoSym = ws.bestCol(cd, a.HeadTorso, a.TorsoLegs, alpha)
	a.LegsSym = ws.bestCol(cd, a.TorsoLegs, h, alpha)
	return a, nil
}

// checkMask checks a mask of a w×h image.
func checkMask(mask []float64, w, h int) error {
	if mask == nil {
		return nil
	}
	if len(mask) != w*h {
		return fmt.Errorf("foreground mask of %d values for a %d×%d image", len(mask), w, h)
	}
	for i, v := range mask {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("foreground mask at (%d, %d) = %v, want a value in [0, 1]", i%w, i/w, v)
		}
	}
	return nil
}

// bestRow returns the row i in [lo, hi] minimising α(1 − C) + (1 − α)S
// (balanced; else α(1 − C) + (1 − α)(1 − S)) for the strip of
// half-height min(δ, i − top, bottom − i) about the boundary above row i,
// the strip inside rows [top, bottom).
func (ws *Workspace) bestRow(lo, hi, delta, top, bottom int, alpha float64, balanced bool) int {
	w := ws.width
	best, bestV := lo, math.Inf(1)
	for i := lo; i <= hi; i++ {
		d := min(delta, i-top, bottom-i)
		if d < 1 {
			continue
		}
		var num, den, up, down float64
		for k := range d {
			a, b := (i-1-k)*w, (i+k)*w
			for x := range w {
				ma, mb := ws.mask[a+x], ws.mask[b+x]
				up += ma
				down += mb
				if p := ma * mb; p > 0 {
					num += p * ws.dist2(a+x, b+x)
					den += p
				}
			}
		}
		c := 0.0
		if den > 0 {
			c = num / (4 * den)
		}
		s := math.Abs(up-down) / float64(w*d)
		if !balanced {
			s = 1 - s
		}
		if v := alpha*(1-c) + (1-alpha)*s; v < bestV {
			best, bestV = i, v
		}
	}
	return best
}

// bestCol returns the column j in [δ, W − 1 − δ] minimising αC +
// (1 − α)S over the rows [r0, r1) for the strip of half-width δ through
// column j; δ when the rows are empty.
func (ws *Workspace) bestCol(delta, r0, r1 int, alpha float64) int {
	w := ws.width
	best, bestV := delta, math.Inf(1)
	for j := delta; j <= w-1-delta; j++ {
		var num, den, left, right float64
		for y := r0; y < r1; y++ {
			row := y * w
			for k := 1; k <= delta; k++ {
				a, b := row+j-k, row+j+k
				ma, mb := ws.mask[a], ws.mask[b]
				left += ma
				right += mb
				if p := ma * mb; p > 0 {
					num += p * ws.dist2(a, b)
					den += p
				}
			}
		}
		c := 0.0
		if den > 0 {
			c = num / (4 * den)
		}
		s := 0.0
		if r1 > r0 {
			s = math.Abs(left-right) / float64((r1-r0)*delta)
		}
		if v := alpha*c + (1-alpha)*s; v < bestV {
			best, bestV = j, v
		}
	}
	return best
}

// dist2 returns the squared distance of the cone points of pixels a and b.
func (ws *Workspace) dist2(a, b int) float64 {
	p, q := ws.cone[3*a:3*a+3], ws.cone[3*b:3*b+3]
	d0, d1, d2 := p[0]-q[0], p[1]-q[1], p[2]-q[2]
	return d0*d0 + d1*d1 + d2*d2
}
