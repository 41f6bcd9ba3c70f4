// Package hashkey makes map keys of sets of item indices.
package hashkey

import (
	"encoding/binary"
	"hash/fnv"
)

// Ints is the 64-bit FNV-1a hash of the integers' 8-byte little-endian
// forms: a key for a set of item indices (a training set, a fold).
func Ints(v []int) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, x := range v {
		binary.LittleEndian.PutUint64(b[:], uint64(x))
		h.Write(b[:])
	}
	return h.Sum64()
}
