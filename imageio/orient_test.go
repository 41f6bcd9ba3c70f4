package imageio

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// exifSegment builds an APP1 segment holding an EXIF block whose IFD0 has a
// dummy tag and then the orientation tag (type typ, count n, value v), in
// byte order bo.
func exifSegment(bo binary.AppendByteOrder, typ uint16, n uint32, v uint16) []byte {
	t := []byte("MM\x00*")
	if bo == binary.LittleEndian {
		t = []byte("II*\x00")
	}
	t = bo.AppendUint32(t, 8)
	t = bo.AppendUint16(t, 2) // two entries
	// ImageWidth, LONG, 1, 640.
	t = bo.AppendUint16(t, 0x0100)
	t = bo.AppendUint16(t, 4)
	t = bo.AppendUint32(t, 1)
	t = bo.AppendUint32(t, 640)
	// Orientation.
	t = bo.AppendUint16(t, 0x0112)
	t = bo.AppendUint16(t, typ)
	t = bo.AppendUint32(t, n)
	t = bo.AppendUint16(t, v)
	t = bo.AppendUint16(t, 0)
	t = bo.AppendUint32(t, 0) // no next IFD
	payload := append([]byte("Exif\x00\x00"), t...)
	seg := []byte{0xff, 0xe1}
	seg = binary.BigEndian.AppendUint16(seg, uint16(len(payload)+2))
	return append(seg, payload...)
}

// jfif is an APP0 segment such as most JPEG files start with.
var jfif = []byte{0xff, 0xe0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}

// jpegWith returns SOI, the segments, and a start of scan.
func jpegWith(segments ...[]byte) []byte {
	b := []byte{0xff, 0xd8}
	for _, s := range segments {
		b = append(b, s...)
	}
	return append(b, 0xff, 0xda, 0x00, 0x02, 0x12, 0x34)
}

