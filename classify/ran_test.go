package classify

import (
	"context"
	"reflect"
	"testing"
)

// TestBestAnswersWithSharedOutcome runs two candidates and then Best on
// one split, with and without Split.Share: sharing, the chosen
// candidate's Predict runs once less (Best answers with the outcome the
// candidate gave on the split), and Best's outcome is the same, field by
// field; a query of other items is predicted.
func TestBestAnswersWithSharedOutcome(t *testing.T) {
	data := alternating(30)
	outcomes := map[bool]*Outcome{}
	calls := map[bool]int{}
	for _, share := range []bool{false, true} {
		a, b := &fixedMethod{wrong: []int{0, 1, 2, 21}}, &fixedMethod{wrong: []int{22}}
		best := &Best{Names: []string{"A", "B"}, Methods: []Method{a, b}}
		s := &Split{Data: data, Train: Seq(0, 20), Test: Seq(20, 30), Folds: 2, Seed: 3}
		if share {
			s.Share = []Method{a, b}
		}
		for _, m := range []Method{a, b, best} {
			out, err := Run(context.Background(), m, s)
			if err != nil {
				t.Fatal(err)
			}
			outcomes[share] = out
		}
		if got := outcomes[share].Chosen; got != "B" {
			t.Fatalf("share %v: Best chose %q, want B", share, got)
		}
		calls[share] = b.predicts
		// A query that is not the split's own is predicted, shared or not.
		f, err := best.Fit(context.Background(), s.Fitting())
		if err != nil {
			t.Fatal(err)
		}
		before := b.predicts
		if _, err := f.Predict(context.Background(), &Query{Data: data, Items: []int{25, 26}}); err != nil || b.predicts != before+1 {
			t.Errorf("share %v: another query: %v, %d calls of Predict, want 1", share, err, b.predicts-before)
		}
	}
	if calls[true] != calls[false]-1 {
		t.Errorf("the chosen candidate's Predict ran %d times sharing, %d without: want one less", calls[true], calls[false])
	}
	if !reflect.DeepEqual(outcomes[true], outcomes[false]) {
		t.Errorf("Best's outcome sharing %+v, without %+v", outcomes[true], outcomes[false])
	}
}
