package classify

import (
	"slices"
	"testing"
)

// TestMislabelledCopies checks the pairs against brute force on a small
// set with copies across labels, copies within a label (not reported)
// and near copies (one entry differs by an ulp: not reported).
func TestMislabelledCopies(t *testing.T) {
	const d = 2
	rows := [][]float64{
		{1, 0, 0, 1}, // 0, label 0
		{2, 0, 0, 2}, // 1, label 1
		{1, 0, 0, 1}, // 2, label 1: a copy of 0 under another label
		{2, 0, 0, 2}, // 3, label 1: a copy of 1 under the same label
		{1, 0, 0, 1.0000000000000002},
		{1, 0, 0, 1}, // 5, label 2: a copy of 0 and of 2
	}
	labels := []int{0, 1, 1, 1, 2, 2}
	var data []float64
	for _, r := range rows {
		data = append(data, r...)
	}
	var want [][2]int
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			if labels[i] != labels[j] && slices.Equal(rows[i], rows[j]) {
				want = append(want, [2]int{i, j})
			}
		}
	}
	got, n := MislabelledCopies(data, d, labels, -1)
	slices.SortFunc(got, func(a, b [2]int) int { return (a[0]-b[0])*100 + a[1] - b[1] })
	if !slices.Equal(got, want) || n != len(want) || n != 3 {
		t.Errorf("pairs %v (%d), want %v", got, n, want)
	}
	if got, n := MislabelledCopies(data, d, labels, 1); len(got) != 1 || n != 3 {
		t.Errorf("at most 1: %v, %d", got, n)
	}
}

// TestDistinctPairs: pairs whose items share names with an earlier
// pair's, as the regions of one image pair do, are left out, order kept.
func TestDistinctPairs(t *testing.T) {
	image := []string{"a", "a", "b", "b", "c", "c"} // two regions per image
	name := func(i int) string { return image[i] }
	for _, tc := range []struct {
		pairs, want [][2]int
	}{
		{nil, nil},
		{[][2]int{{0, 2}, {1, 3}}, [][2]int{{0, 2}}},
		{[][2]int{{1, 3}, {0, 4}, {0, 2}, {1, 5}}, [][2]int{{1, 3}, {0, 4}}},
		{[][2]int{{0, 2}, {2, 0}}, [][2]int{{0, 2}, {2, 0}}}, // (a, b) and (b, a) are named apart
	} {
		if got := DistinctPairs(tc.pairs, name); !slices.Equal(got, tc.want) {
			t.Errorf("DistinctPairs(%v) = %v, want %v", tc.pairs, got, tc.want)
		}
	}
}
