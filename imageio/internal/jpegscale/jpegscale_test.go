package jpegscale_test

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/shareddata"

	"github.com/covpipe/covpipe/imageio/internal/jpegscale"
	"github.com/covpipe/covpipe/imageio/internal/jpegtest"
)

// smoothImage is a w x h colour image of gradients with a few flat colour
// patches aligned to 16-pixel blocks (so that 4:2:0 chroma blocks are
// flat), the kind of content on which a scaled inverse DCT and a box
// filter agree closely.
func smoothImage(w, h int) *image.RGBA { return gradients(w, h, true) }

// gradients is smoothImage, with or without the patches.
func gradients(w, h int, patches bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			fx, fy := float64(x)/float64(max(w, 1)), float64(y)/float64(max(h, 1))
			c := color.RGBA{
				R: uint8(40 + 170*fx),
				G: uint8(60 + 120*fy + 20*math.Sin(fx*3)),
				B: uint8(200 - 150*fx*fy),
				A: 255,
			}
			switch (x/16 + 3*(y/16)) % 5 {
			case 1:
				if patches {
					c = color.RGBA{200, 30, 40, 255}
				}
			case 3:
				if patches {
					c = color.RGBA{20, 90, 180, 255}
				}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// noisyImage is a w x h colour image of gradients and uniform noise, like
// a photograph's texture.
func noisyImage(w, h int, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 7))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			i := img.PixOffset(x, y)
			img.Pix[i] = uint8(x + rng.IntN(48))
			img.Pix[i+1] = uint8(y/2 + rng.IntN(48))
			img.Pix[i+2] = uint8((x*y)>>6 + rng.IntN(48))
			img.Pix[i+3] = 255
		}
	}
	return img
}

