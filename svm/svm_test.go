package svm

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
	"gonum.org/v1/gonum/mat"
)

// linear returns the linear kernel matrix K = XXᵀ of the rows of x.
func linear(x [][]float64) *mat.SymDense {
	k := mat.NewSymDense(len(x), nil)
	for i := range x {
		for j := i; j < len(x); j++ {
			var s float64
			for a := range x[i] {
				s += x[i][a] * x[j][a]
			}
			k.SetSym(i, j, s)
		}
	}
	return k
}

// rbf returns the Gaussian kernel values exp(−γ‖a_i − b_j‖²).
func rbf(a, b [][]float64, gamma float64) *mat.Dense {
	k := mat.NewDense(len(a), len(b), nil)
	for i := range a {
		for j := range b {
			var s float64
			for c := range a[i] {
				s += (a[i][c] - b[j][c]) * (a[i][c] - b[j][c])
			}
			k.Set(i, j, math.Exp(-gamma*s))
		}
	}
	return k
}

// sym wraps a square Dense, symmetric by construction, as a SymDense.
func sym(k *mat.Dense) *mat.SymDense {
	n, _ := k.Dims()
	return mat.NewSymDense(n, k.RawMatrix().Data)
}

// blobs draws per points around each centre with standard deviation sd,
// labelled by the centre's label.
func blobs(rng *rand.Rand, centres [][]float64, labels []int, per int, sd float64) ([][]float64, []int) {
	var x [][]float64
	var y []int
	for c, m := range centres {
		for range per {
			p := make([]float64, len(m))
			for a := range p {
				p[a] = m[a] + sd*rng.NormFloat64()
			}
			x = append(x, p)
			y = append(y, labels[c])
		}
	}
	return x, y
}

// full returns a binary machine's α and ±1 labels over all n training
// items (α_i = |Coef| on support vectors, 0 elsewhere).
func full(bm *Binary, m *Model, labels []int) (alpha, y []float64, in []bool) {
	n := len(labels)
	alpha, y, in = make([]float64, n), make([]float64, n), make([]bool, n)
	for i, l := range labels {
		switch l {
		case m.Classes[bm.Pos]:
			y[i], in[i] = 1, true
		case m.Classes[bm.Neg]:
			y[i], in[i] = -1, true
		}
	}
	for s, i := range bm.SV {
		alpha[i] = math.Abs(bm.Coef[s])
		if math.Copysign(1, bm.Coef[s]) != y[i] {
			panic("coefficient sign disagrees with the label")
		}
	}
	return alpha, y, in
}

