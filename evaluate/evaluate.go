// Package evaluate measures a model's answers on labelled items: the
// accuracy with its Wilson confidence interval, each class's precision,
// recall and F1 with their macro averages, the confusion matrix and,
// when answers are rejected below a confidence threshold or items belong
// to classes the model was not trained on, the open-set view: the
// accuracy of the accepted answers, the rejection rate, the accept rates
// of known and unknown items and the ROC of the confidence. It writes
// them as files of an output set (Write): evaluation.json, confusion.csv,
// and the figures of package plots (the confusion matrix, the ROC, a
// montage of misclassified images). covpipe evaluate is its command.
//
// # Definitions
//
// Over n items of which k are answered right (the answer is the true
// class), the accuracy is k/n and its 95% interval Wilson's score
// interval (E. B. Wilson, "Probable inference, the law of succession, and
// statistical inference", JASA 22, 1927; method 3 of R. G. Newcombe,
// "Two-sided confidence intervals for the single proportion", Statistics
// in Medicine 17, 1998):
//
//	(p̂ + z²/2n ± z √(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n),  p̂ = k/n, z = 1.959964
//
// which, unlike p̂ ± z√(p̂(1 − p̂)/n), stays inside [0, 1] and does not
// shrink to a point at k = 0 or k = n.
//
// For a class c, with TP the items of class c answered c, FP the items
// of another class (or of a class the model does not know) answered c
// and FN the items of class c answered otherwise, precision is
// TP/(TP + FP), recall TP/(TP + FN) and F1 their harmonic mean 2PR/(P +
// R); a ratio of 0/0 is 0, as scikit-learn's precision_recall_fscore_support
// gives it by default (zero_division). The classes are those the model
// knows that occur among the true classes or the answers, and the macro
// averages are the plain means over them (scikit-learn's average="macro"
// with those labels). Every rate is a percentage.
//
// Rejection does not change the answers these count: an answer below
// the threshold keeps its class. The open-set view counts the accepted
// ones apart (OpenSet).
package evaluate

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Z95 is the standard normal quantile of a two-sided 95% interval,
// Φ⁻¹(0.975).
const Z95 = 1.959963984540054

// Item is one answer to evaluate.
type Item struct {
	// Name says what the item is in reports (an image's path relative to
	// its input); Image is the image file's path, "" for an item without
	// one (descriptors), which the montage of misclassified images leaves
	// out.
	Name  string
	Image string
	// Truth is the item's true class, Label the model's answer and Score
	// its score (NaN for a method that scores none).
	Truth string
	Label string
	Score float64
	// Confidence is what rejection thresholds (the SCI of an SRC method,
	// the score otherwise), NaN when the method gives none; Rejected says
	// that it was below the threshold.
	Confidence float64
	Rejected   bool
}

// Options configure Evaluate.
type Options struct {
	// Classes are the classes the model knows, which it can answer; an
	// item of a class not among them is of an unknown class.
	Classes []string
	// Reject is the confidence threshold the items' answers were
	// rejected below, in [0, 1]; 0 for none, which leaves out the
	// open-set view of rejection.
	Reject float64
}