func encodeStd(tb testing.TB, img image.Image, quality int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// plane is one component of a decoded image, per pixel: chroma samples
// repeated over the pixels they cover, as image.YCbCr.YCbCrAt gives them.
type plane struct {
	name string
	w, h int
	at   func(x, y int) float64
}

// planesOf returns the grey plane of an *image.Gray, or the Y, Cb and Cr
// planes of an *image.YCbCr; with stored, the chroma planes as stored, at
// their subsampled size.
func planesOf(t *testing.T, img image.Image, stored bool) []plane {
	t.Helper()
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	switch m := img.(type) {
	case *image.Gray:
		return []plane{{"grey", w, h, func(x, y int) float64 { return float64(m.GrayAt(x, y).Y) }}}
	case *image.YCbCr:
		if stored {
			f := factors[m.SubsampleRatio]
			cw, ch := (w+f[0]-1)/f[0], (h+f[1]-1)/f[1]
			return []plane{
				{"Y", w, h, func(x, y int) float64 { return float64(m.Y[y*m.YStride+x]) }},
				{"Cb", cw, ch, func(x, y int) float64 { return float64(m.Cb[y*m.CStride+x]) }},
				{"Cr", cw, ch, func(x, y int) float64 { return float64(m.Cr[y*m.CStride+x]) }},
			}
		}
		return []plane{
			{"Y", w, h, func(x, y int) float64 { return float64(m.YCbCrAt(x, y).Y) }},
			{"Cb", w, h, func(x, y int) float64 { return float64(m.YCbCrAt(x, y).Cb) }},
			{"Cr", w, h, func(x, y int) float64 { return float64(m.YCbCrAt(x, y).Cr) }},
		}
	}
	t.Fatalf("decoded to %T", img)
	return nil
}

// factors are the chroma subsampling factors across and down of each
// ratio.
var factors = map[image.YCbCrSubsampleRatio][2]int{
	image.YCbCrSubsampleRatio444: {1, 1},
	image.YCbCrSubsampleRatio422: {2, 1},
	image.YCbCrSubsampleRatio420: {2, 2},
	image.YCbCrSubsampleRatio440: {1, 2},
	image.YCbCrSubsampleRatio411: {4, 1},
	image.YCbCrSubsampleRatio410: {4, 2},
}

// scaledRatio is the subsampling of a file of ratio r decoded at
// 1/denom with FullChroma: each chroma block decodes to up to 8 samples
// across and down, as many as the luma's resolution needs.
func scaledRatio(r image.YCbCrSubsampleRatio, denom int) image.YCbCrSubsampleRatio {
	f, n := factors[r], 8/denom
	want := [2]int{f[0] * n / min(8, f[0]*n), f[1] * n / min(8, f[1]*n)}
	for r, f := range factors {
		if f == want {
			return r
		}
	}
	panic("no ratio")
}

// diffStats compares the scaled plane s with the plane f box-downsampled
// by denom: every sample of s whose denom x denom square lies inside f,
// against the square's mean. It returns the largest and the mean
// absolute difference, and the number of samples compared.
func diffStats(f, s plane, denom int) (maxd, mean float64, n int) {
	var sum float64
	for y := range s.h {
		for x := range s.w {
			if (x+1)*denom > f.w || (y+1)*denom > f.h {
				continue
			}
			var ref float64
			for dy := range denom {
				for dx := range denom {
					ref += f.at(x*denom+dx, y*denom+dy)
				}
			}
			ref /= float64(denom * denom)
			d := math.Abs(s.at(x, y) - ref)
			maxd = max(maxd, d)
			sum += d
			n++
		}
	}
	if n > 0 {
		mean = sum / float64(n)
	}
	return maxd, mean, n
}

// compareScaled decodes data with image/jpeg and with a Decoder at 1/denom
// and checks every plane against the box-downsampled full decode.
func compareScaled(t *testing.T, dec *jpegscale.Decoder, data []byte, denom int, maxTol, meanTol float64) {
	t.Helper()
	full, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("image/jpeg: %v", err)
	}
	img, err := dec.Decode(data, denom)
	if err != nil {
		t.Fatalf("Decode 1/%d: %v", denom, err)
	}
	fb := full.Bounds()
	want := image.Rect(0, 0, (fb.Dx()+denom-1)/denom, (fb.Dy()+denom-1)/denom)
	if img.Bounds() != want {
		t.Fatalf("1/%d: bounds %v, want %v", denom, img.Bounds(), want)
	}
	// Without FullChroma the chroma planes keep the file's subsampling and
	// are compared as stored; with it, pixel by pixel.
	fp, sp := planesOf(t, full, !dec.FullChroma), planesOf(t, img, !dec.FullChroma)
	if len(fp) != len(sp) {
		t.Fatalf("1/%d: %d planes, image/jpeg %d", denom, len(sp), len(fp))
	}
	if f, ok := full.(*image.YCbCr); ok {
		want := f.SubsampleRatio
		if dec.FullChroma {
			want = scaledRatio(want, denom)
		}
		s, ok := img.(*image.YCbCr)
		if !ok {
			t.Fatalf("1/%d: decoded to %T", denom, img)
		}
		if s.SubsampleRatio != want {
			t.Fatalf("1/%d: subsampling %v, want %v", denom, s.SubsampleRatio, want)
		}
	}
	for i := range fp {
		maxd, mean, n := diffStats(fp[i], sp[i], denom)
		if n == 0 && fp[i].w >= denom && fp[i].h >= denom {
			t.Errorf("1/%d %s: nothing compared", denom, fp[i].name)
		}
		if maxd > maxTol || mean > meanTol {
			t.Errorf("1/%d %s: differs from image/jpeg's decode box-downsampled by up to %.2f (mean %.3f) grey levels over %d samples, want <= %v (mean <= %v)",
				denom, fp[i].name, maxd, mean, n, maxTol, meanTol)
		}
	}
}

