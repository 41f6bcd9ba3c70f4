package classify

import (
	"reflect"
	"testing"
)

func TestFolds(t *testing.T) {
	labels := []int{0, 0, 0, 1, 1, 1, 2, 2, 2, 2}
	fs := Folds(labels, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 1)
	seen := map[int]bool{}
	for _, f := range fs {
		classes := map[int]int{}
		for _, i := range f {
			if seen[i] {
				t.Fatalf("item %d in two folds", i)
			}
			seen[i] = true
			classes[labels[i]]++
		}
		for c, n := range classes {
			if n > 2 {
				t.Errorf("fold holds %d items of class %d", n, c)
			}
		}
	}
	if len(seen) != 10 {
		t.Errorf("folds cover %d items", len(seen))
	}
	if got := Without([]int{1, 2, 3, 5, 8}, []int{2, 5, 9}); !reflect.DeepEqual(got, []int{1, 3, 8}) {
		t.Errorf("without = %v", got)
	}
}
