package jpegscale

import (
	"errors"
	"fmt"
	"image"
)

// ErrUnsupported is wrapped by the errors for valid JPEG files that this
// package does not decode (see the package documentation); image/jpeg may.
var ErrUnsupported = errors.New("jpegscale: unsupported JPEG")

// ErrFormat is wrapped by the errors for corrupt or truncated data.
var ErrFormat = errors.New("jpegscale: invalid JPEG")

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
}

// MaxPixels is the largest frame, in full-size pixels, that Decode
// accepts; larger ones are ErrUnsupported.
const MaxPixels = 1 << 26

// Markers (T.81 Table B.1).
const (
	markerSOF0 = 0xc0 // baseline DCT
	markerSOF1 = 0xc1 // extended sequential DCT, Huffman
	markerDHT  = 0xc4
	markerRST0 = 0xd0
	markerSOI  = 0xd8
	markerEOI  = 0xd9
	markerSOS  = 0xda
	markerDQT  = 0xdb
	markerDNL  = 0xdc
	markerDRI  = 0xdd
	markerAPP0 = 0xe0
	markerAP14 = 0xee
)

// component is a frame component (T.81 B.2.2) and its decoding state.
type component struct {
	id   byte
	h, v int // sampling factors, 1..4
	tq   int // quantisation table
	// bw and bh are the blocks across and down of the component's plane:
	// whole MCUs of an interleaved scan. nbw and nbh are those a
	// non-interleaved scan codes: ceil(ceil(X h/Hmax)/8) by
	// ceil(ceil(Y v/Vmax)/8) (A.2.3).
	bw, bh   int
	nbw, nbh int
	done     bool // coded by an earlier scan

	// of the current scan
	td, ta int   // DC and AC Huffman tables
	pred   int32 // DC predictor (F.2.1.3.1)

	// nx x ny are the samples that each block decodes to at the output
	// scale; keep[k] says whether the k-th coefficient in zig-zag order
	// is among the top-left nx x ny that make them.
	nx, ny int
	keep   [64]bool

	pix    []byte // the decoded plane, at scale
	stride int
}

// Config is what a JPEG's frame header says.
type Config struct {
	// Width and Height are the image's size in pixels (X and Y of the
	// frame header).
	Width, Height int
	// Components is 1 (grey) or 3 (Y'CbCr).
	Components int
}

// Decoder decodes JPEG data at reduced scale, keeping its tables and
// sample buffers between calls so that decoding many images allocates
// little. The zero value is ready to use. A Decoder is not safe for
// concurrent use.
type Decoder struct {
	// FullChroma, at reduced scale, decodes each block of a subsampled
	// chroma component to as many samples as keep the chroma's resolution
	// up to the luma's, at most 8x8, instead of to as many as a luma
	// block: 4:2:0 at 1/4 then gives 4:4:4 planes whose chroma has the
	// detail of a full decode's, at the cost of a larger inverse DCT.
	FullChroma bool

	data []byte
	pos  int
	err  error // a Huffman decoding error, checked once per block

	// bit reader (see huffman.go)
	acc        uint64
	nbits, pad int
	stop       bool
	width      int
	height     int
	ncomp      int
	comp       [3]component
	hmax, vmax int
	mcusx      int
	mcusy      int
	sof        bool
	scans      int // scans read
	jfif       bool
	adobe      bool
	transform  byte // the Adobe marker's colour transform
	restart    int  // the restart interval in MCUs, 0 for none
	quant      [4][64]int32
	qdefined   [4]bool
	huff       [2][4]huffTable // by class (0 DC, 1 AC) and destination
	hdefined   [2][4]bool
	n          int // samples per luma block side at the output scale
	coef       [64]int32
	planes     [3][]byte
	ycc        image.YCbCr
	gray       image.Gray
}

