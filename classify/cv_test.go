package classify

import (
	"context"
	"maps"
	"math"
	"slices"
	"testing"
)

// foldRunner returns a Runner that answers right on all but wrong[p][k]
// of the held-out items of fold k of folds for candidate p: accuracies
// set by hand, fold by fold.
func foldRunner(folds [][]int, wrong map[float64][]int) Runner[float64] {
	return func(d *Data, _, test []int, p float64) (*Outcome, error) {
		k := slices.IndexFunc(folds, func(f []int) bool { return slices.Equal(f, test) })
		pred := Pick(d.Labels, test)
		for i := range wrong[p][k] {
			pred[i] = 1 - pred[i]
		}
		return &Outcome{Pred: pred}, nil
	}
}

// alternating returns a Data of n items of classes 0 and 1 in turn.
func alternating(n int) *Data {
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 2
	}
	return &Data{Labels: labels}
}

// closeTo reports whether a and b agree to 1e-9.
func closeTo(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// checkRows compares the rows of a table with rows worked by hand.
func checkRows(t *testing.T, what string, got []CVRow, want []CVRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.Name || len(g.Folds) != len(w.Folds) || !closeTo(g.Mean, w.Mean) || !closeTo(g.SE, w.SE) {
			t.Errorf("%s: row %d is %+v, want %+v", what, i, g, w)
			continue
		}
		for k := range w.Folds {
			if !closeTo(g.Folds[k], w.Folds[k]) {
				t.Errorf("%s: row %d fold %d: %v, want %v", what, i, k, g.Folds[k], w.Folds[k])
			}
		}
	}
}

// TestChooseTable checks Choose's table against accuracies set fold by
// fold: 12 items of 2 classes in 3 folds of 4, candidate 1 right on 4,
// 2 and 3 of them (100, 50, 75%: mean 75, s = 25, SE = 25/√3), candidate
// 2 on 3 each (75, SE 0, a tie that goes to the first), candidate 3 on 4,
// 4 and 2 (mean 83.3, s = 28.87, SE = 16.67): the table's chosen row is
// the candidate Choose chose, and a remembered choice gives its table
// again.
func TestChooseTable(t *testing.T) {
	data := alternating(12)
	train := Seq(0, 12)
	folds := Folds(data.Labels, train, 3, 7)
	run := foldRunner(folds, map[float64][]int{1: {0, 2, 1}, 2: {1, 1, 1}, 3: {0, 0, 2}})
	for _, tc := range []struct {
		params []float64
		chosen int
		rows   []CVRow
	}{
		{[]float64{1, 2, 3}, 2, []CVRow{
			{Name: "1", Folds: []float64{100, 50, 75}, Mean: 75, SE: 25 / math.Sqrt(3)},
			{Name: "2", Folds: []float64{75, 75, 75}, Mean: 75},
			{Name: "3", Folds: []float64{100, 100, 50}, Mean: 250.0 / 3, SE: 50 / math.Sqrt(3) / math.Sqrt(3)},
		}},
		{[]float64{1, 2}, 0, []CVRow{
			{Name: "1", Folds: []float64{100, 50, 75}, Mean: 75, SE: 25 / math.Sqrt(3)},
			{Name: "2", Folds: []float64{75, 75, 75}, Mean: 75},
		}},
	} {
		var memo Memo[float64] // a method's: its candidates are fixed
		for again := range 2 { // the second time from the memo
			tr := &Train{Data: data, Items: train, Folds: 3, Seed: 7, CV: &CVLog{}}
			c, _, err := Choose(context.Background(), tr, tc.params, &memo, run)
			if err != nil {
				t.Fatal(err)
			}
			tables := tr.CV.Tables()
			if len(tables) != 1 {
				t.Fatalf("%v (%d): %d tables, want 1", tc.params, again, len(tables))
			}
			tb := tables[0]
			if tb.Chosen != tc.chosen || tc.params[tb.Chosen] != c.Params || tb.Rule != "max-mean" || tb.Choice != "parameters" || tb.Items != 12 || tb.Scope != "" {
				t.Errorf("%v (%d): table chose %d (%s, %s, %d items), Choose %v; want row %d", tc.params, again, tb.Chosen, tb.Rule, tb.Choice, tb.Items, c.Params, tc.chosen)
			}
			checkRows(t, "Choose", tb.Candidates, tc.rows)
		}
	}
	// One candidate: no cross-validation, no table.
	tr := &Train{Data: data, Items: train, Folds: 3, Seed: 7, CV: &CVLog{}}
	if _, _, err := Choose(context.Background(), tr, []float64{1}, &Memo[float64]{}, run); err != nil || len(tr.CV.Tables()) != 0 {
		t.Errorf("one candidate: %v, tables %v", err, tr.CV.Tables())
	}
	// A nil log records nothing, and Choose chooses as with one.
	tr = &Train{Data: data, Items: train, Folds: 3, Seed: 7}
	if c, _, err := Choose(context.Background(), tr, []float64{1, 2, 3}, &Memo[float64]{}, run); err != nil || c.Params != 3 {
		t.Errorf("without a log: chose %v, %v; want 3", c.Params, err)
	}
}

