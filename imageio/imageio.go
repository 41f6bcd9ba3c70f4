package imageio

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"io"
	"os"

	"github.com/covpipe/covpipe/imageio/internal/jpegscale"

	// Decoders for the supported formats.
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"

	_ "github.com/covpipe/covpipe/netpbm"
)

// MaxPixels is the largest image, in pixels, that is decoded or produced;
// larger files are refused from their header, before the decoder allocates.
const MaxPixels = 1 << 26

// maxFileSize bounds the size of a file read into memory.
const maxFileSize = 1 << 30

// supportedFormats lists the formats whose decoders this package registers.
const supportedFormats = "bmp, gif, jpeg, pam, pbm, pgm, png, ppm, tiff"

// Image holds the planes of a loaded image, each row-major with W*H values
// (pixel (x, y) at index y*W+x) in [0,1] times Options.Scale; see the
// package documentation for the conversion.
type Image struct {
	// W and H are the planes' width and height: the resize target, or the
	// oriented source size.
	W, H int
	// Gray is the luminance plane 0.299 R + 0.587 G + 0.114 B; with
	// Options.Color, Gray[i] is the luminance of R[i], G[i], B[i].
	Gray []float64
	// R, G and B are the colour planes when Options.Color is set, else nil.
	R, G, B []float64

	// Format is the name of the decoder's format ("jpeg", "png", "pgm",
	// ...), empty for FromImage.
	Format string
	// SourceW and SourceH are the size of the decoded image as stored,
	// before orientation and resizing.
	SourceW, SourceH int
	// Depth is the bits per sample of the decoded image: 16 for 16-bit
	// types (also Netpbm files with a maxval other than 255), else 8.
	Depth int
	// Orientation is the EXIF orientation that was applied, 1 (upright)
	// when none.
	Orientation int
	// DecodeScale is 1 when the file was decoded at its full size, and 2,
	// 4 or 8 when a JPEG was decoded at 1/2, 1/4 or 1/8 of it (see
	// Options.JPEGScale).
	DecodeScale int
}

// Load reads, decodes and converts the image file at path; see Loader.Load.
// Use a Loader to load many files.
func Load(path string, opts Options) (*Image, error) {
	if _, err := opts.validate(); err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return convertOne(opts, func(l *Loader, dst *Image) error { return l.Load(path, dst) })
}

// Decode reads an encoded image from r to its end and converts it; see
// Loader.Decode.
func Decode(r io.Reader, opts Options) (*Image, error) {
	return convertOne(opts, func(l *Loader, dst *Image) error {
		data, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
		if err != nil {
			return fmt.Errorf("imageio: %w", err)
		}
		if len(data) > maxFileSize {
			return fmt.Errorf("imageio: input larger than %d bytes", maxFileSize)
		}
		return l.Decode(data, dst)
	})
}

// FromImage converts a decoded image; see Loader.FromImage.
func FromImage(img image.Image, opts Options) (*Image, error) {
	return convertOne(opts, func(l *Loader, dst *Image) error { return l.FromImage(img, dst) })
}

// convertOne makes one Image with a new Loader for opts, by conv, which
// calls one of the Loader's methods.
func convertOne(opts Options, conv func(l *Loader, dst *Image) error) (*Image, error) {
	l, err := NewLoader(opts)
	if err != nil {
		return nil, err
	}
	dst := new(Image)
	if err := conv(l, dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// Loader loads images with fixed Options, reusing its buffers: the file
// contents, the source-size planes, the resize intermediate and the
// resampling weight tables (cached per source and target size). A Loader
// is not safe for concurrent use; give each worker its own.
type Loader struct {
	opts Options
	buf  []byte
	src  planes  // conversion output, when it cannot go straight to dst
	rot  planes  // oriented planes, before resizing
	ws   scratch // of the conversion
	rs   resizer
	jd   jpegscale.Decoder // reduced-scale JPEG decoding
}

// NewLoader returns a Loader for opts. It returns an error when the options
// are invalid: a negative size, only one of Width and Height, an unknown
// filter, or a negative or non-finite Scale.
func NewLoader(opts Options) (*Loader, error) {
	o, err := opts.validate()
	if err != nil {
		return nil, err
	}
	return &Loader{opts: o, rs: resizer{filter: o.Filter}}, nil
}

// Load reads the image file at path into dst, reusing dst's planes when
// their capacity suffices (so a caller that keeps planes across calls must
// copy them). Errors name the path: "load PATH: ...". They come from
// reading the file, an empty file, an unknown format (errors.Is
// image.ErrFormat), a corrupt or truncated file, or an image larger than
// MaxPixels.
func (l *Loader) Load(path string, dst *Image) error {
	data, err := l.readFile(path)
	if err != nil {
		return fmt.Errorf("load %s: %w", path, err)
	}
	if err := l.decode(data, dst); err != nil {
		return fmt.Errorf("load %s: %w", path, err)
	}
	return nil
}

// Decode decodes the encoded image data into dst as Load does; errors start
// with "imageio: ".
func (l *Loader) Decode(data []byte, dst *Image) error {
	if err := l.decode(data, dst); err != nil {
		return fmt.Errorf("imageio: %w", err)
	}
	return nil
}

// FromImage converts img into dst (no orientation is applied: an
// image.Image carries no EXIF). It returns an error for an empty image or
// one larger than MaxPixels.
func (l *Loader) FromImage(img image.Image, dst *Image) error {
	dst.Format = ""
	if err := l.convert(img, 1, dst); err != nil {
		return fmt.Errorf("imageio: %w", err)
	}
	return nil
}

// readFile reads the file at path into the Loader's buffer.
func (l *Loader) readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return io.ReadAll(io.LimitReader(f, maxFileSize))
	}
	if st.Size() > maxFileSize {
		return nil, fmt.Errorf("file of %d bytes is larger than %d bytes", st.Size(), maxFileSize)
	}
	n := int(st.Size())
	if cap(l.buf) < n {
		l.buf = make([]byte, n)
	}
	l.buf = l.buf[:n]
	if _, err := io.ReadFull(f, l.buf); err != nil {
		return nil, err
	}
	return l.buf, nil
}

