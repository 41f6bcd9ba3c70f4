package classify

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestGroupFolds checks group folds against their definition by brute
// force: every item held out exactly once, every group within one fold,
// folds balanced greedily, one group per fold when there are no more
// groups than folds, and the same folds for the same seed.
func TestGroupFolds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int // items per group
		n     int
		folds int // want
	}{
		{"leave one pose out", []int{5, 5, 5}, 3, 3},
		{"fewer groups than folds", []int{4, 6}, 5, 2},
		{"more groups than folds", []int{9, 1, 4, 4, 3, 2, 2, 1}, 3, 3},
		{"one group", []int{7}, 3, 1},
	} {
		var items []int
		group := map[int]string{}
		for g, size := range tc.sizes {
			for range size {
				group[len(items)] = fmt.Sprintf("g%d", g)
				items = append(items, len(items))
			}
		}
		g := func(i int) string { return group[i] }
		folds, names := GroupFolds(items, tc.n, 7, g)
		if len(folds) != tc.folds || len(names) != tc.folds {
			t.Errorf("%s: %d folds, %d name lists, want %d", tc.name, len(folds), len(names), tc.folds)
			continue
		}
		held := map[int]int{}
		foldOf := map[string]int{}
		for k, f := range folds {
			if !slices.IsSorted(f) {
				t.Errorf("%s: fold %d not ascending: %v", tc.name, k, f)
			}
			for _, i := range f {
				held[i]++
				if prev, ok := foldOf[g(i)]; ok && prev != k {
					t.Errorf("%s: group %s split between folds %d and %d", tc.name, g(i), prev, k)
				}
				foldOf[g(i)] = k
				if !slices.Contains(names[k], g(i)) {
					t.Errorf("%s: fold %d holds %s but names %v", tc.name, k, g(i), names[k])
				}
			}
		}
		for _, i := range items {
			if held[i] != 1 {
				t.Errorf("%s: item %d held out %d times", tc.name, i, held[i])
			}
		}
		// Greedy balance: no fold exceeds another by more than its
		// smallest group (the largest-first greedy bound).
		lo, hi := len(items), 0
		for _, f := range folds {
			lo, hi = min(lo, len(f)), max(hi, len(f))
		}
		if tc.folds == len(tc.sizes) {
			continue
		}
		if hi-lo > slices.Max(tc.sizes) {
			t.Errorf("%s: fold sizes from %d to %d", tc.name, lo, hi)
		}
		if again, _ := GroupFolds(items, tc.n, 7, g); !slices.EqualFunc(again, folds, slices.Equal[[]int]) {
			t.Errorf("%s: the same seed gave other folds", tc.name)
		}
	}
	// 9, 4, 4, 3, 2, 2, 1, 1 into 3 folds, largest first to the emptiest:
	// 9 | 4+3+1+1 | 4+2+2, sizes 9, 9, 8.
	items := make([]int, 26)
	sizes := []int{9, 1, 4, 4, 3, 2, 2, 1}
	group := map[int]string{}
	k := 0
	for gi, s := range sizes {
		for range s {
			items[k], group[k] = k, fmt.Sprintf("g%d", gi)
			k++
		}
	}
	folds, _ := GroupFolds(items, 3, 1, func(i int) string { return group[i] })
	var got []int
	for _, f := range folds {
		got = append(got, len(f))
	}
	slices.Sort(got)
	if !slices.Equal(got, []int{8, 9, 9}) {
		t.Errorf("fold sizes %v, want the greedy's 8, 9, 9", got)
	}
}

