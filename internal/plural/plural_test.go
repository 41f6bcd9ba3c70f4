package plural

import "testing"

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		n     int
		thing string
		want  string
	}{
		{1, "image", "1 image"},
		{0, "image", "0 images"},
		{3, "image", "3 images"},
		{1, "class", "1 class"},
		{2, "class", "2 classes"},
		{2, "matrix", "2 matrices"},
		{5, "entry", "5 entries"},
		{2, "key", "2 keys"},
		{2, "batch", "2 batches"},
		{4, "cross-validation fold", "4 cross-validation folds"},
		{2, "empty class folder", "2 empty class folders"},
		{-1, "item", "-1 items"},
		{2, "", "2 "},
	} {
		if got := Of(tc.n, tc.thing); got != tc.want {
			t.Errorf("Of(%d, %q) = %q, want %q", tc.n, tc.thing, got, tc.want)
		}
	}
}