// decode decodes data, reads a JPEG's orientation and converts. A JPEG
// with a resize target may be decoded at reduced scale.
func (l *Loader) decode(data []byte, dst *Image) error {
	if l.decodeReducedJPEG(data, dst) {
		return nil
	}
	img, format, err := decodeImage(data)
	if err != nil {
		return err
	}
	orientation := 1
	if format == "jpeg" {
		orientation = jpegOrientation(data)
	}
	dst.Format = format
	return l.convert(img, orientation, dst)
}

// decodeImage decodes data with the registered decoder of its format, after
// checking the size in its header against MaxPixels.
func decodeImage(data []byte) (img image.Image, format string, err error) {
	// The decoders of the standard library and x/image are meant never to
	// panic, but they have had panics on hostile input; a corrupt file must
	// give an error, not bring down a worker pool.
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("decoding %s: decoder panicked on corrupt data: %v", format, r)
		}
	}()
	if len(data) == 0 {
		// Not "unknown format": nothing was written, or the copy was cut.
		return nil, "", errors.New("empty file (0 bytes)")
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if errors.Is(err, image.ErrFormat) {
		return nil, "", fmt.Errorf("%w; supported formats: %s", err, supportedFormats)
	}
	if err != nil {
		return nil, format, fmt.Errorf("decoding %s header: %w", format, err)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return nil, format, fmt.Errorf("%s image of %dx%d pixels exceeds the limit of %d pixels", format, cfg.Width, cfg.Height, MaxPixels)
	}
	img, format, err = image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, format, fmt.Errorf("decoding %s: %w", format, err)
	}
	return img, format, nil
}

// convert converts img, whose EXIF orientation is orientation, into dst.
func (l *Loader) convert(img image.Image, orientation int, dst *Image) error {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	if sw <= 0 || sh <= 0 {
		return fmt.Errorf("empty image (%dx%d)", sw, sh)
	}
	if int64(sw)*int64(sh) > MaxPixels {
		return fmt.Errorf("image of %dx%d pixels exceeds the limit of %d pixels", sw, sh, MaxPixels)
	}
	ow, oh := orientedSize(sw, sh, orientation)
	tw, th := l.opts.Width, l.opts.Height
	if tw == 0 {
		tw, th = ow, oh
	}
	resize := tw != ow || th != oh

	dst.W, dst.H = tw, th
	dst.SourceW, dst.SourceH = sw, sh
	dst.Depth = depthOf(img)
	dst.Orientation = orientation
	dst.DecodeScale = 1
	n := tw * th
	dst.Gray = grow(dst.Gray, n)
	if l.opts.Color {
		dst.R, dst.G, dst.B = grow(dst.R, n), grow(dst.G, n), grow(dst.B, n)
	} else {
		dst.R, dst.G, dst.B = nil, nil, nil
	}
	out := planes{dst.Gray, dst.R, dst.G, dst.B}
	if !resize {
		if orientation == 1 {
			convert(img, &out, &l.ws)
		} else {
			src := sizePlanes(&l.src, out, sw*sh)
			convert(img, &src, &l.ws)
			out.each(&src, func(d, s []float64) { orient(d, s, sw, sh, orientation) })
		}
		l.finish(dst, false)
		return nil
	}

	// With colour, only the colour planes are resized, and the grey plane
	// is their luminance.
	want := out
	if l.opts.Color {
		want.gray = nil
	}
	src := sizePlanes(&l.src, want, sw*sh)
	convert(img, &src, &l.ws)
	if orientation != 1 {
		rot := sizePlanes(&l.rot, want, sw*sh)
		rot.each(&src, func(d, s []float64) { orient(d, s, sw, sh, orientation) })
		src = rot
	}
	want.each(&src, func(d, s []float64) { l.rs.resize(d, s, ow, oh, tw, th) })
	l.finish(dst, true)
	return nil
}

// sizePlanes resizes the buffers in ws to n values for the planes that are
// set in like, and returns them.
func sizePlanes(ws *planes, like planes, n int) planes {
	var p planes
	if like.gray != nil {
		ws.gray = grow(ws.gray, n)
		p.gray = ws.gray
	}
	if like.r != nil {
		ws.r, ws.g, ws.b = grow(ws.r, n), grow(ws.g, n), grow(ws.b, n)
		p.r, p.g, p.b = ws.r, ws.g, ws.b
	}
	return p
}

// finish clamps resized planes to [0,1], whose bounds filters with
// negative lobes can overshoot, makes the grey plane of resized colour
// planes, and applies the scale.
func (l *Loader) finish(dst *Image, resized bool) {
	if resized && dst.R != nil {
		clamp01(dst.R)
		clamp01(dst.G)
		clamp01(dst.B)
		for i := range dst.Gray {
			dst.Gray[i] = luminance(dst.R[i], dst.G[i], dst.B[i])
		}
	} else if resized {
		clamp01(dst.Gray)
	}
	s := l.opts.Scale
	if s == 1 {
		return
	}
	for _, p := range [][]float64{dst.Gray, dst.R, dst.G, dst.B} {
		for i := range p {
			p[i] *= s
		}
	}
}
