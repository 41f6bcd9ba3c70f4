package features

import (
	"errors"
	"fmt"
	"slices"

	"github.com/covpipe/covpipe/imageio"
)

// Map holds the feature planes of one image: Planes[k][y·W+x] is feature
// Names[k] at pixel (x, y).
type Map struct {
	W, H   int
	Names  []string
	Planes [][]float64
}

// Workspace holds the per-goroutine state of computing one Set: for each
// family of planes the set uses, its buffers for the current image size
// (a gabor.Workspace, the planes the set does not keep). It adapts to the
// image size, allocating when the size changes. A Workspace is not safe for
// concurrent use: give each goroutine its own.
type Workspace struct {
	set      *Set
	passes   []pass
	preparer []preparer // the passes that are preparers
	// out[k] is the destination of the planes of s.parts[k], as
	// pass.compute takes them.
	out [][][]float64
}

// NewWorkspace returns a Workspace for computing s.
func (s *Set) NewWorkspace() *Workspace {
	ws := &Workspace{set: s, passes: make([]pass, len(s.parts)), out: make([][][]float64, len(s.parts))}
	for k, p := range s.parts {
		ws.passes[k] = p.newPass()
		if p, ok := ws.passes[k].(preparer); ok {
			ws.preparer = append(ws.preparer, p)
		}
		ws.out[k] = make([][]float64, len(p.index))
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
	for _, p := range ws.preparer {
		if err := p.prepare(img.W, img.H); err != nil {
			return fmt.Errorf("features: %w", err)
		}
	}
	dst.resize(s, img.W, img.H)
	for k, p := range s.parts {
		out := ws.out[k]
		for i, j := range p.index {
			if j >= 0 {
				out[i] = dst.Planes[j]
			}
		}
		if err := ws.passes[k].compute(out, img); err != nil {
			return fmt.Errorf("features: %w", err)
		}
	}
	return nil
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
	for _, p := range s.parts {
		if p.fam.check != nil {
			if err := p.fam.check(w, h); err != nil {
				return fmt.Errorf("features: %w", err)
			}
		}
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

// resize gives m the names of s and Dim planes of w·h values, reusing its
// planes when they are all large enough.
func (m *Map) resize(s *Set, w, h int) {
	n, d := w*h, len(s.names)
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
