package method

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/logistic"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// handTangent returns vec(log(P^{−1/2} X P^{−1/2})) by spd's allocating
// functions and gonum's products, a route apart from spd.TangentSpace's
// buffers.
func handTangent(t *testing.T, p, x mat.Symmetric) []float64 {
	t.Helper()
	pis, err := spd.InvSqrt(p)
	if err != nil {
		t.Fatal(err)
	}
	var a, b mat.Dense
	a.Mul(pis, x)
	b.Mul(&a, pis)
	d, _ := b.Dims()
	inner := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			inner.SetSym(i, j, (b.At(i, j)+b.At(j, i))/2)
		}
	}
	l, err := spd.Log(inner)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, spd.VecLen(d))
	if err := spd.VecTo(v, l); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTangentSpaceAgainstPipeline checks the method against the pipeline
// it stands for, built by hand: the reference point (the Karcher mean of
// the training items, or I), the tangent vectors of handTangent, and
// logistic.Fit with the same C. The costs are −log p of that model, the
// scores p of the first two classes, the ranking by probability.
func TestTangentSpaceAgainstPipeline(t *testing.T) {
	data, train, test := syntheticData(t, 3, 4, 60, 0.3, 8)
	for _, ref := range []string{"mean", "identity"} {
		t.Run(ref, func(t *testing.T) {
			m := newMethod(t, "tangent-space", "{reference: "+ref+", c: 2, tolerance: 1e-8, max_iter: 1000}")
			f, out := fitPredict(t, m, data, train, test)
			d := data.Set.Dim()
			p := mat.NewSymDense(d, nil)
			for i := range d {
				p.SetSym(i, i, 1)
			}
			if ref == "mean" {
				xs := make([]*mat.SymDense, len(train))
				for k, i := range train {
					xs[k] = data.Set.At(i)
				}
				var err error
				if p, _, err = spd.KarcherMean(context.Background(), xs, &spd.MeanOptions{Tol: 1e-9}); err != nil {
					t.Fatal(err)
				}
			}
			x := mat.NewDense(len(train), spd.VecLen(d), nil)
			for k, i := range train {
				x.SetRow(k, handTangent(t, p, data.Set.At(i)))
			}
			lr, err := logistic.Fit(context.Background(), x, classify.Pick(data.Labels, train), logistic.Options{C: 2, Tol: 1e-8, MaxIter: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if out.Unconverged != 0 {
				t.Errorf("%d unconverged", out.Unconverged)
			}
			if !slices.Equal(out.CostClasses, lr.Classes) {
				t.Fatalf("cost classes %v, want %v", out.CostClasses, lr.Classes)
			}
			for q, i := range test {
				want, err := lr.Probabilities(handTangent(t, p, data.Set.At(i)))
				if err != nil {
					t.Fatal(err)
				}
				for c, pc := range want {
					if got := out.Costs[q][c]; math.Abs(got+math.Log(pc)) > 1e-5 {
						t.Fatalf("query %d, class %d: cost %v, want −log p = %v", q, c, got, -math.Log(pc))
					}
				}
				order := classify.Seq(0, len(want))
				slices.SortStableFunc(order, func(a, b int) int { return -cmp.Compare(want[a], want[b]) })
				for k := range order {
					order[k] = lr.Classes[order[k]]
				}
				s := out.Scores[q]
				if !slices.Equal(out.Ranking[q], order) || out.Pred[q] != order[0] || s.Label != order[0] || s.Second != order[1] {
					t.Fatalf("query %d: ranking %v, score %+v; want %v by the probabilities %v", q, out.Ranking[q], s, order, want)
				}
				if math.Abs(s.Score-want[order[0]]) > 1e-5 || math.Abs(s.SecondScore-want[order[1]]) > 1e-5 || !math.IsNaN(s.SCI) {
					t.Fatalf("query %d: score %+v, want p %v and %v, a NaN SCI", q, s, want[order[0]], want[order[1]])
				}
			}
			if got := f.Chosen(); got["c"] != 2 {
				t.Errorf("chosen %v, want c = 2", got)
			}
		})
	}
}

// TestTangentSpaceCongruence checks the affine invariance of the method
// at the Karcher mean: the same congruence X → AXAᵀ of every item moves
// the mean by it and rotates the tangent vectors by an isometry, which
// the L2-penalised logistic regression follows, so that the class
// probabilities do not change. At the identity they do: the
// log-Euclidean vectors are not congruence invariant.
func TestTangentSpaceCongruence(t *testing.T) {
	data, train, test := syntheticData(t, 3, 4, 60, 0.3, 12)
	rng := rand.New(rand.NewPCG(4, 4))
	a := mat.NewDense(4, 4, nil)
	for i := range 16 {
		a.Set(i/4, i%4, rng.NormFloat64()+3*float64(i%5/4))
	}
	ms := make([]*mat.SymDense, data.Set.Len())
	for i := range ms {
		var u, v mat.Dense
		u.Mul(a, data.Set.At(i))
		v.Mul(&u, a.T())
		ms[i] = mat.NewSymDense(4, nil)
		for r := range 4 {
			for c := r; c < 4; c++ {
				ms[i].SetSym(r, c, (v.At(r, c)+v.At(c, r))/2)
			}
		}
	}
	set, err := spd.NewSet(ms)
	if err != nil {
		t.Fatal(err)
	}
	moved := classify.NewData(set, data.Labels, 2)
	scores := func(ref string, d *classify.Data) [][]float64 {
		m := newMethod(t, "tangent-space", "{reference: "+ref+", c: 5, tolerance: 1e-9, max_iter: 2000}")
		_, out := fitPredict(t, m, d, train, test)
		return out.Costs
	}
	maxDiff := func(u, v [][]float64) float64 {
		var m float64
		for q := range u {
			for c := range u[q] {
				m = math.Max(m, math.Abs(u[q][c]-v[q][c]))
			}
		}
		return m
	}
	if diff := maxDiff(scores("mean", data), scores("mean", moved)); diff > 1e-5 {
		t.Errorf("mean: costs move by %g under congruence", diff)
	}
	if diff := maxDiff(scores("identity", data), scores("identity", moved)); diff < 1e-3 {
		t.Errorf("identity: costs move by only %g under congruence; the test cannot tell", diff)
	}
}

// TestTangentSpaceParams checks the parameters' defaults and refusals.
func TestTangentSpaceParams(t *testing.T) {
	m := newMethod(t, "tangent-space", "{}")
	p := m.Spec().Params.(tangentParams)
	if p.Reference != "mean" || !slices.Equal(p.C, []float64{1}) || m.Spec().Candidates != 1 {
		t.Errorf("defaults %+v, %d candidates; want reference mean, c 1", p, m.Spec().Candidates)
	}
	if n := newMethod(t, "tangent-space", "{c: [0.1, 1, 10]}").Spec().Candidates; n != 3 {
		t.Errorf("%d candidates for three values of c", n)
	}
	for _, tc := range []struct{ params, says string }{
		{"{reference: riemann}", `reference "riemann"`},
		{"{c: 0}", "c"},
		{"{c: [1, -2]}", "c"},
		{"{c: [1, 1]}", "twice"},
		{"{tolerance: -1}", "tolerance"},
		{"{max_iter: -3}", "max iterations"},
		{"{metric: airm}", "metric"},
	} {
		_, err := buildMethod(t, "tangent-space", tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error saying %q", tc.params, err, tc.says)
		}
	}
	if _, err := buildMethod(t, "tangent-space", "{reference: riemann}"); !errors.Is(err, spd.ErrParameter) {
		t.Errorf("reference riemann: %v, want spd.ErrParameter", err)
	}
}

// TestTangentSpaceLoadRefuses checks that Load refuses a state of other
// classes or of another matrix size.
func TestTangentSpaceLoadRefuses(t *testing.T) {
	data, train, _ := syntheticData(t, 3, 4, 30, 0.3, 2)
	m := newMethod(t, "tangent-space", "{}")
	f, err := m.Fit(context.Background(), &classify.Train{Data: data, Items: train, Workers: 2, Folds: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Save(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	two := slices.DeleteFunc(slices.Clone(train), func(i int) bool { return data.Labels[i] == 2 })
	if _, err := m.Load(context.Background(), st, &classify.Train{Data: data, Items: two}); err == nil || !strings.Contains(err.Error(), "classes") {
		t.Errorf("other classes: %v", err)
	}
	other, _, _ := syntheticData(t, 3, 3, 30, 0.3, 2)
	if _, err := m.Load(context.Background(), st, &classify.Train{Data: other, Items: train}); err == nil {
		t.Error("3×3 items: loaded a state of 4×4 ones")
	}
}
