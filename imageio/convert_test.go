package imageio

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"
)

// genericOnly hides an image's concrete type and its RGBA64At method, so
// that convert takes the At().RGBA() path.
type genericOnly struct{ image.Image }

// rgba64Only hides an image's concrete type but keeps RGBA64At.
type rgba64Only struct{ image.RGBA64Image }

func fill(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// setAlpha sets every alpha sample of a 4-channel pixel buffer (bytes per
// sample n) to 0xff, or to random values when translucent; for
// premultiplied buffers the colour samples are then reduced to at most
// alpha, as premultiplication requires.
func setAlpha(rng *rand.Rand, pix []byte, n int, translucent, premultiplied bool) {
	for i := 0; i < len(pix); i += 4 * n {
		a := uint32(0xffff)
		if translucent {
			a = uint32(rng.IntN(0x10000))
			if rng.IntN(8) == 0 {
				a = 0
			}
		}
		put := func(j int, v uint32) {
			if n == 1 {
				pix[i+j] = byte(v >> 8)
			} else {
				pix[i+2*j], pix[i+2*j+1] = byte(v>>8), byte(v)
			}
		}
		get := func(j int) uint32 {
			if n == 1 {
				return uint32(pix[i+j]) * 0x101
			}
			return uint32(pix[i+2*j])<<8 | uint32(pix[i+2*j+1])
		}
		if n == 1 {
			a = a >> 8 * 0x101
		}
		put(3, a)
		if premultiplied {
			for j := range 3 {
				put(j, get(j)*a/0xffff)
			}
		}
	}
}

// testImages returns one image of every fast-path type (with sub-images
// and odd origins), with random content. Alpha is opaque unless
// translucent; NRGBA types are only made opaque, since for them the fast
// path's stored colour and the generic path's premultiplied colour differ.
func testImages(rng *rand.Rand, translucent bool) map[string]image.Image {
	r := image.Rect(-3, 2, 14, 13)
	imgs := map[string]image.Image{}
	g := image.NewGray(r)
	fill(rng, g.Pix)
	imgs["Gray"] = g
	imgs["Gray sub-image"] = g.SubImage(image.Rect(-1, 3, 10, 12))
	g16 := image.NewGray16(r)
	fill(rng, g16.Pix)
	imgs["Gray16"] = g16
	rgba := image.NewRGBA(r)
	fill(rng, rgba.Pix)
	setAlpha(rng, rgba.Pix, 1, translucent, true)
	imgs["RGBA"] = rgba
	imgs["RGBA sub-image"] = rgba.SubImage(image.Rect(0, 4, 9, 12))
	rgba64 := image.NewRGBA64(r)
	fill(rng, rgba64.Pix)
	setAlpha(rng, rgba64.Pix, 2, translucent, true)
	imgs["RGBA64"] = rgba64
	if !translucent {
		nrgba := image.NewNRGBA(r)
		fill(rng, nrgba.Pix)
		setAlpha(rng, nrgba.Pix, 1, false, false)
		imgs["NRGBA"] = nrgba
		nrgba64 := image.NewNRGBA64(r)
		fill(rng, nrgba64.Pix)
		setAlpha(rng, nrgba64.Pix, 2, false, false)
		imgs["NRGBA64"] = nrgba64
	}
	for _, ratio := range []image.YCbCrSubsampleRatio{
		image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420,
		image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410,
	} {
		y := image.NewYCbCr(r, ratio)
		fill(rng, y.Y)
		fill(rng, y.Cb)
		fill(rng, y.Cr)
		imgs["YCbCr "+ratio.String()] = y
		imgs["YCbCr sub-image "+ratio.String()] = y.SubImage(image.Rect(-2, 3, 11, 12))
	}
	pal := color.Palette{color.RGBA{10, 20, 30, 255}, color.Gray{77}, color.NRGBA{200, 100, 50, 255}}
	if translucent {
		pal = append(pal, color.NRGBA{200, 100, 50, 128}, color.RGBA{})
	}
	p := image.NewPaletted(r, pal)
	for i := range p.Pix {
		p.Pix[i] = uint8(rng.IntN(len(pal)))
	}
	imgs["Paletted"] = p
	cmyk := image.NewCMYK(r)
	fill(rng, cmyk.Pix)
	imgs["CMYK"] = cmyk
	return imgs
}

func newPlanes(n int, gray, rgb bool) planes {
	var p planes
	if gray {
		p.gray = make([]float64, n)
	}
	if rgb {
		p.r, p.g, p.b = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	return p
}

// equalPlanes checks that got equals want to within tol.
func equalPlanes(t *testing.T, name string, got, want planes, tol float64) {
	t.Helper()
	for _, c := range []struct {
		plane     string
		got, want []float64
	}{{"gray", got.gray, want.gray}, {"R", got.r, want.r}, {"G", got.g, want.g}, {"B", got.b, want.b}} {
		for i := range c.want {
			if math.Abs(c.got[i]-c.want[i]) > tol || (tol == 0 && c.got[i] != c.want[i]) {
				t.Errorf("%s: %s[%d] = %v, want %v", name, c.plane, i, c.got[i], c.want[i])
				return
			}
		}
	}
}

// TestFastPathsMatchGeneric checks every fast path, bit for bit, against
// the generic path through RGBA64At and through At().RGBA(), in every
// plane combination; Y'CbCr, which the generic path converts with 16-bit
// fixed point, to within 1/255.
func TestFastPathsMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, translucent := range []bool{false, true} {
		for name, img := range testImages(rng, translucent) {
			n := img.Bounds().Dx() * img.Bounds().Dy()
			for _, mode := range []struct{ gray, rgb bool }{{true, false}, {false, true}, {true, true}} {
				var ws scratch
				fast := newPlanes(n, mode.gray, mode.rgb)
				convert(img, &fast, &ws)
				viaRGBA64 := newPlanes(n, mode.gray, mode.rgb)
				convert(rgba64Only{img.(image.RGBA64Image)}, &viaRGBA64, &ws)
				viaAt := newPlanes(n, mode.gray, mode.rgb)
				convert(genericOnly{img}, &viaAt, &ws)
				tol := 0.0
				if _, ok := img.(*image.YCbCr); ok {
					tol = 1.0 / 255
				}
				equalPlanes(t, name+" vs RGBA64At", fast, viaRGBA64, tol)
				equalPlanes(t, name+" vs At", fast, viaAt, tol)
			}
		}
	}
}

// TestNRGBAStoredColour checks that NRGBA images give their stored,
// non-premultiplied colour whatever the alpha.
func TestNRGBAStoredColour(t *testing.T) {
	m := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	copy(m.Pix, []byte{255, 128, 0, 0, 10, 20, 30, 40})
	m16 := image.NewNRGBA64(image.Rect(0, 0, 1, 1))
	copy(m16.Pix, []byte{0xff, 0xff, 0x80, 0x00, 0x00, 0x01, 0x00, 0x00})
	p := newPlanes(2, true, true)
	convert(m, &p, nil)
	want := [][3]float64{{1, 128.0 / 255, 0}, {10.0 / 255, 20.0 / 255, 30.0 / 255}}
	for i, c := range want {
		if p.r[i] != c[0] || p.g[i] != c[1] || p.b[i] != c[2] {
			t.Errorf("NRGBA pixel %d = %v %v %v, want %v", i, p.r[i], p.g[i], p.b[i], c)
		}
	}
	p16 := newPlanes(1, false, true)
	convert(m16, &p16, nil)
	if p16.r[0] != 1 || p16.g[0] != 0x8000/65535.0 || p16.b[0] != 1/65535.0 {
		t.Errorf("NRGBA64 = %v %v %v", p16.r[0], p16.g[0], p16.b[0])
	}
}

// TestUnpremultiply checks translucent premultiplied pixels against c/a
// worked out by hand.
func TestUnpremultiply(t *testing.T) {
	m := image.NewRGBA(image.Rect(0, 0, 3, 1))
	copy(m.Pix, []byte{50, 100, 0, 200, 9, 9, 9, 0, 255, 0, 0, 255})
	p := newPlanes(3, true, true)
	convert(m, &p, nil)
	want := [][3]float64{{0.25, 0.5, 0}, {0, 0, 0}, {1, 0, 0}}
	for i, c := range want {
		if p.r[i] != c[0] || p.g[i] != c[1] || p.b[i] != c[2] {
			t.Errorf("pixel %d = %v %v %v, want %v", i, p.r[i], p.g[i], p.b[i], c)
		}
	}
	if p.gray[2] != 0.299 {
		t.Errorf("luminance of red = %v, want 0.299", p.gray[2])
	}
}

func TestLuminance(t *testing.T) {
	for _, tc := range []struct{ r, g, b, want float64 }{
		{1, 0, 0, 0.299},
		{0, 1, 0, 0.587},
		{0, 0, 1, 0.114},
		{1, 1, 1, 1},
		{0.3, 0.3, 0.3, 0.3},
		{0.2, 0.4, 0.6, 0.299*0.2 + 0.587*0.4 + 0.114*0.6},
	} {
		if got := luminance(tc.r, tc.g, tc.b); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("luminance(%v, %v, %v) = %v, want %v", tc.r, tc.g, tc.b, got, tc.want)
		}
	}
	// For 8-bit grey levels the weights give the level exactly; this is
	// what makes colour and grey sources agree.
	for v := range 256 {
		x := float64(v) / 255
		if got := luminance(x, x, x); got != x {
			t.Fatalf("luminance of grey %d = %v, want %v", v, got, x)
		}
	}
}