// TestTwoPointsClosedForm checks two points x₊ = p, x₋ = q on a line
// (linear kernel) against the closed form. Along the feasible line
// α₊ = α₋ = a the dual is 2a − ½a²(p−q)², maximal at a = min(C, 2/(p−q)²).
// Below C (hard margin) w = 2/(p−q) and b = −(p+q)/(p−q); at C no α is free,
// the KKT conditions only bound b to [−C(p−q)q − 1, 1 − C(p−q)p], and b is
// that interval's midpoint, −C(p²−q²)/2.
func TestTwoPointsClosedForm(t *testing.T) {
	for _, tc := range []struct{ p, q, c float64 }{
		{1, -1, 1e6}, {3, 1, 1e6}, {0.5, -4, 1e6}, {-1, -1.25, 1e6},
		{1, -1, 0.1}, {3, 1, 0.25}, {0.5, -4, 0.01},
	} {
		k := linear([][]float64{{tc.p}, {tc.q}})
		m, err := Fit(context.Background(), k, []int{0, 1}, Options{C: tc.c, Tol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		bm := m.Machines[0]
		d := tc.p - tc.q
		alpha, b := 2/(d*d), -(tc.p+tc.q)/d
		if alpha >= tc.c {
			alpha, b = tc.c, -tc.c*(tc.p*tc.p-tc.q*tc.q)/2
		}
		if !bm.Converged || len(bm.SV) != 2 {
			t.Fatalf("%+v: converged %v, support vectors %v", tc, bm.Converged, bm.SV)
		}
		if math.Abs(bm.Coef[0]-alpha) > 1e-9*alpha || math.Abs(bm.Coef[1]+alpha) > 1e-9*alpha {
			t.Errorf("%+v: coefficients %v, want ±%v", tc, bm.Coef, alpha)
		}
		if math.Abs(bm.Bias-b) > 1e-9*(1+math.Abs(b)) {
			t.Errorf("%+v: bias %v, want %v", tc, bm.Bias, b)
		}
		if want := 2*alpha - alpha*alpha*d*d/2; math.Abs(bm.Objective-want) > 1e-9*want {
			t.Errorf("%+v: dual objective %v, want %v", tc, bm.Objective, want)
		}
	}
}

// TestLinearlySeparable checks that separable clouds (linear kernel, large
// C) are separated perfectly with functional margin y f(x) ≥ 1 − ε on every
// training item, and that the primal w = Σ α_i y_i x_i agrees with f.
func TestLinearlySeparable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	u := []float64{0.6, 0.8}
	var x [][]float64
	var labels []int
	for len(x) < 80 {
		p := []float64{4 * rng.NormFloat64(), 4 * rng.NormFloat64()}
		s := p[0]*u[0] + p[1]*u[1]
		switch {
		case s > 0.5:
			labels = append(labels, 7)
		case s < -0.5:
			labels = append(labels, 3)
		default:
			continue
		}
		x = append(x, p)
	}
	k := linear(x)
	m, err := Fit(context.Background(), k, labels, Options{C: 1e4})
	if err != nil {
		t.Fatal(err)
	}
	bm := m.Machines[0]
	if !bm.Converged || m.Classes[bm.Pos] != 3 {
		t.Fatalf("converged %v, classes %v", bm.Converged, m.Classes)
	}
	ds, err := m.PredictBatch(context.Background(), mat.DenseCopyOf(k))
	if err != nil {
		t.Fatal(err)
	}
	var w [2]float64
	for s, i := range bm.SV {
		w[0] += bm.Coef[s] * x[i][0]
		w[1] += bm.Coef[s] * x[i][1]
	}
	for i, d := range ds {
		if d.Label != labels[i] {
			t.Errorf("item %d (%v) of class %d classified %d", i, x[i], labels[i], d.Label)
		}
		y := 1.0
		if labels[i] == 7 {
			y = -1
		}
		f := w[0]*x[i][0] + w[1]*x[i][1] + bm.Bias
		if y*f < 1-DefaultTol-1e-9 {
			t.Errorf("item %d: y f(x) = %v, want >= 1 − ε", i, y*f)
		}
		if math.Abs(f-d.Scores[0]) > 1e-9*(1+math.Abs(f)) {
			t.Errorf("item %d: primal f = %v, dual f = %v", i, f, d.Scores[0])
		}
	}
	// The margin 2/‖w‖ is at least the gap of 1 left around the boundary.
	if margin := 2 / math.Hypot(w[0], w[1]); margin < 1-1e-3 {
		t.Errorf("margin %v, want >= 1", margin)
	}
}

// TestKKT checks the optimality conditions at the returned solution on
// overlapping classes, with f recomputed from α, K and b:
// 0 < α < C ⇒ |y f − 1| ≤ ε, α = 0 ⇒ y f ≥ 1 − ε, α = C ⇒ y f ≤ 1 + ε,
// Σ α y = 0 and 0 ≤ α ≤ C.
func TestKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, labels := blobs(rng, [][]float64{{0, 0}, {1.5, 0.5}, {0, 2}}, []int{0, 1, 2}, 30, 0.9)
	k := sym(rbf(x, x, 0.5))
	for _, tc := range []struct{ c, tol float64 }{{0.1, 0}, {1, 0}, {10, 0}, {1, 1e-6}, {100, 1e-8}} {
		m, err := Fit(context.Background(), k, labels, Options{C: tc.c, Tol: tc.tol})
		if err != nil {
			t.Fatal(err)
		}
		eps := tc.tol
		if eps == 0 {
			eps = DefaultTol
		}
		var free, atC, zero int
		for p := range m.Machines {
			bm := &m.Machines[p]
			if !bm.Converged || bm.Violation > eps {
				t.Fatalf("C=%v machine %d: converged %v, violation %v", tc.c, p, bm.Converged, bm.Violation)
			}
			alpha, y, in := full(bm, m, labels)
			var sum float64
			for i := range alpha {
				if !in[i] {
					continue
				}
				sum += alpha[i] * y[i]
				f := bm.Bias
				for j := range alpha {
					f += alpha[j] * y[j] * k.At(i, j)
				}
				yf := y[i] * f
				const slack = 1e-9
				switch a := alpha[i]; {
				case a < 0 || a > tc.c:
					t.Errorf("C=%v machine %d: α_%d = %v outside [0, C]", tc.c, p, i, a)
				case a == 0:
					zero++
					if yf < 1-eps-slack {
						t.Errorf("C=%v machine %d: α_%d = 0 but y f = %v", tc.c, p, i, yf)
					}
				case a == tc.c:
					atC++
					if yf > 1+eps+slack {
						t.Errorf("C=%v machine %d: α_%d = C but y f = %v", tc.c, p, i, yf)
					}
				default:
					free++
					if math.Abs(yf-1) > eps+slack {
						t.Errorf("C=%v machine %d: 0 < α_%d = %v < C but y f = %v", tc.c, p, i, a, yf)
					}
				}
			}
			if math.Abs(sum) > 1e-10*tc.c*float64(len(alpha)) {
				t.Errorf("C=%v machine %d: Σ α y = %v", tc.c, p, sum)
			}
		}
		if free == 0 || zero == 0 || (tc.c <= 1 && atC == 0) {
			t.Errorf("C=%v: %d free, %d bound at C, %d zero α: the conditions were not all exercised", tc.c, free, atC, zero)
		}
	}
}

