package hpe

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/appearance"
	"github.com/covpipe/covpipe/internal/canceltest"
	"github.com/covpipe/covpipe/sdalf"
)

// person draws a 16×32 pedestrian on a grey background: a head, a torso
// of colour top and legs of colour legs, shifted right by dx columns,
// with a 4-pixel stripe of colour mark across the torso, and Gaussian
// noise of deviation noise.
func person(top, legs, mark [3]float64, dx int, noise float64, rng *rand.Rand) *appearance.Image {
	const w, h = 16, 32
	planes := [3][]float64{make([]float64, w*h), make([]float64, w*h), make([]float64, w*h)}
	// Rectangles [x0, x1) × [y0, y1), later ones drawn over earlier ones.
	parts := []struct {
		x0, x1, y0, y1 int
		c              [3]float64
	}{
		{0, w, 0, h, [3]float64{0.5, 0.5, 0.5}},
		{6, 10, 2, 6, [3]float64{0.9, 0.7, 0.6}},
		{4, 12, 6, 18, top},
		{4, 12, 10, 14, mark},
		{5, 11, 18, 31, legs},
	}
	for _, r := range parts {
		for y := r.y0; y < r.y1; y++ {
			for x := max(0, r.x0+dx); x < min(w, r.x1+dx); x++ {
				for k := range planes {
					planes[k][y*w+x] = r.c[k]
				}
			}
		}
	}
	if noise > 0 {
		for _, p := range planes {
			for i := range p {
				p[i] = min(1, max(0, p[i]+noise*rng.NormFloat64()))
			}
		}
	}
	img, err := appearance.NewImage(w, h, planes[0], planes[1], planes[2])
	if err != nil {
		panic(err)
	}
	return img
}

var centre = Options{Mask: appearance.MaskOptions{Kind: appearance.CentreMask}}

// TestAccumulatedHistograms compares the accumulated part histograms with
// a brute-force count: every pixel of the torso and legs of every image
// (axes from sdalf.FindAxes) adds its mask to the bin whose interval
// holds its hue, saturation and value.
func TestAccumulatedHistograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var imgs []*appearance.Image
	for k := range 3 {
		img := person([3]float64{0.2, 0.3, 0.8}, [3]float64{0.6, 0.3, 0.1}, [3]float64{0.9, 0.9, 0.1}, k-1, 0.15, rng)
		imgs = append(imgs, img)
	}
	// Other clothes and more noise: the counts of unlike images add.
	imgs = append(imgs, person([3]float64{0.8, 0.1, 0.1}, [3]float64{0.1, 0.1, 0.1}, [3]float64{0.1, 0.9, 0.1}, 0, 0.3, rng))
	s, err := Describe(context.Background(), imgs, centre)
	if err != nil {
		t.Fatal(err)
	}
	bins := appearance.DefaultBins()
	want := [2][]float64{make([]float64, bins.Len()), make([]float64, bins.Len())}
	for _, img := range imgs {
		mask, err := appearance.Foreground(img, centre.Mask)
		if err != nil {
			t.Fatal(err)
		}
		hsv, err := appearance.ToHSV(img)
		if err != nil {
			t.Fatal(err)
		}
		axes, err := sdalf.FindAxes(hsv, mask, sdalf.AxesOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range mask {
			y := i / img.W
			part := -1
			switch {
			case y >= axes.HeadTorso && y < axes.TorsoLegs:
				part = 0
			case y >= axes.TorsoLegs:
				part = 1
			}
			if part < 0 {
				continue
			}
			off := 0
			for c, n := range []int{bins.H, bins.S, bins.V} {
				v := []float64{hsv.Hu[i], hsv.S[i], hsv.V[i]}[c]
				for b := range n {
					lo, hi := float64(b)/float64(n), float64(b+1)/float64(n)
					if v >= lo && (v < hi || b == n-1) {
						want[part][off+b] += mask[i]
					}
				}
				off += n
			}
		}
	}
	for part, got := range [][]float64{s.Torso, s.Legs} {
		normalise(want[part])
		for b := range got {
			if math.Abs(got[b]-want[part][b]) > 1e-12 {
				t.Errorf("part %d bin %d = %v, want %v", part, b, got[b], want[part][b])
			}
		}
	}
	if s.Images != len(imgs) {
		t.Errorf("signature of %d images", s.Images)
	}
}

