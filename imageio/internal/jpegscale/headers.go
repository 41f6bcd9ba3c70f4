package jpegscale

import "image"

// frame reads a SOF0 or SOF1 frame header (T.81 B.2.2).
func (d *Decoder) frame(b []byte) error {
	if d.sof {
		return corrupt("second frame header")
	}
	if len(b) < 6 {
		return corrupt("frame header of %d bytes", len(b))
	}
	if b[0] != 8 {
		return unsupported("%d-bit samples", b[0])
	}
	d.height = int(b[1])<<8 | int(b[2])
	d.width = int(b[3])<<8 | int(b[4])
	d.ncomp = int(b[5])
	switch {
	case d.height == 0:
		return unsupported("height 0 (defined by a DNL marker)")
	case d.width == 0:
		return corrupt("frame width 0")
	case d.ncomp != 1 && d.ncomp != 3:
		return unsupported("%d components", d.ncomp)
	case len(b) != 6+3*d.ncomp:
		return corrupt("frame header of %d bytes for %d components", len(b), d.ncomp)
	case int64(d.width)*int64(d.height) > MaxPixels:
		return unsupported("%dx%d pixels, over %d", d.width, d.height, MaxPixels)
	}
	d.hmax, d.vmax = 1, 1
	for i := range d.ncomp {
		p := b[6+3*i:]
		c := &d.comp[i]
		c.id, c.h, c.v, c.tq = p[0], int(p[1]>>4), int(p[1]&15), int(p[2])
		c.done = false
		if c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 {
			return corrupt("component %d: sampling factors %dx%d outside 1..4", c.id, c.h, c.v)
		}
		if c.tq > 3 {
			return corrupt("component %d: quantisation table %d", c.id, c.tq)
		}
		for j := range i {
			if d.comp[j].id == c.id {
				return corrupt("component id %d repeated", c.id)
			}
		}
		d.hmax, d.vmax = max(d.hmax, c.h), max(d.vmax, c.v)
	}
	if d.ncomp == 3 {
		if err := d.ratio(); err != nil {
			return err
		}
	}
	d.mcusx = (d.width + 8*d.hmax - 1) / (8 * d.hmax)
	d.mcusy = (d.height + 8*d.vmax - 1) / (8 * d.vmax)
	for i := range d.ncomp {
		c := &d.comp[i]
		c.bw, c.bh = d.mcusx*c.h, d.mcusy*c.v
		// ceil(ceil(X h / Hmax) / 8)
		c.nbw = ((d.width*c.h+d.hmax-1)/d.hmax + 7) / 8
		c.nbh = ((d.height*c.v+d.vmax-1)/d.vmax + 7) / 8
	}
	d.sof = true
	return nil
}

// ratio checks the sampling factors of a 3-component frame: Cb and Cr
// alike, and Y's factors multiples of theirs in one of the ratios that
// image.YCbCr has.
func (d *Decoder) ratio() error {
	y, cb, cr := &d.comp[0], &d.comp[1], &d.comp[2]
	if cb.h != cr.h || cb.v != cr.v || y.h%cb.h != 0 || y.v%cb.v != 0 {
		return unsupported("sampling factors %dx%d, %dx%d, %dx%d", y.h, y.v, cb.h, cb.v, cr.h, cr.v)
	}
	if _, ok := subsampleRatio(y.h/cb.h, y.v/cb.v); !ok {
		return unsupported("sampling factors %dx%d, %dx%d, %dx%d", y.h, y.v, cb.h, cb.v, cr.h, cr.v)
	}
	return nil
}

// subsampleRatio returns the image.YCbCr ratio of chroma subsampled by
// dx across and dy down, and false when there is none.
func subsampleRatio(dx, dy int) (image.YCbCrSubsampleRatio, bool) {
	switch [2]int{dx, dy} {
	case [2]int{1, 1}:
		return image.YCbCrSubsampleRatio444, true
	case [2]int{2, 1}:
		return image.YCbCrSubsampleRatio422, true
	case [2]int{2, 2}:
		return image.YCbCrSubsampleRatio420, true
	case [2]int{1, 2}:
		return image.YCbCrSubsampleRatio440, true
	case [2]int{4, 1}:
		return image.YCbCrSubsampleRatio411, true
	case [2]int{4, 2}:
		return image.YCbCrSubsampleRatio410, true
	}
	return 0, false
}

// dqt reads quantisation tables (T.81 B.2.4.1), kept in zig-zag order.
func (d *Decoder) dqt(b []byte) error {
	for len(b) > 0 {
		pq, tq := b[0]>>4, int(b[0]&15)
		if pq > 1 || tq > 3 {
			return corrupt("DQT: precision %d, destination %d", pq, tq)
		}
		size := 64 << pq
		if len(b) < 1+size {
			return corrupt("DQT: table %d truncated", tq)
		}
		q := &d.quant[tq]
		for k := range q {
			if pq == 0 {
				q[k] = int32(b[1+k])
			} else {
				q[k] = int32(b[1+2*k])<<8 | int32(b[2+2*k])
			}
		}
		d.qdefined[tq] = true
		b = b[1+size:]
	}
	return nil
}

// dht reads Huffman tables (T.81 B.2.4.2).
func (d *Decoder) dht(b []byte) error {
	for len(b) > 0 {
		if len(b) < 17 {
			return corrupt("DHT: truncated")
		}
		tc, th := int(b[0]>>4), int(b[0]&15)
		if tc > 1 || th > 3 {
			return corrupt("DHT: class %d, destination %d", tc, th)
		}
		var counts [16]byte
		copy(counts[:], b[1:17])
		total := 0
		for _, c := range counts {
			total += int(c)
		}
		if total > 256 || len(b) < 17+total {
			return corrupt("DHT: %d codes, %d bytes left", total, len(b)-17)
		}
		if err := d.huff[tc][th].build(&counts, b[17:17+total]); err != nil {
			return err
		}
		d.hdefined[tc][th] = true
		b = b[17+total:]
	}
	return nil
}
