package evaluate

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestWilson checks Wilson's interval against Newcombe's worked examples
// (Statistics in Medicine 17, 1998, Table I, method 3: 81/263, 15/148,
// 0/20, 1/29) to the four decimals he gives, its ends at k = 0 and k = n,
// and its errors.
func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
		{1, 29, 0.0061, 0.1718},
		{29, 29, 1 - 0.1170, 1}, // the mirror of 0/29, whose upper end is z²/(n + z²)
	} {
		lo, hi, err := Wilson(tc.k, tc.n, Z95)
		if err != nil || math.Abs(lo-tc.lo) > 5e-5 || math.Abs(hi-tc.hi) > 5e-5 {
			t.Errorf("%d/%d: [%.5f, %.5f], %v; want [%.4f, %.4f]", tc.k, tc.n, lo, hi, err, tc.lo, tc.hi)
		}
	}
	// The interval of k/n mirrors that of (n − k)/n.
	lo, hi, _ := Wilson(7, 19, Z95)
	mlo, mhi, _ := Wilson(12, 19, Z95)
	if math.Abs(lo-(1-mhi)) > 1e-15 || math.Abs(hi-(1-mlo)) > 1e-15 {
		t.Errorf("7/19 [%v, %v] and 12/19 [%v, %v] are not mirror images", lo, hi, mlo, mhi)
	}
	for _, tc := range []struct {
		k, n int
		z    float64
		want string
	}{
		{0, 0, Z95, "0 trials"},
		{3, 2, Z95, "3 successes in 2 trials"},
		{-1, 2, Z95, "-1 successes"},
		{1, 2, 0, "z = 0"},
		{1, 2, math.Inf(1), "z = +Inf"},
		{1, 2, math.NaN(), "z = NaN"},
	} {
		if _, _, err := Wilson(tc.k, tc.n, tc.z); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Wilson(%d, %d, %v): %v, want %q", tc.k, tc.n, tc.z, err, tc.want)
		}
	}
}

// handItems are ten answers of a model of classes a, b, c and d (never
// seen), with an item of the unknown class x, whose measures the tests
// work by hand (see TestEvaluate).
func handItems() []Item {
	rows := []struct {
		truth, label string
		conf         float64
	}{
		{"a", "a", 0.9}, {"a", "a", 0.8}, {"a", "a", 0.4}, {"a", "b", 0.3},
		{"b", "b", 0.7}, {"b", "b", 0.6}, {"b", "a", 0.55},
		{"c", "c", 0.95}, {"c", "b", 0.2},
		{"x", "a", 0.45},
	}
	items := make([]Item, len(rows))
	for i, r := range rows {
		items[i] = Item{Name: string(rune('0' + i)), Truth: r.truth, Label: r.label, Score: r.conf, Confidence: r.conf, Rejected: r.conf < 0.5}
	}
	return items
}