// TestFullScale checks the 1/1 decode against image/jpeg on files of
// every sampling, odd sizes, restart intervals and separate scans: the
// two inverse DCTs round differently, by at most 1 grey level, 0.05 on
// average.
func TestFullScale(t *testing.T) {
	noisy, smooth := noisyImage(37, 23, 1), smoothImage(50, 41)
	var dec jpegscale.Decoder
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"std-gray-q90", encodeStd(t, jpegtest.Grey(noisy), 90)},
		{"std-420-q90", encodeStd(t, noisy, 90)},
		{"std-420-q100", encodeStd(t, smooth, 100)},
		{"std-420-q50", encodeStd(t, noisy, 50)},
		{"gray", jpegtest.MustEncode(t, noisy, jpegtest.Options{})},
		{"gray-2x2", jpegtest.MustEncode(t, noisy, jpegtest.Options{Sampling: [][2]int{{2, 2}}})},
		{"444", jpegtest.MustEncode(t, noisy, jpegtest.Options{Sampling: [][2]int{{1, 1}, {1, 1}, {1, 1}}})},
		{"422", jpegtest.MustEncode(t, noisy, jpegtest.Options{Sampling: [][2]int{{2, 1}, {1, 1}, {1, 1}}})},
		{"420", jpegtest.MustEncode(t, noisy, jpegtest.Options{Sampling: [][2]int{{2, 2}, {1, 1}, {1, 1}}, Slope: 1})},
		{"440", jpegtest.MustEncode(t, noisy, jpegtest.Options{Sampling: [][2]int{{1, 2}, {1, 1}, {1, 1}}})},
		{"411", jpegtest.MustEncode(t, noisy, jpegtest.Options{Sampling: [][2]int{{4, 1}, {1, 1}, {1, 1}}})},
		{"420-restart-1", jpegtest.MustEncode(t, noisy, jpegtest.Options{Sampling: [][2]int{{2, 2}, {1, 1}, {1, 1}}, Restart: 1})},
		{"444-restart-5", jpegtest.MustEncode(t, noisy, jpegtest.Options{Sampling: [][2]int{{1, 1}, {1, 1}, {1, 1}}, Restart: 5})},
		// image/jpeg counts the restart interval of a non-interleaved scan
		// in the MCUs of the interleaved ones, not in blocks (T.81 A.2.2):
		// TestRestartSame checks that combination.
		{"420-separate", jpegtest.MustEncode(t, noisy, jpegtest.Options{Sampling: [][2]int{{2, 2}, {1, 1}, {1, 1}}, Separate: true})},
		{"422-separate", jpegtest.MustEncode(t, noisy, jpegtest.Options{Sampling: [][2]int{{2, 1}, {1, 1}, {1, 1}}, Separate: true})},
		{"adobe-ycc", jpegtest.MustEncode(t, noisy, jpegtest.Options{Sampling: [][2]int{{2, 1}, {1, 1}, {1, 1}}, Adobe: new(byte(1))})},
	} {
		t.Run(tc.name, func(t *testing.T) { compareScaled(t, &dec, tc.data, 1, 1, 0.05) })
	}
}

// TestEighthIsBlockMean checks the 1/8 decode of grey files: each pixel is
// its block's DC term, the mean of the block's 64 samples, so it is within
// 1.5 grey levels of the mean of image/jpeg's decode of the block
// (which rounds and clamps each sample).
func TestEighthIsBlockMean(t *testing.T) {
	var dec jpegscale.Decoder
	for _, tc := range []struct {
		name string
		img  image.Image
		q    int
	}{
		{"noisy-q90", jpegtest.Grey(noisyImage(64, 40, 2)), 90},
		{"noisy-q75-odd", jpegtest.Grey(noisyImage(61, 45, 3)), 75},
		{"smooth-q95", jpegtest.Grey(smoothImage(48, 48)), 95},
		{"one-block", jpegtest.Grey(noisyImage(8, 8, 4)), 90},
	} {
		t.Run(tc.name, func(t *testing.T) { compareScaled(t, &dec, encodeStd(t, tc.img, tc.q), 8, 1.5, 0.5) })
	}
}

// TestScaledSmooth checks the 1/2, 1/4 and 1/8 decodes of smooth images
// against image/jpeg's decode box-downsampled, with FullChroma and
// without (where 4:1:1 and 4:1:0 chroma, a quarter of the luma's
// resolution across, is not compared). The scaled inverse DCT is not a
// box filter: it drops the coefficients above its size, which a box
// filter's mean keeps in part, so the two agree only where the image is
// smooth. On these images they are within 3 grey levels, 1 on average
// (measured: 2.7 and 0.95 at worst, on 4:2:0 chroma at 1/4 without
// FullChroma).
func TestScaledSmooth(t *testing.T) {
	for _, full := range []bool{true, false} {
		t.Run(fmt.Sprintf("full-chroma-%v", full), func(t *testing.T) { testScaledSmooth(t, full) })
	}
}

