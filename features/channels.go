package features

import (
	"math"

	"github.com/covpipe/covpipe/imageio"
)

// channel returns the family of the image plane C that plane selects,
// named name:
//
//	C, Cx, Cy, Cxx, Cyy   the plane and its derivatives
//	C', C''               the groups Cx, Cy and Cxx, Cyy
func channel(name string, reads input, plane func(*imageio.Image) []float64) family {
	return family{
		planes: []string{name, name + "x", name + "y", name + "xx", name + "yy"},
		groups: []group{
			{name + "'", []string{name + "x", name + "y"}},
			{name + "''", []string{name + "xx", name + "yy"}},
		},
		reads: reads,
		build: func([]bool, settings) (func() pass, error) {
			return func() pass { return &channelPass{plane: plane} }, nil
		},
	}
}

// channelPass copies the channel and makes its derivatives in one pass
// over it.
type channelPass struct {
	plane func(*imageio.Image) []float64
	row   []float64 // destination of the derivatives the set does not keep
}

func (p *channelPass) compute(out [][]float64, img *imageio.Image) error {
	src := p.plane(img)
	if out[0] != nil {
		copy(out[0], src)
	}
	if out[1] == nil && out[2] == nil && out[3] == nil && out[4] == nil {
		return nil
	}
	if cap(p.row) < img.W {
		p.row = make([]float64, img.W)
	}
	derivatives(out[1], out[2], out[3], out[4], src, p.row, img.W)
	return nil
}

// derivatives writes the four derivative planes of src, whose rows have
// w pixels, with the edge pixel replicated beyond the border:
//
//	dx  = |C(x+1, y) − C(x−1, y)|
//	dy  = |C(x, y+1) − C(x, y−1)|
//	dxx = |C(x+1, y) + C(x−1, y) − 2C(x, y)|
//	dyy = |C(x, y+1) + C(x, y−1) − 2C(x, y)|
//
// One pass computes all four, reading each source value once; an output
// the set does not keep is nil and goes to the row of scratch, which has
// capacity for w values.
func derivatives(dx, dy, dxx, dyy, src, scratch []float64, w int) {
	n := len(src)
	for i := 0; i < n; i += w {
		row := func(p []float64) []float64 {
			if p == nil {
				return scratch[:w]
			}
			return p[i : i+w]
		}
		ox, oy, oxx, oyy := row(dx), row(dy), row(dxx), row(dyy)
		c := src[i : i+w]
		up, down := src[max(i-w, 0):][:w], src[min(i+w, n-w):][:w]
		// The border columns, where the edge pixel stands in for its
		// missing neighbour.
		for _, x := range [...]int{0, w - 1} {
			l, r := c[max(x-1, 0)], c[min(x+1, w-1)]
			ox[x] = math.Abs(r - l)
			oxx[x] = math.Abs(r + l - 2*c[x])
			oy[x] = math.Abs(down[x] - up[x])
			oyy[x] = math.Abs(down[x] + up[x] - 2*c[x])
		}
		if w < 3 {
			continue
		}
		// Equal lengths let the compiler drop the bounds checks.
		k := w - 2
		L, C, R, U, D := c[:k], c[1:1+k], c[2:2+k], up[1:1+k], down[1:1+k]
		X, Y, XX, YY := ox[1:1+k], oy[1:1+k], oxx[1:1+k], oyy[1:1+k]
		for x := range C {
			m, l, r, u, d := C[x], L[x], R[x], U[x], D[x]
			X[x] = math.Abs(r - l)
			XX[x] = math.Abs(r + l - 2*m)
			Y[x] = math.Abs(d - u)
			YY[x] = math.Abs(d + u - 2*m)
		}
	}
}