// TestDistancesClosedForm checks the distances on hand-made signatures.
func TestDistancesClosedForm(t *testing.T) {
	a := &Signature{
		Torso: []float64{1, 0}, Legs: []float64{0.3, 0.7},
		GenericHist: []float64{0.5, 0.5},
		Locals:      []Local{{Mean: []float64{0, 0, 0}}, {Mean: []float64{1, 1, 1}}},
	}
	b := &Signature{
		Torso: []float64{0, 1}, Legs: []float64{0.6, 0.4},
		GenericHist: []float64{1, 0},
		Locals:      []Local{{Mean: []float64{0, 0, 0.3}}},
	}
	dh := (1 + math.Sqrt(1-math.Sqrt(0.18)-math.Sqrt(0.28))) / 2
	dg := math.Sqrt(1 - math.Sqrt(0.5))
	near, far := math.Sqrt(0.03), math.Sqrt(2.49/3)
	dl := ((near+far)/2 + near) / 2
	for _, c := range []struct {
		name string
		f    func(a, b *Signature) (float64, error)
		want float64
	}{
		{"histograms", HistogramDistance, dh},
		{"generic", GenericDistance, dg},
		{"local", LocalDistance, dl},
		{"hpe", func(a, b *Signature) (float64, error) {
			return Distance(a, b, Weights{H: 0.5, Generic: 0.2, Local: 0.3})
		}, 0.5*dh + 0.2*dg + 0.3*dl},
	} {
		for _, order := range [][2]*Signature{{a, b}, {b, a}} {
			got, err := c.f(order[0], order[1])
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-12 {
				t.Errorf("%s distance %v, want %v", c.name, got, c.want)
			}
		}
	}
	if d, err := LocalDistance(a, &Signature{}); err != nil || d != 1 {
		t.Errorf("local distance to no local epitome: %v, %v; want 1", d, err)
	}
	for _, w := range []Weights{{}, {H: -1, Generic: 1}, {H: math.Inf(1)}, {Local: math.NaN()}} {
		if _, err := Distance(a, b, w); err == nil {
			t.Errorf("weights %+v: no error", w)
		}
	}
	bad := *b
	bad.Torso = []float64{1}
	if _, err := Distance(a, &bad, DefaultWeights()); err == nil || !strings.Contains(err.Error(), "torso") {
		t.Errorf("histograms of different lengths: %v", err)
	}
	bad = *b
	bad.Locals = []Local{{Mean: []float64{0}}}
	if _, err := Distance(a, &bad, DefaultWeights()); err == nil || !strings.Contains(err.Error(), "local") {
		t.Errorf("local epitomes of different sizes: %v", err)
	}
	if _, err := Distance(a, nil, DefaultWeights()); err == nil {
		t.Error("distance to nil: no error")
	}
}

// TestSingleImage describes one image, the degenerate identity: its
// signature is at distance 0 from itself and its parts are normalised.
func TestSingleImage(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	img := person([3]float64{0.2, 0.3, 0.8}, [3]float64{0.6, 0.3, 0.1}, [3]float64{0.9, 0.9, 0.1}, 0, 0.05, rng)
	s, err := Describe(context.Background(), []*appearance.Image{img}, centre)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := Distance(s, s, DefaultWeights()); err != nil || d > 1e-7 {
		t.Errorf("distance of a signature from itself: %v, %v", d, err)
	}
	for name, h := range map[string][]float64{"torso": s.Torso, "legs": s.Legs, "generic": s.GenericHist} {
		var sum float64
		for _, v := range h {
			sum += v
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%s histogram sums to %v", name, sum)
		}
	}
	if len(s.Locals) != DefaultLocal {
		t.Errorf("%d local epitomes, want %d", len(s.Locals), DefaultLocal)
	}
	for k := 1; k < len(s.Locals); k++ {
		if s.Locals[k].Score > s.Locals[k-1].Score {
			t.Errorf("local epitomes not by decreasing score: %v then %v", s.Locals[k-1].Score, s.Locals[k].Score)
		}
	}
}