func TestJPEGOrientation(t *testing.T) {
	be, le := binary.BigEndian, binary.LittleEndian
	for v := uint16(1); v <= 8; v++ {
		for _, bo := range []binary.AppendByteOrder{be, le} {
			data := jpegWith(jfif, exifSegment(bo, 3, 1, v))
			if got := jpegOrientation(data); got != int(v) {
				t.Errorf("%v orientation %d: got %d", bo, v, got)
			}
		}
	}
	seg6 := exifSegment(le, 3, 1, 6)
	for _, tc := range []struct {
		name string
		data []byte
		want int
	}{
		{"no EXIF", jpegWith(jfif), 1},
		{"fill bytes before marker", jpegWith(jfif, []byte{0xff, 0xff}, seg6), 6},
		{"value 0", jpegWith(exifSegment(be, 3, 1, 0)), 1},
		{"value 9", jpegWith(exifSegment(be, 3, 1, 9)), 1},
		{"type LONG", jpegWith(exifSegment(be, 4, 1, 6)), 1},
		{"count 2", jpegWith(exifSegment(be, 3, 2, 6)), 1},
		{"EXIF after scan", append(jpegWith(jfif), seg6...), 1},
		{"truncated segment", jpegWith(jfif, seg6)[:len(jfif)+len(seg6)-4], 1},
		{"not a JPEG", seg6, 1},
		{"empty", nil, 1},
		{"bad byte order", jpegWith(func() []byte { s := exifSegment(le, 3, 1, 6); s[10] = 'X'; return s }()), 1},
		{"IFD offset past end", jpegWith(func() []byte { s := exifSegment(be, 3, 1, 6); s[17] = 0xff; return s }()), 1},
		{"IFD offset 0", jpegWith(func() []byte { s := exifSegment(be, 3, 1, 6); s[17] = 0; return s }()), 1},
		// Entries are read while they lie inside the block, whatever the count says.
		{"entry count past end", jpegWith(func() []byte { s := exifSegment(be, 3, 1, 6); s[18], s[19] = 0xff, 0xff; return s }()), 6},
		{"entry count 1", jpegWith(func() []byte { s := exifSegment(be, 3, 1, 6); s[19] = 1; return s }()), 1},
		{"segment length 1", jpegWith([]byte{0xff, 0xe1, 0x00, 0x01}), 1},
		{"garbage between segments", jpegWith(jfif, []byte{0x00}, seg6), 1},
	} {
		if got := jpegOrientation(tc.data); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

// FuzzJPEGOrientation checks that the EXIF reader never panics and always
// returns a valid orientation.
func FuzzJPEGOrientation(f *testing.F) {
	f.Add(jpegWith(jfif, exifSegment(binary.LittleEndian, 3, 1, 6)))
	f.Add(jpegWith(exifSegment(binary.BigEndian, 3, 1, 8)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if o := jpegOrientation(data); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}

// Primitive transforms of a w x h plane, for an independent reference.
func flipLR(p []float64, w, h int) []float64 {
	out := make([]float64, w*h)
	for y := range h {
		for x := range w {
			out[y*w+x] = p[y*w+w-1-x]
		}
	}
	return out
}

func flipTB(p []float64, w, h int) []float64 {
	out := make([]float64, w*h)
	for y := range h {
		copy(out[y*w:(y+1)*w], p[(h-1-y)*w:(h-y)*w])
	}
	return out
}

func transpose(p []float64, w, h int) []float64 {
	out := make([]float64, w*h)
	for y := range h {
		for x := range w {
			out[x*h+y] = p[y*w+x]
		}
	}
	return out
}

// TestOrient checks the eight orientations against compositions of flips
// and the transpose (EXIF 2.32, Table 6: 6 is the transpose flipped left to
// right, 8 the transpose flipped top to bottom, 7 the transpose rotated by
// 180 degrees), and that 6 puts the bottom-left corner top-left.
func TestOrient(t *testing.T) {
	const w, h = 5, 3
	src := make([]float64, w*h)
	for i := range src {
		src[i] = float64(i)
	}
	tr := transpose(src, w, h) // h x w
	want := map[int][]float64{
		1: src,
		2: flipLR(src, w, h),
		3: flipTB(flipLR(src, w, h), w, h),
		4: flipTB(src, w, h),
		5: tr,
		6: flipLR(tr, h, w),
		7: flipTB(flipLR(tr, h, w), h, w),
		8: flipTB(tr, h, w),
	}
	for o := 1; o <= 8; o++ {
		dw, dh := orientedSize(w, h, o)
		if dw*dh != w*h || (o >= 5) != (dw == h) {
			t.Fatalf("orientation %d: size %dx%d", o, dw, dh)
		}
		got := make([]float64, w*h)
		orient(got, src, w, h, o)
		for i := range got {
			if got[i] != want[o][i] {
				t.Errorf("orientation %d: got %v, want %v", o, got, want[o])
				break
			}
		}
	}
	got := make([]float64, w*h)
	orient(got, src, w, h, 6)
	if got[0] != src[(h-1)*w] {
		t.Errorf("rotate 90 clockwise: top-left %v, want bottom-left %v", got[0], src[(h-1)*w])
	}
}

// TestLoadOrientedJPEG writes a JPEG of four grey quadrants with each EXIF
// orientation and checks the loaded size and the quadrants' positions,
// worked out by hand from the EXIF definitions.
func TestLoadOrientedJPEG(t *testing.T) {
	const w, h = 32, 16
	img := image.NewGray(image.Rect(0, 0, w, h))
	stored := [2][2]uint8{{0, 85}, {170, 255}} // [row][col]: top-left, top-right; bottom-left, bottom-right
	for y := range h {
		for x := range w {
			img.Pix[y*w+x] = stored[2*y/h][2*x/w]
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	plain := buf.Bytes()
	want := map[int][2][2]uint8{
		1: {{0, 85}, {170, 255}},
		2: {{85, 0}, {255, 170}},
		3: {{255, 170}, {85, 0}},
		4: {{170, 255}, {0, 85}},
		5: {{0, 170}, {85, 255}},
		6: {{170, 0}, {255, 85}},
		7: {{255, 85}, {170, 0}},
		8: {{85, 255}, {0, 170}},
	}
	for o := 1; o <= 8; o++ {
		for _, bo := range []binary.AppendByteOrder{binary.BigEndian, binary.LittleEndian} {
			data := append([]byte{0xff, 0xd8}, exifSegment(bo, 3, 1, uint16(o))...)
			data = append(data, plain[2:]...)
			path := filepath.Join(t.TempDir(), "oriented.jpg")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			ww, wh := w, h
			if o >= 5 {
				ww, wh = h, w
			}
			// At the native size, and halved: the resize target is the
			// size of the upright image. Halved with JPEGScaleFast, the
			// file is decoded at 1/2 scale, then oriented.
			for _, mode := range []string{"native", "half", "half-fast"} {
				opts := Options{Color: true}
				if mode != "native" {
					opts.Width, opts.Height = ww/2, wh/2
				}
				if mode == "half-fast" {
					opts.JPEGScale = JPEGScaleFast
				}
				half := mode != "native"
				got, err := Load(path, opts)
				if err != nil {
					t.Fatal(err)
				}
				ww, wh := ww, wh
				if half {
					ww, wh = ww/2, wh/2
				}
				if scale := map[string]int{"native": 1, "half": 1, "half-fast": 2}[mode]; got.DecodeScale != scale {
					t.Errorf("orientation %d, %s: decoded at 1/%d, want 1/%d", o, mode, got.DecodeScale, scale)
				}
				if got.W != ww || got.H != wh || got.Orientation != o || got.SourceW != w || got.SourceH != h {
					t.Fatalf("orientation %d: %dx%d (orientation %d, source %dx%d), want %dx%d", o, got.W, got.H, got.Orientation, got.SourceW, got.SourceH, ww, wh)
				}
				for qy := range 2 {
					for qx := range 2 {
						// The centre of the quadrant.
						x, y := ww/4+qx*ww/2, wh/4+qy*wh/2
						v := got.Gray[y*got.W+x] * 255
						if math.Abs(v-float64(want[o][qy][qx])) > 3 {
							t.Errorf("orientation %d (halved %v): quadrant (%d,%d) = %.1f, want %d", o, half, qx, qy, v, want[o][qy][qx])
						}
					}
				}
			}
		}
	}
}