// fixedMethod answers right on every item but those of wrong, and
// chooses between two parameters that answer alike (Choose), so that
// its fit makes a table of its own.
type fixedMethod struct {
	wrong    []int
	memo     Memo[float64]
	predicts int // calls of its fits' Predict
}

func (m *fixedMethod) Spec() Spec { return Spec{Candidates: 2} }

func (m *fixedMethod) Fit(ctx context.Context, t *Train) (Fitted, error) {
	same := func(d *Data, _, test []int, _ float64) (*Outcome, error) {
		return &Outcome{Pred: Pick(d.Labels, test)}, nil
	}
	if _, _, err := Choose(ctx, t, []float64{1, 2}, &m.memo, same); err != nil {
		return nil, err
	}
	return fixedFit{m}, nil
}

func (m *fixedMethod) Load(context.Context, *State, *Train) (Fitted, error) { return fixedFit{m}, nil }

type fixedFit struct{ m *fixedMethod }

func (f fixedFit) Predict(_ context.Context, q *Query) (*Outcome, error) {
	f.m.predicts++
	pred := Pick(q.Data.Labels, q.Items)
	for i, it := range q.Items {
		if slices.Contains(f.m.wrong, it) {
			pred[i] = 1 - pred[i]
		}
	}
	return &Outcome{Pred: pred}, nil
}

func (fixedFit) Chosen() map[string]float64 { return nil }

func (fixedFit) Save(context.Context) (*State, error) { return &State{}, nil }

// TestBestTable checks Best's table on 20 items in 2 folds of 10, worked
// by hand: A wrong on 2 and 1 items (80, 90%: 85 over the items, SE 5),
// B on 1 and 1 (90, 90: 90, SE 0), C on 0 and 5 (100, 50: 75, SE 25).
// The most accurate is B; the one-standard-error rule's floor is
// 90 − 100·√(0.9·0.1/20) = 83.29, which A reaches first. The chosen
// candidate's own choice follows, scoped by its name.
func TestBestTable(t *testing.T) {
	data := alternating(20)
	items := Seq(0, 20)
	folds := Folds(data.Labels, items, 2, 3)
	f0, f1 := folds[0], folds[1]
	rows := []CVRow{
		{Name: "A", Folds: []float64{80, 90}, Mean: 85, SE: 5},
		{Name: "B", Folds: []float64{90, 90}, Mean: 90},
		{Name: "C", Folds: []float64{100, 50}, Mean: 75, SE: 25},
	}
	for _, tc := range []struct {
		oneSE     bool
		chosen    int
		rule      string
		threshold float64
	}{
		{false, 1, "max", 0},
		{true, 0, "one-se", 90 - 100*math.Sqrt(0.9*0.1/20)},
	} {
		b := &Best{Names: []string{"A", "B", "C"}, OneSE: tc.oneSE, Methods: []Method{
			&fixedMethod{wrong: []int{f0[0], f0[1], f1[0]}},
			&fixedMethod{wrong: []int{f0[0], f1[0]}},
			&fixedMethod{wrong: f1[:5]},
		}}
		tr := &Train{Data: data, Items: items, Folds: 2, Seed: 3, CV: &CVLog{}}
		f, err := b.Fit(context.Background(), tr)
		if err != nil {
			t.Fatal(err)
		}
		tables := tr.CV.Tables()
		if len(tables) != 2 {
			t.Fatalf("one-se %v: %d tables, want Best's and its choice's", tc.oneSE, len(tables))
		}
		tb := tables[0]
		if tb.Choice != "methods" || tb.Rule != tc.rule || tb.Chosen != tc.chosen || b.Names[tb.Chosen] != ChosenMethod(f) || !closeTo(tb.Threshold, tc.threshold) || tb.Items != 20 {
			t.Errorf("one-se %v: table %+v; Best chose %q, want row %d, threshold %v", tc.oneSE, tb, ChosenMethod(f), tc.chosen, tc.threshold)
		}
		checkRows(t, "Best", tb.Candidates, rows)
		if in := tables[1]; in.Choice != "parameters" || in.Scope != `candidate "`+b.Names[tc.chosen]+`"` {
			t.Errorf("one-se %v: the chosen candidate's table is %+v", tc.oneSE, in)
		}
	}
}

