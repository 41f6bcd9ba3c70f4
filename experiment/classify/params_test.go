package classify

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
)

func TestFloatsCheck(t *testing.T) {
	for _, tc := range []struct {
		f   Floats
		err string
	}{
		{Floats{1, 2}, ""},
		{nil, "sigma is required"},
		{Floats{1, 1, 2}, "lists 1 twice"},
		{Floats{1, 2, 1}, "lists 1 twice"},
		{Floats{2, 1, 1}, "lists 1 twice"},
		{Floats{0}, "want finite and > 0"},
		{Floats{-1}, "want finite and > 0"},
	} {
		err := tc.f.Check("sigma", true, 0, false)
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v.Check: %v, want %q", tc.f, err, tc.err)
		}
	}
}

// TestHashInts pins HashInts to FNV-1a over 8-byte little-endian integers,
// computed here byte by byte from the FNV specification.
func TestHashInts(t *testing.T) {
	for _, v := range [][]int{nil, {0}, {1, 2, 3}, {-1, 1 << 40}} {
		h := uint64(14695981039346656037)
		var b [8]byte
		for _, x := range v {
			binary.LittleEndian.PutUint64(b[:], uint64(x))
			for _, c := range b {
				h = (h ^ uint64(c)) * 1099511628211
			}
		}
		if got := HashInts(v); got != h {
			t.Errorf("HashInts(%v) = %x, want %x", v, got, h)
		}
	}
	if HashInts([]int{1, 2}) == HashInts([]int{2, 1}) {
		t.Error("HashInts ignores order")
	}
}

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
