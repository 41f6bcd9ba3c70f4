package experiment

import (
	"fmt"

	"github.com/covpipe/covpipe/classify"
)

// noteCopies warns of, and notes for every task's results, the images of
// the dataset that are the same image under two labels (classify.MislabelledCopies
// of their descriptors: pairs). path(i) names the image of descriptor i: with
// several regions per image, an image pair counts once however many of
// its regions' descriptors are the same.
func (e *engine) noteCopies(pairs [][2]int, path func(i int) string) {
	pairs = classify.DistinctPairs(pairs, path)
	if len(pairs) == 0 {
		return
	}
	var eg []string
	for _, p := range pairs[:min(3, len(pairs))] {
		eg = append(eg, path(p[0])+" and "+path(p[1]))
	}
	dp := e.plan.data
	e.log.Warn("the dataset holds the same images under different labels: no method can tell such copies apart", "dataset", dp.dataset, "pairs", len(pairs), "e.g.", eg)
	e.imageNotes = append(e.imageNotes, fmt.Sprintf("%d pairs of %s's descriptors are bit for bit the same under different labels (e.g. %s): the same image listed under two classes, which no method can tell apart", len(pairs), dp.dataset, eg[0]))
}
