package method

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/spd"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// itemsOf returns the items idx of d, in that order, as a Data of their
// own: their descriptors (and those of every part), labels, metadata and
// vectors, nothing of d's other items.
func itemsOf(d *classify.Data, idx []int) *classify.Data {
	out := &classify.Data{Labels: classify.Pick(d.Labels, idx), Classes: d.Classes, Ridge: d.Ridge, Workers: d.Workers}
	if d.Set != nil {
		out.Set = d.Set.Subset(idx)
	}
	if d.Meta != nil {
		for _, i := range idx {
			out.Meta = append(out.Meta, d.Meta[i])
		}
	}
	for r, x := range d.Vectors {
		if out.Vectors == nil {
			out.Vectors = map[classify.VectorRequest]*classify.Vectors{}
		}
		_, cols := x.Dims()
		y := mat.NewDense(len(idx), cols, nil)
		for k, i := range idx {
			if err := x.RowTo(y.RawRowView(k), i); err != nil {
				panic(err)
			}
		}
		out.Vectors[r] = classify.NewVectors(y)
	}
	for _, p := range d.Parts {
		q := itemsOf(p, idx)
		q.Labels, q.Classes, q.Meta = out.Labels, out.Classes, out.Meta
		out.Parts = append(out.Parts, q)
	}
	if out.Parts != nil {
		out.Set = out.Parts[0].Set
	}
	return out
}

// withRidge returns d's items with ridge·I added to every descriptor (of
// every part): the ridge variant of d that a list of ridge candidates
// makes, over the same items.
func withRidge(t *testing.T, d *classify.Data, ridge float64) *classify.Data {
	t.Helper()
	out := &classify.Data{Labels: d.Labels, Classes: d.Classes, Meta: d.Meta, Vectors: d.Vectors, Ridge: ridge, Workers: d.Workers}
	for _, p := range d.Parts {
		q := withRidge(t, p, ridge)
		q.Labels, q.Classes, q.Meta = out.Labels, out.Classes, out.Meta
		out.Parts = append(out.Parts, q)
	}
	if out.Parts != nil {
		out.Set = out.Parts[0].Set
		return out
	}
	if d.Set == nil {
		return out
	}
	ms := make([]*mat.SymDense, d.Set.Len())
	for i := range ms {
		m := mat.NewSymDense(d.Set.Dim(), nil)
		m.CopySym(d.Set.At(i))
		for j := range d.Set.Dim() {
			m.SetSym(j, j, m.At(j, j)+ridge)
		}
		ms[i] = m
	}
	set, err := spd.NewSet(ms)
	if err != nil {
		t.Fatal(err)
	}
	out.Set = set
	return out
}

// partsData returns roundTripData's synthetic items as items of two
// regions (Data.Parts): region 0 the items' descriptors, region 1 those
// of a second draw of the same classes in the same order.
func partsData(t *testing.T) (d *classify.Data, n int, test []int) {
	t.Helper()
	a, train, _ := syntheticData(t, 3, 3, 90, 0.3, 5)
	b, _, _ := syntheticData(t, 3, 3, 90, 0.5, 6)
	if !slices.Equal(a.Labels, b.Labels) {
		t.Fatal("two synthetic draws label their items differently")
	}
	b.Labels = a.Labels
	d = &classify.Data{Set: a.Set, Labels: a.Labels, Parts: []*classify.Data{a, b}, Workers: 2}
	return d, len(train), classify.Seq(len(train), a.Set.Len())
}

// heldOutCase is a method fitted by TestFitSeesOnlyItsItems, with its data.
type heldOutCase struct {
	name string
	// method returns a new method, with caches of its own.
	method func(t *testing.T) classify.Method
	// data returns the items, the n training items first (those a fold
	// draws from), then items that a dictionary learns from (learn), then
	// others (test).
	data func(t *testing.T, m classify.Method) (d *classify.Data, n int, learn, test []int)
}

