package sdalf

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/appearance"
	"github.com/covpipe/covpipe/internal/canceltest"
)

var borderMask = Options{Mask: appearance.MaskOptions{Kind: appearance.BorderMask}}

func TestDescribeFigure(t *testing.T) {
	c := figure(2)
	s, err := Describe(c.img, borderMask)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Axes{13, 37, 17, 17}); s.Axes != want {
		t.Fatalf("axes %+v, want %+v", s.Axes, want)
	}
	// The wHSV halves against a brute-force sum: every bin's interval
	// tested for every pixel, weights from the mask and the Gaussian of
	// σ = W/4 about the part's column.
	hsv := mustHSV(t, c.img)
	bins := appearance.DefaultBins()
	sigma := 0.25 * 32
	var want []float64
	for _, p := range [][3]int{{13, 37, 17}, {37, 64, 17}} {
		var part []float64
		for ch, n := range []int{bins.H, bins.S, bins.V} {
			plane := [][]float64{hsv.Hu, hsv.S, hsv.V}[ch]
			hist := make([]float64, n)
			var total float64
			for y := p[0]; y < p[1]; y++ {
				for x := range 32 {
					i := y*32 + x
					wt := c.mask[i] * math.Exp(-float64((x-p[2])*(x-p[2]))/(2*sigma*sigma))
					total += wt
					for b := range n {
						if plane[i] >= float64(b)/float64(n) && (plane[i] < float64(b+1)/float64(n) || b == n-1) {
							hist[b] += wt
						}
					}
				}
			}
			for _, v := range hist {
				part = append(part, v/(6*total))
			}
		}
		want = append(want, part...)
	}
	for i := range want {
		if math.Abs(s.WHSV[i]-want[i]) > 1e-12 {
			t.Errorf("wHSV bin %d = %v, want %v", i, s.WHSV[i], want[i])
		}
	}
	// One blob for the torso and one for the legs; the head's is dropped.
	if len(s.Blobs) != 2 {
		t.Fatalf("blobs %+v, want torso and legs", s.Blobs)
	}
	for k, b := range s.Blobs {
		area, y := 15*24, 24.5
		if b.Y > 37 {
			area, y = 11*24, 48.5
		}
		if b.Area != area || b.Y != y || b.X != 17 {
			t.Errorf("blob %d = %+v, want area %d at (17, %v)", k, b, area, y)
		}
	}
}

func TestDescribeErrors(t *testing.T) {
	c := figure(0)
	for _, o := range []Options{
		{Sigma: -1}, {Bins: appearance.Bins{H: 1}}, {Axes: AxesOptions{Alpha: 2}},
		{Mask: appearance.MaskOptions{Kind: 9}}, {MSCR: MSCROptions{Steps: -2}},
	} {
		if _, err := Describe(c.img, o); err == nil {
			t.Errorf("options %+v: no error", o)
		}
	}
	if _, err := Describe(newCanvas(32, 5, grey).img, Options{}); err == nil {
		t.Error("a 32×5 image: no error")
	}
}

func TestMSCRDistance(t *testing.T) {
	a := []Blob{{L: 50, Y: 16}}
	b := []Blob{{L: 50, A: 30, B: 40, Y: 32}, {L: 60, Y: 16}}
	// d(a, b₁) = 0.4·16/64 + 0.6·50/100 = 0.4; d(a, b₂) = 0.6·10/100.
	if d := MSCRDistance(a, b, 64, 64, 0.4); math.Abs(d-0.06) > 1e-12 {
		t.Errorf("d_MSCR(a, b) = %v, want 0.06", d)
	}
	// From b: b₁'s nearest is a (0.4), b₂'s is a (0.06).
	if d := MSCRDistance(b, a, 64, 64, 0.4); math.Abs(d-0.23) > 1e-12 {
		t.Errorf("d_MSCR(b, a) = %v, want 0.23", d)
	}
	// Heights compare as fractions of the image.
	if d := BlobDistance(Blob{Y: 16}, Blob{Y: 8}, 64, 32, 1); d != 0 {
		t.Errorf("blobs a quarter down images of 64 and 32 rows: %v apart", d)
	}
	// Against the brute-force mean of the nearest BlobDistance, on random
	// blobs of images of different heights, for every γ.
	rng := rand.New(rand.NewPCG(8, 9))
	blobs := func(n int) []Blob {
		out := make([]Blob, n)
		for i := range out {
			out[i] = Blob{L: 100 * rng.Float64(), A: 200*rng.Float64() - 100, B: 200*rng.Float64() - 100, Y: 64 * rng.Float64()}
		}
		return out
	}
	for _, gamma := range []float64{0, 0.4, 1} {
		p, q := blobs(13), blobs(17)
		var want float64
		for _, u := range p {
			best := math.Inf(1)
			for _, v := range q {
				best = min(best, BlobDistance(u, v, 64, 32, gamma))
			}
			want += best / float64(len(p))
		}
		if got := MSCRDistance(p, q, 64, 32, gamma); math.Abs(got-want) > 1e-12 {
			t.Errorf("γ = %v: d_MSCR = %v, brute force %v", gamma, got, want)
		}
	}
	if d := MSCRDistance(nil, b, 64, 64, 0.4); d != 1 {
		t.Errorf("d_MSCR without blobs = %v, want 1", d)
	}
}

