package covariance

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrRegion is wrapped by the errors for a region that does not fit the
// image or is too small, for a malformed region string or layout
// specification, and for a layout that cannot be placed in an image.
var ErrRegion = errors.New("covariance: invalid region")

// Region is a pixel rectangle of an image: the columns X ≤ x < X+W and the
// rows Y ≤ y < Y+H (half-open, origin at the top left).
//
// Its string form, used in manifests, is the X11 geometry "WxH+X+Y", for
// example "32x32+64+0" for the 32×32 block whose top-left pixel is in
// column 64 and row 0; ParseRegion reads it back.
type Region struct {
	X, Y, W, H int
}

// Whole returns the region covering a w×h image.
func Whole(w, h int) Region { return Region{W: w, H: h} }

// Area returns the number of pixels W·H of r.
func (r Region) Area() int { return r.W * r.H }

// String returns r as "WxH+X+Y".
func (r Region) String() string {
	return fmt.Sprintf("%dx%d+%d+%d", r.W, r.H, r.X, r.Y)
}

// Validate checks that r lies inside a w×h image and holds at least two
// pixels, the fewest for which the unbiased estimator (division by n−1) is
// defined. It returns an error wrapping ErrRegion otherwise.
func (r Region) Validate(w, h int) error {
	switch {
	case r.X < 0 || r.Y < 0 || r.W < 1 || r.H < 1:
		return fmt.Errorf("%w: %v: negative position or empty size", ErrRegion, r)
	case r.W > w || r.X > w-r.W || r.H > h || r.Y > h-r.H:
		return fmt.Errorf("%w: %v extends beyond the %dx%d image", ErrRegion, r, w, h)
	case r.W*r.H < 2:
		return fmt.Errorf("%w: %v has %d pixel; the unbiased covariance needs at least 2", ErrRegion, r, r.W*r.H)
	}
	return nil
}

// ParseRegion parses the string form "WxH+X+Y" of a region (see Region),
// with non-negative decimal integers and no spaces. It checks only the
// syntax and W, H ≥ 1; Validate checks the region against an image.
func ParseRegion(s string) (Region, error) {
	bad := func(why string) (Region, error) {
		return Region{}, fmt.Errorf("%w: %q: %s; want WxH+X+Y, for example 32x32+64+0", ErrRegion, s, why)
	}
	size, pos, ok := strings.Cut(s, "+")
	if !ok {
		return bad("no position")
	}
	ws, hs, ok := strings.Cut(size, "x")
	if !ok {
		return bad("no size WxH")
	}
	xs, ys, ok := strings.Cut(pos, "+")
	if !ok {
		return bad("no Y position")
	}
	var r Region
	for _, f := range []struct {
		dst  *int
		s    string
		name string
		min  int
	}{{&r.W, ws, "width", 1}, {&r.H, hs, "height", 1}, {&r.X, xs, "X", 0}, {&r.Y, ys, "Y", 0}} {
		v, err := parseCount(f.s)
		if err != nil {
			return bad(fmt.Sprintf("%s %q: %v", f.name, f.s, err))
		}
		if v < f.min {
			return bad(fmt.Sprintf("%s %d must be >= %d", f.name, v, f.min))
		}
		*f.dst = v
	}
	return r, nil
}

// parseCount parses a non-empty string of decimal digits (no sign) that
// fits an int.
func parseCount(s string) (int, error) {
	if s == "" {
		return 0, errors.New("empty number")
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, errors.New("not a non-negative decimal integer")
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, errors.New("out of range")
	}
	return v, nil
}

// LayoutKind says how a Layout places regions in an image.
type LayoutKind int

const (
	// LayoutWhole is the single region covering the image.
	LayoutWhole LayoutKind = iota
	// LayoutGrid is a regular grid of Rows×Cols equal regions (Grid).
	LayoutGrid
	// LayoutBlocks is N random square blocks of side Side (RandomBlocks).
	LayoutBlocks
)

