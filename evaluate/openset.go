package evaluate

import (
	"cmp"
	"math"
	"slices"
)

// OpenSet is the view of rejection at a confidence threshold: an answer
// is accepted when its confidence reaches the threshold.
type OpenSet struct {
	Threshold float64 `json:"threshold"`
	// Accepted and Rejected count the answers; RejectionRate is
	// Rejected/Items in percent.
	Accepted      int     `json:"accepted"`
	Rejected      int     `json:"rejected"`
	RejectionRate float64 `json:"rejection_rate"`
	// AcceptedCorrect counts the accepted answers that are right (an
	// accepted answer for an item of an unknown class is wrong), and
	// AcceptedAccuracy is AcceptedCorrect/Accepted in percent, with its
	// Wilson 95% interval.
	AcceptedCorrect  int      `json:"accepted_correct"`
	AcceptedAccuracy float64  `json:"accepted_accuracy"`
	AcceptedCI       Interval `json:"accepted_accuracy_ci95"`
	// Known and Unknown count the items of known and of unknown
	// classes; KnownAccepted and UnknownAccepted are the percentages of
	// each accepted (the true and false accept rates of rejection as a
	// test of the unknown), and Identification the percentage of the
	// known items accepted and answered right (the detection and
	// identification rate of Phillips et al., FRVT 2002).
	Known           int     `json:"known"`
	Unknown         int     `json:"unknown"`
	KnownAccepted   float64 `json:"known_accepted_rate"`
	UnknownAccepted float64 `json:"unknown_accepted_rate"`
	Identification  float64 `json:"identification_rate"`
}

// openSet is the OpenSet of items, whose known classes are known, at
// threshold t.
func openSet(items []Item, known map[string]bool, t float64) *OpenSet {
	o := &OpenSet{Threshold: t}
	var knownAccepted, unknownAccepted int
	for _, it := range items {
		k := known[it.Truth]
		if k {
			o.Known++
		} else {
			o.Unknown++
		}
		if it.Rejected {
			o.Rejected++
			continue
		}
		o.Accepted++
		switch right := it.Label == it.Truth; {
		case right:
			o.AcceptedCorrect++
			knownAccepted++
		case k:
			knownAccepted++
		default:
			unknownAccepted++
		}
	}
	o.RejectionRate = percent(o.Rejected, len(items))
	o.AcceptedAccuracy, o.AcceptedCI = percent(o.AcceptedCorrect, o.Accepted), percentCI(o.AcceptedCorrect, o.Accepted)
	o.KnownAccepted, o.UnknownAccepted = percent(knownAccepted, o.Known), percent(unknownAccepted, o.Unknown)
	o.Identification = percent(o.AcceptedCorrect, o.Known) // a right answer is a known class
	return o
}

// ROC is the receiver operating characteristic of the confidence c as a
// test of known against unknown items: accepting the items with c ≥ t,
//
//	TAR(t) = |{i ∈ K : c_i ≥ t}| / |K|,  FAR(t) = |{i ∈ U : c_i ≥ t}| / |U|
//
// over the known items K and the unknown U, for every t (Fawcett, "An
// introduction to ROC analysis", Pattern Recognition Letters 27, 2006).
type ROC struct {
	// FAR and TAR are the curve's points, in percent: from (0, 0), a
	// threshold above every confidence, through one point per distinct
	// confidence in descending order, to (100, 100).
	FAR []float64 `json:"far"`
	TAR []float64 `json:"tar"`
	// AUC is the area under the curve, by the trapezoid rule: the
	// probability that a known item's confidence exceeds an unknown's,
	// ties counting a half (the Mann–Whitney statistic).
	AUC float64 `json:"auc"`
}

// roc returns the ROC of items, whose known classes are known; nil
// unless both known and unknown items occur and every confidence is a
// number.
func roc(items []Item, known map[string]bool) *ROC {
	type point struct {
		c     float64
		known bool
	}
	var ps []point
	var nk, nu int
	for _, it := range items {
		if math.IsNaN(it.Confidence) {
			return nil
		}
		k := known[it.Truth]
		ps = append(ps, point{it.Confidence, k})
		if k {
			nk++
		} else {
			nu++
		}
	}
	if nk == 0 || nu == 0 {
		return nil
	}
	slices.SortFunc(ps, func(a, b point) int { return cmp.Compare(b.c, a.c) })
	r := &ROC{FAR: []float64{0}, TAR: []float64{0}}
	var tk, tu int
	for i := 0; i < len(ps); {
		j := i
		for ; j < len(ps) && ps[j].c == ps[i].c; j++ {
			if ps[j].known {
				tk++
			} else {
				tu++
			}
		}
		far, tar := percent(tu, nu), percent(tk, nk)
		last := len(r.FAR) - 1
		r.AUC += (far - r.FAR[last]) * (tar + r.TAR[last]) / 2 / 1e4
		r.FAR, r.TAR = append(r.FAR, far), append(r.TAR, tar)
		i = j
	}
	return r
}

// At returns the true accept rate at false accept rate far (percent):
// the highest TAR of a point of the curve with FAR ≤ far, the best
// threshold that accepts at most that share of the unknown items.
func (r *ROC) At(far float64) float64 {
	best := 0.0
	for i, f := range r.FAR {
		if f <= far {
			best = max(best, r.TAR[i])
		}
	}
	return best
}
