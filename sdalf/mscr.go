package sdalf

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/appearance"
)

// Blob is a maximally stable colour region, as SDALF keeps it
// (Farenzena et al., CVPR 2010, Sec. 3.2): its mean colour in CIELAB
// (D65 white, sRGB primaries), its centroid (X, Y) in pixels and its area
// in pixels.
type Blob struct {
	L, A, B float64
	X, Y    float64
	Area    int
}

// Default MSCR settings (see MSCROptions): Forssén's defaults (CVPR 2007,
// Sec. 4), with the minimum area scaled to 64×32 pedestrian images.
const (
	DefaultSteps         = 200
	DefaultMinArea       = 15
	DefaultMaxArea       = 0.25
	DefaultMinMargin     = 0.003
	DefaultAreaIncrement = 1.01
	DefaultMinForeground = 0.5
)

// MSCROptions configure MSCR; the zero value gives the defaults.
type MSCROptions struct {
	// Steps is the number T of evolution steps; 0: DefaultSteps.
	Steps int
	// MinArea is the smallest area of a region in pixels; 0:
	// DefaultMinArea.
	MinArea int
	// MaxArea is the largest area of a region as a fraction of the image,
	// in (0, 1]; 0: DefaultMaxArea.
	MaxArea float64
	// MinMargin is the smallest range of edge distances over which a
	// region's area stays within AreaIncrement; 0: DefaultMinMargin.
	MinMargin float64
	// AreaIncrement is the factor a > 1 of area growth that ends a
	// region's stable range; 0: DefaultAreaIncrement.
	AreaIncrement float64
	// MinForeground is the smallest mean of the foreground mask over a
	// region, in [0, 1]; 0: DefaultMinForeground.
	MinForeground float64
}

// resolve returns o with its defaults filled in, or an error naming the
// option out of range.
func (o MSCROptions) resolve() (MSCROptions, error) {
	switch {
	case o.Steps < 0:
		return o, fmt.Errorf("mscr steps = %d, want >= 1", o.Steps)
	case o.MinArea < 0:
		return o, fmt.Errorf("mscr min area = %d, want >= 1", o.MinArea)
	case !(o.MaxArea >= 0 && o.MaxArea <= 1):
		return o, fmt.Errorf("mscr max area = %v, want a fraction in (0, 1]", o.MaxArea)
	case !(o.MinMargin >= 0) || math.IsInf(o.MinMargin, 1):
		return o, fmt.Errorf("mscr min margin = %v, want a finite value > 0", o.MinMargin)
	case o.AreaIncrement != 0 && !(o.AreaIncrement > 1) || math.IsInf(o.AreaIncrement, 1):
		return o, fmt.Errorf("mscr area increment = %v, want a finite value > 1", o.AreaIncrement)
	case !(o.MinForeground >= 0 && o.MinForeground <= 1):
		return o, fmt.Errorf("mscr min foreground = %v, want a value in [0, 1]", o.MinForeground)
	}
	o.Steps = cmp.Or(o.Steps, DefaultSteps)
	o.MinArea = cmp.Or(o.MinArea, DefaultMinArea)
	o.MaxArea = cmp.Or(o.MaxArea, DefaultMaxArea)
	o.MinMargin = cmp.Or(o.MinMargin, DefaultMinMargin)
	o.AreaIncrement = cmp.Or(o.AreaIncrement, DefaultAreaIncrement)
	o.MinForeground = cmp.Or(o.MinForeground, DefaultMinForeground)
	return o, nil
}

// MSCR returns the maximally stable colour regions of img (Forssén,
// "Maximally stable colour regions for recognition and matching", CVPR
// 2007) whose mean foreground mask (nil: all foreground) is at least
// o.MinForeground, in the order they are found.
//
// The pixels are the nodes of a graph whose edges join 4-neighbours,
// weighted by the chi-squared colour distance
// d(p, q) = Σ_c (p_c − q_c)²/(p_c + q_c) over R, G and B (Forssén's
// Eqn. 2; 0/0 counts 0). Agglomerative clustering merges the edges in
// increasing order over T evolution steps: step t merges every edge up to
// the distance d_t of the ⌈tE/T⌉-th smallest of the E edges, so that
// each step merges about as many edges (Forssén chooses d_t from the
// distribution of edge distances with the same aim). A region keeps the
// distance d* and area a* at which its area last grew by more than the
// factor a = o.AreaIncrement; when a merge at step t would make it larger
// than a·a*, the region as it was is stable over [d*, d_t], and it is a
// maximally stable region when d_t − d* ≥ o.MinMargin and its area is
// within [o.MinArea, o.MaxArea·W·H]. Forssén blurs the edge image first;
// MSCR does not, since 64×32 crops have little detail to spare.
//
// It returns an error when img is invalid (appearance.Image.Validate),
// mask has the wrong length or a value outside [0, 1], or o is invalid.
func MSCR(img *appearance.Image, mask []float64, o MSCROptions) ([]Blob, error) {
	var ws Workspace
	return ws.MSCR(nil, img, mask, o)
}

// mscrWork holds MSCR's buffers.
type mscrWork struct {
	edges  []edge
	parent []int32
	region []region
}