// heldOutCases are every registered method type with its Example, and
// the meta-estimators on them: a best method choosing among three (one
// choosing its own parameters), and regions fused (Fused) under a choice
// of layouts and rules, by weight among them.
func heldOutCases() []heldOutCase {
	var cases []heldOutCase
	for _, typ := range Names() {
		cases = append(cases, heldOutCase{
			name:   typ,
			method: func(t *testing.T) classify.Method { return newMethod(t, typ, Types()[typ].Example) },
			data: func(t *testing.T, m classify.Method) (*classify.Data, int, []int, []int) {
				return roundTripData(t, m, typ)
			},
		})
	}
	synthetic := func(t *testing.T, _ classify.Method) (*classify.Data, int, []int, []int) {
		d, n, test := partsData(t)
		return d.Parts[0], n, nil, test
	}
	cases = append(cases, heldOutCase{
		name: "best",
		method: func(t *testing.T) classify.Method {
			return &classify.Best{Names: []string{"rsr", "nn", "mdm"}, OneSE: true, Methods: []classify.Method{
				newMethod(t, "rsr", Types()["rsr"].Example), newMethod(t, "nn", "{metric: stein}"), newMethod(t, "mdm", "{metric: airm}"),
			}}
		},
		data: synthetic,
	})
	for _, typ := range []string{"rsr", "nn", "stein-svm"} {
		cases = append(cases, heldOutCase{
			name: "fused " + typ,
			method: func(t *testing.T) classify.Method {
				return &classify.Fused{Method: newMethod(t, typ, Types()[typ].Example), Fusing: classify.Fusing{
					Sets: [][]int{{0, 1}, {1}}, Layouts: []string{"both", "second"},
					Rules:   []classify.FusionRule{classify.FuseSum, classify.FuseWeighted},
					Regions: []string{"3x3+0+0", "3x3+3+0"},
				}}
			},
			data: func(t *testing.T, _ classify.Method) (*classify.Data, int, []int, []int) {
				d, n, test := partsData(t)
				return d, n, nil, test
			},
		})
	}
	return cases
}

// TestFitSeesOnlyItsItems checks that a fit depends on its training
// items only, as a fold of cross-validation needs: a method fitted on
// items S of a Data that also holds other items (a fold's held-out
// items F, the split's test items, a dictionary's learning items) answers
// the queries F and the test items, labels, rankings, scores, class costs,
// probabilities, chosen parameters and its cross-validation tables bit
// for bit, as the method fitted on a Data of the items S alone (in their
// order, beside the learning items) answering a Data of S followed by
// the queries, as a model does. The items S interleave with F, so that a
// fit that reads a Data's items by position rather than by its Items
// fails too; the method fitted on S has first been fitted on the whole
// training set of the same Data, so that a cache keyed without the items
// fails too; and the Data has two ridge variants. Both fits take the
// same Seed: the folds and a method's random draws depend on it and on
// the order of the items, never on their indices (a run derives the
// seed from the training set's indices, experiment.FoldSeed, before the
// fit).
func TestFitSeesOnlyItsItems(t *testing.T) {
	groupings := []classify.FoldGroups{{}, {Key: "group"}, {Key: "group", WithinClass: true}}
	for _, c := range heldOutCases() {
		for _, by := range groupings {
			name := c.name
			if by.Key != "" {
				name += "/" + by.String()
			}
			t.Run(name, func(t *testing.T) { fitAmongOthers(t, c, by) })
		}
	}
}

// heldOutData returns c's items (c.data) in four groups per class
// (metadata key group, by position) and their two ridge variants (none
// for items of vectors alone, whose ridge means nothing).
func heldOutData(t *testing.T, c heldOutCase) (d *classify.Data, variants []*classify.Data, n int, learn, test []int) {
	t.Helper()
	d, n, learn, test = c.data(t, c.method(t))
	d.Meta = make([]map[string]string, len(d.Labels))
	for i := range d.Meta {
		d.Meta[i] = map[string]string{"group": fmt.Sprint(i / 3 % 4)}
	}
	for _, p := range d.Parts {
		p.Meta = d.Meta
	}
	if d.Set != nil {
		variants = []*classify.Data{d, withRidge(t, d, 1e-3)}
	}
	return d, variants, n, learn, test
}