// TestDualBruteForce compares the dual objective and α with the exact
// optimum of tiny problems, found by enumerating which α are 0, C or free
// and solving the equality-constrained KKT system of each pattern: the
// best feasible point over all 3ⁿ patterns is the optimum.
func TestDualBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 6 {
		n := 4 + trial%3
		x, _ := blobs(rng, [][]float64{{0, 0}}, []int{0}, n, 1)
		labels := make([]int, n)
		y := make([]float64, n)
		for i := range labels {
			labels[i] = i % 2
			y[i] = 1 - 2*float64(labels[i])
		}
		k := sym(rbf(x, x, 0.7))
		c := []float64{0.3, 1, 5}[trial%3]
		wantA, want := bruteDual(k, y, c)
		m, err := Fit(context.Background(), k, labels, Options{C: c, Tol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		bm := &m.Machines[0]
		alpha, _, _ := full(bm, m, labels)
		if got := dual(k, y, alpha); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) || math.Abs(bm.Objective-got) > 1e-9*(1+math.Abs(got)) {
			t.Errorf("trial %d (n=%d, C=%v): SMO objective %v (recomputed %v), brute force %v", trial, n, c, bm.Objective, got, want)
		}
		for i := range alpha {
			if math.Abs(alpha[i]-wantA[i]) > 1e-4*c {
				t.Errorf("trial %d: α = %v, brute force %v", trial, alpha, wantA)
				break
			}
		}
	}
}

// dual returns D(α) = Σα − ½ Σ α_i α_j y_i y_j K_ij.
func dual(k mat.Symmetric, y, alpha []float64) float64 {
	var d float64
	for i := range alpha {
		d += alpha[i]
		for j := range alpha {
			d -= 0.5 * alpha[i] * alpha[j] * y[i] * y[j] * k.At(i, j)
		}
	}
	return d
}

// bruteDual returns the maximiser of the dual and its value by
// enumerating active sets.
func bruteDual(k mat.Symmetric, y []float64, c float64) ([]float64, float64) {
	n := len(y)
	best, bestA := math.Inf(-1), []float64(nil)
	pattern := make([]int, n) // 0: α = 0, 1: α = C, 2: free
	for code := 0; code < int(math.Pow(3, float64(n))); code++ {
		for i, r := 0, code; i < n; i, r = i+1, r/3 {
			pattern[i] = r % 3
		}
		alpha := make([]float64, n)
		var free []int
		var rhs float64 // −y_Bᵀα_B
		for i, s := range pattern {
			switch s {
			case 1:
				alpha[i] = c
				rhs -= y[i] * c
			case 2:
				free = append(free, i)
			}
		}
		if f := len(free); f > 0 {
			// [Q_FF y_F; y_Fᵀ 0] [α_F; λ] = [e − Q_FB α_B; −y_Bᵀα_B].
			a := mat.NewDense(f+1, f+1, nil)
			b := mat.NewVecDense(f+1, nil)
			for r, i := range free {
				b.SetVec(r, 1)
				for j := range n {
					if pattern[j] == 1 {
						b.SetVec(r, b.AtVec(r)-y[i]*y[j]*k.At(i, j)*c)
					}
				}
				for s, j := range free {
					a.Set(r, s, y[i]*y[j]*k.At(i, j))
				}
				a.Set(r, f, y[i])
				a.Set(f, r, y[i])
			}
			b.SetVec(f, rhs)
			var sol mat.VecDense
			if err := sol.SolveVec(a, b); err != nil {
				continue
			}
			for r, i := range free {
				alpha[i] = sol.AtVec(r)
			}
		} else if math.Abs(rhs) > 1e-12 {
			continue
		}
		feasible := true
		var sum float64
		for i, a := range alpha {
			sum += y[i] * a
			if a < -1e-12 || a > c+1e-12 {
				feasible = false
			}
		}
		if !feasible || math.Abs(sum) > 1e-9 {
			continue
		}
		if d := dual(k, y, alpha); d > best {
			best, bestA = d, alpha
		}
	}
	return bestA, best
}

