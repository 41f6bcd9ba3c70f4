package jpegscale

import "encoding/binary"

// lutBits is the number of leading bits that a Huffman table's lookup
// table resolves at once; longer codes take the canonical search of
// T.81 F.2.2.3.
const lutBits = 9

// huffTable is one Huffman table (T.81 B.2.4.2 and Annex C), for
// decoding.
type huffTable struct {
	// lut, indexed by the next lutBits bits of the stream, holds
	// length<<8 | value for codes of at most lutBits bits, 0 for longer
	// codes.
	lut [1 << lutBits]uint16
	// ac, for an AC table, indexed as lut, holds value<<16 | run<<8 |
	// bits for the run/size symbols whose code and value bits fit in
	// lutBits together (value the coefficient, run the zeros before it,
	// bits the length of both), 0 for the others (EOB, ZRL, longer).
	ac [1 << lutBits]int32
	// maxcode[l] is the largest code of length l, -1 when there is none;
	// valoff[l] added to a code of length l gives its value's index in
	// vals (F.2.2.3's VALPTR(l) - MINCODE(l)).
	maxcode [17]int32
	valoff  [17]int32
	vals    [256]byte
}

// build makes t from the DHT counts of codes of each length 1..16
// (counts[l-1], BITS in T.81) and the values in order of increasing code
// (HUFFVAL), generating the canonical codes of Annex C.2. It returns an
// error when the counts overflow the code space of some length.
func (t *huffTable) build(counts *[16]byte, vals []byte) error {
	*t = huffTable{}
	copy(t.vals[:], vals)
	code, k := int32(0), int32(0)
	for l := 1; l <= 16; l++ {
		n := int32(counts[l-1])
		t.maxcode[l] = -1
		if n > 0 {
			t.valoff[l] = k - code
			t.maxcode[l] = code + n - 1
		}
		for range n {
			// C.2: the codes of length l must fit in l bits.
			if code >= 1<<l {
				return corrupt("Huffman table has more codes of %d bits than fit", l)
			}
			if l <= lutBits {
				shift := uint(lutBits - l)
				e := uint16(l)<<8 | uint16(t.vals[k])
				for i := code << shift; i < (code+1)<<shift; i++ {
					t.lut[i] = e
				}
			}
			code++
			k++
		}
		code <<= 1
	}
	// The combined entries: for each lookup index whose code is short,
	// the next size bits hold the coefficient (F.2.2.1).
	for i, e := range t.lut {
		l, rs := int(e>>8), e&0xff
		r, s := int(rs>>4), int(rs&15)
		if e == 0 || s == 0 || l+s > lutBits {
			continue
		}
		v := int32(i>>(lutBits-l-s)) & (1<<s - 1)
		if v < 1<<(s-1) {
			v += 1 - 1<<s
		}
		t.ac[i] = v<<16 | int32(r)<<8 | int32(l+s)
	}
	return nil
}

// bitReader state lives in the Decoder: acc holds nbits bits of the
// entropy-coded segment, left-aligned (the next bit is bit 63). When the
// segment ends (a marker or the end of the data) fill appends zero bits,
// counted in pad: consuming any of them means the data ran out, which
// checkBits reports.

// resetBits starts reading entropy-coded data at d.pos.
func (d *Decoder) resetBits() {
	d.acc, d.nbits, d.pad, d.stop = 0, 0, 0, false
}

// fill tops acc up to more than 56 bits, removing the 0x00 stuffed after
// each 0xFF data byte (T.81 F.1.2.3) and stopping at a marker, which it
// leaves at d.pos.
func (d *Decoder) fill() {
	for d.nbits <= 56 {
		if d.stop {
			d.nbits += 8
			d.pad += 8
			continue
		}
		if d.pos >= len(d.data) {
			d.stop = true
			continue
		}
		if d.pos+8 <= len(d.data) {
			// Eight bytes without 0xFF (no byte of the complement is
			// zero) go in at once, as many as fit.
			w := binary.BigEndian.Uint64(d.data[d.pos:])
			if x := ^w; (x-0x0101010101010101)&^x&0x8080808080808080 == 0 {
				n := (64 - d.nbits) / 8
				d.acc |= w >> uint(64-8*n) << uint(64-d.nbits-8*n)
				d.nbits += 8 * n
				d.pos += n
				continue
			}
		}
		b := d.data[d.pos]
		if b == 0xff {
			if d.pos+1 >= len(d.data) || d.data[d.pos+1] != 0 {
				d.stop = true
				continue
			}
			d.pos++
		}
		d.pos++
		d.acc |= uint64(b) << uint(56-d.nbits)
		d.nbits += 8
	}
}

// checkBits returns an error when decoding has consumed bits past the end
// of the entropy-coded segment: the data is truncated or a marker comes
// early.
func (d *Decoder) checkBits() error {
	if d.nbits >= d.pad {
		return nil
	}
	if d.pos >= len(d.data) {
		return corrupt("truncated entropy-coded data")
	}
	return corrupt("entropy-coded data ends early, at marker 0x%02x", d.markerAt(d.pos))
}

// markerAt returns the marker byte after the 0xFF at i, or 0.
func (d *Decoder) markerAt(i int) byte {
	if i+1 < len(d.data) {
		return d.data[i+1]
	}
	return 0
}

// decodeHuff decodes one symbol with t (T.81 F.2.2.3). The caller has
// filled at least 16 bits. A bit sequence that is no code of t sets d.err
// and gives 0.
func (d *Decoder) decodeHuff(t *huffTable) byte {
	if e := t.lut[d.acc>>(64-lutBits)]; e != 0 {
		d.acc <<= e >> 8
		d.nbits -= int(e >> 8)
		return byte(e)
	}
	code := int32(d.acc >> 48)
	for l := lutBits + 1; l <= 16; l++ {
		c := code >> uint(16-l)
		if c <= t.maxcode[l] {
			d.acc <<= uint(l)
			d.nbits -= l
			return t.vals[(t.valoff[l]+c)&0xff]
		}
	}
	if d.err == nil {
		d.err = corrupt("invalid Huffman code")
	}
	return 0
}

// receiveExtend reads s bits (1 <= s <= 16) and returns the coefficient
// difference they code (T.81 F.2.2.1, RECEIVE and EXTEND). The caller has
// filled at least s bits.
func (d *Decoder) receiveExtend(s uint) int32 {
	v := int32(d.acc >> (64 - s))
	d.acc <<= s
	d.nbits -= int(s)
	if v < 1<<(s-1) {
		v += 1 - 1<<s
	}
	return v
}