// DecodeConfig reads the frame header of data (T.81 B.2.2), returning the
// image's size and component count. It reads the markers up to the frame header only,
// and returns an error wrapping ErrUnsupported for a frame type, sample
// precision, component count or sampling that Decode does not handle, and
// one wrapping ErrFormat for malformed markers.
func (d *Decoder) DecodeConfig(data []byte) (Config, error) {
	d.begin(data)
	if err := d.soi(); err != nil {
		return Config{}, err
	}
	for !d.sof {
		m, err := d.nextMarker()
		if err != nil {
			return Config{}, err
		}
		if m == markerSOS || m == markerEOI {
			return Config{}, corrupt("marker 0x%02x before the frame header", m)
		}
		if err := d.segment(m); err != nil {
			return Config{}, err
		}
	}
	if err := d.colorCheck(); err != nil {
		return Config{}, err
	}
	return Config{Width: d.width, Height: d.height, Components: d.ncomp}, nil
}

// Decode decodes data at 1/denom of its size, denom being 1, 2, 4 or 8:
// an image of ceil(X/denom) x ceil(Y/denom) pixels (X x Y being the
// frame's size). It reads the file's markers (T.81 Annex B), decodes the
// Huffman-coded coefficients of every block (Annex F.2, restart intervals
// included), dequantises the top-left (8/denom) x (8/denom) of them and
// turns them into as many samples by the inverse DCT of A.3.3 scaled to
// that size (see idctBasis).
//
// The result is an *image.Gray for one component and an *image.YCbCr for
// three, with chroma planes subsampled as in the file; it aliases the
// Decoder's buffers and is overwritten by its next Decode. Errors wrap
// ErrUnsupported for what the package does not decode and ErrFormat for
// corrupt or truncated data.
func (d *Decoder) Decode(data []byte, denom int) (image.Image, error) {
	switch denom {
	case 1, 2, 4, 8:
	default:
		return nil, fmt.Errorf("jpegscale: scale 1/%d: want 1/1, 1/2, 1/4 or 1/8", denom)
	}
	d.begin(data)
	d.n = 8 / denom
	if err := d.decode(); err != nil {
		return nil, err
	}
	w, h := (d.width+denom-1)/denom, (d.height+denom-1)/denom
	if d.ncomp == 1 {
		c := &d.comp[0]
		d.gray = image.Gray{Pix: c.pix, Stride: c.stride, Rect: image.Rect(0, 0, w, h)}
		return &d.gray, nil
	}
	// The ratio of the decoded planes' sizes, a divisor of the file's.
	y, c := &d.comp[0], &d.comp[1]
	ratio, _ := subsampleRatio(y.nx*y.bw/(c.nx*c.bw), y.ny*y.bh/(c.ny*c.bh))
	d.ycc = image.YCbCr{
		Y: d.comp[0].pix, Cb: d.comp[1].pix, Cr: d.comp[2].pix,
		YStride: d.comp[0].stride, CStride: d.comp[1].stride,
		SubsampleRatio: ratio,
		Rect:           image.Rect(0, 0, w, h),
	}
	return &d.ycc, nil
}

// begin resets the per-file state for data.
func (d *Decoder) begin(data []byte) {
	d.data, d.pos, d.err = data, 0, nil
	d.sof, d.jfif, d.adobe, d.restart, d.scans = false, false, false, 0, 0
	d.qdefined = [4]bool{}
	d.hdefined = [2][4]bool{}
	d.coef = [64]int32{}
	d.resetBits()
}

// soi checks the start-of-image marker.
func (d *Decoder) soi() error {
	if len(d.data) < 2 || d.data[0] != 0xff || d.data[1] != markerSOI {
		return corrupt("missing SOI marker")
	}
	d.pos = 2
	return nil
}

