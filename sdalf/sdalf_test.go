package sdalf

import (
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/appearance"
)

// rgb is a colour of the hand-made test images.
type rgb [3]float64

var (
	grey  = rgb{0.5, 0.5, 0.5}
	skin  = rgb{0.9, 0.7, 0.6}
	blue  = rgb{0.1, 0.2, 0.8}
	brown = rgb{0.4, 0.25, 0.1}
)

// mustHSV returns the HSV conversion of a valid image.
func mustHSV(t *testing.T, img *appearance.Image) *appearance.HSV {
	t.Helper()
	h, err := appearance.ToHSV(img)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// canvas is a hand-made image with its foreground mask.
type canvas struct {
	img  *appearance.Image
	mask []float64
}

func newCanvas(w, h int, bg rgb) *canvas {
	c := &canvas{
		img:  &appearance.Image{W: w, H: h, R: make([]float64, w*h), G: make([]float64, w*h), B: make([]float64, w*h)},
		mask: make([]float64, w*h),
	}
	c.fill(0, 0, w, h, bg, 0)
	return c
}

// fill paints the rectangle [x0, x1) × [y0, y1) with colour col and
// mask value m.
func (c *canvas) fill(x0, y0, x1, y1 int, col rgb, m float64) {
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			i := y*c.img.W + x
			c.img.R[i], c.img.G[i], c.img.B[i] = col[0], col[1], col[2]
			c.mask[i] = m
		}
	}
}

// figure draws a 32×64 pedestrian shifted right by dx: a skin head in
// rows [5, 13), a blue torso in rows [13, 37) and brown legs in rows
// [37, 61), each symmetric about column 15 + dx.
func figure(dx int) *canvas {
	c := newCanvas(32, 64, grey)
	c.fill(12+dx, 5, 19+dx, 13, skin, 1)
	c.fill(8+dx, 13, 23+dx, 37, blue, 1)
	c.fill(10+dx, 37, 21+dx, 61, brown, 1)
	return c
}

func TestFindAxesFigure(t *testing.T) {
	for _, dx := range []int{0, 2, -3} {
		c := figure(dx)
		// The border model recovers the drawn silhouette on this plain
		// background, and finds the same axes.
		border, err := appearance.Foreground(c.img, appearance.MaskOptions{Kind: appearance.BorderMask})
		if err != nil {
			t.Fatal(err)
		}
		for name, mask := range map[string][]float64{"drawn": c.mask, "border": border} {
			got, err := FindAxes(mustHSV(t, c.img), mask, AxesOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := Axes{HeadTorso: 13, TorsoLegs: 37, TorsoSym: 15 + dx, LegsSym: 15 + dx}
			if got != want {
				t.Errorf("figure shifted by %d, %s mask: axes %+v, want %+v", dx, name, got, want)
			}
		}
	}
}

func TestFindAxesSymmetricColumn(t *testing.T) {
	// Every row is the same: colours that change with the distance to
	// column 13, foreground within 9 columns of it, and a background whose
	// colour changes with the column so that it is not symmetric.
	rng := rand.New(rand.NewPCG(3, 4))
	ring := make([]rgb, 10)
	for k := range ring {
		ring[k] = rgb{rng.Float64(), rng.Float64(), rng.Float64()}
	}
	w, h := 32, 24
	c := newCanvas(w, h, grey)
	for y := range h {
		for x := range w {
			if d := x - 13; d >= -9 && d <= 9 {
				c.fill(x, y, x+1, y+1, ring[max(d, -d)], 1)
			} else {
				c.fill(x, y, x+1, y+1, rgb{float64(x) / 32, 0.3, 0.3}, 0)
			}
		}
	}
	hsv := mustHSV(t, c.img)
	for _, mask := range [][]float64{c.mask, nil} {
		got, err := FindAxes(hsv, mask, AxesOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.TorsoSym != 13 || got.LegsSym != 13 {
			t.Errorf("mask %t: symmetry columns %d and %d, want 13", mask != nil, got.TorsoSym, got.LegsSym)
		}
	}
}

func TestFindAxesErrors(t *testing.T) {
	c := figure(0)
	hsv := mustHSV(t, c.img)
	bad := append([]float64(nil), c.mask...)
	bad[40] = 2
	for _, tc := range []struct {
		name string
		img  *appearance.HSV
		mask []float64
		opts AxesOptions
	}{
		{"small", mustHSV(t, newCanvas(2, 64, grey).img), nil, AxesOptions{}},
		{"short mask", hsv, c.mask[:10], AxesOptions{}},
		{"mask value", hsv, bad, AxesOptions{}},
		{"alpha", hsv, nil, AxesOptions{Alpha: 1}},
		{"delta", hsv, nil, AxesOptions{RowDelta: -1}},
	} {
		if _, err := FindAxes(tc.img, tc.mask, tc.opts); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	// No foreground at all is no error: the axes stay in their ranges.
	a, err := FindAxes(hsv, make([]float64, len(c.mask)), AxesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.HeadTorso < 2 || a.HeadTorso > a.TorsoLegs-2 || a.TorsoLegs < 16 || a.TorsoLegs > 48 || a.TorsoSym < 8 || a.LegsSym > 23 {
		t.Errorf("axes without foreground %+v outside their ranges", a)
	}
}
