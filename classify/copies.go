package classify

import (
	"slices"

	"github.com/covpipe/covpipe/spd"
)

// MislabelledCopies returns the pairs of rows (i < j) whose descriptors
// are bit for bit the same although their labels differ, at most max of
// them (all when max < 0), and how many there are: a dataset that holds
// one image under two labels (FERET's feret-b-32 has six subjects twice,
// 00045–00050 as 00051–00056), whose copies no method can tell apart, so
// that they cap every method's accuracy. Each of the n = len(labels)
// d×d descriptors of data (row-major, one after another) is hashed once
// (spd.MatrixHash: FNV-1a over its entries' bits); rows whose hashes
// collide are compared in full.
func MislabelledCopies(data []float64, d int, labels []int, max int) (pairs [][2]int, count int) {
	size := d * d
	row := func(i int) []float64 { return data[i*size : (i+1)*size] }
	hashes := make([]uint64, len(labels))
	for i := range hashes {
		hashes[i] = spd.MatrixHash(row(i))
	}
	return MislabelledCopiesOf(hashes, labels, func(i, j int) bool { return slices.Equal(row(i), row(j)) }, max)
}

// MislabelledCopiesOf is MislabelledCopies of descriptors held elsewhere
// (packed, say): hashes[i] is descriptor i's spd.MatrixHash and equal(i,
// j) reports whether descriptors i and j hold equal entries, as
// slices.Equal compares them; it is called for rows whose hashes
// collide only.
func MislabelledCopiesOf(hashes []uint64, labels []int, equal func(i, j int) bool, max int) (pairs [][2]int, count int) {
	first := make(map[uint64][]int, len(labels))
	for i := range labels {
		h := hashes[i]
		for _, j := range first[h] {
			if labels[j] != labels[i] && equal(j, i) {
				count++
				if max < 0 || len(pairs) < max {
					pairs = append(pairs, [2]int{j, i})
				}
			}
		}
		first[h] = append(first[h], i)
	}
	return pairs, count
}

// DistinctPairs returns the pairs of pairs whose items' names differ from
// those of every earlier pair, in order: with several descriptors per
// image (regions), named by their image, the image pairs of
// MislabelledCopies' descriptor pairs, each once.
func DistinctPairs(pairs [][2]int, name func(i int) string) [][2]int {
	seen := make(map[[2]string]bool, len(pairs))
	var out [][2]int
	for _, p := range pairs {
		k := [2]string{name(p[0]), name(p[1])}
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}
