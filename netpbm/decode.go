package netpbm

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"io"
)

// MaxSamples is the largest number of samples (width*height*channels) that
// Decode accepts; larger headers are an error.
const MaxSamples = 1 << 28

func init() {
	for _, f := range []struct{ name, magic string }{
		{"pbm", "P1"}, {"pgm", "P2"}, {"ppm", "P3"},
		{"pbm", "P4"}, {"pgm", "P5"}, {"ppm", "P6"},
		{"pam", "P7"},
	} {
		image.RegisterFormat(f.name, f.magic, Decode, DecodeConfig)
	}
}

// Decode reads a PBM, PGM, PPM or PAM image from r. The image type and the
// scaling of samples follow the package documentation. It returns an error
// when the header is malformed or out of range, when the pixel data is
// truncated, or when a sample exceeds maxval.
func Decode(r io.Reader) (image.Image, error) {
	d := newDecoder(r)
	h, err := d.readHeader()
	if err != nil {
		return nil, err
	}
	return d.readImage(h)
}

// DecodeConfig returns the colour model and dimensions of a Netpbm image
// without decoding its pixels; they are those of the image Decode returns.
// It returns an error when the header is malformed or out of range.
func DecodeConfig(r io.Reader) (image.Config, error) {
	h, err := newDecoder(r).readHeader()
	if err != nil {
		return image.Config{}, err
	}
	return image.Config{ColorModel: h.colorModel(), Width: h.width, Height: h.height}, nil
}

type decoder struct {
	br *bufio.Reader
}

func newDecoder(r io.Reader) *decoder {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	return &decoder{br: br}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// headerError formats a header error of the format with magic m.
func headerError(m byte, format string, args ...any) error {
	return fmt.Errorf("netpbm: P%c header: %s", m, fmt.Sprintf(format, args...))
}

// eof turns io.EOF into io.ErrUnexpectedEOF: inside an image, the end of
// the input is always premature.
func eof(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readImage reads the raster that follows header h.
func (d *decoder) readImage(h *header) (image.Image, error) {
	switch h.magic {
	case '1':
		return d.readPlainBitmap(h)
	case '4':
		return d.readRawBitmap(h)
	}
	n := h.width * h.height * h.depth
	var (
		raw []byte
		err error
	)
	if h.plain() {
		raw, err = d.readPlainSamples(h, n)
	} else {
		raw, err = d.readFull(n * h.bytesPerSample())
	}
	if err != nil {
		return nil, err
	}
	return build(h, raw)
}

// chunk is the size of the first read of a raster, and of the growth of
// samples parsed from a plain raster; the buffer then doubles as data
// arrives.
const chunk = 64 << 10

// readFull reads exactly n bytes, growing its buffer as data arrives so that
// a header announcing more data than there is costs no more than the input.
func (d *decoder) readFull(n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, chunk))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(n, 2*cap(buf)))
			copy(grown, buf)
			buf = grown
		}
		k, err := d.br.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("netpbm: reading pixel data: %w", err)
		}
	}
	if len(buf) < n {
		return nil, fmt.Errorf("netpbm: truncated pixel data: got %d of %d bytes", len(buf), n)
	}
	return buf, nil
}

// readPlainSamples parses the n decimal samples of a P2 or P3 raster into
// raw samples as a P5 or P6 raster would hold them.
func (d *decoder) readPlainSamples(h *header, n int) ([]byte, error) {
	bps := h.bytesPerSample()
	raw := make([]byte, 0, min(n*bps, chunk))
	for i := range n {
		if err := d.skipToSample(i, n); err != nil {
			return nil, err
		}
		v, err := d.readSample(h.maxval)
		if err != nil {
			return nil, fmt.Errorf("netpbm: sample %d of %d: %w", i, n, err)
		}
		if bps == 2 {
			raw = append(raw, byte(v>>8))
		}
		raw = append(raw, byte(v))
	}
	return raw, nil
}

// skipToSample skips the whitespace and comments before sample i of the n
// samples of a plain raster; the end of the input there is a truncation.
func (d *decoder) skipToSample(i, n int) error {
	err := d.skipSpace()
	switch {
	case err == io.EOF:
		return fmt.Errorf("netpbm: truncated pixel data: got %d of %d samples", i, n)
	case err != nil:
		return fmt.Errorf("netpbm: reading pixel data: %w", err)
	}
	return nil
}

// readSample reads a plain sample in 0..maxval.
func (d *decoder) readSample(maxval int) (int, error) {
	v, err := d.readDecimal(maxval)
	var ne *numberError
	switch {
	case errors.As(err, &ne):
		return 0, fmt.Errorf("unexpected %q in plain raster", ne.c)
	case err == errAboveLimit:
		return 0, fmt.Errorf("sample exceeds maxval %d", maxval)
	}
	return v, err
}

// readPlainBitmap reads a P1 raster: one '0' (white) or '1' (black) per
// pixel, with optional whitespace and comments between them.
func (d *decoder) readPlainBitmap(h *header) (image.Image, error) {
	n := h.width * h.height
	pix := make([]byte, 0, min(n, chunk))
	for len(pix) < n {
		if err := d.skipToSample(len(pix), n); err != nil {
			return nil, err
		}
		c, err := d.br.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("netpbm: reading pixel data: %w", err)
		}
		switch c {
		case '0':
			pix = append(pix, 0xff)
		case '1':
			pix = append(pix, 0)
		default:
			return nil, fmt.Errorf("netpbm: unexpected %q in P1 raster, want 0 or 1", c)
		}
	}
	return &image.Gray{Pix: pix, Stride: h.width, Rect: image.Rect(0, 0, h.width, h.height)}, nil
}

