package sdalf

import (
	"math"
	"testing"

	"github.com/covpipe/covpipe/appearance"
)

// TestNearestTo checks Gallery.NearestTo against the brute-force minimum
// of Distance over each class's gallery images, bit for bit, on
// mini-mars crops (each person's images a class, some of them probes
// only), with a class of no image, and its errors.
func TestNearestTo(t *testing.T) {
	imgs, ids := marsImages(t, 240)
	sigs := make([]*Signature, len(imgs))
	for i, img := range imgs {
		s, err := Describe(img, Options{Mask: appearance.MaskOptions{Kind: appearance.CentreMask}})
		if err != nil {
			t.Fatal(err)
		}
		sigs[i] = s
	}
	checkNearest(t, sigs, ids, true)
}

// TestNearestToFigures is TestNearestTo on drawn figures, two views of
// each of three people.
func TestNearestToFigures(t *testing.T) {
	var sigs []*Signature
	var ids []string
	for k, views := range people(t) {
		for _, s := range views {
			sigs, ids = append(sigs, s), append(ids, string(rune('a'+k)))
		}
	}
	checkNearest(t, sigs, ids, false)
}

// checkNearest checks NearestTo for the probes sigs against a gallery of
// every fourth but one of them, each of class ids[i], and, when cuts,
// that some gallery images were left out by their histogram terms.
func checkNearest(t *testing.T, sigs []*Signature, ids []string, cuts bool) {
	t.Helper()
	w := DefaultWeights()
	names := map[string]int{}
	var gallery []*Signature
	var class []int
	for i, id := range ids {
		if i%4 == 3 {
			continue // probes only
		}
		if _, ok := names[id]; !ok {
			names[id] = len(names)
		}
		gallery, class = append(gallery, sigs[i]), append(class, names[id])
	}
	classes := len(names) + 1 // the last one has no image
	g, err := NewGallery(gallery, class, classes)
	if err != nil {
		t.Fatal(err)
	}
	var ws NearestWork
	best := make([]float64, classes)
	cut := 0
	for _, probe := range sigs {
		if err := g.NearestTo(best, probe, w, &ws); err != nil {
			t.Fatal(err)
		}
		want := make([]float64, classes)
		for c := range want {
			want[c] = math.Inf(1)
		}
		for a, b := range gallery {
			d, err := Distance(probe, b, w)
			if err != nil {
				t.Fatal(err)
			}
			want[class[a]] = min(want[class[a]], d)
			if h, _ := histTerm(probe, b, w); h >= want[class[a]] && d > want[class[a]] {
				cut++
			}
		}
		for c := range want {
			if math.Float64bits(best[c]) != math.Float64bits(want[c]) {
				t.Fatalf("class %d: nearest %v, brute force %v", c, best[c], want[c])
			}
		}
	}
	if cuts && cut == 0 {
		t.Error("no gallery image left out by its histogram term: the test does not reach the bound")
	}
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"classes", func() error { _, err := NewGallery(gallery, class[1:], classes); return err }},
		{"class range", func() error { _, err := NewGallery(gallery[:1], []int{classes}, classes); return err }},
		{"nil signature", func() error { _, err := NewGallery([]*Signature{nil}, []int{0}, 1); return err }},
		{"best length", func() error { return g.NearestTo(best[1:], sigs[0], w, &ws) }},
		{"nil probe", func() error { return g.NearestTo(best, nil, w, &ws) }},
		{"weights", func() error { return g.NearestTo(best, sigs[0], Weights{WHSV: -1}, &ws) }},
	} {
		if c.f() == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