// TestFusionTable checks the fusion's table on TestChooseFusion's parts:
// the sum, swamped by the part that is always wrong, is wrong on every
// item of both folds, the normalised rule right on all.
func TestFusionTable(t *testing.T) {
	d, f := sumWrongParts()
	fu := &Fused{Method: f, Fusing: Fusing{Sets: [][]int{{0, 1, 2}}, Layouts: []string{"l"}, Rules: []FusionRule{FuseSum, FuseNormalized}, Regions: []string{"r0", "r1", "r2"}}}
	tr := &Train{Data: d, Items: Seq(0, 8), Folds: 2, Seed: 1, CV: &CVLog{}}
	fit, err := fu.Fit(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	c, _, _ := FusionOf(fit)
	tables := tr.CV.Tables()
	if len(tables) != 1 || tables[0].Choice != "fusion" || tables[0].Rule != "max" || tables[0].Chosen != 1 || c.Rule != FuseNormalized {
		t.Fatalf("tables %+v, chose %v", tables, c.Rule)
	}
	checkRows(t, "fusion", tables[0].Candidates, []CVRow{
		{Name: "rule sum", Folds: []float64{0, 0}, Mean: 0},
		{Name: "rule normalized", Folds: []float64{100, 100}, Mean: 100},
	})
}

// TestFusionRecordsPartParams: a fused outcome records the parameters of
// each part's fit, in the layout's part order, not the first part's alone.
func TestFusionRecordsPartParams(t *testing.T) {
	d, f := sumWrongParts()
	fu := &Fused{Method: f, Fusing: Fusing{Sets: [][]int{{0}, {2, 1}}, Layouts: []string{"a", "b"}, Rules: []FusionRule{FuseNormalized}, Regions: []string{"r0", "r1", "r2"}}}
	out, err := Run(context.Background(), fu, &Split{Data: d, Train: Seq(0, 8), Test: Seq(0, 8), Folds: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]float64{{"part": 2}, {"part": 1}}
	if out.Fusion == nil || !slices.Equal(out.Fusion.Regions, []string{"r2", "r1"}) || len(out.Fusion.PartParams) != len(want) {
		t.Fatalf("fusion %+v, want layout b's regions r2, r1 with their parameters", out.Fusion)
	}
	for k, p := range out.Fusion.PartParams {
		if !maps.Equal(p, want[k]) {
			t.Errorf("part %d (region %s): params %v, want %v", k, out.Fusion.Regions[k], p, want[k])
		}
	}
}

// TestEstimate: the estimate is the chosen row's mean of the fit's own
// last table, whatever tables of inner choices (scoped) come after it.
func TestEstimate(t *testing.T) {
	row := func(mean float64) CVRow { return CVRow{Mean: mean} }
	params := CVTable{Choice: "parameters", Candidates: []CVRow{row(60), row(70)}, Chosen: 1}
	inner := CVTable{Choice: "parameters", Scope: `candidate "rsr"`, Candidates: []CVRow{row(10), row(20)}, Chosen: 0}
	methods := CVTable{Choice: "methods", Candidates: []CVRow{row(75), row(80), row(65)}, Chosen: 1}
	for _, tc := range []struct {
		name   string
		tables []CVTable
		want   float64
		ok     bool
	}{
		{"no choice", nil, 0, false},
		{"parameters", []CVTable{params}, 70, true},
		{"only inner choices", []CVTable{inner}, 0, false},
		{"best over candidates that chose", []CVTable{inner, methods}, 80, true},
		{"an inner table after the fit's", []CVTable{params, inner}, 70, true},
		{"the fit's last choice", []CVTable{params, methods}, 80, true},
	} {
		got, ok := Estimate(tc.tables)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestBestTableWithinClasses: with folds within classes, a class of one
// group is never held out, and Best's accuracies are over the items that
// are: 12 items of 2 classes, class 0 in groups T0, T1, T1 ... (two
// groups), class 1 all in T0 (one group, never held out), so 6 items are
// cross-validated; a candidate wrong on one of them scores 5/6.
func TestBestTableWithinClasses(t *testing.T) {
	data := alternating(12)
	for i := range data.Labels {
		g := "T0"
		if data.Labels[i] == 0 && i%4 == 0 {
			g = "T1"
		}
		data.Meta = append(data.Meta, map[string]string{"tracklet": g})
	}
	items := Seq(0, 12)
	by := FoldGroups{Key: "tracklet", WithinClass: true}
	folds, err := data.ValidationFolds(items, 2, 3, by)
	if err != nil {
		t.Fatal(err)
	}
	b := &Best{Names: []string{"A", "B"}, Methods: []Method{
		&fixedMethod{wrong: []int{folds[0][0]}},
		&fixedMethod{wrong: []int{folds[0][0], folds[1][0]}},
	}}
	tr := &Train{Data: data, Items: items, Folds: 2, Seed: 3, FoldsBy: by, CV: &CVLog{}}
	if _, err := b.Fit(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	tb := tr.CV.Tables()[0]
	if tb.Items != 6 || tb.Chosen != 0 || !closeTo(tb.Candidates[0].Mean, 100*5.0/6) || !closeTo(tb.Candidates[1].Mean, 100*4.0/6) {
		t.Errorf("table %+v: want 6 items cross-validated, A at 5/6, B at 4/6", tb)
	}
}
