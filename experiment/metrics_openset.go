package experiment

import (
	"cmp"
	"math"
	"slices"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/experiment/results"
)

// openSetMeasure measures one method's answers on one repeat of an
// open-set task: scores of the test items whose true classes are truth
// and of which known says whether their class was trained. An item is
// accepted when its confidence c (classify.ItemScore.Confidence) reaches
// a threshold t; then, over the known items K and the unknown items U,
//
//	TAR(t) = |{i ∈ K : c_i ≥ t}| / |K|   (true accept rate)
//	FAR(t) = |{i ∈ U : c_i ≥ t}| / |U|   (false accept rate)
//
// and the ROC is TAR against FAR as t sweeps (Fawcett, "An introduction
// to ROC analysis", Pattern Recognition Letters 27, 2006). At a false
// accept rate f the threshold is the least t with FAR(t) <= f: just above
// the (⌊f|U|⌋+1)-th largest unknown confidence, 0 when f|U| >= |U|. The
// area under the ROC is the Mann–Whitney statistic
// P(c_K > c_U) + P(c_K = c_U)/2. At the task's FAR far it also reports
// the open-set identification rate, the known items accepted and
// labelled right (the detection and identification rate of Phillips et
// al., "Face Recognition Vendor Test 2002: Evaluation Report", 2003), and,
// without rejection, the known items labelled right. known must hold
// known and unknown items both.
func openSetMeasure(scores []classify.ItemScore, truth []int, known []bool, far float64) openSetRun {
	var r openSetRun
	var kc, uc []float64
	for i, s := range scores {
		c := s.Confidence()
		r.sci = !math.IsNaN(s.SCI)
		if known[i] {
			kc = append(kc, c)
			if s.Label == truth[i] {
				r.closed++
			}
		} else {
			uc = append(uc, c)
		}
	}
	r.known, r.unknown = len(kc), len(uc)
	r.closed *= 100 / float64(r.known)
	slices.SortFunc(uc, func(a, b float64) int { return cmp.Compare(b, a) }) // descending
	threshold := func(f float64) float64 {
		m := int(math.Floor(f*float64(len(uc)) + 1e-9))
		if m >= len(uc) {
			return 0
		}
		return math.Nextafter(uc[m], math.Inf(1))
	}
	rate := func(t float64, ok func(i int) bool) float64 {
		n := 0
		for i, s := range scores {
			if known[i] && s.Confidence() >= t && ok(i) {
				n++
			}
		}
		return 100 * float64(n) / float64(r.known)
	}
	accepted := func(int) bool { return true }
	for _, f := range rocFAR() {
		r.roc = append(r.roc, rate(threshold(f/100), accepted))
	}
	r.threshold = threshold(far)
	r.tar = rate(r.threshold, accepted)
	r.identification = rate(r.threshold, func(i int) bool { return scores[i].Label == truth[i] })
	r.auc = mannWhitney(kc, uc)
	return r
}

// mannWhitney returns P(x > y) + P(x = y)/2 for x drawn from a and y from
// b, from the midranks of the pooled sample; NaN when either is empty.
func mannWhitney(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	type v struct {
		x    float64
		from bool // a
	}
	all := make([]v, 0, len(a)+len(b))
	for _, x := range a {
		all = append(all, v{x, true})
	}
	for _, x := range b {
		all = append(all, v{x, false})
	}
	slices.SortFunc(all, func(p, q v) int { return cmp.Compare(p.x, q.x) })
	var rankSum float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].x == all[i].x {
			j++
		}
		mid := float64(i+j+1) / 2 // ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].from {
				rankSum += mid
			}
		}
		i = j
	}
	na, nb := float64(len(a)), float64(len(b))
	return (rankSum - na*(na+1)/2) / (na * nb)
}

// openSetResult aggregates the repeats' measures of one method on an
// open-set task at false accept rate far.
func openSetResult(task, method string, far float64, runs []openSetRun) results.Result {
	res := results.Result{Task: task, Method: method, Kind: results.KindOpenSet, OpenSet: results.OpenSet{FAR: 100 * far, ROCFAR: rocFAR(), Rejection: "score"}}
	var rocs [][]float64
	var aucs, tars, ids []float64
	for _, r := range runs {
		res.Runs = append(res.Runs, r.closed)
		aucs, tars, ids = append(aucs, r.auc), append(tars, r.tar), append(ids, r.identification)
		rocs = append(rocs, r.roc)
		res.Thresholds = append(res.Thresholds, r.threshold)
		res.KnownItems = append(res.KnownItems, r.known)
		res.UnknownItems = append(res.UnknownItems, r.unknown)
		res.TestItems = append(res.TestItems, r.known+r.unknown)
		if r.sci {
			res.Rejection = "sci"
		}
	}
	res.AccuracyMean, res.AccuracyStd = results.MeanStd(res.Runs)
	res.AUC, res.TAR, res.Identification = results.NewStat(aucs), results.NewStat(tars), results.NewStat(ids)
	res.ROC = &results.Curves{Runs: rocs}
	res.ROC.Mean, res.ROC.Std = results.MeanStdColumns(rocs)
	return res
}