func testScaledSmooth(t *testing.T, fullChroma bool) {
	dec := jpegscale.Decoder{FullChroma: fullChroma}
	smooth, odd := smoothImage(64, 48), smoothImage(45, 31)
	files := []struct {
		name string
		data []byte
		mean float64 // 0: 1
	}{
		{name: "std-420-q95", data: encodeStd(t, smooth, 95)},
		{name: "std-420-q100-odd", data: encodeStd(t, odd, 100)},
		{name: "std-gray-q90", data: encodeStd(t, jpegtest.Grey(smooth), 90)},
		{name: "444", data: jpegtest.MustEncode(t, smooth, jpegtest.Options{Sampling: [][2]int{{1, 1}, {1, 1}, {1, 1}}})},
		{name: "422-odd", data: jpegtest.MustEncode(t, odd, jpegtest.Options{Sampling: [][2]int{{2, 1}, {1, 1}, {1, 1}}})},
		{name: "440-restart", data: jpegtest.MustEncode(t, odd, jpegtest.Options{Sampling: [][2]int{{1, 2}, {1, 1}, {1, 1}}, Restart: 2})},
		// Their 32-pixel-wide chroma blocks would straddle the patches'
		// edges, which no 8-point DCT of 1/4 or less reproduces.
		{name: "411-gradients", data: jpegtest.MustEncode(t, gradients(64, 48, false), jpegtest.Options{Sampling: [][2]int{{4, 1}, {1, 1}, {1, 1}}})},
		// At 1/8 a 4:1:0 chroma block makes 4x2 samples: the 2-point
		// inverse DCT overshoots a ramp's block means by some 14%.
		{name: "410-separate-gradients", data: jpegtest.MustEncode(t, gradients(45, 31, false), jpegtest.Options{Sampling: [][2]int{{4, 2}, {1, 1}, {1, 1}}, Separate: true}), mean: 1.5},
	}
	for _, f := range files {
		if !fullChroma && strings.HasPrefix(f.name, "41") {
			continue
		}
		for _, denom := range []int{2, 4, 8} {
			t.Run(fmt.Sprintf("%s/1:%d", f.name, denom), func(t *testing.T) { compareScaled(t, &dec, f.data, denom, 3, cmp.Or(f.mean, 1)) })
		}
	}
}

// TestRestartSame checks that restart intervals and separate scans do
// not change the decoded samples: the same coefficients coded with a DRI
// of 1, 2, 7 or 9 MCUs (RST0..RST7 wrapping), or a scan per component,
// decode to the same bytes at every scale as without.
func TestRestartSame(t *testing.T) {
	img := noisyImage(70, 53, 5)
	var dec jpegscale.Decoder
	for _, sampling := range [][][2]int{{{1, 1}}, {{2, 2}, {1, 1}, {1, 1}}, {{2, 1}, {1, 1}, {1, 1}}} {
		base := jpegtest.MustEncode(t, img, jpegtest.Options{Sampling: sampling})
		for _, o := range []jpegtest.Options{
			{Sampling: sampling, Restart: 1},
			{Sampling: sampling, Restart: 2},
			{Sampling: sampling, Restart: 7},
			{Sampling: sampling, Restart: 9},
			{Sampling: sampling, Separate: true},
			{Sampling: sampling, Separate: true, Restart: 4},
		} {
			data := jpegtest.MustEncode(t, img, o)
			if bytes.Equal(data, base) != (len(sampling) == 1 && o.Restart == 0) {
				t.Fatalf("%v: the same file as without", o)
			}
			for _, denom := range []int{1, 2, 4, 8} {
				name := fmt.Sprintf("%v/restart-%d/separate-%v/1:%d", sampling, o.Restart, o.Separate, denom)
				want := planeBytes(t, &dec, base, denom)
				got := planeBytes(t, &dec, data, denom)
				if got != want {
					t.Errorf("%s: decodes differently from the file without restarts", name)
				}
			}
		}
	}
}

// planeBytes decodes data at 1/denom and returns the visible samples of
// its planes, for comparison.
func planeBytes(t *testing.T, dec *jpegscale.Decoder, data []byte, denom int) string {
	t.Helper()
	img, err := dec.Decode(data, denom)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range planesOf(t, img, false) {
		for y := range p.h {
			for x := range p.w {
				b.WriteByte(byte(p.at(x, y)))
			}
		}
	}
	return b.String()
}

// patch returns a copy of data with the bytes at the first occurrence of
// old replaced by new.
func patch(t *testing.T, data, old, new []byte) []byte {
	t.Helper()
	i := bytes.Index(data, old)
	if i < 0 {
		t.Fatalf("% x not found", old)
	}
	out := bytes.Clone(data)
	copy(out[i:], new)
	return out
}

// sofHeader returns the bytes of data's SOF0 marker and its length,
// precision, height and width.
func sofHeader(t *testing.T, data []byte) []byte {
	t.Helper()
	i := bytes.Index(data, []byte{0xff, 0xc0})
	if i < 0 {
		t.Fatal("no SOF0")
	}
	return data[i : i+9]
}

