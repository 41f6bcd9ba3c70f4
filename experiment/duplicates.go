package experiment

import (
	"fmt"

	"github.com/covpipe/covpipe/classify"
)

// noteCopies warns of, and notes for every task's results, the images of
// the dataset that are the same image under two labels (classify.MislabelledCopies
// of their descriptors). path(i) names the image of descriptor i: with
// several regions per image, an image pair counts once however many of
// its regions' descriptors are the same.
func (e *engine) noteCopies(data []float64, d int, labels []int, path func(i int) string) {
	pairs, _ := classify.MislabelledCopies(data, d, labels, -1)
	seen := make(map[[2]string]bool, len(pairs))
	var eg []string
	for _, p := range pairs {
		k := [2]string{path(p[0]), path(p[1])}
		if seen[k] {
			continue
		}
		seen[k] = true
		if len(eg) < 3 {
			eg = append(eg, k[0]+" and "+k[1])
		}
	}
	if len(seen) == 0 {
		return
	}
	dp := e.plan.data
	e.log.Warn("the dataset holds the same images under different labels: no method can tell such copies apart", "dataset", dp.dataset, "pairs", len(seen), "e.g.", eg)
	e.imageNotes = append(e.imageNotes, fmt.Sprintf("%d pairs of %s's descriptors are bit for bit the same under different labels (e.g. %s): the same image listed under two classes, which no method can tell apart", len(seen), dp.dataset, eg[0]))
}