// decode reads the markers and scans of the file (T.81 B.2.1) until every
// component has been decoded.
func (d *Decoder) decode() error {
	if err := d.soi(); err != nil {
		return err
	}
	for {
		m, err := d.nextMarker()
		if err != nil {
			return err
		}
		switch m {
		case markerEOI:
			if !d.sof {
				return corrupt("no frame before EOI")
			}
			return corrupt("EOI before every component was coded")
		case markerSOS:
			if !d.sof {
				return corrupt("SOS before the frame header")
			}
			if err := d.scan(); err != nil {
				return err
			}
			if d.allDone() {
				return nil
			}
		default:
			if err := d.segment(m); err != nil {
				return err
			}
		}
	}
}

// allDone reports whether every component has been coded by a scan.
func (d *Decoder) allDone() bool {
	for i := range d.ncomp {
		if !d.comp[i].done {
			return false
		}
	}
	return true
}

// nextMarker skips to the next marker, past fill bytes 0xFF (B.1.1.2), and
// returns its code with d.pos after it. Bytes other than 0xFF before a
// marker (garbage after a scan) are skipped.
func (d *Decoder) nextMarker() (byte, error) {
	for d.pos+1 < len(d.data) {
		if d.data[d.pos] != 0xff {
			d.pos++
			continue
		}
		m := d.data[d.pos+1]
		if m == 0xff {
			d.pos++
			continue
		}
		d.pos += 2
		if m == 0 {
			continue // stuffed data byte, not a marker
		}
		return m, nil
	}
	return 0, corrupt("truncated: no EOI marker")
}

// segmentBody returns the body of the marker segment at d.pos (after its
// 2-byte length) and moves d.pos past it.
func (d *Decoder) segmentBody(m byte) ([]byte, error) {
	if d.pos+2 > len(d.data) {
		return nil, corrupt("truncated segment of marker 0x%02x", m)
	}
	n := int(d.data[d.pos])<<8 | int(d.data[d.pos+1])
	if n < 2 || d.pos+n > len(d.data) {
		return nil, corrupt("segment of marker 0x%02x: length %d overruns the data", m, n)
	}
	b := d.data[d.pos+2 : d.pos+n]
	d.pos += n
	return b, nil
}

// segment reads the segment of marker m (other than SOS and EOI).
func (d *Decoder) segment(m byte) error {
	switch {
	case m == 0x01 || (markerRST0 <= m && m <= markerRST0+7) || m == markerSOI:
		// TEM, a stray RSTn, SOI: no length field.
		if m == markerSOI {
			return corrupt("second SOI marker")
		}
		return nil
	case m == markerDNL:
		return unsupported("DNL marker (height defined after the scan)")
	}
	b, err := d.segmentBody(m)
	if err != nil {
		return err
	}
	switch {
	case m == markerSOF0 || m == markerSOF1:
		return d.frame(b)
	case m == 0xc2:
		return unsupported("progressive DCT (SOF2)")
	case m == 0xc3:
		return unsupported("lossless (SOF3)")
	case m == 0xc5 || m == 0xc6 || m == 0xc7 || m == 0xde || m == 0xdf:
		return unsupported("hierarchical (marker 0x%02x)", m)
	case m >= 0xc9 && m <= 0xcf && m != 0xcc:
		return unsupported("arithmetic coding (SOF%d)", m-markerSOF0)
	case m == markerDHT:
		return d.dht(b)
	case m == markerDQT:
		return d.dqt(b)
	case m == markerDRI:
		if len(b) != 2 {
			return corrupt("DRI segment of %d bytes, want 2", len(b))
		}
		d.restart = int(b[0])<<8 | int(b[1])
	case m == markerAPP0:
		if len(b) >= 5 && string(b[:5]) == "JFIF\x00" {
			d.jfif = true
		}
	case m == markerAP14:
		if len(b) >= 12 && string(b[:5]) == "Adobe" {
			d.adobe, d.transform = true, b[11]
		}
	}
	// Other APPn, COM, DAC and reserved markers are skipped.
	return nil
}

