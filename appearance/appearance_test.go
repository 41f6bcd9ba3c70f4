package appearance

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// plainImage returns a w×h image of one colour.
func plainImage(w, h int, r, g, b float64) *Image {
	img := &Image{W: w, H: h, R: make([]float64, w*h), G: make([]float64, w*h), B: make([]float64, w*h)}
	for i := range img.R {
		img.R[i], img.G[i], img.B[i] = r, g, b
	}
	return img
}

// mustHSV returns the HSV conversion of a valid image.
func mustHSV(t *testing.T, img *Image) *HSV {
	t.Helper()
	h, err := ToHSV(img)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHSV(t *testing.T) {
	for _, c := range []struct {
		r, g, b, h, s, v float64
	}{
		{0, 0, 0, 0, 0, 0},
		{1, 1, 1, 0, 0, 1},
		{0.5, 0.5, 0.5, 0, 0, 0.5},
		{1, 0, 0, 0, 1, 1},
		{1, 1, 0, 1.0 / 6, 1, 1},
		{0, 1, 0, 2.0 / 6, 1, 1},
		{0, 1, 1, 3.0 / 6, 1, 1},
		{0, 0, 1, 4.0 / 6, 1, 1},
		{1, 0, 1, 5.0 / 6, 1, 1},
		{1, 0, 0.5, 11.0 / 12, 1, 1},
		{0.8, 0.4, 0.4, 0, 0.5, 0.8},
	} {
		got := mustHSV(t, plainImage(1, 1, c.r, c.g, c.b))
		if math.Abs(got.Hu[0]-c.h) > 1e-12 || math.Abs(got.S[0]-c.s) > 1e-12 || math.Abs(got.V[0]-c.v) > 1e-12 {
			t.Errorf("HSV of (%v, %v, %v) = (%v, %v, %v), want (%v, %v, %v)", c.r, c.g, c.b, got.Hu[0], got.S[0], got.V[0], c.h, c.s, c.v)
		}
	}
}

func TestCone(t *testing.T) {
	// Hues either side of 0 are close; grey ignores hue.
	x1, y1, z1 := Cone(0.99, 1, 1)
	x2, y2, z2 := Cone(0.01, 1, 1)
	if d := math.Hypot(math.Hypot(x1-x2, y1-y2), z1-z2); math.Abs(d-2*math.Sin(0.02*math.Pi)) > 1e-12 {
		t.Errorf("cone distance of hues 0.99 and 0.01 = %v", d)
	}
	if x, y, z := Cone(0.3, 0, 0.5); x != 0 || y != 0 || z != 0.5 {
		t.Errorf("cone of a grey = (%v, %v, %v)", x, y, z)
	}
}

func TestNewImage(t *testing.T) {
	ok := []float64{0, 1}
	for _, c := range []struct {
		w, h    int
		r, g, b []float64
		want    string
	}{
		{0, 2, ok, ok, ok, "size"},
		{2, 1, ok, ok, []float64{0}, "plane B has 1"},
		{2, 1, ok, []float64{0, math.NaN()}, ok, "plane G pixel (1, 0)"},
		{2, 1, []float64{1.5, 0}, ok, ok, "plane R pixel (0, 0)"},
	} {
		if _, err := NewImage(c.w, c.h, c.r, c.g, c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewImage(%d, %d, ...) error %v, want one containing %q", c.w, c.h, err, c.want)
		}
	}
	if _, err := NewImage(2, 1, ok, ok, ok); err != nil {
		t.Error(err)
	}
	// Struct literals meet the same checks where they are used.
	bad := &Image{W: 2, H: 1, R: ok, G: ok, B: ok[:1]}
	if _, err := ToHSV(bad); err == nil {
		t.Error("ToHSV of a short plane: no error")
	}
	if _, err := Foreground(bad, MaskOptions{}); err == nil {
		t.Error("Foreground of a short plane: no error")
	}
	hsv := &HSV{W: 2, H: 1, Hu: ok, S: ok, V: ok[:1]}
	if err := WeightedHistogramTo(make([]float64, 3), hsv, nil, 0, 1, Bins{1, 1, 1}); err == nil {
		t.Error("histogram of a short HSV plane: no error")
	}
}

func TestForeground(t *testing.T) {
	// A 12×8 image: a grey background whose shade changes by row band, and
	// a red figure in columns 3..7 of rows 1..6.
	w, h := 8, 12
	img := plainImage(w, h, 0, 0, 0)
	for y := range h {
		shade := 0.3
		if y >= 6 {
			shade = 0.6
		}
		for x := range w {
			i := y*w + x
			img.R[i], img.G[i], img.B[i] = shade, shade, shade
			if x >= 3 && x < 7 && y >= 1 && y < 11 {
				img.R[i], img.G[i], img.B[i] = 0.9, 0.1, 0.1
			}
		}
	}
	m, err := Foreground(img, MaskOptions{Kind: BorderMask})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range m {
		x, y := i%w, i/w
		want := 0.0
		if x >= 3 && x < 7 && y >= 1 && y < 11 {
			want = 1
		}
		if v != want {
			t.Errorf("mask at (%d, %d) = %v, want %v", x, y, v, want)
		}
	}
	none, err := Foreground(img, MaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range none {
		if v != 1 {
			t.Fatalf("no mask at %d = %v", i, v)
		}
	}
	// The centre prior of σ = W/4 = 2 about column 3.5.
	centre, err := Foreground(img, MaskOptions{Kind: CentreMask})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range centre {
		d := float64(i%w) - 3.5
		if want := math.Exp(-d * d / 8); math.Abs(v-want) > 1e-15 {
			t.Errorf("centre prior at (%d, %d) = %v, want %v", i%w, i/w, v, want)
		}
	}
	for _, o := range []MaskOptions{{Kind: 7}, {Kind: CentreMask, Sigma: -1}, {Kind: BorderMask, Border: -1}, {Kind: BorderMask, Threshold: math.NaN()}} {
		if _, err := Foreground(img, o); err == nil {
			t.Errorf("Foreground with %+v: no error", o)
		}
	}
	if err := ForegroundTo(make([]float64, 3), img, MaskOptions{}); err == nil {
		t.Error("ForegroundTo a short mask: no error")
	}
	for _, s := range []string{"none", "border", "centre"} {
		if k, err := ParseMaskKind(s); err != nil || k.String() != s {
			t.Errorf("ParseMaskKind(%q) = %v, %v", s, k, err)
		}
	}
	if _, err := ParseMaskKind("stel"); err == nil {
		t.Error("ParseMaskKind(stel): no error")
	}
}

func TestWeightedHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	w, h := 7, 9
	img := plainImage(w, h, 0, 0, 0)
	weight := make([]float64, w*h)
	for i := range img.R {
		img.R[i], img.G[i], img.B[i] = rng.Float64(), rng.Float64(), rng.Float64()
		weight[i] = rng.Float64()
	}
	// Exact bin edges and the top of the range.
	img.R[0], img.G[0], img.B[0] = 1, 1, 1
	img.R[1], img.G[1], img.B[1] = 0.5, 0.25, 0.25
	hsv := mustHSV(t, img)
	bins := Bins{5, 4, 3}
	for _, c := range []struct {
		r0, r1 int
		wt     []float64
	}{{0, h, weight}, {2, 6, weight}, {0, h, nil}, {3, 4, nil}} {
		got := make([]float64, bins.Len())
		if err := WeightedHistogramTo(got, hsv, c.wt, c.r0, c.r1, bins); err != nil {
			t.Fatal(err)
		}
		want := bruteHistogram(hsv, c.wt, c.r0, c.r1, bins)
		alloc, err := WeightedHistogram(hsv, c.wt, c.r0, c.r1, bins)
		if err != nil {
			t.Fatal(err)
		}
		for i := range alloc {
			if alloc[i] != got[i] {
				t.Fatalf("rows [%d, %d): WeightedHistogram differs from WeightedHistogramTo at bin %d", c.r0, c.r1, i)
			}
		}
		var sum float64
		for i := range got {
			sum += got[i]
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("rows [%d, %d): bin %d = %v, want %v", c.r0, c.r1, i, got[i], want[i])
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("rows [%d, %d): histogram sums to %v", c.r0, c.r1, sum)
		}
	}
	empty := make([]float64, bins.Len())
	if err := WeightedHistogramTo(empty, hsv, weight, 4, 4, bins); err != nil {
		t.Fatal(err)
	}
	for _, v := range empty {
		if v != 0 {
			t.Fatalf("histogram of no rows: %v", empty)
		}
	}
	if _, err := WeightedHistogram(hsv, nil, 0, h, Bins{}); err == nil {
		t.Error("WeightedHistogram with no bins: no error")
	}
	bad := append([]float64(nil), weight...)
	bad[w*3] = -1
	for _, c := range []struct {
		dst  []float64
		wt   []float64
		r0   int
		r1   int
		bins Bins
	}{
		{make([]float64, 3), nil, 0, h, bins},
		{make([]float64, bins.Len()), weight[:5], 0, h, bins},
		{make([]float64, bins.Len()), nil, 5, h + 1, bins},
		{make([]float64, bins.Len()), bad, 0, h, bins},
		{make([]float64, 2), nil, 0, h, Bins{1, 1, 0}},
	} {
		if err := WeightedHistogramTo(c.dst, hsv, c.wt, c.r0, c.r1, c.bins); err == nil {
			t.Errorf("rows [%d, %d), bins %v: no error", c.r0, c.r1, c.bins)
		}
	}
}

// bruteHistogram computes the weighted histogram by testing every bin's
// interval for every pixel and channel.
func bruteHistogram(img *HSV, weight []float64, r0, r1 int, bins Bins) []float64 {
	var out []float64
	for c, n := range []int{bins.H, bins.S, bins.V} {
		plane := [][]float64{img.Hu, img.S, img.V}[c]
		hist := make([]float64, n)
		var total float64
		for y := r0; y < r1; y++ {
			for x := range img.W {
				i := y*img.W + x
				wt := 1.0
				if weight != nil {
					wt = weight[i]
				}
				total += wt
				for b := range n {
					lo, hi := float64(b)/float64(n), float64(b+1)/float64(n)
					if plane[i] >= lo && (plane[i] < hi || b == n-1) {
						hist[b] += wt
					}
				}
			}
		}
		for b := range hist {
			out = append(out, hist[b]/(3*total))
		}
	}
	return out
}

func TestBhattacharyya(t *testing.T) {
	uniform := func(n, k int) []float64 { // uniform on the first k of n bins
		p := make([]float64, n)
		for i := range k {
			p[i] = 1 / float64(k)
		}
		return p
	}
	for _, c := range []struct {
		name string
		p, q []float64
		want float64
	}{
		{"equal", []float64{0.2, 0.3, 0.5}, []float64{0.2, 0.3, 0.5}, 0},
		{"disjoint", []float64{0.5, 0.5, 0, 0}, []float64{0, 0, 0.25, 0.75}, 1},
		// Uniform on k of n bins against uniform on n: BC = √(k/n).
		{"nested uniforms", uniform(12, 3), uniform(12, 12), math.Sqrt(1 - math.Sqrt(3.0/12))},
		// Two-bin distributions: BC = √(ab) + √((1−a)(1−b)).
		{"two bins", []float64{0.3, 0.7}, []float64{0.6, 0.4}, math.Sqrt(1 - math.Sqrt(0.18) - math.Sqrt(0.28))},
	} {
		got, err := Bhattacharyya(c.p, c.q)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: d = %v, want %v", c.name, got, c.want)
		}
		a, b := make([]float64, len(c.p)), make([]float64, len(c.q))
		for i := range a {
			a[i], b[i] = math.Sqrt(c.p[i]), math.Sqrt(c.q[i])
		}
		if s := SqrtBhattacharyya(a, b); math.Abs(s-c.want) > 1e-12 {
			t.Errorf("%s: from square roots d = %v, want %v", c.name, s, c.want)
		}
	}
	for _, c := range [][2][]float64{{{1}, {0.5, 0.5}}, {{-0.1, 1.1}, {0.5, 0.5}}, {{math.NaN(), 1}, {0.5, 0.5}}} {
		if _, err := Bhattacharyya(c[0], c[1]); err == nil {
			t.Errorf("Bhattacharyya(%v, %v): no error", c[0], c[1])
		}
	}
}

