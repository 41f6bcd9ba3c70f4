package features

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/gabor"
	"github.com/covpipe/covpipe/imageio"
)

// Map holds the feature planes of one image: Planes[k][y·W+x] is feature
// Names[k] at pixel (x, y).
type Map struct {
	W, H   int
	Names  []string
	Planes [][]float64
}

// Workspace holds the per-goroutine state of computing one Set: the
// gabor.Workspace of the current image size and buffers for intermediate
// planes that the set does not keep. It adapts to the image size,
// allocating when the size changes. A Workspace is not safe for concurrent
// use: give each goroutine its own.
type Workspace struct {
	set  *Set
	gw   *gabor.Workspace
	gdst [][]float64 // the bank's 40 destination planes, when s has Gabor planes
	gbuf []float64   // backing of the planes the set does not keep
	row  []float64   // destination of the derivatives the set does not keep
}

// NewWorkspace returns a Workspace for computing s.
func (s *Set) NewWorkspace() *Workspace {
	ws := &Workspace{set: s}
	if s.bank != nil {
		ws.gdst = make([][]float64, gabor.NumPlanes)
	}
	return ws
}

// Compute is the allocating form of ComputeTo.
func (s *Set) Compute(img *imageio.Image) (*Map, error) {
	m := new(Map)
	if err := s.ComputeTo(m, img, nil); err != nil {
		return nil, err
	}
	return m, nil
}

// ComputeTo writes the feature planes of img into dst: dst.W, dst.H =
// img.W, img.H, dst.Names = s.Names() and dst.Planes[k][y·W+x] = F_k(x, y)
// with the definitions of the package documentation (paper, Sec. 5.1). It
// reuses dst's planes when there are Dim of them, each with capacity for
// W·H values, so that a caller who keeps them across calls must copy them;
// they must not overlap each other or img's planes. ws must come from
// s.NewWorkspace; nil allocates a temporary one. ComputeTo allocates nothing
// when dst and ws have been used for an image of the same size.
//
// It returns an error, and leaves dst unchanged, for a nil dst, a workspace
// of another Set, and the bad images listed in the package documentation.
func (s *Set) ComputeTo(dst *Map, img *imageio.Image, ws *Workspace) error {
	if dst == nil {
		return errors.New("features: nil destination Map")
	}
	if err := s.check(img); err != nil {
		return err
	}
	if ws == nil {
		ws = s.NewWorkspace()
	} else if ws.set != s {
		return errors.New("features: workspace belongs to another Set")
	}
	w, h := img.W, img.H
	if cap(ws.row) < w {
		ws.row = make([]float64, w)
	}
	if s.bank != nil {
		if err := ws.resize(w, h); err != nil {
			return fmt.Errorf("features: %w", err)
		}
	}
	dst.resize(s, w, h)

	// The derivative planes of each channel (I, R, G, B) are made in one
	// pass; deriv[c][op−opDx] is the destination, nil when not kept.
	var deriv [4][4][]float64
	var hasDeriv [4]bool
	for k, p := range s.planes {
		out := dst.Planes[k]
		switch {
		case p.src == srcX:
			fillX(out, w)
		case p.src == srcY:
			fillY(out, w)
		case p.src == srcGabor:
			ws.gdst[p.gabor] = out
		case p.op == opValue:
			copy(out, channel(img, p.src))
		default:
			c := p.src - srcGray
			deriv[c][p.op-opDx] = out
			hasDeriv[c] = true
		}
	}
	for c, d := range deriv {
		if hasDeriv[c] {
			derivatives(d[0], d[1], d[2], d[3], channel(img, srcGray+source(c)), ws.row, w)
		}
	}
	if s.bank != nil {
		if err := s.bank.MagnitudesTo(ws.gdst, img.Gray, w, h, ws.gw); err != nil {
			// Unreachable: check has validated what the bank checks.
			return fmt.Errorf("features: %w", err)
		}
	}
	return nil
}

// channel returns the plane of img that src names, one of srcGray, srcR,
// srcG, srcB.
func channel(img *imageio.Image, src source) []float64 {
	switch src {
	case srcR:
		return img.R
	case srcG:
		return img.G
	case srcB:
		return img.B
	}
	return img.Gray
}

