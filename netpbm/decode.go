// Package netpbm decodes the Netpbm image formats (PBM, PGM, PPM in their
// plain and raw variants, and PAM) and encodes PGM and PPM.
//
// The formats are specified at https://netpbm.sourceforge.net/doc/ (pbm.html,
// pgm.html, ppm.html, pam.html). Importing the package registers the formats
// with the standard library's image package, so image.Decode reads them:
//
//	import _ "github.com/covpipe/covpipe/netpbm"
//
// # Sample scaling
//
// A Netpbm sample v lies in 0..maxval, and means the intensity v/maxval. The
// decoder keeps that meaning exactly:
//
//   - maxval 255: the samples are stored as they are in an 8-bit image
//     (*image.Gray, *image.RGBA, or *image.NRGBA when there is alpha);
//   - any other maxval (1..65535): the samples are stored in a 16-bit image
//     (*image.Gray16, *image.RGBA64, *image.NRGBA64) as round(v*65535/maxval),
//     so that u/65535 differs from v/maxval by at most 1/131070, half a 16-bit
//     step. Maxval 65535 stores the samples unchanged.
//
// Samples greater than maxval are an error. Raw samples are one byte when
// maxval < 256 and two bytes, most significant first, otherwise.
//
// PBM bitmaps (P1, P4), which have no maxval, decode to *image.Gray with 1
// (black) as 0 and 0 (white) as 255. PAM BLACKANDWHITE tuples follow the PAM
// rule instead, 0 black and 1 white, with the usual maxval (1) scaling.
//
// # Limits
//
// Header comments (# to end of line) are accepted wherever whitespace is, and
// in the rasters of the plain formats. Images of more than MaxSamples samples
// (width*height*channels) are refused before anything is allocated, and the
// pixel buffer grows only as data actually arrives, so a lying header cannot
// make the decoder allocate much more than the input's size. Only the first
// image of a multi-image stream is decoded.
package netpbm

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"strconv"
	"strings"
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

// header is a parsed Netpbm header.
type header struct {
	magic  byte // '1'..'7'
	width  int
	height int
	depth  int // channels: 1 grey, 2 grey+alpha, 3 RGB, 4 RGB+alpha
	maxval int // 1 for PBM
}

func (h *header) plain() bool  { return h.magic <= '3' }
func (h *header) bitmap() bool { return h.magic == '1' || h.magic == '4' }

// bytesPerSample is the size of one raw sample.
func (h *header) bytesPerSample() int {
	if h.maxval > 255 {
		return 2
	}
	return 1
}

