package imageio

import "encoding/binary"

// jpegOrientation returns the EXIF orientation (1..8) of a JPEG file: tag
// 0x0112 of IFD0 in the first APP1 segment that starts with "Exif\0\0"
// (EXIF 2.32, Sec. 4.5 and 4.6.4). It returns 1 (upright) when the file has
// no such tag or its markers or EXIF block are malformed: a broken EXIF
// block should not stop the image from loading, and the JPEG decoder judges
// the rest of the file. It reads only the segments before the first scan.
func jpegOrientation(data []byte) int {
	if len(data) < 2 || data[0] != 0xff || data[1] != 0xd8 {
		return 1
	}
	i := 2
	for i+2 <= len(data) {
		if data[i] != 0xff {
			return 1
		}
		marker := data[i+1]
		i += 2
		switch {
		case marker == 0xff:
			i-- // a fill byte before the marker
			continue
		case marker == 0x01 || (0xd0 <= marker && marker <= 0xd8):
			continue // TEM, RSTn, SOI: no length field
		case marker == 0xda || marker == 0xd9:
			return 1 // start of scan or end of image: no EXIF came first
		}
		if i+2 > len(data) {
			return 1
		}
		n := int(data[i])<<8 | int(data[i+1])
		if n < 2 || i+n > len(data) {
			return 1
		}
		if seg := data[i+2 : i+n]; marker == 0xe1 && len(seg) >= 6 && string(seg[:6]) == "Exif\x00\x00" {
			return exifOrientation(seg[6:])
		}
		i += n
	}
	return 1
}

// exifOrientation returns the orientation tag of IFD0 in the TIFF
// structure t of an EXIF block, or 1 when absent or malformed.
func exifOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return 1
	}
	off := uint64(bo.Uint32(t[4:8]))
	if off < 8 || off+2 > uint64(len(t)) {
		return 1
	}
	n := int(bo.Uint16(t[off:]))
	entries := t[off+2:]
	for k := 0; k < n && 12*k+12 <= len(entries); k++ {
		e := entries[12*k : 12*k+12]
		if bo.Uint16(e) != 0x0112 {
			continue
		}
		// Type SHORT (3), count 1: the value is in the first two bytes of
		// the value field.
		if bo.Uint16(e[2:]) != 3 || bo.Uint32(e[4:]) != 1 {
			return 1
		}
		if v := int(bo.Uint16(e[8:])); 1 <= v && v <= 8 {
			return v
		}
		return 1
	}
	return 1
}

// orientedSize is the size of a w x h image after applying orientation o.
func orientedSize(w, h, o int) (int, int) {
	if o >= 5 {
		return h, w
	}
	return w, h
}

// orient writes into dst the w x h plane src transformed by the EXIF
// orientation o (see the package documentation); dst has the size
// orientedSize(w, h, o). Output pixel (x, y) is read from source index
// base + x*sx + y*sy.
func orient(dst, src []float64, w, h, o int) {
	last := (h - 1) * w // first index of the last source row
	var base, sx, sy int
	switch o {
	case 2: // flip left-right
		base, sx, sy = w-1, -1, w
	case 3: // rotate 180
		base, sx, sy = last+w-1, -1, -w
	case 4: // flip top-bottom
		base, sx, sy = last, 1, -w
	case 5: // transpose: (x, y) <- (y, x)
		base, sx, sy = 0, w, 1
	case 6: // rotate 90 clockwise: (x, y) <- (y, h-1-x)
		base, sx, sy = last, -w, 1
	case 7: // transverse: (x, y) <- (w-1-y, h-1-x)
		base, sx, sy = last+w-1, -w, -1
	case 8: // rotate 90 anticlockwise: (x, y) <- (w-1-y, x)
		base, sx, sy = w-1, w, -1
	default:
		copy(dst, src[:w*h])
		return
	}
	dw, dh := orientedSize(w, h, o)
	i := 0
	for y := range dh {
		j := base + y*sy
		for range dw {
			dst[i] = src[j]
			i++
			j += sx
		}
	}
}