// Layout is a placement of regions that adapts to the image size: the
// value of the CLI --regions flag and of configuration files. Its string
// form is one of
//
//	whole        the whole image (Whole)
//	grid:RxC     R rows × C columns of equal regions (Grid), e.g. grid:8x8;
//	             the grid must divide the image
//	grid:RxC:P   the same with the remainder policy P (Remainder) for
//	             sizes the grid does not divide: crop (equal cells,
//	             the leftover pixels cropped evenly from both sides),
//	             spread (cells whose sizes differ by at most one pixel,
//	             covering the image) or fail (as grid:RxC)
//	grid:RxC:S   R rows × C columns of S×S windows spread evenly over the
//	             image, overlapping when they do not tile it (Windows),
//	             e.g. grid:3x3:16, nine 16×16 windows at stride 8 in 32×32
//	blocks:N:S   N random S×S blocks (RandomBlocks), e.g. blocks:50:32
//
// and any of the last three may follow "whole+" (e.g. whole+grid:2x2),
// which puts the whole image first, before the layout's regions. Layouts
// joined by commas place the regions of each in turn (Then), e.g.
// "whole+grid:3x3:16,whole+grid:2x2" for 10 + 5 regions.
//
// The paper's protocols are grid:8x8 on images downsampled to 256×256
// (texture mosaics, Sec. 5.1.3), blocks:50:32 (Brodatz dictionary
// learning, Sec. 5.2.2) and whole (faces, 64×64, Sec. 5.1.2, and
// pedestrians, 64×32, Sec. 5.1.4).
type Layout struct {
	Kind LayoutKind
	// Rows and Cols are the grid size of LayoutGrid.
	Rows, Cols int
	// N is the block count of LayoutBlocks; Side is the side of its
	// blocks and, when nonzero, of LayoutGrid's windows (Windows).
	N, Side int
	// Remainder says what a grid of cells (Side 0) does with an image
	// size it does not divide; the zero value fails.
	Remainder Remainder
	// Whole puts the whole image first, before the regions of a grid or
	// blocks.
	Whole bool
	// Then is the layout whose regions follow these, nil for none.
	Then *Layout
}

// ParseLayout parses a layout specification such as "whole", "grid:RxC",
// "grid:RxC:crop" or "blocks:N:S" (see Layout). It returns an error
// wrapping ErrRegion for malformed text, R or C < 1, N < 1, S < 2 or more
// than MaxRegions regions.
func ParseLayout(s string) (Layout, error) {
	if first, rest, ok := strings.Cut(s, ","); ok {
		l, err := ParseLayout(first)
		if err != nil {
			return Layout{}, err
		}
		then, err := ParseLayout(rest)
		if err != nil {
			return Layout{}, err
		}
		l.Then = &then
		if err := l.Check(); err != nil {
			return Layout{}, fmt.Errorf("region layout %q: %w", s, err)
		}
		return l, nil
	}
	bad := func(why string) (Layout, error) {
		return Layout{}, fmt.Errorf("%w: region layout %q: %s; want whole, grid:RxC (e.g. grid:8x8), grid:RxC:crop or grid:RxC:spread (e.g. grid:3x3:crop), grid:RxC:S (e.g. grid:3x3:16), blocks:N:S (e.g. blocks:50:32), or whole+ before one of the last three", ErrRegion, s, why)
	}
	var l Layout
	rest, whole := strings.CutPrefix(s, "whole+")
	kind, args, _ := strings.Cut(rest, ":")
	var why string
	switch kind {
	case "whole":
		if rest != "whole" || whole {
			return bad("whole takes no parameters")
		}
		return Layout{Kind: LayoutWhole}, nil
	case "grid":
		l.Kind = LayoutGrid
		counts, side, windows := strings.Cut(args, ":")
		l.Rows, l.Cols, why = parseCounts(counts, "x", "grid needs rows x columns", "grid rows", "grid columns")
		if r, ok := remainders[side]; why == "" && windows && ok {
			l.Remainder = r
		} else if why == "" && windows {
			var err error
			if l.Side, err = parseCount(side); err != nil {
				why = fmt.Sprintf("window side %q: %v (or a remainder policy: crop, spread or fail)", side, err)
			} else if l.Side < 2 {
				why = "window side must be >= 2"
			}
		}
	case "blocks":
		l.Kind = LayoutBlocks
		l.N, l.Side, why = parseCounts(args, ":", "blocks needs a count and a side", "block count", "block side")
	default:
		why = "unknown kind " + strconv.Quote(kind)
	}
	if why != "" {
		return bad(why)
	}
	l.Whole = whole
	if err := l.Check(); err != nil {
		return Layout{}, fmt.Errorf("region layout %q: %w", s, err)
	}
	return l, nil
}

