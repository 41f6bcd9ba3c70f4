package classify

import (
	"cmp"
	"math"
	"slices"
)

// ItemScore is a method's answer on one test item with its confidence:
// the predicted label and the class it ranks second, each with its score
// in [0, 1], and, for sparse-representation methods, the concentration of
// the item's code. What a score is depends on the method:
//
//   - SRC methods (rsr, logE-SR, pca-src, gsr): the class's share of the
//     query's energy that the classes explain (rsr.Classifier.Shares);
//   - stein-svm: the class probability of the model calibrated by Platt
//     scaling and pairwise coupling (svm.Decision.Prob);
//   - nearest-neighbour methods (nn, rlpp, codes): the nearest class's
//     score is d₂/(d₁ + d₂) and the second's d₁/(d₁ + d₂), for d₁ ≤ d₂ the
//     distances of the two nearest classes (NearestScores);
//   - mdm: the softmax of −d² over the distances d to the class means,
//     p_c = exp(−d_c²) / Σ_k exp(−d_k²) (pyRiemann's MDM.predict_proba).
type ItemScore struct {
	Label int
	Score float64
	// Second is the class ranked second, −1 when the method knows one
	// class only (then SecondScore is 0).
	Second      int
	SecondScore float64
	// SCI is the sparsity concentration index of an SRC method's code
	// (rsr.Decision.SCI, Wright et al. 2009), NaN for other methods.
	SCI float64
}

// Confidence is what open-set rejection thresholds: the SCI for SRC
// methods, as Wright et al. (TPAMI 2009, Sec. 2.4) reject invalid test
// images, and the score of the predicted label for the others. A query
// is accepted as one of the known classes when its confidence reaches the
// threshold.
func (s ItemScore) Confidence() float64 {
	if !math.IsNaN(s.SCI) {
		return s.SCI
	}
	return s.Score
}

// RankedScore is the ItemScore of an answer whose classes rank as
// ranking, best first, with scores[c] the score of classes[c] (classes
// ascending, as every label of ranking is), and the SCI sci (NaN when the
// method has none).
func RankedScore(ranking, classes []int, scores []float64, sci float64) ItemScore {
	at := func(l int) float64 {
		c, _ := slices.BinarySearch(classes, l)
		return scores[c]
	}
	s := ItemScore{Label: ranking[0], Score: at(ranking[0]), Second: -1, SCI: sci}
	if len(ranking) > 1 {
		s.Second, s.SecondScore = ranking[1], at(ranking[1])
	}
	return s
}

// NearestScores returns the scores of a nearest-neighbour answer whose
// two nearest classes are at distances d1 <= d2: d₂/(d₁ + d₂) for the
// nearest and d₁/(d₁ + d₂) for the second, the inverse-distance weights
// of the two, a monotone form of the distance-ratio test d₁/d₂ (Lowe,
// IJCV 2004): 1/2 when the two are equally near, 1 when the query is a
// member of the nearest class. Both are 1/2 when d1 = d2 = 0, and the
// nearest's score is 1 when d2 is infinite (a single class).
func NearestScores(d1, d2 float64) (nearest, second float64) {
	switch {
	case math.IsInf(d2, 1):
		return 1, 0
	case d1+d2 == 0:
		return 0.5, 0.5
	}
	return d2 / (d1 + d2), d1 / (d1 + d2)
}

// RankCosts ranks classes by cost[c], the cost of classes[c] (the
// distance of its nearest member, or a fused residual): it returns their
// labels from cheapest to dearest, ties by position (the lower label
// first), and the answer's ItemScore, the two cheapest scored by
// NearestScores.
func RankCosts(classes []int, cost []float64) ([]int, ItemScore) {
	order := Seq(0, len(classes))
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(cost[a], cost[b]), a-b) })
	d2 := math.Inf(1)
	s := ItemScore{Label: classes[order[0]], Second: -1, SCI: math.NaN()}
	if len(order) > 1 {
		s.Second, d2 = classes[order[1]], cost[order[1]]
	}
	s.Score, s.SecondScore = NearestScores(cost[order[0]], d2)
	for k, c := range order {
		order[k] = classes[c]
	}
	return order, s
}
