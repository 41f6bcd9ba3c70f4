package features_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/gabor"
	"github.com/covpipe/covpipe/imageio"
)

// grayImage returns a w×h image with grey plane pix.
func grayImage(w, h int, pix ...float64) *imageio.Image {
	if len(pix) != w*h {
		panic(fmt.Sprintf("grayImage: %d values for %dx%d", len(pix), w, h))
	}
	return &imageio.Image{W: w, H: h, Gray: pix}
}

// randomImage returns a w×h colour image of uniform random values whose
// grey plane is the BT.601 luminance, as imageio gives.
func randomImage(w, h int, seed uint64) *imageio.Image {
	rng := rand.New(rand.NewPCG(seed, 7))
	img := &imageio.Image{W: w, H: h}
	for _, p := range []*[]float64{&img.R, &img.G, &img.B} {
		*p = make([]float64, w*h)
		for i := range *p {
			(*p)[i] = rng.Float64()
		}
	}
	img.Gray = make([]float64, w*h)
	for i := range img.Gray {
		img.Gray[i] = 0.299*img.R[i] + 0.587*img.G[i] + 0.114*img.B[i]
	}
	return img
}

// plane returns the plane of m named name.
func plane(t *testing.T, m *features.Map, name string) []float64 {
	t.Helper()
	k := slices.Index(m.Names, name)
	if k < 0 {
		t.Fatalf("no plane %q in %v", name, m.Names)
	}
	return m.Planes[k]
}

func compute(t *testing.T, spec string, img *imageio.Image) *features.Map {
	t.Helper()
	m, err := mustParse(t, spec).Compute(img)
	if err != nil {
		t.Fatalf("Compute(%s): %v", spec, err)
	}
	if m.W != img.W || m.H != img.H {
		t.Fatalf("Compute(%s): map %dx%d, image %dx%d", spec, m.W, m.H, img.W, img.H)
	}
	return m
}

