package experiment

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
)

// TestNoteCopiesCountsImages: with several regions per image, an image
// pair under two labels counts once, whatever number of its regions'
// descriptors are the same, and a region that merely coincides between
// two different images of different labels counts too (it is the same
// descriptor under two labels).
func TestNoteCopiesCountsImages(t *testing.T) {
	const d = 1
	// Images a (label 0), b (label 1, a's copy), c (label 1, other), three
	// regions each: rows a0 a1 a2 b0 b1 b2 c0 c1 c2.
	data := []float64{1, 2, 3, 1, 2, 3, 7, 8, 9}
	labels := []int{0, 0, 0, 1, 1, 1, 1, 1, 1}
	images := []string{"a", "a", "a", "b", "b", "b", "c", "c", "c"}
	for _, tc := range []struct {
		name string
		data []float64
		want string
	}{
		{"a copy", data, "1 pairs of ds's descriptors are bit for bit the same under different labels (e.g. a and b)"},
		{"a copy and a coincident region", append(append([]float64{}, data[:6]...), 7, 8, 3), "2 pairs of ds's descriptors are bit for bit the same under different labels (e.g. a and b)"},
		{"none", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, ""},
	} {
		e := &engine{plan: &Plan{data: &dataPlan{dataset: "ds"}}, log: slog.New(slog.DiscardHandler)}
		pairs, _ := classify.MislabelledCopies(tc.data, d, labels, -1)
		e.noteCopies(pairs, func(i int) string { return images[i] })
		var got string
		if len(e.imageNotes) > 0 {
			got = e.imageNotes[0]
		}
		if len(e.imageNotes) > 1 || !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%s: notes %q, want one starting %q", tc.name, e.imageNotes, tc.want)
		}
	}
}