// parseCounts parses the two counts of args, separated by sep, or says
// why not: need when sep is missing, else which count (named first or
// second) is malformed.
func parseCounts(args, sep, need, first, second string) (a, b int, why string) {
	as, bs, ok := strings.Cut(args, sep)
	if !ok {
		return 0, 0, need
	}
	var err error
	if a, err = parseCount(as); err != nil {
		return 0, 0, fmt.Sprintf("%s %q: %v", first, as, err)
	}
	if b, err = parseCount(bs); err != nil {
		return 0, 0, fmt.Sprintf("%s %q: %v", second, bs, err)
	}
	return a, b, ""
}

// MaxRegions bounds the regions a Layout places in one image: as many as
// the largest image has pixels (imageio.MaxPixels), which a grid of cells
// of at least two pixels never reaches, and more random blocks than any
// image has positions for. The regions alone take 32 bytes each, 2 GiB at
// the bound, and their descriptors d²·8 bytes each.
const MaxRegions = 1 << 26

// Count returns the number of regions l places in an image of any size
// it fits: 1 for the whole image, Rows·Cols for a grid, N for blocks, one
// more with Whole. It saturates at math.MaxInt for a grid whose product
// overflows.
func (l Layout) Count() int {
	n := 1
	switch l.Kind {
	case LayoutGrid:
		if l.Rows > 0 && l.Cols > math.MaxInt/l.Rows {
			return math.MaxInt
		}
		n = l.Rows * l.Cols
	case LayoutBlocks:
		n = l.N
	}
	if l.Whole && l.Kind != LayoutWhole && n < math.MaxInt {
		n++
	}
	if l.Then != nil {
		m := l.Then.Count()
		if n > math.MaxInt-m {
			return math.MaxInt
		}
		n += m
	}
	return n
}

// Layouts returns the layouts joined in l (Then), each alone, first to
// last.
func (l Layout) Layouts() []Layout {
	var out []Layout
	for p := &l; p != nil; p = p.Then {
		one := *p
		one.Then = nil
		out = append(out, one)
	}
	return out
}