// check validates the planes of img that s reads.
func (s *Set) check(img *imageio.Image) error {
	if img == nil {
		return errors.New("features: nil image")
	}
	w, h := img.W, img.H
	if w < 1 || h < 1 || w > imageio.MaxPixels/h {
		return fmt.Errorf("features: image size %dx%d, want 1 ≤ W, H and W·H ≤ %d", w, h, imageio.MaxPixels)
	}
	if s.bank != nil && (w > gabor.MaxSide || h > gabor.MaxSide) {
		return fmt.Errorf("features: image size %dx%d exceeds %d, the largest side for Gabor planes", w, h, gabor.MaxSide)
	}
	var named [4]struct {
		name string
		p    []float64
	}
	n := 0
	if s.needGray {
		named[n].name, named[n].p = "grey", img.Gray
		n++
	}
	if s.colour != "" {
		if img.R == nil || img.G == nil || img.B == nil {
			return fmt.Errorf("features: feature %q needs colour planes R, G, B, which the image lacks (load it with imageio.Options{Color: true})", s.colour)
		}
		named[n].name, named[n].p = "R", img.R
		named[n+1].name, named[n+1].p = "G", img.G
		named[n+2].name, named[n+2].p = "B", img.B
		n += 3
	}
	for _, c := range named[:n] {
		if len(c.p) != w*h {
			return fmt.Errorf("features: %s plane of a %dx%d image has %d values, want %d", c.name, w, h, len(c.p), w*h)
		}
		if i := firstNonFinite(c.p); i >= 0 {
			return fmt.Errorf("features: %s plane pixel (x=%d, y=%d) is %v", c.name, i%w, i/w, c.p[i])
		}
	}
	return nil
}

// firstNonFinite returns the index of the first NaN or infinite value of
// p, or −1. v−v is 0 for every finite v and NaN otherwise; testing the sum
// of four at a time halves the cost of the scan.
func firstNonFinite(p []float64) int {
	i := 0
	for ; i+4 <= len(p); i += 4 {
		q := p[i : i+4 : i+4]
		if (q[0]-q[0])+(q[1]-q[1])+(q[2]-q[2])+(q[3]-q[3]) != 0 {
			break
		}
	}
	for ; i < len(p); i++ {
		if p[i]-p[i] != 0 {
			return i
		}
	}
	return -1
}

// resize makes ws ready for w×h images: a gabor.Workspace of that size and
// buffers for the Gabor planes that s does not keep.
func (ws *Workspace) resize(w, h int) error {
	if ws.gw != nil {
		if gw, gh := ws.gw.Size(); gw == w && gh == h {
			return nil
		}
	}
	gw, err := ws.set.bank.NewWorkspace(w, h)
	if err != nil {
		return err
	}
	n := w * h
	unused := 0
	for _, k := range ws.set.gaborOut {
		if k < 0 {
			unused++
		}
	}
	if cap(ws.gbuf) < unused*n {
		ws.gbuf = make([]float64, unused*n)
	}
	j := 0
	for i, k := range ws.set.gaborOut {
		if k < 0 {
			ws.gdst[i] = ws.gbuf[j*n : (j+1)*n : (j+1)*n]
			j++
		}
	}
	ws.gw = gw
	return nil
}

// resize gives m the names of s and Dim planes of w·h values, reusing its
// planes when they are all large enough.
func (m *Map) resize(s *Set, w, h int) {
	n, d := w*h, len(s.planes)
	m.W, m.H = w, h
	if !slices.Equal(m.Names, s.names) {
		m.Names = s.Names()
	}
	reuse := len(m.Planes) == d
	for _, p := range m.Planes {
		reuse = reuse && cap(p) >= n
	}
	if reuse {
		for k := range m.Planes {
			m.Planes[k] = m.Planes[k][:n]
		}
		return
	}
	// One allocation, with the planes staggered by a cache line: planes
	// whose starts differ by a multiple of 4 KiB (any power-of-two size)
	// compete for the same cache sets and alias in the store buffer when a
	// pass writes several of them.
	const stagger = 8
	stride := n + stagger
	buf := make([]float64, d*stride)
	m.Planes = make([][]float64, d)
	for k := range m.Planes {
		m.Planes[k] = buf[k*stride : k*stride+n : k*stride+n]
	}
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
func fillY(dst []float64, w int) {
	for y, i := 0, 0; i < len(dst); y, i = y+1, i+w {
		row := dst[i : i+w]
		v := float64(y)
		for x := range row {
			row[x] = v
		}
	}
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
// length w.
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