// colorModel is the model of the image Decode returns for h.
func (h *header) colorModel() color.Model {
	wide := h.maxval != 255 && !h.bitmap()
	switch {
	case h.depth == 1 && wide:
		return color.Gray16Model
	case h.depth == 1:
		return color.GrayModel
	case h.depth == 3 && wide:
		return color.RGBA64Model
	case h.depth == 3:
		return color.RGBAModel
	case wide:
		return color.NRGBA64Model
	default:
		return color.NRGBAModel
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

func (d *decoder) readHeader() (*header, error) {
	var magic [2]byte
	if _, err := io.ReadFull(d.br, magic[:]); err != nil {
		return nil, fmt.Errorf("netpbm: reading magic number: %w", eof(err))
	}
	if magic[0] != 'P' || magic[1] < '1' || magic[1] > '7' {
		return nil, fmt.Errorf("netpbm: bad magic number %q, want P1..P7", magic[:])
	}
	h := &header{magic: magic[1]}
	var err error
	if h.magic == '7' {
		err = d.readPAMHeader(h)
	} else {
		err = d.readPNMHeader(h)
	}
	if err != nil {
		return nil, err
	}
	if n := uint64(h.width) * uint64(h.height) * uint64(h.depth); n > MaxSamples {
		return nil, headerError(h.magic, "%dx%dx%d = %d samples exceeds the limit of %d", h.width, h.height, h.depth, n, MaxSamples)
	}
	return h, nil
}

// readPNMHeader reads the header of P1..P6 after the magic number: width,
// height and (except for PBM) maxval, as decimal numbers separated by
// whitespace and comments, and then the single whitespace character that
// ends the header. As in libnetpbm, that character may be a comment.
func (d *decoder) readPNMHeader(h *header) error {
	h.depth = 1
	if h.magic == '3' || h.magic == '6' {
		h.depth = 3
	}
	fields := []struct {
		name string
		dst  *int
	}{{"width", &h.width}, {"height", &h.height}, {"maxval", &h.maxval}}
	if h.bitmap() {
		fields = fields[:2]
		h.maxval = 1
	}
	if c, err := d.br.ReadByte(); err != nil || (!isSpace(c) && c != '#') {
		return headerError(h.magic, "missing whitespace after magic number")
	}
	if err := d.br.UnreadByte(); err != nil {
		return err
	}
	for _, f := range fields {
		if err := d.skipSpace(); err != nil {
			return headerError(h.magic, "reading %s: %v", f.name, eof(err))
		}
		v, err := d.readUint()
		if err != nil {
			return headerError(h.magic, "reading %s: %v", f.name, err)
		}
		*f.dst = v
	}
	if err := checkSize(h); err != nil {
		return err
	}
	// readUint left whitespace or a comment, or met the end of the input.
	c, err := d.br.ReadByte()
	if err != nil {
		return headerError(h.magic, "missing whitespace after %s: %v", fields[len(fields)-1].name, eof(err))
	}
	if c == '#' {
		if err := d.skipComment(); err != nil {
			return headerError(h.magic, "%v", eof(err))
		}
	}
	return nil
}

func checkSize(h *header) error {
	if h.width < 1 {
		return headerError(h.magic, "width %d out of range 1..%d", h.width, MaxSamples)
	}
	if h.height < 1 {
		return headerError(h.magic, "height %d out of range 1..%d", h.height, MaxSamples)
	}
	if h.maxval < 1 || h.maxval > 65535 {
		return headerError(h.magic, "maxval %d out of range 1..65535", h.maxval)
	}
	return nil
}

// skipSpace skips whitespace and comments up to the next other byte.
func (d *decoder) skipSpace() error {
	for {
		c, err := d.br.ReadByte()
		if err != nil {
			return err
		}
		switch {
		case c == '#':
			if err := d.skipComment(); err != nil {
				return err
			}
		case !isSpace(c):
			return d.br.UnreadByte()
		}
	}
}

// skipComment skips the rest of a comment, including the end of its line.
func (d *decoder) skipComment() error {
	for {
		c, err := d.br.ReadByte()
		if err != nil {
			return err
		}
		if c == '\n' || c == '\r' {
			return nil
		}
	}
}

// numberError is a byte that cannot start or end a decimal number; the
// callers of readDecimal word it for what they read.
type numberError struct {
	c           byte
	afterDigits bool
}

func (e *numberError) Error() string { return fmt.Sprintf("unexpected %q", e.c) }

// errAboveLimit is a number above the limit of readDecimal.
var errAboveLimit = errors.New("number above limit")

// readDecimal reads a decimal number in 0..limit, which must be followed by
// whitespace or a comment (left unread) or the end of the input. A byte
// that cannot start or end the number is a *numberError, a number above
// limit errAboveLimit (as soon as its digits exceed it), the end of the
// input before any digit io.ErrUnexpectedEOF.
func (d *decoder) readDecimal(limit int) (int, error) {
	v, n := 0, 0
	for {
		c, err := d.br.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		if !isDigit(c) {
			if n == 0 || (!isSpace(c) && c != '#') {
				return 0, &numberError{c: c, afterDigits: n > 0}
			}
			if err := d.br.UnreadByte(); err != nil {
				return 0, err
			}
			break
		}
		n++
		if v = v*10 + int(c-'0'); v > limit {
			return 0, errAboveLimit
		}
	}
	if n == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	return v, nil
}

// readUint reads a header number: a decimal number of at most MaxSamples,
// which must be followed by whitespace, a comment or the end of the input.
func (d *decoder) readUint() (int, error) {
	v, err := d.readDecimal(MaxSamples)
	var ne *numberError
	switch {
	case errors.As(err, &ne) && ne.afterDigits:
		return 0, fmt.Errorf("unexpected %q after number", ne.c)
	case ne != nil:
		return 0, fmt.Errorf("unexpected %q, want a decimal number", ne.c)
	case err == errAboveLimit:
		return 0, fmt.Errorf("number too large (more than %d)", MaxSamples)
	}
	return v, err
}

// maxPAMLine bounds the length of a PAM header line.
const maxPAMLine = 1024

// pamDepth returns the depth of a PAM tuple type that this package decodes.
func pamDepth(tupleType string) (int, bool) {
	switch tupleType {
	case "BLACKANDWHITE", "GRAYSCALE":
		return 1, true
	case "BLACKANDWHITE_ALPHA", "GRAYSCALE_ALPHA":
		return 2, true
	case "RGB":
		return 3, true
	case "RGB_ALPHA":
		return 4, true
	}
	return 0, false
}

// readPAMHeader reads the header of a P7 (PAM) image after the magic number:
// lines "KEYWORD value" up to ENDHDR. A missing TUPLTYPE is inferred from
// DEPTH (1..4: grey, grey+alpha, RGB, RGB+alpha).
func (d *decoder) readPAMHeader(h *header) error {
	c, err := d.br.ReadByte()
	if err != nil {
		return headerError('7', "%v", eof(err))
	}
	if !isSpace(c) {
		return headerError('7', "unexpected %q after magic number", c)
	}
	seen := map[string]bool{}
	var tupleType []string
	for {
		line, err := d.readLine()
		if err != nil {
			return headerError('7', "%v (no ENDHDR)", err)
		}
		line = strings.Trim(line, " \t\r\v\f")
		if line == "" || line[0] == '#' {
			continue
		}
		key, value := line, ""
		if i := strings.IndexAny(line, " \t"); i >= 0 {
			key, value = line[:i], line[i+1:]
		}
		value = strings.Trim(value, " \t\r\v\f")
		if key == "ENDHDR" {
			break
		}
		if key == "TUPLTYPE" {
			// The standard says repeated TUPLTYPE lines concatenate.
			tupleType = append(tupleType, value)
			continue
		}
		var dst *int
		switch key {
		case "WIDTH":
			dst = &h.width
		case "HEIGHT":
			dst = &h.height
		case "DEPTH":
			dst = &h.depth
		case "MAXVAL":
			dst = &h.maxval
		default:
			return headerError('7', "unknown keyword %q", key)
		}
		if seen[key] {
			return headerError('7', "duplicate %s", key)
		}
		seen[key] = true
		v, err := strconv.ParseUint(value, 10, 31)
		if err != nil || v > MaxSamples {
			return headerError('7', "%s %q is not a number in 0..%d", key, value, MaxSamples)
		}
		*dst = int(v)
	}
	for _, key := range []string{"WIDTH", "HEIGHT", "DEPTH", "MAXVAL"} {
		if !seen[key] {
			return headerError('7', "missing %s", key)
		}
	}
	if err := checkSize(h); err != nil {
		return err
	}
	if h.depth < 1 || h.depth > 4 {
		return headerError('7', "depth %d out of range 1..4", h.depth)
	}
	if tupleType == nil {
		return nil
	}
	tt := strings.Join(tupleType, " ")
	depth, ok := pamDepth(tt)
	if !ok {
		return headerError('7', "unsupported TUPLTYPE %q", tt)
	}
	if depth != h.depth {
		return headerError('7', "TUPLTYPE %s needs depth %d, got %d", tt, depth, h.depth)
	}
	if strings.HasPrefix(tt, "BLACKANDWHITE") && h.maxval != 1 {
		return headerError('7', "TUPLTYPE %s needs maxval 1, got %d", tt, h.maxval)
	}
	return nil
}

// readLine reads a PAM header line of at most maxPAMLine bytes, without its
// newline.
func (d *decoder) readLine() (string, error) {
	var b []byte
	for {
		c, err := d.br.ReadByte()
		if err != nil {
			return "", eof(err)
		}
		if c == '\n' {
			return string(b), nil
		}
		if len(b) == maxPAMLine {
			return "", fmt.Errorf("line longer than %d bytes", maxPAMLine)
		}
		b = append(b, c)
	}
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
