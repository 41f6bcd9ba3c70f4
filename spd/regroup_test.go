package spd

import (
	"errors"
	"testing"
)

// wishartSet returns n random 3×3 SPD matrices.
func wishartSet(t *testing.T, n int) *Set {
	t.Helper()
	return randomSet(t, n, 3, 7)
}

// TestRegroup checks Regroup against Subset's copies of the same
// indices (group g, region r at g·k + r), matrices and log-determinants
// bit for bit, for shapes whose permutations have cycles of every
// length, fixed points and one group.
func TestRegroup(t *testing.T) {
	for _, tc := range []struct{ groups, k int }{{1, 1}, {5, 1}, {1, 4}, {2, 3}, {4, 6}, {7, 5}, {10, 27}} {
		n := tc.groups * tc.k
		orig := wishartSet(t, n)
		want := make([]*Set, tc.k)
		for r := range want {
			idx := make([]int, tc.groups)
			for g := range idx {
				idx[g] = g*tc.k + r
			}
			want[r] = orig.Subset(idx)
		}
		got, err := Regroup(orig.Subset(seq(n)), tc.k)
		if err != nil {
			t.Fatalf("%d×%d: %v", tc.groups, tc.k, err)
		}
		for r := range want {
			if !Equal(got[r], want[r]) {
				t.Errorf("%d×%d: region %d differs", tc.groups, tc.k, r)
			}
			for g := range tc.groups {
				if got[r].LogDet(g) != want[r].LogDet(g) {
					t.Errorf("%d×%d: region %d group %d: log det %v, want %v", tc.groups, tc.k, r, g, got[r].LogDet(g), want[r].LogDet(g))
				}
			}
		}
	}
	for _, k := range []int{0, 4, 7} {
		if _, err := Regroup(wishartSet(t, 6), k); !errors.Is(err, ErrDimension) {
			t.Errorf("6 matrices in groups of %d: error %v, want ErrDimension", k, err)
		}
	}
}

// TestEqual checks Equal on copies, one changed entry and other lengths.
func TestEqual(t *testing.T) {
	s := wishartSet(t, 4)
	c := s.Subset(seq(4))
	if !Equal(s, c) {
		t.Error("a copy is not Equal")
	}
	c.data[17] += 1e-12
	if Equal(s, c) {
		t.Error("a changed entry is Equal")
	}
	if Equal(s, s.Subset(seq(3))) {
		t.Error("sets of different lengths are Equal")
	}
}
