package hashkey

import (
	"encoding/binary"
	"testing"
)

// TestInts pins Ints to FNV-1a over 8-byte little-endian integers,
// computed here byte by byte from the FNV specification.
func TestInts(t *testing.T) {
	for _, v := range [][]int{nil, {0}, {1, 2, 3}, {-1, 1 << 40}} {
		h := uint64(14695981039346656037)
		var b [8]byte
		for _, x := range v {
			binary.LittleEndian.PutUint64(b[:], uint64(x))
			for _, c := range b {
				h = (h ^ uint64(c)) * 1099511628211
			}
		}
		if got := Ints(v); got != h {
			t.Errorf("Ints(%v) = %x, want %x", v, got, h)
		}
	}
	if Ints([]int{1, 2}) == Ints([]int{2, 1}) {
		t.Error("Ints ignores order")
	}
}