func TestRankGallery(t *testing.T) {
	dist := []float64{0.5, 0.1, 0.5, 0.3}
	order, sorted, err := RankGallery(t.Context(), len(dist), func(g int) (float64, error) { return dist[g], nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 3, 0, 2}; !slices.Equal(order, want) || !slices.Equal(sorted, []float64{0.1, 0.3, 0.5, 0.5}) {
		t.Errorf("ranking %v %v, want %v", order, sorted, want)
	}
	_, _, err = RankGallery(t.Context(), 3, func(g int) (float64, error) {
		if g == 2 {
			return 0, errors.New("broken")
		}
		return 0, nil
	})
	if err == nil || !strings.Contains(err.Error(), "gallery identity 2: broken") {
		t.Errorf("error %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := RankGallery(ctx, 1, func(int) (float64, error) { return 0, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestGrowReusesOrReallocates(t *testing.T) {
	b := make([]int, 2, 8)
	b[0] = 7
	if g := Grow(b, 5); len(g) != 5 || &g[0] != &b[0] || g[0] != 7 {
		t.Errorf("Grow within capacity = %v, want b's storage resliced to 5", g)
	}
	if g := Grow(b, 9); len(g) != 9 || &g[0] == &b[0] || g[0] != 0 {
		t.Errorf("Grow past capacity = %v, want 9 fresh zeros", g)
	}
}