// dealt deals the training items 0..n−1 into the items s that a fit
// sees and the others, f, every third: interleaved, as a fold's are.
func dealt(n int) (s, f []int) {
	for i := range n {
		if i%3 == 1 {
			f = append(f, i)
		} else {
			s = append(s, i)
		}
	}
	return s, f
}

// dict is a dictionary part of the items learn.
func dict(learn []int) *classify.Dictionary { return &classify.Dictionary{Learn: learn, Atoms: 6} }

// fitAmongOthers is TestFitSeesOnlyItsItems on one case, with validation
// folds by.
func fitAmongOthers(t *testing.T, c heldOutCase, by classify.FoldGroups) {
	ctx := context.Background()
	d, variants, n, learn, test := heldOutData(t, c)
	s, f := dealt(n)
	queries := append(slices.Clip(f), test...)
	restrict := func(idx []int) []*classify.Data {
		var vs []*classify.Data
		for _, v := range variants {
			vs = append(vs, itemsOf(v, idx))
		}
		return vs
	}
	first := func(vs []*classify.Data, whole *classify.Data) *classify.Data {
		if vs == nil {
			return whole
		}
		return vs[0]
	}
	m := c.method(t)
	costs, probs := m.Spec().Costs, m.Spec().Probabilities
	train := func(d *classify.Data, vs []*classify.Data, items, learn []int) *classify.Train {
		return &classify.Train{Data: d, Variants: vs, Items: items, Dictionary: dict(learn), Workers: 2, Seed: 3, Folds: 3, FoldsBy: by, CV: new(classify.CVLog)}
	}
	answer := func(f classify.Fitted, d *classify.Data, vs []*classify.Data, items []int) *classify.Outcome {
		t.Helper()
		o, err := f.Predict(ctx, &classify.Query{Data: d, Variants: vs, Items: items, Ranks: 3, Costs: costs, Probabilities: probs, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		o.Params = f.Chosen()
		return o
	}

	// The whole training set first, then S, on the Data of all.
	if _, err := m.Fit(ctx, train(d, variants, classify.Seq(0, n), learn)); err != nil {
		t.Fatal(err)
	}
	ta := train(d, variants, s, learn)
	fa, err := m.Fit(ctx, ta)
	if err != nil {
		t.Fatal(err)
	}
	got := answer(fa, d, variants, queries)

	// S alone, then the queries after S.
	own := itemsOf(d, append(slices.Clip(s), learn...))
	ownVariants := restrict(append(slices.Clip(s), learn...))
	tb := train(first(ownVariants, own), ownVariants, classify.Seq(0, len(s)), classify.Seq(len(s), len(s)+len(learn)))
	fb, err := c.method(t).Fit(ctx, tb)
	if err != nil {
		t.Fatal(err)
	}
	asked := append(slices.Clip(s), queries...)
	qVariants := restrict(asked)
	want := answer(fb, first(qVariants, itemsOf(d, asked)), qVariants, classify.Seq(len(s), len(asked)))

	sameOutcome(t, "fitted among other items against fitted alone", got, want)
	if !reflect.DeepEqual(ta.CV.Tables(), tb.CV.Tables()) {
		t.Fatalf("cross-validation among other items:\n%s\nalone:\n%s", cvText(ta.CV.Tables()), cvText(tb.CV.Tables()))
	}
}

// cvText lists the rows of cross-validation tables for messages.
func cvText(tables []classify.CVTable) string {
	var s string
	for _, tb := range tables {
		s += fmt.Sprintf("%s %s (%d items): chose %d\n", tb.Choice, tb.Scope, tb.Items, tb.Chosen)
		for _, r := range tb.Candidates {
			s += fmt.Sprintf("  %s: %v mean %v\n", r.Name, r.Folds, r.Mean)
		}
	}
	return s
}

// TestFoldsSeeOnlyTheirItems checks that the runs of cross-validation see
// only their fold's training items, for every registered method type:
// with its Example's first candidates only, the method chooses between
// two ridge variants, and each variant's accuracy on each fold in its
// table is that of the method fitted on a Data of the fold's training
// items alone (no other item of the training set) answering the fold's
// held-out items, exactly. The runs inside Choose share what the fit's
// Train keeps (its Pairs, a PCA's Gram matrix of all the training
// items); this is the check that nothing of the held-out items gets
// through them.
func TestFoldsSeeOnlyTheirItems(t *testing.T) {
	for _, typ := range Names() {
		// Classes that overlap, so that the folds' accuracies tell fits apart.
		c := heldOutCase{name: typ, method: func(t *testing.T) classify.Method { return newMethod(t, typ, Types()[typ].Example) },
			data: func(t *testing.T, m classify.Method) (*classify.Data, int, []int, []int) { return spreadData(t, m, 3) }}
		t.Run(typ, func(t *testing.T) {
			ctx := context.Background()
			params := firstCandidates(t, Types()[typ].Example)
			one := func() classify.Method { return newMethod(t, typ, params) }
			if n := one().Spec().Candidates; n != 1 {
				t.Fatalf("%s %s: %d candidates", typ, params, n)
			}
			d, variants, n, learn, _ := heldOutData(t, c)
			s, _ := dealt(n)
			tr := &classify.Train{Data: d, Variants: variants, Items: s, Dictionary: dict(learn), Workers: 2, Seed: 3, Folds: 3, CV: new(classify.CVLog)}
			if _, err := one().Fit(ctx, tr); err != nil {
				t.Fatal(err)
			}
			tables := tr.CV.Tables()
			if len(tables) == 0 {
				if typ == "codes" || variants == nil {
					t.Skipf("%s chooses nothing here", typ)
				}
				t.Fatal("no choice among the ridge variants")
			}
			folds, err := d.ValidationFolds(s, 3, 3, classify.FoldGroups{})
			if err != nil {
				t.Fatal(err)
			}
			for v, dv := range variants {
				for k, held := range folds {
					train := classify.Without(s, held)
					own := itemsOf(dv, append(slices.Clip(train), learn...))
					f, err := one().Fit(ctx, &classify.Train{Data: own, Items: classify.Seq(0, len(train)),
						Dictionary: dict(classify.Seq(len(train), len(train)+len(learn))), Workers: 2, Seed: 3, Folds: 3})
					if err != nil {
						t.Fatal(err)
					}
					asked := append(slices.Clip(train), held...)
					o, err := f.Predict(ctx, &classify.Query{Data: itemsOf(dv, asked), Items: classify.Seq(len(train), len(asked)), Workers: 2})
					if err != nil {
						t.Fatal(err)
					}
					acc := classify.Accuracy(o.Pred, classify.Pick(d.Labels, held))
					if got := tables[0].Candidates[v].Folds[k]; got != acc {
						t.Errorf("ridge variant %d, fold %d: %v%% in cross-validation, %v%% fitted on the fold's training items alone", v, k, got, acc)
					}
				}
			}
		})
	}
}

// firstCandidates returns the YAML mapping params with each list of
// candidates replaced by its first.
func firstCandidates(t *testing.T, params string) string {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(params), &n); err != nil {
		t.Fatal(err)
	}
	m := n.Content[0]
	for i := 1; i < len(m.Content); i += 2 {
		if v := m.Content[i]; v.Kind == yaml.SequenceNode {
			m.Content[i] = v.Content[0]
		}
	}
	b, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