// colorCheck refuses 3-component files whose components are not Y'CbCr:
// Adobe transform 0, or components named R, G, B without a JFIF or Adobe
// marker (as image/jpeg reads them).
func (d *Decoder) colorCheck() error {
	if d.ncomp != 3 {
		return nil
	}
	if d.adobe {
		if d.transform != 1 {
			return unsupported("Adobe colour transform %d (not Y'CbCr)", d.transform)
		}
		return nil
	}
	if !d.jfif && d.comp[0].id == 'R' && d.comp[1].id == 'G' && d.comp[2].id == 'B' {
		return unsupported("RGB components")
	}
	return nil
}

// planesReady sets the samples each block of each component decodes to
// and sizes the component planes. Every block decodes to n x n samples;
// with FullChroma, a subsampled component's to as many more as keep its
// resolution up to the luma's, min(8, n Hmax/H) x min(8, n Vmax/V).
func (d *Decoder) planesReady() {
	for i := range d.ncomp {
		c := &d.comp[i]
		c.nx, c.ny = d.n, d.n
		if d.FullChroma {
			c.nx, c.ny = min(8, d.n*d.hmax/c.h), min(8, d.n*d.vmax/c.v)
		}
		for k, z := range zigzag {
			c.keep[k] = z%8 < c.nx && z/8 < c.ny
		}
		c.stride = c.bw * c.nx
		size := c.stride * c.bh * c.ny
		if cap(d.planes[i]) < size {
			d.planes[i] = make([]byte, size)
		}
		c.pix = d.planes[i][:size]
	}
}

// scan reads a scan header (T.81 B.2.3) and decodes its entropy-coded
// data.
func (d *Decoder) scan() error {
	b, err := d.segmentBody(markerSOS)
	if err != nil {
		return err
	}
	if len(b) < 1 {
		return corrupt("empty scan header")
	}
	ns := int(b[0])
	if ns < 1 || ns > d.ncomp || len(b) != 4+2*ns {
		return corrupt("scan header of %d bytes for %d components", len(b), ns)
	}
	if d.scans == 0 {
		// The first scan: the colour markers come before it.
		if err := d.colorCheck(); err != nil {
			return err
		}
		d.planesReady()
	}
	d.scans++
	var sc [3]*component
	blocks := 0
	for i := range ns {
		id, tables := b[1+2*i], b[2+2*i]
		var c *component
		for j := range d.ncomp {
			if d.comp[j].id == id {
				c = &d.comp[j]
			}
		}
		if c == nil {
			return corrupt("scan of component %d, which the frame does not have", id)
		}
		for j := range i {
			if sc[j] == c {
				return corrupt("component %d twice in a scan", id)
			}
		}
		if c.done {
			return corrupt("component %d in a second scan", id)
		}
		c.td, c.ta = int(tables>>4), int(tables&15)
		if c.td > 3 || c.ta > 3 || !d.hdefined[0][c.td] || !d.hdefined[1][c.ta] {
			return corrupt("component %d: Huffman tables %d/%d not defined", id, c.td, c.ta)
		}
		if !d.qdefined[c.tq] {
			return corrupt("component %d: quantisation table %d not defined", id, c.tq)
		}
		sc[i] = c
		blocks += c.h * c.v
	}
	if ss, se, a := b[1+2*ns], b[2+2*ns], b[3+2*ns]; ss != 0 || se != 63 || a != 0 {
		return corrupt("sequential scan with Ss %d, Se %d, Ah/Al 0x%02x", ss, se, a)
	}
	if ns > 1 && blocks > 10 {
		return corrupt("%d blocks per MCU, over 10", blocks)
	}
	if err := d.entropy(sc[:ns]); err != nil {
		return err
	}
	for _, c := range sc[:ns] {
		c.done = true
	}
	return nil
}