func TestUnsupported(t *testing.T) {
	img := smoothImage(20, 12)
	gray := jpegtest.MustEncode(t, img, jpegtest.Options{})
	std := encodeStd(t, img, 90)
	sof := sofHeader(t, std)
	withPrecision := func(p byte) []byte {
		h := bytes.Clone(sof)
		h[4] = p
		return patch(t, std, sof, h)
	}
	zeroHeight := bytes.Clone(sof)
	zeroHeight[5], zeroHeight[6] = 0, 0
	grayQ := bytes.Index(gray, []byte{0xff, 0xc0})
	fourComp := append(bytes.Clone(gray[:grayQ]), 0xff, 0xc0, 0, 20, 8, 0, 12, 0, 20, 4, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0, 4, 0x11, 0)
	for _, tc := range []struct {
		name, msg string
		data      []byte
	}{
		{"progressive", "progressive", jpegtest.MustEncode(t, img, jpegtest.Options{ProgressiveDC: true})},
		{"arithmetic", "arithmetic", patch(t, std, []byte{0xff, 0xc0}, []byte{0xff, 0xc9})},
		{"lossless", "lossless", patch(t, std, []byte{0xff, 0xc0}, []byte{0xff, 0xc3})},
		{"12-bit", "12-bit", withPrecision(12)},
		{"DNL", "height 0", patch(t, std, sof, zeroHeight)},
		{"CMYK", "4 components", fourComp},
		{"adobe-rgb", "Adobe colour transform 0", jpegtest.MustEncode(t, img, jpegtest.Options{Sampling: [][2]int{{1, 1}, {1, 1}, {1, 1}}, Adobe: new(byte(0))})},
		{"rgb-ids", "RGB components", jpegtest.MustEncode(t, img, jpegtest.Options{Sampling: [][2]int{{1, 1}, {1, 1}, {1, 1}}, IDs: []byte("RGB"), NoJFIF: true})},
		{"chroma-2x2-luma-1x1", "sampling factors", jpegtest.MustEncode(t, img, jpegtest.Options{Sampling: [][2]int{{1, 1}, {2, 2}, {2, 2}}})},
		{"cb-cr-differ", "sampling factors", jpegtest.MustEncode(t, img, jpegtest.Options{Sampling: [][2]int{{2, 2}, {1, 1}, {2, 2}}})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dec jpegscale.Decoder
			_, cerr := dec.DecodeConfig(tc.data)
			_, err := dec.Decode(tc.data, 4)
			for _, e := range []error{cerr, err} {
				if !errors.Is(e, jpegscale.ErrUnsupported) || errors.Is(e, jpegscale.ErrFormat) || !strings.Contains(e.Error(), tc.msg) {
					t.Errorf("got %v, want ErrUnsupported naming %q", e, tc.msg)
				}
			}
		})
	}
	// The RGB-named file is Y'CbCr with a JFIF marker.
	var dec jpegscale.Decoder
	if _, err := dec.Decode(jpegtest.MustEncode(t, img, jpegtest.Options{Sampling: [][2]int{{1, 1}, {1, 1}, {1, 1}}, IDs: []byte("RGB")}), 2); err != nil {
		t.Errorf("components R, G, B with JFIF: %v", err)
	}
}

func TestCorrupt(t *testing.T) {
	img := noisyImage(40, 24, 9)
	good := jpegtest.MustEncode(t, img, jpegtest.Options{Sampling: [][2]int{{2, 2}, {1, 1}, {1, 1}}, Restart: 2})
	sos := bytes.Index(good, []byte{0xff, 0xda})
	dht := bytes.Index(good, []byte{0xff, 0xc4})
	rst1 := bytes.Index(good[sos:], []byte{0xff, 0xd1}) + sos
	// Entropy-coded data of all 1 bits: no 12-bit code of the AC table
	// is all ones.
	ones := bytes.Clone(good[:sos+14])
	for range 40 {
		ones = append(ones, 0xff, 0x00)
	}
	ones = append(ones, 0xff, 0xd9)
	overfull := bytes.Clone(good)
	overfull[dht+5+1], overfull[dht+5+5] = 5, 7 // 5 codes of 2 bits, 7 of 6
	wrongRST := bytes.Clone(good)
	wrongRST[rst1+1] = 0xd3
	noDQT := patch(t, good, []byte{0xff, 0xdb}, []byte{0xff, 0xfe}) // table 0 becomes a comment
	for _, tc := range []struct {
		name, msg string
		data      []byte
	}{
		{"empty", "missing SOI", nil},
		{"not-jpeg", "missing SOI", []byte("\x89PNG\r\n\x1a\n")},
		{"soi-only", "no EOI", []byte{0xff, 0xd8}},
		{"segment-overrun", "overruns", good[:dht+10]},
		{"truncated-scan", "truncated entropy-coded data", good[:sos+40]},
		{"eoi-in-scan", "ends early, at marker 0xd9", append(bytes.Clone(good[:sos+40]), 0xff, 0xd9)},
		{"bad-code", "invalid Huffman code", ones},
		{"overfull-table", "more codes of 2 bits", overfull},
		{"wrong-rst", "expected RST1 marker, found 0xd3", wrongRST},
		{"no-quant-table", "quantisation table 0 not defined", noDQT},
		{"sos-before-sof", "SOS before the frame header", append([]byte{0xff, 0xd8}, good[sos:]...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dec jpegscale.Decoder
			_, err := dec.Decode(tc.data, 4)
			if !errors.Is(err, jpegscale.ErrFormat) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got %v, want ErrFormat naming %q", err, tc.msg)
			}
		})
	}
	// Every truncation that cuts into the entropy-coded data fails.
	var dec jpegscale.Decoder
	for n := range len(good) - 2 {
		if _, err := dec.Decode(good[:n], 8); err == nil {
			t.Errorf("truncated to %d of %d bytes: no error", n, len(good))
		}
	}
}

