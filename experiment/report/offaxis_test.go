package report

import (
	"testing"

	"github.com/covpipe/covpipe/plots"
)

// TestMarkOffAxis checks which series the energy figure leaves off its
// axis: a flat reference far above (or below) the curves, by more than
// twice their span, and nothing when no curve spans a range.
func TestMarkOffAxis(t *testing.T) {
	curve := func(ys ...float64) plots.Series { return plots.Series{Y: ys} }
	for _, tc := range []struct {
		name   string
		series []plots.Series
		off    []bool
	}{
		{"sources far above", []plots.Series{curve(69.6, 61.2), curve(66.8, 64.8), curve(312.6, 312.6)}, []bool{false, false, true}},
		{"sources far below", []plots.Series{curve(69.6, 61.2), curve(3, 3)}, []bool{false, true}},
		{"sources near", []plots.Series{curve(69.6, 61.2), curve(80, 80)}, []bool{false, false}},
		{"sources inside", []plots.Series{curve(69.6, 61.2), curve(65, 65)}, []bool{false, false}},
		{"flat only", []plots.Series{curve(60, 60), curve(312, 312)}, []bool{false, false}},
		{"one curve", []plots.Series{curve(2, 1)}, []bool{false}},
	} {
		got := markOffAxis(tc.series)
		for i, s := range got {
			if s.OffAxis != tc.off[i] {
				t.Errorf("%s: series %d OffAxis %v, want %v", tc.name, i, s.OffAxis, tc.off[i])
			}
		}
	}
}