// entropy decodes the entropy-coded segments of a scan of the components
// sc (T.81 F.2), restart intervals included.
func (d *Decoder) entropy(sc []*component) error {
	d.resetBits()
	for _, c := range sc {
		c.pred = 0
	}
	// An interleaved scan codes whole MCUs; a scan of one component codes
	// its blocks one by one (A.2.2, A.2.3).
	mx, my := d.mcusx, d.mcusy
	if len(sc) == 1 {
		mx, my = sc[0].nbw, sc[0].nbh
	}
	total := mx * my
	rst := 0
	for m := range total {
		if d.restart > 0 && m > 0 && m%d.restart == 0 {
			if err := d.restartMarker(rst); err != nil {
				return err
			}
			rst = (rst + 1) & 7
			for _, c := range sc {
				c.pred = 0
			}
		}
		bx, by := m%mx, m/mx
		if len(sc) == 1 {
			if err := d.block(sc[0], bx, by); err != nil {
				return err
			}
			continue
		}
		for _, c := range sc {
			for v := range c.v {
				for h := range c.h {
					if err := d.block(c, bx*c.h+h, by*c.v+v); err != nil {
						return err
					}
				}
			}
		}
	}
	// Skip to the marker after the scan's last byte.
	d.resetBits()
	return nil
}

// restartMarker reads the RSTn marker (n = 0..7) that ends a restart
// interval (T.81 F.1.2.3, B.2.1): the rest of the interval's last byte is
// padding.
func (d *Decoder) restartMarker(n int) error {
	d.resetBits()
	// fill stops at the marker, so d.pos is on it unless the interval
	// had bytes that decoding did not reach.
	m, err := d.nextMarker()
	if err != nil {
		return corrupt("truncated: missing RST%d marker", n)
	}
	if m != markerRST0+byte(n) {
		return corrupt("expected RST%d marker, found 0x%02x", n, m)
	}
	return nil
}

// block decodes the 8x8 block (bx, by) of component c (T.81 F.2.2) and
// writes its nx x ny samples to c's plane.
func (d *Decoder) block(c *component, bx, by int) error {
	dc, ac := &d.huff[0][c.td], &d.huff[1][c.ta]
	q := &d.quant[c.tq]
	coef := &d.coef
	if d.nbits < 32 {
		d.fill()
	}
	t := d.decodeHuff(dc)
	if t > 11 {
		return corrupt("DC difference of %d bits", t)
	}
	if t > 0 {
		c.pred += d.receiveExtend(uint(t))
	}
	coef[0] = c.pred * q[0]
	nonzero := false
	for k := 1; k < 64; k++ {
		if d.nbits < 32 {
			d.fill()
		}
		if e := ac.ac[d.acc>>(64-lutBits)]; e != 0 {
			// A short code and its value bits at once.
			n := uint(e & 0xff)
			d.acc <<= n
			d.nbits -= int(n)
			k += int(e>>8) & 0xff
			if k > 63 {
				return corrupt("AC coefficient past the end of the block")
			}
			if c.keep[k] {
				coef[zigzag[k]] = (e >> 16) * q[k]
				nonzero = true
			}
			continue
		}
		rs := d.decodeHuff(ac)
		r, s := int(rs>>4), uint(rs&15)
		if s == 0 {
			if r != 15 {
				break // EOB
			}
			k += 15 // ZRL: 16 zeros
			continue
		}
		k += r
		if k > 63 {
			return corrupt("AC coefficient past the end of the block")
		}
		v := d.receiveExtend(s)
		if c.keep[k] {
			coef[zigzag[k]] = v * q[k]
			nonzero = true
		}
	}
	if d.err != nil {
		return d.err
	}
	if err := d.checkBits(); err != nil {
		return err
	}
	if bx >= c.bw || by >= c.bh {
		return nil // outside the plane: cannot happen for valid frames
	}
	idct(c.pix[by*c.ny*c.stride+bx*c.nx:], c.stride, coef, c.nx, c.ny, nonzero)
	return nil
}
