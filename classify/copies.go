package classify

import (
	"math"
	"slices"
)

// MislabelledCopies returns the pairs of rows (i < j) whose descriptors
// are bit for bit the same although their labels differ, at most max of
// them (all when max < 0), and how many there are: a dataset that holds
// one image under two labels (FERET's feret-b-32 has six subjects twice,
// 00045–00050 as 00051–00056), whose copies no method can tell apart, so
// that they cap every method's accuracy. Each of the n = len(labels)
// d×d descriptors of data (row-major, one after another) is hashed once
// (FNV-1a over its entries' bits); rows whose hashes collide are compared
// in full.
func MislabelledCopies(data []float64, d int, labels []int, max int) (pairs [][2]int, count int) {
	size := d * d
	first := make(map[uint64][]int, len(labels))
	for i := range labels {
		row := data[i*size : (i+1)*size]
		h := uint64(14695981039346656037) // FNV-1a over the entries' bits
		for _, x := range row {
			h = (h ^ math.Float64bits(x)) * 1099511628211
		}
		for _, j := range first[h] {
			if labels[j] != labels[i] && slices.Equal(data[j*size:(j+1)*size], row) {
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