// Check validates the parameters of l that do not depend on the image, as
// ParseLayout does for the text form: a known kind, R, C ≥ 1 for a grid,
// N ≥ 1 and S ≥ 2 for blocks, and at most MaxRegions regions. The error
// wraps ErrRegion.
func (l Layout) Check() error {
	if l.Then != nil {
		for _, one := range l.Layouts() {
			if err := one.Check(); err != nil {
				return err
			}
		}
		if l.Count() > MaxRegions {
			return fmt.Errorf("%w: %s: more than %d regions per image", ErrRegion, l, MaxRegions)
		}
		return nil
	}
	switch l.Kind {
	case LayoutWhole:
		return nil
	case LayoutGrid:
		if l.Side == 1 || l.Side < 0 {
			return fmt.Errorf("%w: grid window side %d: must be >= 2 (a covariance needs at least 2 pixels)", ErrRegion, l.Side)
		}
		if l.Rows < 1 || l.Cols < 1 {
			return fmt.Errorf("%w: grid %dx%d: rows and columns must be >= 1", ErrRegion, l.Rows, l.Cols)
		}
		if _, ok := remainderNames[l.Remainder]; !ok {
			return fmt.Errorf("%w: grid %dx%d: unknown remainder policy %d", ErrRegion, l.Rows, l.Cols, int(l.Remainder))
		}
		if l.Side > 0 && l.Remainder != RemainderFail {
			return fmt.Errorf("%w: grid %dx%d of %dx%d windows: a remainder policy is for grids of cells; windows spread over the image by themselves", ErrRegion, l.Rows, l.Cols, l.Side, l.Side)
		}
		if l.Count() > MaxRegions {
			return fmt.Errorf("%w: grid %dx%d: more than %d regions per image", ErrRegion, l.Rows, l.Cols, MaxRegions)
		}
		return nil
	case LayoutBlocks:
		if l.N < 1 {
			return fmt.Errorf("%w: %d blocks: the count must be >= 1", ErrRegion, l.N)
		}
		if l.N > MaxRegions {
			return fmt.Errorf("%w: %d blocks: more than %d regions per image", ErrRegion, l.N, MaxRegions)
		}
		if l.Side < 2 {
			return fmt.Errorf("%w: block side %d: must be >= 2 (a covariance needs at least 2 pixels)", ErrRegion, l.Side)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown region layout kind %d", ErrRegion, int(l.Kind))
}

// String returns the specification of l that ParseLayout reads back.
func (l Layout) String() string {
	if l.Then != nil {
		var parts []string
		for _, one := range l.Layouts() {
			parts = append(parts, one.String())
		}
		return strings.Join(parts, ",")
	}
	var s string
	switch l.Kind {
	case LayoutWhole:
		return "whole"
	case LayoutGrid:
		s = fmt.Sprintf("grid:%dx%d", l.Rows, l.Cols)
		if l.Side > 0 {
			s += fmt.Sprintf(":%d", l.Side)
		} else if l.Remainder != RemainderFail {
			s += ":" + l.Remainder.String()
		}
	case LayoutBlocks:
		s = fmt.Sprintf("blocks:%d:%d", l.N, l.Side)
	default:
		return fmt.Sprintf("LayoutKind(%d)", int(l.Kind))
	}
	if l.Whole {
		s = "whole+" + s
	}
	return s
}

// Regions returns the regions of l in a w×h image; seed is used by
// LayoutBlocks only (see RandomBlocks). It returns an error wrapping
// ErrRegion when l is invalid or does not fit the image.
func (l Layout) Regions(w, h int, seed uint64) ([]Region, error) {
	return l.AppendRegions(nil, w, h, seed)
}

// AppendRegions is Regions appending to dst, so that a caller processing
// many images reuses one slice. On error dst is returned unchanged.
func (l Layout) AppendRegions(dst []Region, w, h int, seed uint64) ([]Region, error) {
	if err := l.Check(); err != nil {
		return dst, err
	}
	if w < 1 || h < 1 {
		return dst, fmt.Errorf("%w: image size %dx%d", ErrRegion, w, h)
	}
	if l.Then != nil {
		out := dst
		for _, one := range l.Layouts() {
			var err error
			if out, err = one.AppendRegions(out, w, h, seed); err != nil {
				return dst, err
			}
		}
		return out, nil
	}
	r := Whole(w, h)
	if l.Kind == LayoutWhole || l.Whole {
		if err := r.Validate(w, h); err != nil {
			return dst, err
		}
	}
	out := dst
	if l.Whole {
		out = append(out, r)
	}
	var err error
	switch l.Kind {
	case LayoutGrid:
		if l.Side > 0 {
			out, err = appendWindows(out, w, h, l.Rows, l.Cols, l.Side)
		} else {
			out, err = appendGrid(out, w, h, l.Rows, l.Cols, l.Remainder)
		}
	case LayoutBlocks:
		out, err = appendBlocks(out, w, h, l.N, l.Side, seed)
	default:
		out = append(out, r)
	}
	if err != nil {
		return dst, err
	}
	return out, nil
}