// TestThreeBlobs checks one-vs-one voting on three separable blobs with
// labels that are not 0..k−1: training and fresh points are all classified
// right, by the votes of both of their class's machines.
func TestThreeBlobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	centres := [][]float64{{0, 0}, {6, 0}, {3, 5}}
	classes := []int{9, 2, 5}
	x, labels := blobs(rng, centres, classes, 20, 0.7)
	q, truth := blobs(rng, centres, classes, 50, 0.7)
	m, err := Fit(context.Background(), sym(rbf(x, x, 0.2)), labels, Options{C: 10, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Classes, []int{2, 5, 9}) || len(m.Machines) != 3 || m.Unconverged() != 0 {
		t.Fatalf("classes %v, %d machines, %d unconverged", m.Classes, len(m.Machines), m.Unconverged())
	}
	for _, set := range []struct {
		name   string
		kq     *mat.Dense
		labels []int
	}{{"training", rbf(x, x, 0.2), labels}, {"test", rbf(q, x, 0.2), truth}} {
		ds, err := m.PredictBatch(context.Background(), set.kq)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range ds {
			r := m.Rank(d)
			if d.Label != set.labels[i] || r[0] != d.Label || len(r) != 3 {
				t.Errorf("%s item %d of class %d: label %d, ranking %v, votes %v", set.name, i, set.labels[i], d.Label, r, d.Votes)
			}
			if w := slicesIndex(m.Classes, d.Label); d.Votes[w] != 2 {
				t.Errorf("%s item %d: votes %v", set.name, i, d.Votes)
			}
		}
	}
}

func slicesIndex(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestVotingTies checks the tie-breaking of the votes on machines with
// fixed decision values (bias only): a three-way tie in votes goes to the
// largest summed decision value, a tie in both to the lowest label.
func TestVotingTies(t *testing.T) {
	model := func(f01, f02, f12 float64) *Model {
		return &Model{Classes: []int{3, 7, 9}, Machines: []Binary{
			{Pos: 0, Neg: 1, Bias: f01}, {Pos: 0, Neg: 2, Bias: f02}, {Pos: 1, Neg: 2, Bias: f12},
		}}
	}
	for _, tc := range []struct {
		f01, f02, f12 float64
		votes         []int
		scores        []float64
		rank          []int
	}{
		{0.5, -2, 0.1, []int{1, 1, 1}, []float64{-1.5, -0.4, 1.9}, []int{9, 7, 3}},
		{1, -1, 1, []int{1, 1, 1}, []float64{0, 0, 0}, []int{3, 7, 9}},
		{-1, -1, 0.5, []int{0, 2, 1}, []float64{-2, 1.5, 0.5}, []int{7, 9, 3}},
		// f = 0 votes for the second class of the pair.
		{0, 0, 0, []int{0, 1, 2}, []float64{0, 0, 0}, []int{9, 7, 3}},
	} {
		m := model(tc.f01, tc.f02, tc.f12)
		var d Decision
		if err := m.PredictTo(&d, nil); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d.Votes, tc.votes) || !reflect.DeepEqual(m.Rank(d), tc.rank) || d.Label != tc.rank[0] {
			t.Errorf("f = %v %v %v: votes %v, label %d, ranking %v; want %v, %v", tc.f01, tc.f02, tc.f12, d.Votes, d.Label, m.Rank(d), tc.votes, tc.rank)
		}
		for c := range tc.scores {
			if math.Abs(d.Scores[c]-tc.scores[c]) > 1e-15 {
				t.Errorf("f = %v %v %v: scores %v, want %v", tc.f01, tc.f02, tc.f12, d.Scores, tc.scores)
			}
		}
	}
}

// sameModel reports whether two models hold the same machines over the
// same training items; the worker count they predict on is not part of
// what was learnt.
func sameModel(a, b *Model) bool {
	return a.n == b.n && reflect.DeepEqual(a.Classes, b.Classes) && reflect.DeepEqual(a.Machines, b.Machines)
}

// TestDeterministic checks that the model and the decisions depend on the
// data only, not on the worker count or the run.
func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x, labels := blobs(rng, [][]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}}, []int{0, 1, 2, 3}, 15, 0.5)
	q, _ := blobs(rng, [][]float64{{0.5, 0.5}}, []int{0}, 40, 0.6)
	k, kq := sym(rbf(x, x, 1)), rbf(q, x, 1)
	var first *Model
	var firstD []Decision
	for _, w := range []int{1, 4, 1, 3} {
		m, err := Fit(context.Background(), k, labels, Options{C: 2, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		ds, err := m.PredictBatch(context.Background(), kq)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first, firstD = m, ds
			continue
		}
		if !sameModel(m, first) || !reflect.DeepEqual(ds, firstD) {
			t.Fatalf("workers %d: model or decisions differ from the first run", w)
		}
	}
}

// TestPredictToAllocs checks that deciding into a reused Decision
// allocates nothing.
func TestPredictToAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x, labels := blobs(rng, [][]float64{{0, 0}, {2, 0}, {0, 2}}, []int{0, 1, 2}, 10, 0.5)
	k := rbf(x, x, 1)
	m, err := Fit(context.Background(), sym(k), labels, Options{C: 1})
	if err != nil {
		t.Fatal(err)
	}
	var d Decision
	row := k.RawRowView(4)
	if a := testing.AllocsPerRun(100, func() {
		if err := m.PredictTo(&d, row); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("PredictTo allocates %v times per query", a)
	}
}

