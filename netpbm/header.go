package netpbm

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"strconv"
	"strings"
)

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
