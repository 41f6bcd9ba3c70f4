package classify

import "testing"

// TestPickBest checks both rules on counts worked by hand: the one-SE
// floor of 96 right of 100 is 0.96 − √(0.96·0.04/100) ≈ 0.9404.
func TestPickBest(t *testing.T) {
	for _, tc := range []struct {
		correct []int
		oneSE   bool
		want    int
	}{
		{[]int{93, 95, 96}, false, 2},
		{[]int{93, 95, 96}, true, 1},
		{[]int{95, 94, 96}, true, 0},
		{[]int{94, 95, 96}, true, 1}, // 0.94 < 0.9404
		{[]int{5, 5}, false, 0},
		{[]int{90, 100}, true, 1}, // a = 1: no spread, the most accurate
	} {
		if got := pickBest(tc.correct, 100, tc.oneSE); got != tc.want {
			t.Errorf("%v one-se %v: %d, want %d", tc.correct, tc.oneSE, got, tc.want)
		}
	}
}