// atOnly hides a matrix's raw storage, so that Fit reads it through At.
type atOnly struct{ mat.Symmetric }

func TestErrors(t *testing.T) {
	ok := linear([][]float64{{1}, {2}, {-1}})
	nan := linear([][]float64{{1}, {2}, {-1}})
	nan.SetSym(0, 2, math.NaN())
	inf := linear([][]float64{{1}, {2}, {-1}})
	inf.SetSym(2, 1, math.Inf(1))
	for _, tc := range []struct {
		name   string
		k      mat.Symmetric
		labels []int
		o      Options
		want   string
	}{
		{"labels", ok, []int{0, 1}, Options{C: 1}, "3×3 but there are 2 labels"},
		{"NaN", nan, []int{0, 1, 1}, Options{C: 1}, "entry (0, 2) = NaN"},
		{"Inf", inf, []int{0, 1, 1}, Options{C: 1}, "entry (1, 2) = +Inf"},
		{"Inf, At only", atOnly{inf}, []int{0, 1, 1}, Options{C: 1}, "entry (1, 2) = +Inf"},
		{"C=0", ok, []int{0, 1, 1}, Options{}, "C = 0, want finite and > 0"},
		{"C<0", ok, []int{0, 1, 1}, Options{C: -1}, "C = -1"},
		{"C=Inf", ok, []int{0, 1, 1}, Options{C: math.Inf(1)}, "C = +Inf"},
		{"C=NaN", ok, []int{0, 1, 1}, Options{C: math.NaN()}, "C = NaN"},
		{"tol", ok, []int{0, 1, 1}, Options{C: 1, Tol: -1}, "tolerance = -1"},
		{"iters", ok, []int{0, 1, 1}, Options{C: 1, MaxIter: -1}, "MaxIter = -1"},
		{"one class", ok, []int{4, 4, 4}, Options{C: 1}, "want at least 2 classes"},
	} {
		if _, err := Fit(context.Background(), tc.k, tc.labels, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	m, err := Fit(context.Background(), ok, []int{0, 1, 1}, Options{C: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.PredictBatch(context.Background(), mat.NewDense(2, 2, nil)); err == nil || !strings.Contains(err.Error(), "2 columns, want one per training item (3)") {
		t.Errorf("wrong columns: %v", err)
	}
	bad := mat.NewDense(2, 3, nil)
	bad.Set(1, 2, math.Inf(-1))
	if _, err := m.PredictBatch(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "training item 2 = -Inf") {
		t.Errorf("infinite query value: %v", err)
	}
}

// TestIterationCap checks that a machine stopped by MaxIter says so.
func TestIterationCap(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	x, labels := blobs(rng, [][]float64{{0, 0}, {0.5, 0}}, []int{0, 1}, 30, 1)
	m, err := Fit(context.Background(), sym(rbf(x, x, 1)), labels, Options{C: 10, MaxIter: 2})
	if err != nil {
		t.Fatal(err)
	}
	if bm := m.Machines[0]; bm.Converged || bm.Iters != 2 || m.Unconverged() != 1 || !(bm.Violation > DefaultTol) {
		t.Errorf("converged %v after %d steps, violation %v", bm.Converged, bm.Iters, bm.Violation)
	}
}

// classMembers returns the items of label l, ascending.
func classMembers(labels []int, l int) []int {
	var out []int
	for i, li := range labels {
		if li == l {
			out = append(out, i)
		}
	}
	return out
}

// TestBlock checks a machine's block of K against K's entries, from a
// stored upper triangle and through At.
func TestBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	n := 80
	k := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			k.SetSym(i, j, rng.NormFloat64())
		}
	}
	var idx []int
	for i := range n {
		if rng.IntN(3) > 0 {
			idx = append(idx, i)
		}
	}
	for _, km := range []mat.Symmetric{k, atOnly{k}} {
		// A buffer larger than the block, and stale, must not matter.
		buf := make([]float64, 2*len(idx)*len(idx))
		for i := range buf {
			buf[i] = math.NaN()
		}
		b := blockTo(buf, km, idx)
		for r, i := range idx {
			for c, j := range idx {
				if got, want := b[r*len(idx)+c], k.At(i, j); got != want {
					t.Fatalf("%T: block[%d][%d] = %v, want K[%d][%d] = %v", km, r, c, got, i, j, want)
				}
			}
		}
	}
}

// TestFitOnMatchesSubmatrix checks that FitOn on items of a larger
// kernel matrix gives Fit's model on the submatrix copied out entry by
// entry, bit for bit, for subsets as cross-validation makes them, with
// Fit calls sharing a Workspace concurrently and one after another; and
// that it checks items and reports non-finite entries among them only.
func TestFitOnMatchesSubmatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x, labels := blobs(rng, [][]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}}, []int{0, 1, 2, 3}, 20, 0.6)
	k := sym(rbf(x, x, 1))
	n := len(labels)
	var subsets [][]int
	for f := range 5 {
		var items []int
		for i := range n {
			if i%5 != f {
				items = append(items, i)
			}
		}
		subsets = append(subsets, items)
	}
	subsets = append(subsets, nil)
	want := make([]*Model, len(subsets))
	for s, items := range subsets {
		sub, lab := k, labels
		if items != nil {
			sub, lab = mat.NewSymDense(len(items), nil), make([]int, len(items))
			for a, i := range items {
				lab[a] = labels[i]
				for b, j := range items {
					sub.SetSym(a, b, k.At(i, j))
				}
			}
		}
		m, err := Fit(context.Background(), sub, lab, Options{C: 5, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		want[s] = m
	}
	var ws Workspace
	train := func(s int) (*Model, error) {
		items, lab := subsets[s], labels
		if items != nil {
			lab = make([]int, len(items))
			for a, i := range items {
				lab[a] = labels[i]
			}
		}
		return FitOn(context.Background(), k, items, lab, Options{C: 5, Workers: 1 + s%3, Workspace: &ws})
	}
	for round := range 2 {
		got := make([]*Model, len(subsets))
		errs := make([]error, len(subsets))
		var wg sync.WaitGroup
		for s := range subsets {
			if round == 0 {
				wg.Go(func() { got[s], errs[s] = train(s) })
			} else {
				got[s], errs[s] = train(s)
			}
		}
		wg.Wait()
		for s := range subsets {
			if errs[s] != nil {
				t.Fatal(errs[s])
			}
			if !sameModel(got[s], want[s]) {
				t.Errorf("round %d, subset %d: FitOn's model differs from Fit's on the submatrix", round, s)
			}
		}
	}
	if len(ws.free) == 0 {
		t.Error("the workspace kept no buffers")
	}
	nan := mat.NewSymDense(4, nil)
	nan.CopySym(k.SliceSym(0, 4))
	nan.SetSym(0, 1, math.NaN())
	for _, tc := range []struct {
		items []int
		want  string
	}{
		{[]int{0, 2, 2}, "item 2 (2) out of range [0, 4) or not above"},
		{[]int{2, 1, 3}, "item 1 (1) out of range"},
		{[]int{0, 2, 4}, "item 2 (4) out of range"},
		{[]int{1, 2}, "2×2 but there are 3 labels"},
		{[]int{0, 1, 3}, "entry (0, 1) = NaN"},
	} {
		if _, err := FitOn(context.Background(), nan, tc.items, []int{0, 1, 1}, Options{C: 1}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("items %v: error %v, want %q", tc.items, err, tc.want)
		}
	}
	if _, err := FitOn(context.Background(), nan, []int{0, 2, 3}, []int{0, 1, 1}, Options{C: 1}); err != nil {
		t.Errorf("a NaN outside the items: %v", err)
	}
}

// TestCancel checks that Fit and PredictBatch return an error wrapping
// context.Canceled, and no model or decisions, when their context is
// cancelled before the call (on a tiny problem) or while they run (on
// problems far too large to finish before the cancel): training many
// binary machines, training one machine by many SMO steps, and deciding
// many queries.
func TestCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// Overlapping classes: every machine takes many SMO steps.
	problem := func(classes, per int) (*mat.SymDense, []int, [][]float64) {
		centres := make([][]float64, classes)
		labels := make([]int, classes)
		for c := range centres {
			centres[c] = []float64{0.1 * rng.NormFloat64(), 0.1 * rng.NormFloat64()}
			labels[c] = c
		}
		x, y := blobs(rng, centres, labels, per, 1)
		return sym(rbf(x, x, 1)), y, x
	}
	tinyK, tinyY, _ := problem(2, 2)
	manyK, manyY, _ := problem(100, 20) // 4950 machines
	oneK, oneY, _ := problem(2, 1000)   // one machine of 2000 items
	o := Options{C: 1000, Tol: 1e-9, Workers: 1}
	for _, tc := range []struct {
		name string
		k    *mat.SymDense
		y    []int
	}{{"tiny", tinyK, tinyY}, {"many machines", manyK, manyY}, {"one machine", oneK, oneY}} {
		ctx := canceltest.Soon(t)
		if tc.name == "tiny" {
			ctx = canceltest.Cancelled(t)
		}
		m, err := Fit(ctx, tc.k, tc.y, o)
		canceltest.Check(t, "Fit, "+tc.name, err)
		if m != nil {
			t.Errorf("Fit, %s: a model came with the error", tc.name)
		}
	}
	// A model of many machines with many support vectors each, quick to
	// train with a loose C.
	predK, predY, predX := problem(100, 10)
	m, err := Fit(context.Background(), predK, predY, Options{C: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	q := make([][]float64, 8000)
	for i := range q {
		q[i] = []float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	kq := rbf(q, predX, 1)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		kq   *mat.Dense
	}{{"tiny", canceltest.Cancelled(t), kq.Slice(0, 2, 0, len(predX)).(*mat.Dense)}, {"many queries", canceltest.Soon(t), kq}} {
		ds, err := m.PredictBatch(tc.ctx, tc.kq)
		canceltest.Check(t, "PredictBatch, "+tc.name, err)
		if ds != nil {
			t.Errorf("PredictBatch, %s: decisions came with the error", tc.name)
		}
	}
}

// TestSigmoidFitIsOptimal checks Lin, Lin and Weng's Newton method by the
// optimality of its answer: the gradient of the cross-entropy against
// Platt's targets vanishes at (A, B), and no nearby point is better.
func TestSigmoidFitIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name     string
		a, b     float64 // the sigmoid the labels are drawn from
		n        int
		scale    float64 // spread of the decision values
		separate bool    // all positives above all negatives
	}{
		{"overlapping", -2, 0.3, 200, 1, false},
		{"steep", -8, -1, 150, 1, false},
		{"wide values", -0.01, 0.5, 120, 300, false},
		{"separable", 0, 0, 40, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dec, y := make([]float64, tc.n), make([]float64, tc.n)
			for i := range dec {
				dec[i] = tc.scale * rng.NormFloat64()
				p := 1 / (1 + math.Exp(tc.a*dec[i]+tc.b))
				y[i] = -1
				if tc.separate && dec[i] > 0 || !tc.separate && rng.Float64() < p {
					y[i] = 1
				}
			}
			a, b := sigmoidFit(dec, y)
			npos := float64(len(slices.DeleteFunc(slices.Clone(y), func(l float64) bool { return l < 0 })))
			targets := map[bool]float64{true: (npos + 1) / (npos + 2), false: 1 / (float64(tc.n) - npos + 2)}
			// The cross-entropy of Platt's Eqn. 6 and its gradient in (A, B).
			f := func(a, b float64) (val, ga, gb float64) {
				for i, d := range dec {
					tgt, p := targets[y[i] > 0], 1/(1+math.Exp(a*d+b))
					val -= tgt*math.Log(p) + (1-tgt)*math.Log(1-p)
					ga, gb = ga+d*(tgt-p), gb+(tgt-p)
				}
				return val, ga, gb
			}
			val, ga, gb := f(a, b)
			if math.Abs(ga) > 1e-4 || math.Abs(gb) > 1e-4 {
				t.Errorf("(A, B) = (%g, %g): gradient (%g, %g), want 0", a, b, ga, gb)
			}
			for _, dx := range [][2]float64{{1e-3, 0}, {-1e-3, 0}, {0, 1e-3}, {0, -1e-3}} {
				if v, _, _ := f(a+dx[0]/tc.scale, b+dx[1]); v < val-1e-9 {
					t.Errorf("(A, B) = (%g, %g): a step by %v lowers the cross-entropy from %g to %g", a, b, dx, val, v)
				}
			}
			if !tc.separate && (a > 0) != (tc.a > 0) {
				t.Errorf("A = %g, want the sign of %g", a, tc.a)
			}
		})
	}
}