// seeds are small files of every kind the package decodes, for the fuzz
// test.
func seeds(tb testing.TB) [][]byte {
	img := noisyImage(19, 13, 3)
	return [][]byte{
		encodeStd(tb, img, 75),
		encodeStd(tb, jpegtest.Grey(img), 75),
		jpegtest.MustEncode(tb, img, jpegtest.Options{Sampling: [][2]int{{2, 1}, {1, 1}, {1, 1}}, Restart: 1}),
		jpegtest.MustEncode(tb, img, jpegtest.Options{Sampling: [][2]int{{1, 2}, {1, 1}, {1, 1}}, Separate: true}),
		jpegtest.MustEncode(tb, img, jpegtest.Options{Sampling: [][2]int{{2, 2}}, Restart: 3}),
	}
}

// FuzzDecode decodes arbitrary data at every scale: no panic, and a
// decoded image has the size DecodeConfig reads, scaled.
func FuzzDecode(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	var dec jpegscale.Decoder
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, cerr := dec.DecodeConfig(data)
		for _, denom := range []int{1, 2, 4, 8} {
			img, err := dec.Decode(data, denom)
			if err != nil {
				if !errors.Is(err, jpegscale.ErrFormat) && !errors.Is(err, jpegscale.ErrUnsupported) {
					t.Fatalf("1/%d: error %v wraps neither ErrFormat nor ErrUnsupported", denom, err)
				}
				continue
			}
			if cerr != nil {
				t.Fatalf("1/%d decodes, DecodeConfig fails: %v", denom, cerr)
			}
			want := image.Rect(0, 0, (cfg.Width+denom-1)/denom, (cfg.Height+denom-1)/denom)
			if img.Bounds() != want {
				t.Fatalf("1/%d: bounds %v, want %v", denom, img.Bounds(), want)
			}
		}
	})
}

// BenchmarkDecode compares image/jpeg's decode of a 128x256 colour JPEG
// (4:2:0) with this package's at every scale: a mini-mars crop (5.5 kB),
// when the shared data is there, and a generated image of gradients and
// noise at quality 90 (15 kB, more entropy-coded data than a photograph).
func BenchmarkDecode(b *testing.B) {
	b.Run("mini-mars", func(b *testing.B) {
		data, err := os.ReadFile(filepath.Join(shareddata.Dir(b, "mini-mars"), "0015", "0015C1T0001F001.jpg"))
		if err != nil {
			b.Fatal(err)
		}
		benchDecode(b, data)
	})
	b.Run("generated", func(b *testing.B) { benchDecode(b, encodeStd(b, noisyImage(128, 256, 1), 90)) })
}

func benchDecode(b *testing.B, data []byte) {
	b.Run("image-jpeg", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, bc := range []struct {
		denom int
		full  bool
	}{{1, false}, {2, false}, {2, true}, {4, false}, {4, true}, {8, false}} {
		denom := bc.denom
		name := fmt.Sprintf("jpegscale-1:%d", denom)
		if bc.full {
			name += "-full-chroma"
		}
		b.Run(name, func(b *testing.B) {
			dec := jpegscale.Decoder{FullChroma: bc.full}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := dec.Decode(data, denom); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