// people returns signatures of figures whose torso and legs colours
// differ by person, each seen at shifts 0 and 2.
func people(t *testing.T) [][]*Signature {
	t.Helper()
	colours := [][2]rgb{{blue, brown}, {{0.8, 0.1, 0.1}, {0.1, 0.1, 0.1}}, {{0.9, 0.9, 0.2}, blue}}
	var out [][]*Signature
	for _, col := range colours {
		var views []*Signature
		for _, dx := range []int{0, 2} {
			c := newCanvas(32, 64, grey)
			c.fill(12+dx, 5, 19+dx, 13, skin, 1)
			c.fill(8+dx, 13, 23+dx, 37, col[0], 1)
			c.fill(10+dx, 37, 21+dx, 61, col[1], 1)
			s, err := Describe(c.img, borderMask)
			if err != nil {
				t.Fatal(err)
			}
			views = append(views, s)
		}
		out = append(out, views)
	}
	return out
}

func TestDistance(t *testing.T) {
	p := people(t)
	a, b := p[0][0], p[1][1]
	got, err := Distance(a, b, DefaultWeights())
	if err != nil {
		t.Fatal(err)
	}
	dh, err := appearance.Bhattacharyya(a.WHSV, b.WHSV)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.4*dh + 0.6*MSCRDistance(a.Blobs, b.Blobs, 64, 64, 0.4)
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("d(a, b) = %v, want %v", got, want)
	}
	// A signature built by hand (no cached roots) gives the same.
	hand := &Signature{W: b.W, H: b.H, WHSV: b.WHSV, Blobs: b.Blobs}
	if d, err := Distance(a, hand, DefaultWeights()); err != nil || math.Abs(d-want) > 1e-12 {
		t.Errorf("d(a, b built by hand) = %v, %v, want %v", d, err, want)
	}
	// √(1 − BC) turns BC's rounding into about 1e-8.
	if d, err := Distance(a, a, DefaultWeights()); err != nil || d > 1e-7 {
		t.Errorf("d(a, a) = %v, %v", d, err)
	}
	for _, w := range []Weights{{}, {WHSV: -1, MSCR: 1}, {WHSV: 1, Gamma: 2}} {
		if _, err := Distance(a, b, w); err == nil {
			t.Errorf("weights %+v: no error", w)
		}
	}
	if _, err := Distance(a, nil, DefaultWeights()); err == nil {
		t.Error("a nil signature: no error")
	}
	if _, err := Distance(a, &Signature{WHSV: []float64{1}}, DefaultWeights()); err == nil {
		t.Error("histograms of different lengths: no error")
	}
}

func TestMultiShotAndRank(t *testing.T) {
	p := people(t)
	for i := range p {
		for j := range p {
			got, err := MultiShot(p[i], p[j], DefaultWeights())
			if err != nil {
				t.Fatal(err)
			}
			want := math.Inf(1)
			for _, a := range p[i] {
				for _, b := range p[j] {
					d, _ := Distance(a, b, DefaultWeights())
					want = min(want, d)
				}
			}
			if got != want {
				t.Errorf("MultiShot(%d, %d) = %v, want %v", i, j, got, want)
			}
		}
		order, dist, err := Rank(context.Background(), p[i][:1], p, DefaultWeights())
		if err != nil {
			t.Fatal(err)
		}
		if order[0] != i || dist[0] > 1e-7 || dist[1] < dist[0] || dist[2] < dist[1] {
			t.Errorf("person %d ranks %v at %v", i, order, dist)
		}
	}
	if _, err := MultiShot(nil, p[0], DefaultWeights()); err == nil {
		t.Error("no probe images: no error")
	}
	if _, _, err := Rank(context.Background(), p[0], [][]*Signature{p[1], nil}, DefaultWeights()); err == nil {
		t.Error("an empty gallery identity: no error")
	}
	_, _, err := Rank(canceltest.Cancelled(t), p[0], p, DefaultWeights())
	canceltest.Check(t, "Rank", err)
}

func TestCancel(t *testing.T) {
	p := people(t)
	// A gallery far too large to rank by the time the context is
	// cancelled: the same identity a million times.
	gallery := make([][]*Signature, 1<<20)
	for i := range gallery {
		gallery[i] = p[i%len(p)]
	}
	_, _, err := Rank(canceltest.Soon(t), p[0], gallery, DefaultWeights())
	canceltest.Check(t, "Rank while it runs", err)
}