// TestYCbCr converts every (Y, Cb, Cr) and checks the result against
// closed forms: neutral chroma gives R = G = B = Y/255 exactly; where no
// channel is clamped, the luminance is Y/255 (the transform's coefficients
// come from the luma weights); and color.YCbCrToRGB, the same equations
// with coefficients rounded to 16 fractional bits and a result rounded
// down after adding an offset in [0,1), is within 1.01 grey levels. The
// largest deviations are logged: 1.001 grey levels from YCbCrToRGB, 0.882
// from color.YCbCr.RGBA.
func TestYCbCr(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive")
	}
	m := image.NewYCbCr(image.Rect(0, 0, 256, 256), image.YCbCrSubsampleRatio444)
	for i := range 256 * 256 {
		m.Cb[i], m.Cr[i] = uint8(i%256), uint8(i/256)
	}
	p := newPlanes(256*256, true, true)
	var ws scratch
	var dev8, dev16 float64
	for yv := range 256 {
		for i := range m.Y {
			m.Y[i] = uint8(yv)
		}
		convert(m, &p, &ws)
		for i := range m.Y {
			cb, cr := m.Cb[i], m.Cr[i]
			r, g, b := p.r[i], p.g[i], p.b[i]
			y := float64(yv) / 255
			if cb == 128 && cr == 128 && (r != y || g != y || b != y || p.gray[i] != y) {
				t.Fatalf("Y %d neutral: %v %v %v gray %v, want %v", yv, r, g, b, p.gray[i], y)
			}
			if 0 < min(r, g, b) && max(r, g, b) < 1 && math.Abs(p.gray[i]-y) > 1e-15 {
				t.Fatalf("Y %d Cb %d Cr %d: luminance %v, want %v", yv, cb, cr, p.gray[i], y)
			}
			r8, g8, b8 := color.YCbCrToRGB(uint8(yv), cb, cr)
			r16, g16, b16, _ := color.YCbCr{uint8(yv), cb, cr}.RGBA()
			for _, c := range [][3]float64{{r, float64(r8) / 255, float64(r16) / 65535}, {g, float64(g8) / 255, float64(g16) / 65535}, {b, float64(b8) / 255, float64(b16) / 65535}} {
				dev8 = max(dev8, math.Abs(c[0]-c[1]))
				dev16 = max(dev16, math.Abs(c[0]-c[2]))
			}
		}
	}
	if dev8 > 1.01/255 {
		t.Errorf("largest deviation from color.YCbCrToRGB %.3f grey levels, want <= 1.01", dev8*255)
	}
	t.Logf("largest deviation: %.3f grey levels from color.YCbCrToRGB, %.3f from color.YCbCr.RGBA", dev8*255, dev16*255)
}

func TestDepthOf(t *testing.T) {
	for _, tc := range []struct {
		img  image.Image
		want int
	}{
		{image.NewGray(image.Rect(0, 0, 1, 1)), 8},
		{image.NewGray16(image.Rect(0, 0, 1, 1)), 16},
		{image.NewRGBA64(image.Rect(0, 0, 1, 1)), 16},
		{image.NewNRGBA64(image.Rect(0, 0, 1, 1)), 16},
		{image.NewYCbCr(image.Rect(0, 0, 1, 1), image.YCbCrSubsampleRatio420), 8},
	} {
		if got := depthOf(tc.img); got != tc.want {
			t.Errorf("depthOf(%T) = %d, want %d", tc.img, got, tc.want)
		}
	}
}
