package experiment

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
)

func TestCMCHandMade(t *testing.T) {
	// Four queries over classes 0..3 with known ranks of the truth: 1, 2,
	// 4 and absent.
	ranking := [][]int{{0, 1, 2, 3}, {2, 1, 0, 3}, {3, 1, 0, 2}, {1, 2, 3}}
	truth := []int{0, 1, 2, 0}
	got, err := CMC(ranking, truth, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{25, 50, 50, 75}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CMC = %v, want %v", got, want)
	}
	if _, err := CMC(ranking, truth[:2], 2); err == nil {
		t.Error("mismatched lengths accepted")
	}
}

func TestEvaluation(t *testing.T) {
	e := newEvaluation(3, 2)
	acc, cmc, err := e.add([]int{0, 1, 1, 2}, []int{0, 1, 2, 2}, [][]int{{0, 1, 2}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if acc != 75 || !reflect.DeepEqual(cmc, []float64{75, 100}) {
		t.Errorf("acc %v, CMC %v", acc, cmc)
	}
	pc := e.perClass()
	if pc[0] != 100 || pc[1] != 100 || pc[2] != 50 {
		t.Errorf("per-class %v", pc)
	}
	if e.confusion[2][1] != 1 || e.confusion[2][2] != 1 {
		t.Errorf("confusion %v", e.confusion)
	}
	if _, _, err := e.add([]int{5}, []int{0}, nil); err == nil {
		t.Error("out-of-range label accepted")
	}
	empty := newEvaluation(2, 0)
	if pc := empty.perClass(); !math.IsNaN(pc[0]) {
		t.Errorf("untested class accuracy %v, want NaN", pc[0])
	}
}

func TestPerClassSplit(t *testing.T) {
	labels := []int{0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3}
	items := classify.Seq(0, len(labels))
	data := &classify.Data{Labels: labels, Classes: []string{"a", "b", "c", "d"}}
	train, test, short := perClassSplit(data, items, 3, 7)
	count := map[int][2]int{}
	for _, i := range train {
		c := count[labels[i]]
		c[0]++
		count[labels[i]] = c
	}
	for _, i := range test {
		c := count[labels[i]]
		c[1]++
		count[labels[i]] = c
	}
	want := map[int][2]int{0: {3, 2}, 1: {2, 1}, 2: {1, 1}}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("per-class train/test %v, want %v", count, want)
	}
	if len(short) != 3 || !strings.Contains(short[2], `class "d" has 1 item(s): left out`) {
		t.Errorf("short classes reported %v", short)
	}
	if !slices.IsSorted(train) || !slices.IsSorted(test) {
		t.Error("split not sorted")
	}
	for _, i := range train {
		if slices.Contains(test, i) {
			t.Fatalf("item %d in train and test", i)
		}
	}
	train2, test2, _ := perClassSplit(data, items, 3, 7)
	if !reflect.DeepEqual(train, train2) || !reflect.DeepEqual(test, test2) {
		t.Error("same seed, different split")
	}
	differs := false
	for s := uint64(8); s < 20; s++ {
		tr, _, _ := perClassSplit(data, items, 3, s)
		if !reflect.DeepEqual(tr, train) {
			differs = true
		}
	}
	if !differs {
		t.Error("the seed does not change the split")
	}
}

func TestGroupSplit(t *testing.T) {
	labels := []int{0, 0, 0, 0, 1, 1, 2, 2, 2}
	cams := []string{"1", "1", "2", "3", "1", "1", "2", "1", "2"}
	train, test, skipped := groupSplit(labels, classify.Seq(0, 9), cams, 0, 3)
	if skipped != 1 {
		t.Errorf("skipped %d classes, want 1 (class 1 has one camera)", skipped)
	}
	for _, i := range append(append([]int{}, train...), test...) {
		if labels[i] == 1 {
			t.Fatal("single-camera class used")
		}
	}
	for _, tr := range train {
		for _, te := range test {
			if labels[tr] == labels[te] && cams[tr] == cams[te] {
				t.Fatalf("items %d and %d share class and camera across train/test", tr, te)
			}
		}
	}
	if len(train)+len(test) != 7 {
		t.Errorf("%d+%d items used, want 7", len(train), len(test))
	}
}
