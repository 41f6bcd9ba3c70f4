package covariance

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
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
//	grid:RxC     R rows × C columns of equal regions (Grid), e.g. grid:8x8
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
	// Whole puts the whole image first, before the regions of a grid or
	// blocks.
	Whole bool
	// Then is the layout whose regions follow these, nil for none.
	Then *Layout
}

// ParseLayout parses a layout specification "whole", "grid:RxC" or
// "blocks:N:S" (see Layout). It returns an error wrapping ErrRegion for
// malformed text, R or C < 1, N < 1, S < 2 or more than MaxRegions
// regions.
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
		return Layout{}, fmt.Errorf("%w: region layout %q: %s; want whole, grid:RxC (e.g. grid:8x8), grid:RxC:S (e.g. grid:3x3:16), blocks:N:S (e.g. blocks:50:32), or whole+ before one of the last three", ErrRegion, s, why)
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
		if why == "" && windows {
			var err error
			if l.Side, err = parseCount(side); err != nil {
				why = fmt.Sprintf("window side %q: %v", side, err)
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
			out, err = appendGrid(out, w, h, l.Rows, l.Cols)
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

// Windows returns rows×cols windows of side×side pixels spread evenly
// over a w×h image, listed row by row: window (i, j) has its top-left
// corner at column ⌊j·(w−side)/(cols−1)⌉ and row ⌊i·(h−side)/(rows−1)⌉
// (rounded to nearest; a single column or row is centred, rounding
// down). Windows overlap when they do not tile the image: grid:3x3:16 in
// a 32×32 face gives nine 16×16 windows at stride 8, the layout of the
// part-based region covariances of Pang et al. (IEEE TCSVT 2008). The
// error wraps ErrRegion when a window does not fit the image.
func Windows(w, h, rows, cols, side int) ([]Region, error) {
	if err := (Layout{Kind: LayoutGrid, Rows: rows, Cols: cols, Side: side}).Check(); err != nil {
		return nil, err
	}
	if side < 2 {
		return nil, fmt.Errorf("%w: window side %d: must be >= 2", ErrRegion, side)
	}
	return appendWindows(nil, w, h, rows, cols, side)
}

func appendWindows(dst []Region, w, h, rows, cols, side int) ([]Region, error) {
	if side > w || side > h {
		return dst, fmt.Errorf("%w: %dx%d windows do not fit the %dx%d image", ErrRegion, side, side, w, h)
	}
	at := func(k, n, free int) int {
		if n == 1 {
			return free / 2
		}
		return (2*k*free + n - 1) / (2 * (n - 1))
	}
	for i := range rows {
		for j := range cols {
			dst = append(dst, Region{X: at(j, cols, w-side), Y: at(i, rows, h-side), W: side, H: side})
		}
	}
	return dst, nil
}

// Grid splits a w×h image into rows×cols regions of equal size
// (w/cols)×(h/rows), listed row by row (region k is in grid row k/cols and
// column k%cols). Sizes that are not multiples are rejected, not rounded:
// equal regions keep every descriptor's sample size n the same, as in the
// paper's 256×256 images split into 64 regions of 32×32 (Sec. 5.1.3); resize
// the image to a multiple instead. The error wraps ErrRegion and also
// reports rows or cols < 1, more than MaxRegions cells, cells of fewer
// than 2 pixels and an image of more than MaxRegions pixels (larger than
// any image covpipe reads, imageio.MaxPixels), whose grid could hold
// more regions than memory.
func Grid(w, h, rows, cols int) ([]Region, error) {
	if err := (Layout{Kind: LayoutGrid, Rows: rows, Cols: cols}).Check(); err != nil {
		return nil, err
	}
	return appendGrid(nil, w, h, rows, cols)
}

func appendGrid(dst []Region, w, h, rows, cols int) ([]Region, error) {
	if w > MaxRegions/max(h, 1) {
		return dst, fmt.Errorf("%w: grid %dx%d of a %dx%d image: more than %d pixels, the largest image (imageio.MaxPixels)", ErrRegion, rows, cols, w, h, MaxRegions)
	}
	if w < 1 || h < 1 || w%cols != 0 || h%rows != 0 {
		return dst, fmt.Errorf("%w: grid %dx%d does not divide the %dx%d image into equal regions (width must be a multiple of %d columns, height of %d rows)",
			ErrRegion, rows, cols, w, h, cols, rows)
	}
	cw, ch := w/cols, h/rows
	if cw*ch < 2 {
		return dst, fmt.Errorf("%w: grid %dx%d of the %dx%d image gives %dx%d regions; a covariance needs at least 2 pixels", ErrRegion, rows, cols, w, h, cw, ch)
	}
	for i := range rows {
		for j := range cols {
			dst = append(dst, Region{X: j * cw, Y: i * ch, W: cw, H: ch})
		}
	}
	return dst, nil
}

// blockStream is the second PCG seed (the stream) of RandomBlocks: the
// bytes of "covpipe".
const blockStream = 0x636f7670697065

// RandomBlocks returns n square blocks of side×side pixels placed
// independently and uniformly over the (w−side+1)·(h−side+1) valid top-left
// corners of a w×h image, as the paper's 50 random 32×32 blocks per Brodatz
// image (Sec. 5.2.2). Blocks may overlap. The positions are a deterministic
// function of seed, the same on every platform: block k takes the
// (2k+1)-th and (2k+2)-th draws of rand.NewPCG(seed, 0x636f7670697065),
// mapped to [0, w−side] and [0, h−side] as rand.Rand.IntN does on 64-bit
// platforms, for its X and Y. Use
// a different seed per image, derived from the run's seed and the image's
// index, so that results do not depend on the order images are processed.
// The error wraps ErrRegion and reports n < 1, n > MaxRegions, side < 2
// and a side larger than the image.
func RandomBlocks(w, h, n, side int, seed uint64) ([]Region, error) {
	if err := (Layout{Kind: LayoutBlocks, N: n, Side: side}).Check(); err != nil {
		return nil, err
	}
	return appendBlocks(make([]Region, 0, n), w, h, n, side, seed)
}

func appendBlocks(dst []Region, w, h, n, side int, seed uint64) ([]Region, error) {
	if side > w || side > h {
		return dst, fmt.Errorf("%w: %dx%d blocks do not fit in the %dx%d image", ErrRegion, side, side, w, h)
	}
	var src rand.PCG
	src.Seed(seed, blockStream)
	for range n {
		x := uniform(&src, uint64(w-side+1))
		y := uniform(&src, uint64(h-side+1))
		dst = append(dst, Region{X: int(x), Y: int(y), W: side, H: side})
	}
	return dst, nil
}

// uniform returns an integer uniform in [0, n), n ≥ 1, from the 64-bit
// outputs of src by Lemire's multiply-and-reject method ("Fast random
// integer generation in an interval", ACM TOMACS 2019). It is the algorithm
// of rand.Rand.IntN on 64-bit platforms, written out so that block
// positions are the same on every platform and need no allocation.
func uniform(src *rand.PCG, n uint64) uint64 {
	if n&(n-1) == 0 {
		return src.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}