// Interval is a confidence interval, in percent.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Class is the measure of one class.
type Class struct {
	Class string `json:"class"`
	// Support counts the items of the class, Predicted the answers of
	// it and Correct those of them that are right (TP).
	Support   int `json:"support"`
	Predicted int `json:"predicted"`
	Correct   int `json:"correct"`
	// Precision, Recall and F1 in percent (see the package
	// documentation).
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// Averages are the means of the classes' measures.
type Averages struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// Confusion is the confusion matrix: Counts[i][j] items of the true
// class True[i] were answered Predicted[j]. The rows are the classes of
// Report.Classes, then the unknown classes (sorted); the columns those of
// Report.Classes.
type Confusion struct {
	True      []string `json:"true"`
	Predicted []string `json:"predicted"`
	Counts    [][]int  `json:"counts"`
}

// Report is the evaluation of a model's answers.
type Report struct {
	// Items counts the answers, Correct the right ones; Accuracy is
	// Correct/Items in percent and CI its Wilson 95% interval.
	Items    int      `json:"items"`
	Correct  int      `json:"correct"`
	Accuracy float64  `json:"accuracy"`
	CI       Interval `json:"accuracy_ci95"`
	// Classes are the classes the model knows that occur among the true
	// classes or the answers, sorted; Macro their averages.
	Classes []Class  `json:"classes"`
	Macro   Averages `json:"macro"`
	// Confusion is the confusion matrix.
	Confusion Confusion `json:"confusion"`
	// Unknown counts the items of classes the model does not know, and
	// UnknownClasses names those classes, sorted; their answers are all
	// wrong.
	Unknown        int      `json:"unknown_items"`
	UnknownClasses []string `json:"unknown_classes,omitempty"`
	// OpenSet is the view of rejection, nil without a threshold.
	OpenSet *OpenSet `json:"open_set,omitempty"`
	// ROC is the ROC of the confidence as a test of known against
	// unknown items, nil unless both occur and every answer has a
	// confidence.
	ROC *ROC `json:"roc,omitempty"`
}

// Wilson returns Wilson's score interval for k successes in n trials at
// the standard normal quantile z (Z95 for 95%; see the package
// documentation), as fractions in [0, 1]. It returns an error for n < 1,
// k outside [0, n] and a z that is not positive and finite.
func Wilson(k, n int, z float64) (lo, hi float64, err error) {
	switch {
	case n < 1:
		return 0, 0, fmt.Errorf("evaluate: Wilson interval of %d trials, want at least 1", n)
	case k < 0 || k > n:
		return 0, 0, fmt.Errorf("evaluate: Wilson interval of %d successes in %d trials, want 0 to %d", k, n, n)
	case !(z > 0) || math.IsInf(z, 1):
		return 0, 0, fmt.Errorf("evaluate: Wilson interval at z = %v, want z > 0 and finite", z)
	}
	p, nf, z2 := float64(k)/float64(n), float64(n), z*z
	d := 1 + z2/nf
	centre := (p + z2/(2*nf)) / d
	half := z / d * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	// At k = 0 and k = n the interval touches 0 and 1 exactly; rounding
	// would leave it a hair inside.
	lo, hi = max(0, centre-half), min(1, centre+half)
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return lo, hi, nil
}

// percentCI returns the Wilson 95% interval of k of n in percent, the
// zero Interval for n = 0.
func percentCI(k, n int) Interval {
	lo, hi, err := Wilson(k, n, Z95)
	if err != nil {
		return Interval{}
	}
	return Interval{100 * lo, 100 * hi}
}

// percent returns 100·a/b, 0 for b = 0.
func percent(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// Evaluate measures the answers of items (see the package
// documentation). It returns an error for no items, an item without a
// true class or an answer, no known classes, an answer that is not one
// of them, and a threshold outside [0, 1].
func Evaluate(items []Item, o Options) (*Report, error) {
	switch {
	case len(items) == 0:
		return nil, errors.New("evaluate: no items")
	case len(o.Classes) == 0:
		return nil, errors.New("evaluate: no known classes")
	case !(o.Reject >= 0 && o.Reject <= 1):
		return nil, fmt.Errorf("evaluate: rejection threshold %v, want a confidence in [0, 1]", o.Reject)
	}
	known := map[string]bool{}
	for _, c := range o.Classes {
		known[c] = true
	}
	seen := map[string]bool{}
	unknown := map[string]bool{}
	r := &Report{Items: len(items)}
	for _, it := range items {
		switch {
		case it.Truth == "":
			return nil, fmt.Errorf("evaluate: %s has no true class", it.Name)
		case !known[it.Label]:
			return nil, fmt.Errorf("evaluate: %s was answered %q, not a class of the model (%d classes)", it.Name, it.Label, len(o.Classes))
		}
		seen[it.Label] = true
		if known[it.Truth] {
			seen[it.Truth] = true
		} else {
			unknown[it.Truth] = true
			r.Unknown++
		}
		if it.Label == it.Truth {
			r.Correct++
		}
	}
	r.Accuracy, r.CI = percent(r.Correct, r.Items), percentCI(r.Correct, r.Items)
	classes := sortedKeys(seen)
	r.UnknownClasses = sortedKeys(unknown)
	r.Confusion = confusion(items, classes, r.UnknownClasses)
	for j, c := range classes {
		k := Class{Class: c, Correct: r.Confusion.Counts[j][j]}
		for i := range r.Confusion.True {
			k.Predicted += r.Confusion.Counts[i][j]
		}
		for _, n := range r.Confusion.Counts[j] {
			k.Support += n
		}
		k.Precision, k.Recall = percent(k.Correct, k.Predicted), percent(k.Correct, k.Support)
		if k.Precision+k.Recall > 0 {
			k.F1 = 2 * k.Precision * k.Recall / (k.Precision + k.Recall)
		}
		r.Classes = append(r.Classes, k)
		n := float64(len(classes))
		r.Macro.Precision += k.Precision / n
		r.Macro.Recall += k.Recall / n
		r.Macro.F1 += k.F1 / n
	}
	if o.Reject > 0 {
		r.OpenSet = openSet(items, known, o.Reject)
	}
	r.ROC = roc(items, known)
	return r, nil
}

// sortedKeys returns the keys of set, sorted.
func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// confusion counts the answers of items by true class (classes, then
// unknown) and answer (classes).
func confusion(items []Item, classes, unknown []string) Confusion {
	rows := slices.Concat(classes, unknown)
	m := Confusion{True: rows, Predicted: classes, Counts: make([][]int, len(rows))}
	for i := range m.Counts {
		m.Counts[i] = make([]int, len(classes))
	}
	index := func(names []string, s string) int {
		i, _ := slices.BinarySearch(names, s)
		return i
	}
	for _, it := range items {
		i := index(classes, it.Truth)
		if i == len(classes) || classes[i] != it.Truth {
			i = len(classes) + index(unknown, it.Truth)
		}
		m.Counts[i][index(classes, it.Label)]++
	}
	return m
}

// Misclassified returns the items answered wrong, the most confident
// mistakes first (by score, those without one last, then by name).
func Misclassified(items []Item) []Item {
	var out []Item
	for _, it := range items {
		if it.Label != it.Truth {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b Item) int {
		an, bn := math.IsNaN(a.Score), math.IsNaN(b.Score)
		switch {
		case an != bn:
			if an {
				return 1
			}
			return -1
		case !an && a.Score != b.Score:
			return cmp.Compare(b.Score, a.Score)
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}
