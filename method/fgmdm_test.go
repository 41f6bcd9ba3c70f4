package method

import (
	"context"
	"math"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/lda"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// TestFgMDMAgainstPipeline checks fgmdm against its definition built by
// hand: the Karcher mean P of the training items, their vectors
// (handTangent), the LDA basis B, each item filtered by ExpMap at P of
// P^{1/2} unvec(BBᵀv) P^{1/2}, the Karcher mean of each class's filtered
// training items, and a query's costs its AIRM distances to them.
func TestFgMDMAgainstPipeline(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 80, 0.3, 5)
	_, out := fitPredict(t, newMethod(t, "fgmdm", "{}"), data, train, test)
	ctx := context.Background()
	xs := make([]*mat.SymDense, len(train))
	for k, i := range train {
		xs[k] = data.Set.At(i)
	}
	p, _, err := spd.KarcherMean(ctx, xs, &spd.MeanOptions{Tol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	n := spd.VecLen(3)
	v := mat.NewDense(len(train), n, nil)
	for k, i := range train {
		v.SetRow(k, handTangent(t, p, data.Set.At(i)))
	}
	a, err := lda.Fit(ctx, v, classify.Pick(data.Labels, train))
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.Basis()
	if err != nil {
		t.Fatal(err)
	}
	if _, r := b.Dims(); r != 3 {
		t.Fatalf("rank %d, want K − 1 = 3 of 6 coordinates", r)
	}
	sqrtP, _ := spd.Sqrt(p)
	filter := func(x mat.Symmetric) *mat.SymDense {
		u := mat.NewVecDense(n, handTangent(t, p, x))
		var c, w mat.VecDense
		c.MulVec(b.T(), u)
		w.MulVec(b, &c)
		vm := mat.NewSymDense(3, nil)
		k := 0
		for i := range 3 {
			for j := i; j < 3; j++ {
				e := w.AtVec(k)
				if j > i {
					e /= math.Sqrt2
				}
				vm.SetSym(i, j, e)
				k++
			}
		}
		var s1, s2 mat.Dense
		s1.Mul(sqrtP, vm)
		s2.Mul(&s1, sqrtP)
		tv := mat.NewSymDense(3, nil)
		for i := range 3 {
			for j := i; j < 3; j++ {
				tv.SetSym(i, j, (s2.At(i, j)+s2.At(j, i))/2)
			}
		}
		y, err := spd.ExpMap(p, tv)
		if err != nil {
			t.Fatal(err)
		}
		return y
	}
	byClass := classify.ByClass(data.Labels, train)
	classes := classify.SortedKeys(byClass)
	means := make([]*mat.SymDense, len(classes))
	for c, label := range classes {
		var fs []*mat.SymDense
		for _, i := range byClass[label] {
			fs = append(fs, filter(data.Set.At(i)))
		}
		if means[c], _, err = spd.KarcherMean(ctx, fs, &spd.MeanOptions{Tol: 1e-10}); err != nil {
			t.Fatal(err)
		}
	}
	correct := 0
	for q, i := range test {
		fq := filter(data.Set.At(i))
		for c := range classes {
			want, err := spd.AIRM(fq, means[c])
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Costs[q][c]; math.Abs(got-want) > 1e-6*(1+want) {
				t.Fatalf("query %d, class %d: cost %v, want the AIRM distance %v of the filtered query to the filtered mean", q, c, got, want)
			}
		}
		if out.Pred[q] == data.Labels[i] {
			correct++
		}
	}
	if correct < len(test)/2 {
		t.Errorf("%d of %d queries labelled right", correct, len(test))
	}
}

// TestFgMDMFullRankIsMDM checks that where the discriminant subspace is
// the whole tangent space (K − 1 >= d(d+1)/2: 2×2 matrices, 3
// coordinates, 5 classes) the filter changes nothing, so that fgmdm's
// costs are MDM's under the AIRM.
func TestFgMDMFullRankIsMDM(t *testing.T) {
	data, train, test := syntheticData(t, 5, 2, 100, 0.3, 3)
	_, got := fitPredict(t, newMethod(t, "fgmdm", "{}"), data, train, test)
	_, want := fitPredict(t, newMethod(t, "mdm", "{metric: airm}"), data, train, test)
	for q := range test {
		for c := range got.Costs[q] {
			if d := math.Abs(got.Costs[q][c] - want.Costs[q][c]); d > 1e-7*(1+want.Costs[q][c]) {
				t.Fatalf("query %d, class %d: fgmdm cost %v, mdm %v", q, c, got.Costs[q][c], want.Costs[q][c])
			}
		}
	}
}
