package netpbm_test

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/netpbm"
)

func rect(w, h int) image.Rectangle { return image.Rect(0, 0, w, h) }

func gray(w, h int, pix ...byte) *image.Gray {
	return &image.Gray{Pix: pix, Stride: w, Rect: rect(w, h)}
}

// be16 lays out 16-bit values big-endian, as the 16-bit image types hold them.
func be16(vals ...uint16) []byte {
	b := make([]byte, 0, 2*len(vals))
	for _, v := range vals {
		b = append(b, byte(v>>8), byte(v))
	}
	return b
}

func gray16(w, h int, vals ...uint16) *image.Gray16 {
	return &image.Gray16{Pix: be16(vals...), Stride: 2 * w, Rect: rect(w, h)}
}

func rgba(w, h int, pix ...byte) *image.RGBA {
	return &image.RGBA{Pix: pix, Stride: 4 * w, Rect: rect(w, h)}
}

func rgba64(w, h int, vals ...uint16) *image.RGBA64 {
	return &image.RGBA64{Pix: be16(vals...), Stride: 8 * w, Rect: rect(w, h)}
}

func nrgba(w, h int, pix ...byte) *image.NRGBA {
	return &image.NRGBA{Pix: pix, Stride: 4 * w, Rect: rect(w, h)}
}

func nrgba64(w, h int, vals ...uint16) *image.NRGBA64 {
	return &image.NRGBA64{Pix: be16(vals...), Stride: 8 * w, Rect: rect(w, h)}
}

// decodeCases are valid files of every type with their exact decoded
// images. The scaled values are round(v*65535/maxval) worked out by hand:
// maxval 15 is 4369 per step; for maxval 1000, 1 -> 65.535 -> 66,
// 500 -> 32767.5 -> 32768, 333 -> 21823.155 -> 21823, 999 -> 65469.465 -> 65469.
var decodeCases = []struct {
	name string
	in   string
	want image.Image
}{
	{"P1", "P1\n# a bitmap\n3 2\n1 0 1\n0 1 0\n", gray(3, 2, 0, 255, 0, 255, 0, 255)},
	{"P1 packed digits", "P1 3 2 101\n#c\n010", gray(3, 2, 0, 255, 0, 255, 0, 255)},
	{"P4 padded rows", "P4\n10 2\n\x80\x40\x55\x40", gray(10, 2,
		0, 255, 255, 255, 255, 255, 255, 255, 255, 0,
		255, 0, 255, 0, 255, 0, 255, 0, 255, 0)},
	{"P2 maxval 255", "P2 2 2 255 0 128\n255 7\n", gray(2, 2, 0, 128, 255, 7)},
	{"P2 maxval 15", "P2\n3 1\n15\n0 7 15\n", gray16(3, 1, 0, 7*4369, 65535)},
	{"P2 maxval 65535", "P2 2 1 65535 4660 65535", gray16(2, 1, 4660, 65535)},
	{"P3 maxval 1000", "P3 2 1 1000\n0 1 500\n999 1000 333\n",
		rgba64(2, 1, 0, 66, 32768, 65535, 65469, 65535, 21823, 65535)},
	{"P3 maxval 255", "P3 1 2 255 1 2 3 4 5 6", rgba(1, 2, 1, 2, 3, 255, 4, 5, 6, 255)},
	{"P5 maxval 255", "P5 3 1 255\n\x00\x80\xff", gray(3, 1, 0, 128, 255)},
	{"P5 maxval 15", "P5 3 1 15\n\x00\x0f\x08", gray16(3, 1, 0, 65535, 8*4369)},
	{"P5 maxval 65535 big-endian", "P5 2 1 65535\n\x12\x34\xff\xfe", gray16(2, 1, 0x1234, 0xfffe)},
	{"P5 maxval 1000 16-bit", "P5 3 1 1000\n\x01\xf4\x03\xe8\x00\x01", gray16(3, 1, 32768, 65535, 66)},
	{"P5 maxval 1", "P5 2 1 1\n\x00\x01", gray16(2, 1, 0, 65535)},
	{"P6 maxval 255", "P6 2 1 255\n\x01\x02\x03\xfd\xfe\xff", rgba(2, 1, 1, 2, 3, 255, 253, 254, 255, 255)},
	{"P6 maxval 15", "P6 1 1 15\n\x01\x02\x0f", rgba64(1, 1, 4369, 2*4369, 65535, 65535)},
	{"P6 maxval 65535", "P6 1 1 65535\n\x12\x34\x56\x78\x9a\xbc", rgba64(1, 1, 0x1234, 0x5678, 0x9abc, 65535)},
	{"P7 GRAYSCALE", "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n\x05\x06", gray(2, 1, 5, 6)},
	{"P7 RGB 16-bit", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 65535\nTUPLTYPE RGB\nENDHDR\n\x00\x01\x00\x02\x00\x03",
		rgba64(1, 1, 1, 2, 3, 65535)},
	{"P7 GRAYSCALE_ALPHA", "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n\x10\x80\x20\xff",
		nrgba(2, 1, 16, 16, 16, 128, 32, 32, 32, 255)},
	{"P7 GRAYSCALE_ALPHA maxval 15", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 15\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n\x01\x0e",
		nrgba64(1, 1, 4369, 4369, 4369, 14*4369)},
	{"P7 RGB_ALPHA", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n\x01\x02\x03\x04",
		nrgba(1, 1, 1, 2, 3, 4)},
	{"P7 RGB_ALPHA maxval 1000", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 1000\nTUPLTYPE RGB_ALPHA\nENDHDR\n\x00\x01\x01\xf4\x03\xe7\x03\xe8",
		nrgba64(1, 1, 66, 32768, 65469, 65535)},
	{"P7 BLACKANDWHITE", "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 1\nMAXVAL 1\nTUPLTYPE BLACKANDWHITE\nENDHDR\n\x00\x01", gray16(2, 1, 0, 65535)},
	{"P7 no TUPLTYPE, comments, blank lines", "P7\n# comment\n\nWIDTH 1\n  HEIGHT\t1\nDEPTH 3\nMAXVAL 255\r\nENDHDR\n\x07\x08\x09",
		rgba(1, 1, 7, 8, 9, 255)},
	{"comments everywhere", "P5#c1\n2#c2\n 1 # c3\n#c4\n255#c5\n\x01\x02", gray(2, 1, 1, 2)},
	{"trailing data ignored", "P5 1 1 255\n\x2aP5 1 1 255\n\x00", gray(1, 1, 42)},
}