// edge joins pixels a and b at colour distance d.
type edge struct {
	d    float64
	a, b int32
}

// region is the state of a cluster, kept at its root pixel.
type region struct {
	area     int
	r, g, b  float64 // colour sums
	x, y, m  float64 // coordinate and mask sums
	snapArea int     // a*
	snapDist float64 // d*
}

// MSCR is the function MSCR on the workspace's buffers, appending the
// regions to dst.
func (ws *Workspace) MSCR(dst []Blob, img *appearance.Image, mask []float64, o MSCROptions) ([]Blob, error) {
	o, err := o.resolve()
	if err != nil {
		return dst, err
	}
	if err := img.Validate(); err != nil {
		return dst, err
	}
	w, h := img.W, img.H
	if err := checkMask(mask, w, h); err != nil {
		return dst, err
	}
	n := w * h
	mw := &ws.mscr
	mw.edges = mw.edges[:0]
	for y := range h {
		for x := range w {
			i := y*w + x
			if x+1 < w {
				mw.edges = append(mw.edges, edge{chi2(img, i, i+1), int32(i), int32(i + 1)})
			}
			if y+1 < h {
				mw.edges = append(mw.edges, edge{chi2(img, i, i+w), int32(i), int32(i + w)})
			}
		}
	}
	if len(mw.edges) == 0 {
		return dst, nil
	}
	slices.SortStableFunc(mw.edges, func(p, q edge) int { return cmp.Compare(p.d, q.d) })
	if cap(mw.parent) < n {
		mw.parent, mw.region = make([]int32, n), make([]region, n)
	}
	mw.parent, mw.region = mw.parent[:n], mw.region[:n]
	for i := range n {
		mw.parent[i] = int32(i)
		m := 1.0
		if mask != nil {
			m = mask[i]
		}
		mw.region[i] = region{area: 1, r: img.R[i], g: img.G[i], b: img.B[i], x: float64(i % w), y: float64(i / w), m: m, snapArea: 1}
	}
	maxArea := o.MaxArea * float64(n)
	emit := func(r *region, d float64) {
		if d-r.snapDist < o.MinMargin || r.area < o.MinArea || float64(r.area) > maxArea || r.m < o.MinForeground*float64(r.area) {
			return
		}
		a := float64(r.area)
		l, aa, bb := lab(r.r/a, r.g/a, r.b/a)
		dst = append(dst, Blob{L: l, A: aa, B: bb, X: r.x / a, Y: r.y / a, Area: r.area})
	}
	e, ne := 0, len(mw.edges)
	for t := 1; t <= o.Steps && e < ne; t++ {
		dt := mw.edges[(t*ne+o.Steps-1)/o.Steps-1].d
		for ; e < ne && mw.edges[e].d <= dt; e++ {
			ra, rb := mw.find(mw.edges[e].a), mw.find(mw.edges[e].b)
			if ra == rb {
				continue
			}
			p, q := &mw.region[ra], &mw.region[rb]
			if q.area > p.area || q.area == p.area && rb < ra {
				ra, rb, p, q = rb, ra, q, p
			}
			area := p.area + q.area
			grownP := float64(area) > o.AreaIncrement*float64(p.snapArea)
			if grownP {
				emit(p, dt)
			}
			if float64(area) > o.AreaIncrement*float64(q.snapArea) {
				emit(q, dt)
			}
			p.area = area
			p.r += q.r
			p.g += q.g
			p.b += q.b
			p.x += q.x
			p.y += q.y
			p.m += q.m
			if grownP {
				p.snapArea, p.snapDist = area, dt
			}
			mw.parent[rb] = ra
		}
	}
	return dst, nil
}

// find returns the root of pixel i's cluster, halving the path.
func (mw *mscrWork) find(i int32) int32 {
	for mw.parent[i] != i {
		mw.parent[i] = mw.parent[mw.parent[i]]
		i = mw.parent[i]
	}
	return i
}

// chi2 returns the chi-squared colour distance of pixels i and j.
func chi2(img *appearance.Image, i, j int) float64 {
	var d float64
	for _, p := range [3][]float64{img.R, img.G, img.B} {
		if s := p[i] + p[j]; s > 0 {
			d += (p[i] - p[j]) * (p[i] - p[j]) / s
		}
	}
	return d
}

// lab returns the CIELAB coordinates (D65 white) of the sRGB colour
// (r, g, b) in [0, 1] (IEC 61966-2-1 decoding; CIE 15:2004).
func lab(r, g, b float64) (l, a, bb float64) {
	r, g, b = linear(r), linear(g), linear(b)
	x := (0.4124564*r + 0.3575761*g + 0.1804375*b) / 0.95047
	y := 0.2126729*r + 0.7151522*g + 0.0721750*b
	z := (0.0193339*r + 0.1191920*g + 0.9503041*b) / 1.08883
	fx, fy, fz := labF(x), labF(y), labF(z)
	return 116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)
}

// linear decodes an sRGB component.
func linear(c float64) float64 {
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// labF is CIELAB's f(t).
func labF(t float64) float64 {
	const e = 216.0 / 24389
	if t > e {
		return math.Cbrt(t)
	}
	return (24389.0/27*t + 16) / 116
}