// readRawBitmap reads a P4 raster: rows of (width+7)/8 bytes, most
// significant bit first, 1 for black.
func (d *decoder) readRawBitmap(h *header) (image.Image, error) {
	rowBytes := (h.width + 7) / 8
	raw, err := d.readFull(rowBytes * h.height)
	if err != nil {
		return nil, err
	}
	img := image.NewGray(image.Rect(0, 0, h.width, h.height))
	for y := range h.height {
		row := raw[y*rowBytes : (y+1)*rowBytes]
		pix := img.Pix[y*img.Stride : y*img.Stride+h.width]
		for x := range pix {
			if row[x>>3]&(0x80>>(x&7)) == 0 {
				pix[x] = 0xff
			}
		}
	}
	return img, nil
}

// errSample reports a raw sample above maxval.
func errSample(i, v, maxval int) error {
	return fmt.Errorf("netpbm: sample %d is %d, exceeds maxval %d", i, v, maxval)
}

// build makes the image of header h from its raw samples (as in a P5, P6 or
// P7 raster), checking every sample against maxval.
func build(h *header, raw []byte) (image.Image, error) {
	if h.bytesPerSample() == 1 {
		if h.maxval < 255 {
			for i, v := range raw {
				if int(v) > h.maxval {
					return nil, errSample(i, int(v), h.maxval)
				}
			}
		}
		if h.maxval == 255 {
			return build8(h, raw), nil
		}
		s := scale8(h.maxval)
		return build16(h, len(raw), func(i int) uint16 { return s[raw[i]] }), nil
	}
	if h.maxval < 65535 {
		for i := 0; i < len(raw); i += 2 {
			if v := int(raw[i])<<8 | int(raw[i+1]); v > h.maxval {
				return nil, errSample(i/2, v, h.maxval)
			}
		}
	}
	if h.maxval == 65535 {
		if h.depth == 1 {
			// Gray16 holds big-endian samples, as the raster does.
			return &image.Gray16{Pix: raw, Stride: 2 * h.width, Rect: image.Rect(0, 0, h.width, h.height)}, nil
		}
		return build16(h, len(raw)/2, func(i int) uint16 { return uint16(raw[2*i])<<8 | uint16(raw[2*i+1]) }), nil
	}
	m := uint32(h.maxval)
	return build16(h, len(raw)/2, func(i int) uint16 {
		return scale(uint32(raw[2*i])<<8|uint32(raw[2*i+1]), m)
	}), nil
}

// scale returns round(v*65535/maxval) for v <= maxval, rounding halves up.
func scale(v, maxval uint32) uint16 {
	return uint16((v*65535 + maxval/2) / maxval)
}

// scale8 tabulates scale for the byte samples of a maxval below 255.
func scale8(maxval int) *[256]uint16 {
	var t [256]uint16
	for v := 0; v <= maxval; v++ {
		t[v] = scale(uint32(v), uint32(maxval))
	}
	return &t
}

// build8 makes the 8-bit image of a maxval 255 raster.
func build8(h *header, raw []byte) image.Image {
	r := image.Rect(0, 0, h.width, h.height)
	switch h.depth {
	case 1:
		return &image.Gray{Pix: raw, Stride: h.width, Rect: r}
	case 3:
		img := image.NewRGBA(r)
		for i, j := 0, 0; i < len(raw); i, j = i+3, j+4 {
			img.Pix[j], img.Pix[j+1], img.Pix[j+2], img.Pix[j+3] = raw[i], raw[i+1], raw[i+2], 0xff
		}
		return img
	case 2:
		img := image.NewNRGBA(r)
		for i, j := 0, 0; i < len(raw); i, j = i+2, j+4 {
			img.Pix[j], img.Pix[j+1], img.Pix[j+2], img.Pix[j+3] = raw[i], raw[i], raw[i], raw[i+1]
		}
		return img
	default:
		return &image.NRGBA{Pix: raw, Stride: 4 * h.width, Rect: r}
	}
}

// build16 makes the 16-bit image of a raster of n samples, sample(i) giving
// the i-th sample already scaled to 0..65535.
func build16(h *header, n int, sample func(i int) uint16) image.Image {
	r := image.Rect(0, 0, h.width, h.height)
	var pix []byte
	var img image.Image
	switch h.depth {
	case 1:
		g := image.NewGray16(r)
		pix, img = g.Pix, g
	case 3:
		g := image.NewRGBA64(r)
		pix, img = g.Pix, g
	default:
		g := image.NewNRGBA64(r)
		pix, img = g.Pix, g
	}
	put := func(j int, v uint16) { pix[j], pix[j+1] = byte(v>>8), byte(v) }
	switch h.depth {
	case 1:
		for i := range n {
			put(2*i, sample(i))
		}
	case 2:
		for i, j := 0, 0; i < n; i, j = i+2, j+8 {
			v := sample(i)
			put(j, v)
			put(j+2, v)
			put(j+4, v)
			put(j+6, sample(i+1))
		}
	case 3:
		for i, j := 0, 0; i < n; i, j = i+3, j+8 {
			put(j, sample(i))
			put(j+2, sample(i+1))
			put(j+4, sample(i+2))
			put(j+6, 0xffff)
		}
	case 4:
		for i := range n {
			put(2*i, sample(i))
		}
	}
	return img
}