func TestDecode(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := netpbm.Decode(strings.NewReader(tc.in))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Decode = %#v\nwant %#v", got, tc.want)
			}
			cfg, err := netpbm.DecodeConfig(strings.NewReader(tc.in))
			if err != nil {
				t.Fatalf("DecodeConfig: %v", err)
			}
			b := tc.want.Bounds()
			if cfg.Width != b.Dx() || cfg.Height != b.Dy() || cfg.ColorModel != tc.want.ColorModel() {
				t.Errorf("DecodeConfig = %dx%d %v, want %dx%d %v", cfg.Width, cfg.Height, cfg.ColorModel, b.Dx(), b.Dy(), tc.want.ColorModel())
			}
		})
	}
}

// TestScaling checks every sample of several maxvals against
// round(v*65535/maxval) computed in float64, and that v/65535 of the result
// is within half a 16-bit step of v/maxval.
func TestScaling(t *testing.T) {
	for _, maxval := range []int{1, 2, 3, 15, 100, 254, 256, 1000, 4095, 65534} {
		var in bytes.Buffer
		in.WriteString("P5 " + strconv.Itoa(maxval+1) + " 1 " + strconv.Itoa(maxval) + "\n")
		for v := 0; v <= maxval; v++ {
			if maxval > 255 {
				in.WriteByte(byte(v >> 8))
			}
			in.WriteByte(byte(v))
		}
		img, err := netpbm.Decode(&in)
		if err != nil {
			t.Fatalf("maxval %d: %v", maxval, err)
		}
		g, ok := img.(*image.Gray16)
		if !ok {
			t.Fatalf("maxval %d: got %T, want *image.Gray16", maxval, img)
		}
		for v := 0; v <= maxval; v++ {
			got := g.Gray16At(v, 0).Y
			want := math.Round(float64(v) * 65535 / float64(maxval))
			if float64(got) != want {
				t.Fatalf("maxval %d: sample %d -> %d, want %v", maxval, v, got, want)
			}
			if d := math.Abs(float64(got)/65535 - float64(v)/float64(maxval)); d > 1.0/131070+1e-15 {
				t.Fatalf("maxval %d: sample %d: |u/65535 - v/maxval| = %g > 1/131070", maxval, v, d)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		header         bool // the error is in the header, so DecodeConfig fails too
	}{
		{"empty", "", "netpbm: reading magic number: unexpected EOF", true},
		{"bad magic", "P8 1 1 255\n\x00", `netpbm: bad magic number "P8"`, true},
		{"not netpbm", "GIF89a", `bad magic number "GI"`, true},
		{"no space after magic", "P51 1 255\n\x00", "P5 header: missing whitespace after magic number", true},
		{"maxval 0", "P5 1 1 0\n\x00", "netpbm: P5 header: maxval 0 out of range 1..65535", true},
		{"maxval 65536", "P2 1 1 65536\n0", "netpbm: P2 header: maxval 65536 out of range 1..65535", true},
		{"width 0", "P6 0 1 255\n", "netpbm: P6 header: width 0 out of range", true},
		{"height 0", "P4 8 0\n", "netpbm: P4 header: height 0 out of range", true},
		{"missing height", "P5\n1\n", "netpbm: P5 header: reading height: unexpected EOF", true},
		{"missing maxval", "P5 1 1", "reading maxval: unexpected EOF", true},
		{"letter in width", "P5 1x 1 255\n", `reading width: unexpected 'x' after number`, true},
		{"letter for width", "P5 x 1 255\n", `reading width: unexpected 'x', want a decimal number`, true},
		{"huge number", "P5 99999999999 1 255\n", "reading width: number too large", true},
		{"no whitespace after maxval", "P5 1 1 255", "missing whitespace after maxval: unexpected EOF", true},
		{"junk after maxval", "P5 1 1 255x", `reading maxval: unexpected 'x' after number`, true},
		{"absurd size", "P5 100000 100000 255\n", "100000x100000x1 = 10000000000 samples exceeds the limit of 268435456", true},
		{"absurd colour size", "P6 10000 10000 255\n", "exceeds the limit", true},
		{"absurd PAM size", "P7\nWIDTH 20000\nHEIGHT 20000\nDEPTH 1\nMAXVAL 255\nENDHDR\n", "exceeds the limit", true},
		{"truncated P5", "P5 2 2 255\n\x00", "netpbm: truncated pixel data: got 1 of 4 bytes", false},
		{"truncated P5 16-bit", "P5 1 1 1000\n\x00", "netpbm: truncated pixel data: got 1 of 2 bytes", false},
		{"truncated P6", "P6 2 1 255\n\x00\x01\x02", "netpbm: truncated pixel data: got 3 of 6 bytes", false},
		{"truncated P4", "P4 9 1\n\x00", "netpbm: truncated pixel data: got 1 of 2 bytes", false},
		{"truncated P7", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nENDHDR\n\x00", "got 1 of 4 bytes", false},
		{"truncated P2", "P2 2 1 15 3", "netpbm: truncated pixel data: got 1 of 2 samples", false},
		{"truncated P1", "P1 2 2 1 0 1", "netpbm: truncated pixel data: got 3 of 4 samples", false},
		{"P5 sample > maxval", "P5 2 1 15\n\x0f\x10", "netpbm: sample 1 is 16, exceeds maxval 15", false},
		{"P5 16-bit sample > maxval", "P5 1 1 1000\n\x03\xe9", "sample 0 is 1001, exceeds maxval 1000", false},
		{"P2 sample > maxval", "P2 1 1 15 16", "sample 0 of 1: sample exceeds maxval 15", false},
		{"P3 junk sample", "P3 1 1 255 1 2 x", `sample 2 of 3: unexpected 'x' in plain raster`, false},
		{"P3 junk after sample", "P3 1 1 255 1 2 3a", `unexpected 'a' in plain raster`, false},
		{"P1 bad digit", "P1 2 1 12", `unexpected '2' in P1 raster`, false},
		{"PAM no ENDHDR", "P7\nWIDTH 1\nHEIGHT 1\n", "netpbm: P7 header: unexpected EOF (no ENDHDR)", true},
		{"PAM unknown keyword", "P7\nSIZE 1\nENDHDR\n", `unknown keyword "SIZE"`, true},
		{"PAM missing MAXVAL", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nENDHDR\n", "missing MAXVAL", true},
		{"PAM duplicate WIDTH", "P7\nWIDTH 1\nWIDTH 2\nENDHDR\n", "duplicate WIDTH", true},
		{"PAM bad number", "P7\nWIDTH one\nENDHDR\n", `WIDTH "one" is not a number`, true},
		{"PAM depth 5", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n", "depth 5 out of range 1..4", true},
		{"PAM depth 0", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 0\nMAXVAL 255\nENDHDR\n", "depth 0 out of range 1..4", true},
		{"PAM maxval 0", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 0\nENDHDR\n", "netpbm: P7 header: maxval 0 out of range 1..65535", true},
		{"PAM depth mismatch", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n", "TUPLTYPE RGB needs depth 3, got 1", true},
		{"PAM unknown TUPLTYPE", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE CMYK\nENDHDR\n", `unsupported TUPLTYPE "CMYK"`, true},
		{"PAM BLACKANDWHITE maxval 255", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE BLACKANDWHITE\nENDHDR\n", "needs maxval 1, got 255", true},
		{"PAM long line", "P7\n#" + strings.Repeat("x", 2000) + "\n", "line longer than 1024 bytes", true},
		{"PAM sample > maxval", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 1\nTUPLTYPE BLACKANDWHITE\nENDHDR\n\x02", "exceeds maxval 1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := netpbm.Decode(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("Decode succeeded (%T %v), want error %q", img, img.Bounds(), tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode error %q, want it to contain %q", err, tc.want)
			}
			_, err = netpbm.DecodeConfig(strings.NewReader(tc.in))
			if tc.header && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("DecodeConfig error %v, want it to contain %q", err, tc.want)
			}
			if !tc.header && err != nil {
				t.Errorf("DecodeConfig: %v, want no error (the header is valid)", err)
			}
		})
	}
}

// TestLyingHeaderAllocatesLittle decodes a header announcing the largest
// allowed image (1<<28 samples) followed by a few bytes: the decoder must
// fail without allocating anything like the announced size.
func TestLyingHeaderAllocatesLittle(t *testing.T) {
	for _, in := range []string{
		"P5 16384 16384 255\n0123456789",
		"P5 16384 16384 65535\n0123456789",
		"P6 8192 8192 255\n0123456789",
		"P4 16384 16384\n0123456789",
		"P2 16384 16384 255\n0 1 2 3",
		"P1 16384 16384\n0 1 0 1",
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := netpbm.Decode(strings.NewReader(in))
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("%q: error %v, want a truncation error", in[:2], err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%q: allocated %d bytes for a %d-byte input", in[:2], n, len(in))
		}
	}
}

func TestRegistration(t *testing.T) {
	for _, tc := range []struct{ in, format string }{
		{"P1 1 1 1", "pbm"},
		{"P2 1 1 255 7", "pgm"},
		{"P3 1 1 255 1 2 3", "ppm"},
		{"P4 1 1\n\x80", "pbm"},
		{"P5 1 1 255\n\x07", "pgm"},
		{"P6 1 1 255\n\x01\x02\x03", "ppm"},
		{"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n\x07", "pam"},
	} {
		img, format, err := image.Decode(strings.NewReader(tc.in))
		if err != nil || format != tc.format || img.Bounds() != rect(1, 1) {
			t.Errorf("image.Decode(%q) = %v, %q, %v; want a 1x1 image, %q", tc.in[:2], img, format, err, tc.format)
		}
		cfg, format, err := image.DecodeConfig(strings.NewReader(tc.in))
		if err != nil || format != tc.format || cfg.Width != 1 || cfg.Height != 1 {
			t.Errorf("image.DecodeConfig(%q) = %+v, %q, %v; want 1x1, %q", tc.in[:2], cfg, format, err, tc.format)
		}
	}
}

// TestColorValues checks the colours of decoded images through the
// color.Color interface, the way consumers see them: PBM 1 is black, PAM
// BLACKANDWHITE 1 is white, maxval scaling reaches full intensity.
func TestColorValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		x    int
		want color.Color
	}{
		{"P1 2 1 1 0", 0, color.Gray{0}},
		{"P1 2 1 1 0", 1, color.Gray{255}},
		{"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 1\nTUPLTYPE BLACKANDWHITE\nENDHDR\n\x01", 0, color.Gray16{65535}},
		{"P3 1 1 7 7 0 7", 0, color.RGBA64{65535, 0, 65535, 65535}},
	} {
		img, err := netpbm.Decode(strings.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := img.At(tc.x, 0); got != tc.want {
			t.Errorf("%q at %d = %v, want %v", tc.in, tc.x, got, tc.want)
		}
	}
}
