package method

import (
	"context"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// TestTangentShared wants fgmdm and tangent-space, run one after the
// other on one Data, to share the training set's reference point and
// vectors and the queries' vectors, the latter equal bit for bit to
// spd.TangentVectors', and each to answer bit for bit as it does alone
// (on a Data of its own, which shares nothing with the other).
func TestTangentShared(t *testing.T) {
	data, train, test := syntheticData(t, 4, 5, 120, 0.3, 17)
	ctx := context.Background()
	alone := func(typ string) *classify.Outcome {
		own := classify.NewData(data.Set, data.Labels, 2)
		_, out := fitPredict(t, newMethod(t, typ, "{}"), own, train, test)
		return out
	}
	want := map[string]*classify.Outcome{"fgmdm": alone("fgmdm"), "tangent-space": alone("tangent-space")}
	for _, typ := range []string{"fgmdm", "tangent-space"} {
		_, out := fitPredict(t, newMethod(t, typ, "{}"), data, train, test)
		w := want[typ]
		if !reflect.DeepEqual(out.Ranking, w.Ranking) || !reflect.DeepEqual(out.Pred, w.Pred) {
			t.Fatalf("%s: rankings differ from its own run's", typ)
		}
		for q := range test {
			for c := range out.Costs[q] {
				if math.Float64bits(out.Costs[q][c]) != math.Float64bits(w.Costs[q][c]) ||
					math.Float64bits(out.Probabilities[q][c]) != math.Float64bits(w.Probabilities[q][c]) {
					t.Fatalf("%s, query %d, class %d: cost %v, probability %v; alone %v, %v", typ, q, c,
						out.Costs[q][c], out.Probabilities[q][c], w.Costs[q][c], w.Probabilities[q][c])
				}
			}
		}
	}
	fg, ts := newMethod(t, "fgmdm", "{}").(*fgmdm), newMethod(t, "tangent-space", "{}").(*tangentSpace)
	b1, err := fg.basis(ctx, data, train, 2)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := ts.basis(ctx, data, train, 2)
	if err != nil {
		t.Fatal(err)
	}
	if b1 != b2 {
		t.Fatal("fgmdm and tangent-space computed the training set's basis each")
	}
	v1, err := tangentVectorsAt(ctx, data, test, b1.ref, 2)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := tangentVectorsAt(ctx, data, test, b2.ref, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v1 != v2 {
		t.Fatal("the queries' vectors computed twice")
	}
	direct, err := spd.TangentVectors(ctx, data.Set, test, b1.ref, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range direct.RawMatrix().Data {
		if math.Float64bits(x) != math.Float64bits(v1.RawMatrix().Data[i]) {
			t.Fatalf("entry %d: %v, spd.TangentVectors %v", i, v1.RawMatrix().Data[i], x)
		}
	}
	// Another reference point (a model loaded from its state) does not
	// take these vectors.
	other, err := tangentVectorsAt(ctx, data, test, mat.NewSymDense(b1.ref.SymmetricDim(), slices.Clone(b1.ref.RawSymmetric().Data)), 2)
	if err != nil {
		t.Fatal(err)
	}
	if other == v1 {
		t.Fatal("vectors at another reference point shared")
	}
}