// TestDescribeSmallAndOdd describes random images of every size from the
// smallest accepted, with each mask: no error, no panic, axes in order
// inside the image.
func TestDescribeSmallAndOdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for w := minCols; w <= 9; w++ {
		for h := minRows; h <= 14; h += 3 {
			c := newCanvas(w, h, grey)
			for _, p := range [][]float64{c.img.R, c.img.G, c.img.B} {
				for i := range p {
					p[i] = rng.Float64()
				}
			}
			for _, kind := range []appearance.MaskKind{appearance.NoMask, appearance.BorderMask, appearance.CentreMask} {
				s, err := Describe(c.img, Options{Mask: appearance.MaskOptions{Kind: kind}})
				if err != nil {
					t.Fatalf("%d×%d, %v mask: %v", w, h, kind, err)
				}
				a := s.Axes
				if a.HeadTorso < 0 || a.HeadTorso > a.TorsoLegs || a.TorsoLegs > h || a.TorsoSym < 0 || a.TorsoSym >= w || a.LegsSym < 0 || a.LegsSym >= w {
					t.Errorf("%d×%d, %v mask: axes %+v", w, h, kind, a)
				}
			}
		}
	}
}

// TestMalformedImages checks that images built as struct literals with
// short planes or bad values are errors, not panics.
func TestMalformedImages(t *testing.T) {
	good := figure(0).img
	short := *good
	short.G = short.G[:10]
	nan := *good
	nan.B = append([]float64(nil), good.B...)
	nan.B[7] = math.NaN()
	for name, img := range map[string]*appearance.Image{"short plane": &short, "NaN": &nan, "empty": {}} {
		if _, err := Describe(img, Options{}); err == nil {
			t.Errorf("Describe of an image with a %s: no error", name)
		}
		if _, err := MSCR(img, nil, MSCROptions{}); err == nil {
			t.Errorf("MSCR of an image with a %s: no error", name)
		}
	}
	hsv := mustHSV(t, good)
	hsv.S = hsv.S[:5]
	if _, err := FindAxes(hsv, nil, AxesOptions{}); err == nil {
		t.Error("FindAxes of an HSV image with a short plane: no error")
	}
}

// TestMSCRByHeightEqualsPlain compares the pruned search of the gallery's
// blobs by height with MSCRDistance's every pair, bit for bit: random
// blobs (heights drawn from a few rows, so that many tie), images of
// different heights, γ at both ends and between, and empty sets.
func TestMSCRByHeightEqualsPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	blobs := func(n, rows int) []Blob {
		out := make([]Blob, n)
		for i := range out {
			out[i] = Blob{L: 100 * rng.Float64(), A: 60*rng.Float64() - 30, B: 60*rng.Float64() - 30, X: rng.Float64() * 16, Y: float64(rng.IntN(rows))}
		}
		return out
	}
	for trial := range 300 {
		ha, hb := 32+rng.IntN(33), 32+rng.IntN(33)
		a, b := blobs(rng.IntN(12), ha), blobs(rng.IntN(12), hb)
		gamma := []float64{0, 0.4, 1, rng.Float64()}[trial%4]
		want := MSCRDistance(a, b, ha, hb, gamma)
		if got := mscrByHeight(a, ha, byHeight(b, hb), gamma, same, math.Inf(1)); got != want {
			t.Errorf("trial %d (%d and %d blobs, γ = %v): %v, want %v", trial, len(a), len(b), gamma, got, want)
		}
	}
	p := people(t)
	for _, a := range p[0] {
		for _, b := range p[1] {
			if got, want := mscrByHeight(a.Blobs, a.H, b.byRise, 0.4, same, math.Inf(1)), MSCRDistance(a.Blobs, b.Blobs, a.H, b.H, 0.4); got != want {
				t.Errorf("real signatures: %v, want %v", got, want)
			}
		}
	}
}

// same is the identity, the total of mscrByHeight for the blob distance
// itself.
func same(v float64) float64 { return v }

// TestDistanceBelowDecides checks DistanceBelow against Distance on real
// signatures, for bounds below, at and above the distance: below the
// bound it is the distance to the last bit, otherwise at least the
// bound, so that the nearest of a gallery under it is the nearest under
// Distance. The bounds cut in the histogram part, in the blob sum and
// after it.
func TestDistanceBelowDecides(t *testing.T) {
	w := DefaultWeights()
	p := people(t)
	var cut, kept int
	for _, as := range p {
		for _, a := range as {
			for _, bs := range p {
				for _, b := range bs {
					want, err := Distance(a, b, w)
					if err != nil {
						t.Fatal(err)
					}
					hist := w.WHSV * appearance.SqrtBhattacharyya(a.root, b.root)
					for _, bound := range []float64{0, hist / 2, hist, math.Nextafter(hist, 2), (hist + want) / 2, want, math.Nextafter(want, 2), 2 * want, math.Inf(1)} {
						got, err := DistanceBelow(a, b, w, bound)
						switch {
						case err != nil:
							t.Fatal(err)
						case want < bound && got != want:
							t.Errorf("bound %v above the distance %v: %v, want the distance", bound, want, got)
						case want >= bound && got < bound:
							t.Errorf("bound %v at most the distance %v: %v, want at least the bound", bound, want, got)
						case got != want:
							cut++
						default:
							kept++
						}
					}
				}
			}
		}
	}
	if cut == 0 || kept == 0 {
		t.Errorf("%d values cut short and %d distances: want both", cut, kept)
	}
	if _, err := DistanceBelow(p[0][0], p[1][0], Weights{WHSV: -1}, 1); err == nil {
		t.Error("negative weight: no error")
	}
}