// TestEvaluate checks every measure on handItems against its value
// worked by hand. The confusion matrix (rows a, b, c, x; columns a, b,
// c) is [3 1 0; 1 2 0; 0 1 1; 1 0 0]: 6 of 10 right. Class a: TP 3 of 5
// answered a and 4 items, P 60, R 75, F1 2·60·75/135 = 66.67; b: 2 of 4
// and 3, P 50, R 66.67, F1 57.14; c: 1 of 1 and 2, P 100, R 50, F1
// 66.67; macro P 70, R 63.89, F1 63.49. d occurs nowhere and is left
// out. At threshold 0.5, items 3, 4, 9 and 10 (x) are rejected: 6
// accepted, 5 right (83.3%), 6 of 9 known accepted, none of the unknown,
// 5 of 9 known identified. The confidences rank every known item but
// three above the unknown one: AUC 6/9.
func TestEvaluate(t *testing.T) {
	r, err := Evaluate(handItems(), Options{Classes: []string{"a", "b", "c", "d"}, Reject: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	lo, hi, _ := Wilson(6, 10, Z95)
	if r.Items != 10 || r.Correct != 6 || !near(r.Accuracy, 60) || !near(r.CI.Low, 100*lo) || !near(r.CI.High, 100*hi) {
		t.Errorf("accuracy %d of %d = %v, CI %+v; want 6 of 10 = 60, [%.2f, %.2f]", r.Correct, r.Items, r.Accuracy, r.CI, 100*lo, 100*hi)
	}
	if math.Abs(r.CI.Low-31.27) > 0.005 || math.Abs(r.CI.High-83.18) > 0.005 {
		t.Errorf("CI of 6/10 %+v, want [31.27, 83.18] (Wilson worked by hand)", r.CI)
	}
	want := []Class{
		{Class: "a", Support: 4, Predicted: 5, Correct: 3, Precision: 60, Recall: 75, F1: 200.0 / 3},
		{Class: "b", Support: 3, Predicted: 4, Correct: 2, Precision: 50, Recall: 200.0 / 3, F1: 400.0 / 7},
		{Class: "c", Support: 2, Predicted: 1, Correct: 1, Precision: 100, Recall: 50, F1: 200.0 / 3},
	}
	if len(r.Classes) != len(want) {
		t.Fatalf("classes %+v, want %+v", r.Classes, want)
	}
	for i, w := range want {
		g := r.Classes[i]
		if g.Class != w.Class || g.Support != w.Support || g.Predicted != w.Predicted || g.Correct != w.Correct ||
			!near(g.Precision, w.Precision) || !near(g.Recall, w.Recall) || !near(g.F1, w.F1) {
			t.Errorf("class %s: %+v, want %+v", w.Class, g, w)
		}
	}
	if m := r.Macro; !near(m.Precision, 70) || !near(m.Recall, (75+200.0/3+50)/3) || !near(m.F1, (400.0/3+400.0/7)/3) {
		t.Errorf("macro %+v, want P 70, R 63.89, F1 63.49", m)
	}
	wantConfusion := Confusion{True: []string{"a", "b", "c", "x"}, Predicted: []string{"a", "b", "c"}, Counts: [][]int{{3, 1, 0}, {1, 2, 0}, {0, 1, 1}, {1, 0, 0}}}
	if !reflect.DeepEqual(r.Confusion, wantConfusion) || r.Unknown != 1 || !reflect.DeepEqual(r.UnknownClasses, []string{"x"}) {
		t.Errorf("confusion %+v, unknown %d %v; want %+v, 1 [x]", r.Confusion, r.Unknown, r.UnknownClasses, wantConfusion)
	}
	o := r.OpenSet
	alo, ahi, _ := Wilson(5, 6, Z95)
	if o == nil || o.Threshold != 0.5 || o.Accepted != 6 || o.Rejected != 4 || !near(o.RejectionRate, 40) || o.AcceptedCorrect != 5 ||
		!near(o.AcceptedAccuracy, 500.0/6) || !near(o.AcceptedCI.Low, 100*alo) || !near(o.AcceptedCI.High, 100*ahi) ||
		o.Known != 9 || o.Unknown != 1 || !near(o.KnownAccepted, 600.0/9) || o.UnknownAccepted != 0 || !near(o.Identification, 500.0/9) {
		t.Errorf("open set %+v", o)
	}
	roc := r.ROC
	if roc == nil || !near(roc.AUC, 6.0/9) || roc.FAR[0] != 0 || roc.TAR[0] != 0 || roc.FAR[len(roc.FAR)-1] != 100 || roc.TAR[len(roc.TAR)-1] != 100 {
		t.Fatalf("ROC %+v, want AUC 6/9 from (0, 0) to (100, 100)", roc)
	}
	for _, tc := range []struct{ far, tar float64 }{{0, 600.0 / 9}, {50, 600.0 / 9}, {100, 100}} {
		if got := roc.At(tc.far); !near(got, tc.tar) {
			t.Errorf("TAR at FAR %v: %v, want %v", tc.far, got, tc.tar)
		}
	}
	// Without a threshold there is no open-set view; the ROC stays.
	r, err = Evaluate(handItems(), Options{Classes: []string{"a", "b", "c"}})
	if err != nil || r.OpenSet != nil || r.ROC == nil {
		t.Errorf("no threshold: %v, open set %+v, ROC %v", err, r.OpenSet, r.ROC)
	}
	// Known classes only: no ROC; a missing confidence: none either.
	items := handItems()[:9]
	if r, _ := Evaluate(items, Options{Classes: []string{"a", "b", "c"}}); r.ROC != nil || r.Unknown != 0 || len(r.Confusion.True) != 3 {
		t.Errorf("known items only: ROC %v, unknown %d, rows %v", r.ROC, r.Unknown, r.Confusion.True)
	}
	items = handItems()
	items[0].Confidence = math.NaN()
	if r, _ := Evaluate(items, Options{Classes: []string{"a", "b", "c"}}); r.ROC != nil {
		t.Errorf("a NaN confidence: ROC %v, want none", r.ROC)
	}
}

// TestZeroDivision checks the 0/0 rule: a class answered never has
// precision 0, and F1 0 when recall is 0 too.
func TestZeroDivision(t *testing.T) {
	items := []Item{{Name: "1", Truth: "a", Label: "b"}, {Name: "2", Truth: "b", Label: "b"}}
	r, err := Evaluate(items, Options{Classes: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if a := r.Classes[0]; a.Class != "a" || a.Predicted != 0 || a.Precision != 0 || a.Recall != 0 || a.F1 != 0 {
		t.Errorf("class a, never answered: %+v, want P = R = F1 = 0", a)
	}
	if b := r.Classes[1]; b.Precision != 50 || b.Recall != 100 || math.Abs(b.F1-200.0/3) > 1e-9 {
		t.Errorf("class b: %+v, want P 50, R 100, F1 66.67", b)
	}
}

// TestAUCMannWhitney checks the trapezoid area under the ROC against
// the Mann–Whitney statistic counted pair by pair, ties a half, on
// random confidences with many ties.
func TestAUCMannWhitney(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	for range 50 {
		var items []Item
		var kc, uc []float64
		for i := range 2 + rng.IntN(30) {
			c := float64(rng.IntN(6)) / 5
			truth := "a"
			if i%3 == 0 {
				truth, uc = "x", append(uc, c)
			} else {
				kc = append(kc, c)
			}
			items = append(items, Item{Name: "i", Truth: truth, Label: "a", Confidence: c})
		}
		var pairs float64
		for _, k := range kc {
			for _, u := range uc {
				switch {
				case k > u:
					pairs++
				case k == u:
					pairs += 0.5
				}
			}
		}
		r, err := Evaluate(items, Options{Classes: []string{"a"}})
		if err != nil {
			t.Fatal(err)
		}
		if want := pairs / float64(len(kc)*len(uc)); r.ROC == nil || math.Abs(r.ROC.AUC-want) > 1e-12 {
			t.Errorf("%d known, %d unknown: AUC %v, Mann–Whitney %v", len(kc), len(uc), r.ROC, want)
		}
	}
}

// TestMisclassified checks the order of the mistakes: by score, highest
// first, those without a score last, ties by name.
func TestMisclassified(t *testing.T) {
	items := []Item{
		{Name: "right", Truth: "a", Label: "a", Score: 0.99},
		{Name: "low", Truth: "a", Label: "b", Score: 0.2},
		{Name: "none", Truth: "a", Label: "b", Score: math.NaN()},
		{Name: "high-b", Truth: "b", Label: "a", Score: 0.8},
		{Name: "high-a", Truth: "b", Label: "a", Score: 0.8},
	}
	var names []string
	for _, it := range Misclassified(items) {
		names = append(names, it.Name)
	}
	if want := []string{"high-a", "high-b", "low", "none"}; !reflect.DeepEqual(names, want) {
		t.Errorf("order %v, want %v", names, want)
	}
}

// TestEvaluateErrors checks what Evaluate refuses, naming the item.
func TestEvaluateErrors(t *testing.T) {
	ok := []Item{{Name: "p.png", Truth: "a", Label: "a"}}
	for _, tc := range []struct {
		items []Item
		o     Options
		want  string
	}{
		{nil, Options{Classes: []string{"a"}}, "no items"},
		{ok, Options{}, "no known classes"},
		{ok, Options{Classes: []string{"a"}, Reject: 1.5}, "rejection threshold 1.5"},
		{ok, Options{Classes: []string{"a"}, Reject: math.NaN()}, "rejection threshold NaN"},
		{[]Item{{Name: "q.png", Label: "a"}}, Options{Classes: []string{"a"}}, "q.png has no true class"},
		{[]Item{{Name: "r.png", Truth: "a", Label: "z"}}, Options{Classes: []string{"a"}}, `r.png was answered "z", not a class of the model`},
	} {
		if _, err := Evaluate(tc.items, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v %+v: %v, want %q", tc.items, tc.o, err, tc.want)
		}
	}
}