// TestDerivatives checks I and its derivatives against values computed by
// hand from the definitions, on images whose rows are written out below.
func TestDerivatives(t *testing.T) {
	for _, tc := range []struct {
		name string
		img  *imageio.Image
		want map[string][]float64
	}{
		{
			// Ix is 2 inside and 1 at the replicated borders; Ixx is 0 inside.
			name: "horizontal ramp",
			img: grayImage(4, 2,
				0, 1, 2, 3,
				0, 1, 2, 3),
			want: map[string][]float64{
				"Ix":  {1, 2, 2, 1, 1, 2, 2, 1},
				"Iy":  {0, 0, 0, 0, 0, 0, 0, 0},
				"Ixx": {1, 0, 0, 1, 1, 0, 0, 1},
				"Iyy": {0, 0, 0, 0, 0, 0, 0, 0},
			},
		},
		{
			name: "vertical ramp",
			img: grayImage(2, 4,
				0, 0,
				3, 3,
				6, 6,
				9, 9),
			want: map[string][]float64{
				"Ix":  {0, 0, 0, 0, 0, 0, 0, 0},
				"Iy":  {3, 3, 6, 6, 6, 6, 3, 3},
				"Ixx": {0, 0, 0, 0, 0, 0, 0, 0},
				"Iyy": {3, 3, 0, 0, 0, 0, 3, 3},
			},
		},
		{
			// Inside, the neighbours have equal values (Ix = 0) that
			// differ from the centre by 1 (Ixx = 2).
			name: "checkerboard",
			img: grayImage(4, 4,
				0, 1, 0, 1,
				1, 0, 1, 0,
				0, 1, 0, 1,
				1, 0, 1, 0),
			want: map[string][]float64{
				"Ix": {
					1, 0, 0, 1,
					1, 0, 0, 1,
					1, 0, 0, 1,
					1, 0, 0, 1},
				"Iy": {
					1, 1, 1, 1,
					0, 0, 0, 0,
					0, 0, 0, 0,
					1, 1, 1, 1},
				"Ixx": {
					1, 2, 2, 1,
					1, 2, 2, 1,
					1, 2, 2, 1,
					1, 2, 2, 1},
				"Iyy": {
					1, 1, 1, 1,
					2, 2, 2, 2,
					2, 2, 2, 2,
					1, 1, 1, 1},
			},
		},
		{
			name: "bright pixel",
			img: grayImage(5, 5,
				0, 0, 0, 0, 0,
				0, 0, 0, 0, 0,
				0, 0, 4, 0, 0,
				0, 0, 0, 0, 0,
				0, 0, 0, 0, 0),
			want: map[string][]float64{
				"Ix": {
					0, 0, 0, 0, 0,
					0, 0, 0, 0, 0,
					0, 4, 0, 4, 0,
					0, 0, 0, 0, 0,
					0, 0, 0, 0, 0},
				"Iy": {
					0, 0, 0, 0, 0,
					0, 0, 4, 0, 0,
					0, 0, 0, 0, 0,
					0, 0, 4, 0, 0,
					0, 0, 0, 0, 0},
				"Ixx": {
					0, 0, 0, 0, 0,
					0, 0, 0, 0, 0,
					0, 4, 8, 4, 0,
					0, 0, 0, 0, 0,
					0, 0, 0, 0, 0},
				"Iyy": {
					0, 0, 0, 0, 0,
					0, 0, 4, 0, 0,
					0, 0, 8, 0, 0,
					0, 0, 4, 0, 0,
					0, 0, 0, 0, 0},
			},
		},
		{
			// At the corner the replicated pixel is the bright one itself.
			name: "bright corner",
			img: grayImage(3, 3,
				1, 0, 0,
				0, 0, 0,
				0, 0, 0),
			want: map[string][]float64{
				"Ix":  {1, 1, 0, 0, 0, 0, 0, 0, 0},
				"Iy":  {1, 0, 0, 1, 0, 0, 0, 0, 0},
				"Ixx": {1, 1, 0, 0, 0, 0, 0, 0, 0},
				"Iyy": {1, 0, 0, 1, 0, 0, 0, 0, 0},
			},
		},
		{
			name: "column",
			img:  grayImage(1, 3, 0, 1, 3),
			want: map[string][]float64{
				"Ix":  {0, 0, 0},
				"Iy":  {1, 3, 2},
				"Ixx": {0, 0, 0},
				"Iyy": {1, 1, 2},
			},
		},
		{
			name: "row",
			img:  grayImage(3, 1, 0, 1, 3),
			want: map[string][]float64{
				"Ix":  {1, 3, 2},
				"Iy":  {0, 0, 0},
				"Ixx": {1, 1, 2},
				"Iyy": {0, 0, 0},
			},
		},
		{
			name: "two pixels",
			img:  grayImage(2, 1, 0.25, 1),
			want: map[string][]float64{
				"Ix":  {0.75, 0.75},
				"Ixx": {0.75, 0.75},
				"Iyy": {0, 0},
			},
		},
		{
			name: "one pixel",
			img:  grayImage(1, 1, 0.5),
			want: map[string][]float64{"Ix": {0}, "Iy": {0}, "Ixx": {0}, "Iyy": {0}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := compute(t, "x,y,texture", tc.img)
			for name, want := range tc.want {
				if got := plane(t, m, name); !slices.Equal(got, want) {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			if got := plane(t, m, "I"); !slices.Equal(got, tc.img.Gray) {
				t.Errorf("I = %v, want the grey plane %v", got, tc.img.Gray)
			}
			for i := range tc.img.Gray {
				x, y := i%tc.img.W, i/tc.img.W
				if gx, gy := plane(t, m, "x")[i], plane(t, m, "y")[i]; gx != float64(x) || gy != float64(y) {
					t.Fatalf("pixel %d: x, y = %v, %v, want %d, %d", i, gx, gy, x, y)
				}
			}
		})
	}
}

// TestColourChannels checks that each colour feature reads its own
// channel: R is a horizontal ramp, G a vertical one and B a bright pixel,
// while the grey plane differs from all three.
func TestColourChannels(t *testing.T) {
	const w, h = 3, 3
	img := &imageio.Image{W: w, H: h,
		R:    []float64{0, 1, 2, 0, 1, 2, 0, 1, 2},
		G:    []float64{0, 0, 0, 2, 2, 2, 4, 4, 4},
		B:    []float64{0, 0, 0, 0, 1, 0, 0, 0, 0},
		Gray: []float64{9, 9, 9, 9, 9, 9, 9, 9, 9},
	}
	m := compute(t, "reid", img)
	if !slices.Equal(m.Names, reid17) {
		t.Fatalf("names %v, want %v", m.Names, reid17)
	}
	want := map[string][]float64{
		"R":   img.R,
		"G":   img.G,
		"B":   img.B,
		"Rx":  {1, 2, 1, 1, 2, 1, 1, 2, 1},
		"Ry":  {0, 0, 0, 0, 0, 0, 0, 0, 0},
		"Rxx": {1, 0, 1, 1, 0, 1, 1, 0, 1},
		"Ryy": {0, 0, 0, 0, 0, 0, 0, 0, 0},
		"Gx":  {0, 0, 0, 0, 0, 0, 0, 0, 0},
		"Gy":  {2, 2, 2, 4, 4, 4, 2, 2, 2},
		"Gxx": {0, 0, 0, 0, 0, 0, 0, 0, 0},
		"Gyy": {2, 2, 2, 0, 0, 0, 2, 2, 2},
		"Bx":  {0, 0, 0, 1, 0, 1, 0, 0, 0},
		"By":  {0, 1, 0, 0, 0, 0, 0, 1, 0},
		"Bxx": {0, 0, 0, 1, 2, 1, 0, 0, 0},
		"Byy": {0, 1, 0, 0, 2, 0, 0, 1, 0},
	}
	for name, want := range want {
		if got := plane(t, m, name); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}

// at returns p(x, y) with the edge pixel replicated beyond the border.
func at(p []float64, w, h, x, y int) float64 {
	return p[min(max(y, 0), h-1)*w+min(max(x, 0), w-1)]
}

// TestBruteForce compares every derivative plane of random images with a
// per-pixel evaluation of its definition, including all border cases.
func TestBruteForce(t *testing.T) {
	channels := []struct {
		name  string
		plane func(*imageio.Image) []float64
	}{
		{"I", func(m *imageio.Image) []float64 { return m.Gray }},
		{"R", func(m *imageio.Image) []float64 { return m.R }},
		{"G", func(m *imageio.Image) []float64 { return m.G }},
		{"B", func(m *imageio.Image) []float64 { return m.B }},
	}
	set := mustParse(t, "I,I',I'',R,R',R'',G,G',G'',B,B',B''")
	for _, size := range [][2]int{{1, 1}, {1, 2}, {2, 1}, {2, 2}, {3, 2}, {1, 7}, {7, 1}, {5, 6}, {17, 9}} {
		w, h := size[0], size[1]
		img := randomImage(w, h, uint64(w*100+h))
		m, err := set.Compute(img)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range channels {
			p := c.plane(img)
			for y := range h {
				for x := range w {
					v := func(dx, dy int) float64 { return at(p, w, h, x+dx, y+dy) }
					for _, f := range []struct {
						suffix string
						want   float64
					}{
						{"", v(0, 0)},
						{"x", math.Abs(v(1, 0) - v(-1, 0))},
						{"y", math.Abs(v(0, 1) - v(0, -1))},
						{"xx", math.Abs(v(1, 0) + v(-1, 0) - 2*v(0, 0))},
						{"yy", math.Abs(v(0, 1) + v(0, -1) - 2*v(0, 0))},
					} {
						if got := plane(t, m, c.name+f.suffix)[y*w+x]; got != f.want {
							t.Errorf("%dx%d: %s%s(%d, %d) = %v, want %v", w, h, c.name, f.suffix, x, y, got, f.want)
						}
					}
				}
			}
		}
	}
}

// TestSymmetry checks exact equivariances: mirroring the image mirrors
// every plane, and transposing it swaps Ix with Iy and Ixx with Iyy.
func TestSymmetry(t *testing.T) {
	const w, h = 11, 7
	img := randomImage(w, h, 3)
	mirror := &imageio.Image{W: w, H: h, Gray: make([]float64, w*h)}
	transpose := &imageio.Image{W: h, H: w, Gray: make([]float64, w*h)}
	for y := range h {
		for x := range w {
			mirror.Gray[y*w+(w-1-x)] = img.Gray[y*w+x]
			transpose.Gray[x*h+y] = img.Gray[y*w+x]
		}
	}
	m, mm, mt := compute(t, "texture", img), compute(t, "texture", mirror), compute(t, "texture", transpose)
	swap := map[string]string{"I": "I", "Ix": "Iy", "Iy": "Ix", "Ixx": "Iyy", "Iyy": "Ixx"}
	for _, name := range m.Names {
		p, pm, pt := plane(t, m, name), plane(t, mm, name), plane(t, mt, swap[name])
		for y := range h {
			for x := range w {
				if p[y*w+x] != pm[y*w+(w-1-x)] {
					t.Fatalf("%s(%d, %d) = %v, mirrored %v", name, x, y, p[y*w+x], pm[y*w+(w-1-x)])
				}
				if p[y*w+x] != pt[x*h+y] {
					t.Fatalf("%s(%d, %d) = %v, %s of the transpose %v", name, x, y, p[y*w+x], swap[name], pt[x*h+y])
				}
			}
		}
	}
}

// TestGabor checks that the Gabor planes are gabor.Bank.Magnitudes of the
// grey plane with the default parameters, in the documented order and
// names, alone or mixed with other features.
func TestGabor(t *testing.T) {
	const w, h = 24, 20 // not square, to catch a swap of the sides
	img := randomImage(w, h, 5)
	bank, err := gabor.NewBank(gabor.Params{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := bank.Magnitudes(img.Gray, w, h)
	if err != nil {
		t.Fatal(err)
	}
	m := compute(t, "face", img)
	if len(m.Planes) != 43 {
		t.Fatalf("face: %d planes, want 43", len(m.Planes))
	}
	if !slices.Equal(m.Names[:3], []string{"I", "x", "y"}) {
		t.Errorf("face names start %v, want I, x, y", m.Names[:3])
	}
	for v := range gabor.NumScales {
		for u := range gabor.NumOrientations {
			k := 3 + v*8 + u
			if m.Names[k] != gabor.Name(v, u) {
				t.Errorf("face plane %d is %s, want %s", k, m.Names[k], gabor.Name(v, u))
			}
			if !slices.Equal(m.Planes[k], want[gabor.Index(v, u)]) {
				t.Errorf("face plane %s differs from gabor.Bank.Magnitudes", m.Names[k])
			}
		}
	}
	// A plane of a constant image is ~0; of this one it is not, so the
	// comparison above is not vacuous.
	if slices.Max(m.Planes[3]) < 1e-3 {
		t.Errorf("G_v0_u0 max %v, want a response", slices.Max(m.Planes[3]))
	}

	sub := compute(t, "G_v2_u5, Ix, G_v0_u0", img)
	for _, c := range []struct {
		name string
		want []float64
	}{
		{"G_v2_u5", want[gabor.Index(2, 5)]},
		{"G_v0_u0", want[gabor.Index(0, 0)]},
		{"Ix", plane(t, compute(t, "texture", img), "Ix")},
	} {
		if !slices.Equal(plane(t, sub, c.name), c.want) {
			t.Errorf("subset: %s differs", c.name)
		}
	}
}

// filled returns a Map with the given planes set to a sentinel, to check
// that failed calls leave it unchanged.
func filled(d, n int) *features.Map {
	m := &features.Map{W: -1, H: -1, Names: []string{"sentinel"}, Planes: make([][]float64, d)}
	for k := range m.Planes {
		m.Planes[k] = make([]float64, n)
		for i := range m.Planes[k] {
			m.Planes[k][i] = -7
		}
	}
	return m
}

func TestErrors(t *testing.T) {
	nan := randomImage(4, 3, 1)
	nan.Gray[2*4+1] = math.NaN()
	inf := randomImage(4, 3, 1)
	inf.B[5] = math.Inf(-1)
	short := randomImage(4, 3, 1)
	short.G = short.G[:11]
	big := grayImage(gabor.MaxSide+1, 1, make([]float64, gabor.MaxSide+1)...)
	for _, tc := range []struct {
		name, spec string
		img        *imageio.Image
		want       string
	}{
		{"nil image", "texture", nil, "nil image"},
		{"empty", "texture", &imageio.Image{}, "image size 0x0"},
		{"negative", "x", &imageio.Image{W: -2, H: -3}, "image size -2x-3"},
		{"huge", "x", &imageio.Image{W: 1 << 20, H: 1 << 20}, "image size"},
		{"gray length", "texture", withSize(grayImage(2, 2, 1, 2, 3, 4), 3, 2), "grey plane of a 3x2 image has 4 values, want 6"},
		{"no gray", "I", &imageio.Image{W: 2, H: 2}, "grey plane of a 2x2 image has 0 values"},
		{"gabor no gray", "G_v1_u1", &imageio.Image{W: 2, H: 2}, "grey plane"},
		{"no colour", "reid", grayImage(2, 2, 1, 2, 3, 4), "imageio.Options{Color: true}"},
		{"no colour one channel", "Bx", grayImage(2, 2, 1, 2, 3, 4), "needs colour planes"},
		{"colour length", "G", short, "G plane of a 4x3 image has 11 values, want 12"},
		{"NaN", "texture", nan, "grey plane pixel (x=1, y=2) is NaN"},
		{"NaN gabor", "gabor", nan, "grey plane pixel (x=1, y=2) is NaN"},
		{"Inf", "reid", inf, "B plane pixel (x=1, y=1) is -Inf"},
		{"gabor size", "face", big, "largest side for Gabor planes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, tc.spec)
			if _, err := s.Compute(tc.img); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Compute: error %v, want one containing %q", err, tc.want)
			}
			dst := filled(s.Dim(), 12)
			if err := s.ComputeTo(dst, tc.img, s.NewWorkspace()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ComputeTo: error %v, want one containing %q", err, tc.want)
			}
			if want := filled(s.Dim(), 12); dst.W != -1 || !slices.Equal(dst.Names, want.Names) || !slices.EqualFunc(dst.Planes, want.Planes, slices.Equal) {
				t.Errorf("ComputeTo changed dst on error")
			}
		})
	}

	s, other := mustParse(t, "texture"), mustParse(t, "texture")
	img := randomImage(4, 4, 1)
	if err := s.ComputeTo(nil, img, nil); err == nil || !strings.Contains(err.Error(), "nil destination") {
		t.Errorf("nil dst: error %v", err)
	}
	if err := s.ComputeTo(new(features.Map), img, other.NewWorkspace()); err == nil || !strings.Contains(err.Error(), "another Set") {
		t.Errorf("workspace of another set: error %v", err)
	}
}

// withSize returns img with its size fields changed, for inconsistent images.
func withSize(img *imageio.Image, w, h int) *imageio.Image {
	c := *img
	c.W, c.H = w, h
	return &c
}

// TestNonFinitePositions puts a non-finite value at every pixel of an
// image whose size is not a multiple of 4, with a second one after it, and
// checks that the error names the first.
func TestNonFinitePositions(t *testing.T) {
	const w, h = 5, 3
	s := mustParse(t, "I'")
	for i := range w * h {
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			img := randomImage(w, h, 1)
			img.Gray[w*h-1] = math.NaN()
			img.Gray[i] = bad
			want := fmt.Sprintf("grey plane pixel (x=%d, y=%d) is %v", i%w, i/w, bad)
			if _, err := s.Compute(img); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("pixel %d = %v: error %v, want %q", i, bad, err, want)
			}
		}
	}
}
