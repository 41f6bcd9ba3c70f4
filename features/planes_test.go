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

// straightforward returns plane name of img evaluated pixel by pixel from
// its definition in the package documentation, and the relative tolerance
// of the comparison: 0 (bit for bit) except for the Gabor planes, which are
// the brute-force conv2(I, ψ, 'same') of conv2Same.
func straightforward(t *testing.T, name string, img *imageio.Image) ([]float64, float64) {
	t.Helper()
	w, h := img.W, img.H
	out := make([]float64, w*h)
	var v, u int
	if n, _ := fmt.Sscanf(name, "G_v%d_u%d", &v, &u); n == 2 && gabor.Name(v, u) == name {
		return conv2Same(img.Gray, w, h, v, u), 1e-10
	}
	if name == "x" || name == "y" {
		for i := range out {
			out[i] = float64(i % w)
			if name == "y" {
				out[i] = float64(i / w)
			}
		}
		return out, 0
	}
	channels := map[string][]float64{"I": img.Gray, "R": img.R, "G": img.G, "B": img.B}
	p, ok := channels[name[:1]]
	if !ok {
		t.Fatalf("no definition of plane %q", name)
	}
	for y := range h {
		for x := range w {
			c := func(dx, dy int) float64 { return at(p, w, h, x+dx, y+dy) }
			var f float64
			switch name[1:] {
			case "":
				f = c(0, 0)
			case "x":
				f = math.Abs(c(1, 0) - c(-1, 0))
			case "y":
				f = math.Abs(c(0, 1) - c(0, -1))
			case "xx":
				f = math.Abs(c(1, 0) + c(-1, 0) - 2*c(0, 0))
			case "yy":
				f = math.Abs(c(0, 1) + c(0, -1) - 2*c(0, 0))
			default:
				t.Fatalf("no definition of plane %q", name)
			}
			out[y*w+x] = f
		}
	}
	return out, 0
}

// everyPlane lists every single plane the package documents, in the order
// of the documentation.
func everyPlane() []string {
	names := []string{"x", "y"}
	for _, c := range []string{"I", "R", "G", "B"} {
		for _, d := range []string{"", "x", "y", "xx", "yy"} {
			names = append(names, c+d)
		}
	}
	return append(names, gaborNames()...)
}

// TestEveryPlane computes every single plane of a random colour image, in
// a shuffled order, and compares each with its straightforward per-pixel
// evaluation, and with the plane computed alone (where the planes a set
// does not keep go to scratch), bit for bit. It also checks that the list
// of valid names has no plane this test does not know.
func TestEveryPlane(t *testing.T) {
	const w, h = 9, 7
	img := randomImage(w, h, 13)
	names := everyPlane()
	rand.New(rand.NewPCG(3, 5)).Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	set := mustParse(t, strings.Join(names, ","))
	ws := set.NewWorkspace()
	var m features.Map
	for _, size := range [][2]int{{w, h}, {4, 3}, {w, h}} { // reused across sizes
		if err := set.ComputeTo(&m, randomImage(size[0], size[1], 1), ws); err != nil {
			t.Fatal(err)
		}
	}
	if err := set.ComputeTo(&m, img, ws); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Names, names) {
		t.Fatalf("names %v, want %v", m.Names, names)
	}
	for k, name := range names {
		want, tol := straightforward(t, name, img)
		scale := slices.Max(want)
		if scale == 0 {
			t.Fatalf("%s is zero everywhere: the comparison would be vacuous", name)
		}
		for i, got := range m.Planes[k] {
			if math.Abs(got-want[i]) > tol*scale {
				t.Errorf("%s(%d, %d) = %v, want %v", name, i%w, i/w, got, want[i])
				break
			}
		}
		alone := compute(t, name, img)
		if !slices.Equal(alone.Planes[0], m.Planes[k]) {
			t.Errorf("%s computed alone differs from %s in the set of every plane", name, name)
		}
	}

	_, err := features.Parse("?")
	list, _, _ := strings.Cut(err.Error(), "; groups:")
	_, list, _ = strings.Cut(list, "valid names: ")
	var known []string
	for _, n := range everyPlane() {
		if !strings.HasPrefix(n, "G_") {
			known = append(known, n)
		}
	}
	if want := strings.Join(known, ", ") + ", G_v<v>_u<u> (v = 0..4, u = 0..7)"; list != want {
		t.Errorf("valid names %q, want %q", list, want)
	}
}