// TestCoupleRecoversConsistentProbabilities gives couple pairwise
// probabilities r_ij = p_i/(p_i + p_j) of known p, whose least-squares
// solution is p itself (Wu, Lin and Weng 2004, method 2).
func TestCoupleRecoversConsistentProbabilities(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 2, 3, 7, 40} {
		p := make([]float64, k)
		var s float64
		for i := range p {
			p[i] = 0.05 + rng.Float64()
			s += p[i]
		}
		for i := range p {
			p[i] /= s
		}
		r := make([]float64, k*k)
		for i := range k {
			for j := range k {
				if i != j {
					r[i*k+j] = p[i] / (p[i] + p[j])
				}
			}
		}
		got := make([]float64, k)
		couple(got, r, make([]float64, 2*k))
		var sum float64
		for i := range got {
			sum += got[i]
			if math.Abs(got[i]-p[i]) > 2e-3/float64(k) {
				t.Errorf("k = %d: p[%d] = %g, want %g", k, i, got[i], p[i])
			}
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("k = %d: probabilities sum to %g", k, sum)
		}
	}
}

// TestCalibratedModel checks a calibrated model on separated blobs:
// probabilities sum to one, favour the true class, do not depend on the
// worker count, and leave the machines and votes as Fit makes them
// without calibration.
func TestCalibratedModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	centres := [][]float64{{0, 0}, {3, 0}, {0, 3}, {3, 3}}
	x, y := blobs(rng, centres, []int{4, 1, 9, 2}, 25, 0.5)
	k := sym(rbf(x, x, 0.5))
	qx, qy := blobs(rng, centres, []int{4, 1, 9, 2}, 10, 0.5)
	kq := rbf(qx, x, 0.5)
	plain, err := Fit(context.Background(), k, y, Options{C: 1})
	if err != nil {
		t.Fatal(err)
	}
	var want []Decision
	for w, workers := range []int{1, 3} {
		m, err := Fit(context.Background(), k, y, Options{C: 1, Probability: true, Seed: 7, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if !m.Calibrated() || plain.Calibrated() {
			t.Fatal("Calibrated does not say which model is")
		}
		ds, err := m.PredictBatch(context.Background(), kq)
		if err != nil {
			t.Fatal(err)
		}
		pd, err := plain.PredictBatch(context.Background(), kq)
		if err != nil {
			t.Fatal(err)
		}
		var right, sure float64
		for q, d := range ds {
			if d.Label != pd[q].Label || !slices.Equal(d.Votes, pd[q].Votes) || pd[q].Prob != nil {
				t.Fatalf("query %d: the calibrated model decides %+v, the plain one %+v", q, d, pd[q])
			}
			var sum float64
			best := 0
			for c, p := range d.Prob {
				sum += p
				if p > d.Prob[best] {
					best = c
				}
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("query %d: probabilities %v sum to %g", q, d.Prob, sum)
			}
			c, _ := slices.BinarySearch(m.Classes, qy[q])
			sure += d.Prob[c] / float64(len(ds))
			if m.Classes[best] == qy[q] {
				right++
			}
		}
		if right < 0.9*float64(len(ds)) || sure < 0.7 {
			t.Errorf("the most probable class is right for %v of %d queries, mean probability of the truth %.3f", right, len(ds), sure)
		}
		if w == 0 {
			want = ds
		} else {
			for q := range ds {
				if !slices.Equal(ds[q].Prob, want[q].Prob) {
					t.Fatalf("query %d: probabilities %v with %d workers, %v with 1", q, ds[q].Prob, workers, want[q].Prob)
				}
			}
		}
		one, err := m.Predict(kq.RawRowView(0))
		if err != nil || !slices.Equal(one.Prob, ds[0].Prob) {
			t.Errorf("Predict gives %v (%v), PredictBatch %v", one.Prob, err, ds[0].Prob)
		}
	}
}

// TestCompactAndRestore checks that the model over its support vectors
// only, restored from its parts, decides as the whole model, bit for bit,
// and that Restore refuses parts that do not fit together.
func TestCompactAndRestore(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	centres := [][]float64{{0, 0}, {2, 0}, {0, 2}}
	x, y := blobs(rng, centres, []int{0, 1, 2}, 30, 1)
	k := sym(rbf(x, x, 0.5))
	qx, _ := blobs(rng, centres, []int{0, 1, 2}, 10, 1)
	kq := rbf(qx, x, 0.5)
	m, err := Fit(context.Background(), k, y, Options{C: 10, Probability: true})
	if err != nil {
		t.Fatal(err)
	}
	c, items := m.Compact()
	if len(items) >= len(x) || len(items) == 0 {
		t.Fatalf("%d support vectors of %d items", len(items), len(x))
	}
	r, err := Restore(c.Classes, c.Machines, len(items), Options{Probability: true, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.PredictBatch(context.Background(), kq)
	if err != nil {
		t.Fatal(err)
	}
	sub := rbf(qx, pick(x, items), 0.5)
	got, err := r.PredictBatch(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	for q := range want {
		if got[q].Label != want[q].Label || !slices.Equal(got[q].Scores, want[q].Scores) || !slices.Equal(got[q].Prob, want[q].Prob) {
			t.Fatalf("query %d: compact model %+v, whole %+v", q, got[q], want[q])
		}
	}
	bad := slices.Clone(c.Machines)
	bad[1].SV = []int{len(items)}
	bad[1].Coef = []float64{1}
	for _, tc := range []struct {
		name     string
		classes  []int
		machines []Binary
	}{
		{"one class", c.Classes[:1], nil},
		{"classes out of order", []int{2, 1, 0}, c.Machines},
		{"machines missing", c.Classes, c.Machines[:2]},
		{"support vector out of range", c.Classes, bad},
	} {
		if _, err := Restore(tc.classes, tc.machines, len(items), Options{}); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func pick(x [][]float64, items []int) [][]float64 {
	out := make([][]float64, len(items))
	for a, i := range items {
		out[a] = x[i]
	}
	return out
}
