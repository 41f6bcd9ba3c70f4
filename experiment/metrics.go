package experiment

import (
	"github.com/covpipe/covpipe/classify"

	"fmt"
	"math"
)

// evaluation accumulates a method's answers on one task over repeats.
type evaluation struct {
	classes   int
	confusion [][]int // [truth][predicted], summed over repeats
	ranks     int     // CMC length R; 0 when not requested
}

func newEvaluation(classes, ranks int) *evaluation {
	e := &evaluation{classes: classes, ranks: ranks, confusion: make([][]int, classes)}
	for i := range e.confusion {
		e.confusion[i] = make([]int, classes)
	}
	return e
}

// add records one repeat's predictions and returns its accuracy in percent
// and, when rankings are given and ranks > 0, its CMC curve.
func (e *evaluation) add(pred, truth []int, ranking [][]int) (float64, []float64, error) {
	if len(pred) != len(truth) {
		return 0, nil, fmt.Errorf("%d predictions for %d test items", len(pred), len(truth))
	}
	for i, t := range truth {
		if t < 0 || t >= e.classes || pred[i] < 0 || pred[i] >= e.classes {
			return 0, nil, fmt.Errorf("label out of range: truth %d, prediction %d, %d classes", t, pred[i], e.classes)
		}
		e.confusion[t][pred[i]]++
	}
	acc := classify.Accuracy(pred, truth)
	if e.ranks == 0 || ranking == nil {
		return acc, nil, nil
	}
	cmc, err := CMC(ranking, truth, e.ranks)
	return acc, cmc, err
}

// perClass returns each class's accuracy in percent over all repeats (NaN
// for a class never tested).
func (e *evaluation) perClass() []float64 {
	out := make([]float64, e.classes)
	for c, row := range e.confusion {
		total := 0
		for _, n := range row {
			total += n
		}
		out[c] = math.NaN()
		if total > 0 {
			out[c] = 100 * float64(row[c]) / float64(total)
		}
	}
	return out
}

// CMC returns the cumulative matching characteristic: for r = 1..R, the
// percentage of queries whose true label is among the first r labels of
// their ranking (Moon and Phillips 2001). ranking[q] lists labels from best
// to worst; a true label missing from a ranking never matches.
func CMC(ranking [][]int, truth []int, R int) ([]float64, error) {
	if len(ranking) != len(truth) {
		return nil, fmt.Errorf("CMC: %d rankings for %d queries", len(ranking), len(truth))
	}
	if R < 1 {
		return nil, fmt.Errorf("CMC: rank %d, want >= 1", R)
	}
	hits := make([]int, R)
	for q, rk := range ranking {
		for pos, l := range rk {
			if pos >= R {
				break
			}
			if l == truth[q] {
				hits[pos]++
				break
			}
		}
	}
	out := make([]float64, R)
	cum := 0
	for r := range R {
		cum += hits[r]
		out[r] = 100 * float64(cum) / float64(len(truth))
	}
	return out, nil
}
