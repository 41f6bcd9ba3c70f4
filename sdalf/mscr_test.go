package sdalf

import (
	"math"
	"math/rand/v2"
	"testing"
)

// noisy adds noise uniform in [−amp, amp] to every value of c's image,
// clipped to [0, 1].
func (c *canvas) noisy(amp float64, seed uint64) *canvas {
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, p := range [][]float64{c.img.R, c.img.G, c.img.B} {
		for i := range p {
			p[i] = min(1, max(0, p[i]+amp*(2*rng.Float64()-1)))
		}
	}
	return c
}

// patch is a rectangle of one colour in a test image.
type patch struct {
	x0, y0, x1, y1 int
	col            rgb
}

func TestMSCRPatches(t *testing.T) {
	patches := []patch{
		{4, 4, 12, 14, rgb{0.9, 0.1, 0.1}},
		{18, 10, 28, 20, rgb{0.1, 0.8, 0.2}},
		{6, 40, 26, 52, rgb{0.1, 0.1, 0.9}},
	}
	for _, amp := range []float64{0, 0.01} {
		c := newCanvas(32, 64, grey)
		for _, p := range patches {
			c.fill(p.x0, p.y0, p.x1, p.y1, p.col, 1)
		}
		c.noisy(amp, 1)
		for _, mask := range [][]float64{nil, c.mask} {
			blobs, err := MSCR(c.img, mask, MSCROptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(blobs) != len(patches) {
				t.Errorf("noise %v, mask %t: %d regions %+v, want %d", amp, mask != nil, len(blobs), blobs, len(patches))
				continue
			}
			for _, p := range patches {
				area := (p.x1 - p.x0) * (p.y1 - p.y0)
				x, y := float64(p.x0+p.x1-1)/2, float64(p.y0+p.y1-1)/2
				l, a, b := lab(p.col[0], p.col[1], p.col[2])
				found := false
				for _, bl := range blobs {
					if bl.Area == area && math.Abs(bl.X-x) < 1e-9 && math.Abs(bl.Y-y) < 1e-9 &&
						math.Abs(bl.L-l)+math.Abs(bl.A-a)+math.Abs(bl.B-b) < 1+400*amp {
						found = true
					}
				}
				if !found {
					t.Errorf("noise %v, mask %t: no region for the patch %+v among %+v", amp, mask != nil, p, blobs)
				}
			}
		}
	}
}

func TestMSCRMaskAndArea(t *testing.T) {
	c := newCanvas(32, 64, grey)
	c.fill(4, 4, 12, 14, rgb{0.9, 0.1, 0.1}, 0) // background
	c.fill(18, 10, 28, 20, rgb{0.1, 0.8, 0.2}, 1)
	c.fill(20, 40, 22, 46, rgb{0.1, 0.1, 0.9}, 1) // 12 pixels: too small
	blobs, err := MSCR(c.img, c.mask, MSCROptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(blobs) != 1 || blobs[0].Area != 100 {
		t.Errorf("regions %+v, want the green patch's only", blobs)
	}
}

func TestMSCRNoise(t *testing.T) {
	// Noise whose edge distances stay below the minimum margin has no
	// stable region, whatever its seed; stronger noise than the margin
	// allows is no image of patches either, but may show chance regions.
	for seed := range uint64(5) {
		c := newCanvas(32, 64, grey).noisy(0.02, seed)
		blobs, err := MSCR(c.img, nil, MSCROptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(blobs) != 0 {
			t.Errorf("seed %d: regions %+v in noise", seed, blobs)
		}
	}
}

func TestMSCRErrors(t *testing.T) {
	c := newCanvas(8, 8, grey)
	for _, o := range []MSCROptions{
		{Steps: -1}, {MinArea: -1}, {MaxArea: 2}, {MinMargin: math.NaN()}, {AreaIncrement: 0.5}, {MinForeground: 1.5},
	} {
		if _, err := MSCR(c.img, nil, o); err == nil {
			t.Errorf("options %+v: no error", o)
		}
	}
	if _, err := MSCR(c.img, c.mask[:3], MSCROptions{}); err == nil {
		t.Error("short mask: no error")
	}
	one := newCanvas(1, 1, grey)
	if blobs, err := MSCR(one.img, nil, MSCROptions{}); err != nil || len(blobs) != 0 {
		t.Errorf("one pixel: %v, %v", blobs, err)
	}
}

func TestLab(t *testing.T) {
	for _, c := range []struct {
		col     rgb
		l, a, b float64
	}{
		{rgb{0, 0, 0}, 0, 0, 0},
		{rgb{1, 1, 1}, 100, 0, 0},
		{rgb{1, 0, 0}, 53.2408, 80.0925, 67.2032},
		{rgb{0, 0, 1}, 32.2970, 79.1875, -107.8602},
	} {
		l, a, b := lab(c.col[0], c.col[1], c.col[2])
		if math.Abs(l-c.l) > 1e-3 || math.Abs(a-c.a) > 1e-3 || math.Abs(b-c.b) > 1e-3 {
			t.Errorf("lab%v = (%v, %v, %v), want (%v, %v, %v)", c.col, l, a, b, c.l, c.a, c.b)
		}
	}
}
