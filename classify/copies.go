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