// TestLocals picks the local epitomes of a hand-made 4×4 epitome of 2×2
// windows: a plain region that many patches use loses to a two-colour
// window that fewer use, and windows closer than K/2 = 1 pixel are
// distinct positions, so the next picks follow by score.
func TestLocals(t *testing.T) {
	e := &Epitome{W: 4, H: 4, K: 2, Mean: make([]float64, 48), Position: make([]float64, 16)}
	for j := range 16 {
		x := j % 4
		if x == 3 { // column 3 is white, the rest black
			e.Mean[3*j], e.Mean[3*j+1], e.Mean[3*j+2] = 1, 1, 1
		}
	}
	e.Position[0] = 10 // plain black window at (0, 0)
	e.Position[2] = 1  // window at (2, 0): columns 2 (black) and 3 (white)
	e.Position[7] = 2  // window at (3, 1): columns 3 (white) and 0 (black), wrapping
	got := Locals(e, 2)
	if len(got) != 2 || got[0].X != 3 || got[0].Y != 1 || got[1].X != 2 || got[1].Y != 0 {
		t.Fatalf("locals %+v, want the windows at (3, 1) and (2, 0)", got)
	}
	// Half white, half black: σ = 1/2 in every channel.
	if got[0].Score != 1 || got[0].Weight != 2 || got[1].Score != 0.5 {
		t.Errorf("scores %v and %v, weight %v; want 1, 0.5 and 2", got[0].Score, got[1].Score, got[0].Weight)
	}
	if want := []float64{1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0}; !slices.Equal(got[0].Mean, want) {
		t.Errorf("window at (3, 1): means %v, want %v", got[0].Mean, want)
	}
	// With more asked for than score: the plain window by its weight.
	if all := Locals(e, 3); len(all) != 3 || all[2].X != 0 || all[2].Y != 0 {
		t.Errorf("third local %+v, want the plain window at (0, 0)", all)
	}
}

// people returns the gallery (three images each) and one probe image of
// four identities; identities 0 and 1 share torso and leg colours and
// differ only by the stripe across the torso.
func people(rng *rand.Rand) (gallery [][]*appearance.Image, probes []*appearance.Image) {
	clothes := [][3][3]float64{
		{{0.2, 0.3, 0.8}, {0.4, 0.25, 0.1}, {0.9, 0.9, 0.1}},
		{{0.2, 0.3, 0.8}, {0.4, 0.25, 0.1}, {0.9, 0.1, 0.9}},
		{{0.8, 0.1, 0.1}, {0.1, 0.1, 0.1}, {0.1, 0.8, 0.2}},
		{{0.9, 0.9, 0.2}, {0.1, 0.2, 0.8}, {0.2, 0.2, 0.2}},
	}
	for _, c := range clothes {
		var g []*appearance.Image
		for dx := -1; dx <= 1; dx++ {
			g = append(g, person(c[0], c[1], c[2], dx, 0.05, rng))
		}
		gallery = append(gallery, g)
		probes = append(probes, person(c[0], c[1], c[2], 2, 0.05, rng))
	}
	return gallery, probes
}

// TestRank ranks a synthetic gallery: each probe's own identity first.
func TestRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	gallery, probes := people(rng)
	var ws Workspace
	sigs := make([]*Signature, len(gallery))
	for g, imgs := range gallery {
		var err error
		if sigs[g], err = ws.Describe(context.Background(), imgs, centre); err != nil {
			t.Fatal(err)
		}
	}
	for id, img := range probes {
		p, err := ws.Describe(context.Background(), []*appearance.Image{img}, centre)
		if err != nil {
			t.Fatal(err)
		}
		order, dist, err := Rank(context.Background(), p, sigs, DefaultWeights())
		if err != nil {
			t.Fatal(err)
		}
		if order[0] != id {
			t.Errorf("probe %d: ranking %v, distances %v", id, order, dist)
		}
		for k := 1; k < len(dist); k++ {
			if dist[k] < dist[k-1] {
				t.Errorf("probe %d: distances not increasing: %v", id, dist)
			}
		}
	}
	_, _, err := Rank(canceltest.Cancelled(t), sigs[0], sigs, DefaultWeights())
	canceltest.Check(t, "Rank", err)
	if _, _, err := Rank(context.Background(), sigs[0], []*Signature{sigs[1], nil}, DefaultWeights()); err == nil || !strings.Contains(err.Error(), "gallery identity 1") {
		t.Errorf("nil gallery signature: %v", err)
	}
}

func TestDescribeErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	good := person([3]float64{0.2, 0.3, 0.8}, [3]float64{0.6, 0.3, 0.1}, [3]float64{0.9, 0.9, 0.1}, 0, 0, rng)
	short := &appearance.Image{W: good.W, H: good.H, R: good.R, G: good.G, B: good.B[:5]}
	nan := &appearance.Image{W: good.W, H: good.H, R: good.R, G: append([]float64{math.NaN()}, good.G[1:]...), B: good.B}
	tiny := &appearance.Image{W: 2, H: 8, R: make([]float64, 16), G: make([]float64, 16), B: make([]float64, 16)}
	narrow := &appearance.Image{W: 3, H: 8, R: make([]float64, 24), G: make([]float64, 24), B: make([]float64, 24)}
	for _, c := range []struct {
		name string
		imgs []*appearance.Image
		o    Options
		want string
	}{
		{"none", nil, centre, "no image"},
		{"nil", []*appearance.Image{good, nil}, centre, "image 1: nil"},
		{"short plane", []*appearance.Image{good, short}, centre, "image 1: plane B"},
		{"NaN", []*appearance.Image{nan}, centre, "image 0: plane G pixel (0, 0)"},
		{"too small for the axes", []*appearance.Image{tiny}, centre, "image 0"},
		{"narrower than a patch", []*appearance.Image{narrow}, centre, "image 0"},
		{"no foreground", []*appearance.Image{good}, Options{Mask: appearance.MaskOptions{Kind: appearance.BorderMask, Threshold: 5}}, "no patch with weight"},
		{"bad local", []*appearance.Image{good}, Options{Local: -2}, "local"},
		{"bad epitome", []*appearance.Image{good}, Options{Epitome: EpitomeOptions{Patch: 9}}, "patch"},
		{"bad bins", []*appearance.Image{good}, Options{Bins: appearance.Bins{H: 1}}, "bins"},
		{"bad mask", []*appearance.Image{good}, Options{Mask: appearance.MaskOptions{Kind: 9}}, "mask"},
	} {
		if _, err := Describe(context.Background(), c.imgs, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	_, err := Describe(canceltest.Cancelled(t), []*appearance.Image{good}, centre)
	canceltest.Check(t, "Describe", err)
}

// TestDescribeCancel cancels Describe while its epitome learns.
func TestDescribeCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	img := person([3]float64{0.2, 0.3, 0.8}, [3]float64{0.6, 0.3, 0.1}, [3]float64{0.9, 0.9, 0.1}, 0, 0.1, rng)
	o := centre
	o.Epitome = EpitomeOptions{W: 24, H: 24, Iterations: 1 << 30}
	_, err := Describe(canceltest.Soon(t), []*appearance.Image{img}, o)
	canceltest.Check(t, "Describe while it runs", err)
}

// TestDistanceCachedRoots checks that Distance between signatures of
// Describe, which compares their histograms through cached square roots,
// equals the three checked distances weighted (the path of signatures
// built by hand) to rounding.
func TestDistanceCachedRoots(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	gallery, _ := people(rng)
	var ws Workspace
	a, err := ws.Describe(context.Background(), gallery[0], centre)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ws.Describe(context.Background(), gallery[1], centre)
	if err != nil {
		t.Fatal(err)
	}
	if a.roots == nil || b.roots == nil {
		t.Fatal("Describe cached no square roots")
	}
	got, err := Distance(a, b, DefaultWeights())
	if err != nil {
		t.Fatal(err)
	}
	hand := *b
	hand.roots = nil
	want, err := Distance(a, &hand, DefaultWeights())
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("Distance with cached roots %v, without %v", got, want)
	}
}

// TestLocalDistanceBothWays compares LocalDistance, which measures each
// pair of local epitomes once, with the definition's two one-way means
// (kept here), bit for bit: random epitomes, counts on both sides from 1
// to beyond the stack buffer's.
func TestLocalDistanceBothWays(t *testing.T) {
	oneWay := func(p, q []Local) float64 {
		var sum float64
		for _, x := range p {
			best := math.Inf(1)
			for _, y := range q {
				best = min(best, PatchDistance(x.Mean, y.Mean))
			}
			sum += best
		}
		return sum / float64(len(p))
	}
	rng := rand.New(rand.NewPCG(21, 22))
	locals := func(n int) []Local {
		out := make([]Local, n)
		for i := range out {
			out[i].Mean = make([]float64, 48)
			for k := range out[i].Mean {
				out[i].Mean[k] = rng.Float64()
			}
		}
		return out
	}
	for trial := range 200 {
		a, b := &Signature{Locals: locals(1 + rng.IntN(12))}, &Signature{Locals: locals(1 + rng.IntN(12))}
		want := (oneWay(a.Locals, b.Locals) + oneWay(b.Locals, a.Locals)) / 2
		if got, err := LocalDistance(a, b); err != nil || got != want {
			t.Errorf("trial %d (%d and %d epitomes): %v, %v; want %v", trial, len(a.Locals), len(b.Locals), got, err, want)
		}
	}
}