// TestValidationFolds: without a key, the stratified folds; with one,
// group folds of the items' metadata, and errors that name the key.
func TestValidationFolds(t *testing.T) {
	poses := []string{"ba", "bj", "bk"}
	d := &Data{}
	for i := range 12 {
		d.Labels = append(d.Labels, i/3)
		d.Meta = append(d.Meta, map[string]string{"pose": poses[i%3]})
	}
	items := Seq(0, 12)
	strat, err := d.ValidationFolds(items, 3, 5, FoldGroups{})
	if err != nil || !slices.EqualFunc(strat, Folds(d.Labels, items, 3, 5), slices.Equal[[]int]) {
		t.Errorf("no key: %v, %v; want the stratified folds", strat, err)
	}
	byPose, err := d.ValidationFolds(items, 3, 5, FoldGroups{Key: "pose"})
	if err != nil || len(byPose) != 3 {
		t.Fatalf("by pose: %v, %v", byPose, err)
	}
	for _, f := range byPose {
		for _, i := range f {
			if d.Meta[i]["pose"] != d.Meta[f[0]]["pose"] {
				t.Errorf("fold %v mixes poses", f)
			}
		}
	}
	// Within classes of one pose each, nothing can be held out by pose:
	// the stratified folds.
	items3 := []int{0, 1, 2, 3, 4, 5}
	for i := range items3 {
		d.Meta[i] = map[string]string{"pose": poses[d.Labels[i]]}
	}
	if got, err := d.ValidationFolds(items3, 3, 5, FoldGroups{Key: "pose", WithinClass: true}); err != nil || !slices.EqualFunc(got, Folds(d.Labels, items3, 3, 5), slices.Equal[[]int]) {
		t.Errorf("within classes of one group: %v, %v; want the stratified folds", got, err)
	}
	for i := range items3 {
		d.Meta[i] = map[string]string{"pose": poses[i%3]}
	}
	for _, tc := range []struct {
		items []int
		by    FoldGroups
		msg   string
	}{
		{items, FoldGroups{Key: "camera"}, `folds_by: camera: item 0 has no "camera" (its metadata: pose)`},
		{[]int{0, 3, 6}, FoldGroups{Key: "pose"}, `form 1 groups (ba): want two or more`},
	} {
		if _, err := d.ValidationFolds(tc.items, 3, 5, tc.by); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want an error saying %q", tc.by, err, tc.msg)
		}
	}
}

// TestClassGroupFolds checks folds within classes by brute force: every
// group of a class of two or more groups held out in exactly one fold and
// whole, no fold holding out two groups of a class that has no more
// groups than folds, single-group classes never held out, and every
// class keeping a group in every fold's training part.
func TestClassGroupFolds(t *testing.T) {
	// Per class, the sizes of its groups (a person's tracklets).
	classes := [][]int{{5, 3}, {4}, {2, 2, 2}, {1, 6, 1, 1, 2}}
	var labels, items []int
	group := map[int]string{}
	for c, sizes := range classes {
		for g, n := range sizes {
			for range n {
				group[len(items)] = fmt.Sprintf("T%d", g) // the same names in every class
				labels = append(labels, c)
				items = append(items, len(items))
			}
		}
	}
	const n = 3
	folds := ClassGroupFolds(labels, items, n, 9, func(i int) string { return group[i] })
	if len(folds) != n {
		t.Fatalf("%d folds, want %d", len(folds), n)
	}
	type cg struct {
		class int
		group string
	}
	foldOf := map[cg]int{}
	held := map[int]int{}
	for k, f := range folds {
		perClass := map[int]map[string]bool{}
		for _, i := range f {
			held[i]++
			key := cg{labels[i], group[i]}
			if prev, ok := foldOf[key]; ok && prev != k {
				t.Errorf("class %d's group %s split between folds %d and %d", key.class, key.group, prev, k)
			}
			foldOf[key] = k
			if perClass[labels[i]] == nil {
				perClass[labels[i]] = map[string]bool{}
			}
			perClass[labels[i]][group[i]] = true
		}
		for c, gs := range perClass {
			if len(gs) > 1 && len(classes[c]) <= n {
				t.Errorf("fold %d holds out %d groups of class %d, which has %d", k, len(gs), c, len(classes[c]))
			}
			if len(gs) == len(classes[c]) {
				t.Errorf("fold %d holds out every group of class %d", k, c)
			}
		}
	}
	for _, i := range items {
		want := 1
		if len(classes[labels[i]]) < 2 {
			want = 0
		}
		if held[i] != want {
			t.Errorf("item %d (class %d) held out %d times, want %d", i, labels[i], held[i], want)
		}
	}
}
