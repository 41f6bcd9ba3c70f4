package lda

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
	"gonum.org/v1/gonum/mat"
)

// The 12 rows and labels of TestScikitLearn.
var (
	rows = []float64{0, 1, 0.5, 0.5, 1.5, -0.2, 1, 0.5, 0.3, 2, 2, 1, 2.5, 1, 0.1, 3, 2.5, 0.7,
		0.5, 3, -1, 1, 3.5, 0.2, 1.5, 2.5, -0.4, 2, 0, 0.9, 1, 1, 0, 2.5, 3, -0.3}
	rowLabels = []int{10, 10, 10, 20, 20, 20, 30, 30, 30, 20, 10, 30}
)

// TestScikitLearn compares a fit of a fixed 12-row, 3-class, 3-feature
// dataset with scikit-learn 1.2.1's LinearDiscriminantAnalysis(
// solver="lsqr", shrinkage="auto"): coef_, covariance_, each class's
// ledoit_wolf_shrinkage of its standardised rows, and coef_ of the two
// first classes alone; printed by Python once and typed here.
func TestScikitLearn(t *testing.T) {
	x := mat.NewDense(12, 3, rows)
	m, err := Fit(context.Background(), x, rowLabels)
	if err != nil {
		t.Fatal(err)
	}
	coef := mat.NewDense(3, 3, []float64{
		2.1210486704540874, 2.5717226783239844, 1.240078267658272,
		8.033979916141641, 3.5671396400234094, 5.481900120542213,
		4.657628774039413, 7.686230841897984, -2.871121461321014})
	cov := mat.NewDense(3, 3, []float64{
		0.296875, -0.001362391633705368, -0.0009536741435937575,
		-0.0013623916337053678, 0.390625, -0.0013623916337053678,
		-0.0009536741435937575, -0.001362391633705368, 0.12541666666666665})
	if !mat.EqualApprox(m.Coef, coef, 1e-12) {
		t.Errorf("coefficients\n%v\nscikit-learn\n%v", mat.Formatted(m.Coef), mat.Formatted(coef))
	}
	if !mat.EqualApprox(m.Covariance, cov, 1e-14) {
		t.Errorf("covariance\n%v\nscikit-learn\n%v", mat.Formatted(m.Covariance), mat.Formatted(cov))
	}
	for c, want := range []float64{0.9346052015821423, 1, 1} {
		if math.Abs(m.Shrinkage[c]-want) > 1e-14 {
			t.Errorf("class %d: shrinkage %v, scikit-learn %v", m.Classes[c], m.Shrinkage[c], want)
		}
	}
	var keep []int
	for i, l := range rowLabels {
		if l != 30 {
			keep = append(keep, i)
		}
	}
	x2 := mat.NewDense(len(keep), 3, nil)
	l2 := make([]int, len(keep))
	for r, i := range keep {
		x2.SetRow(r, x.RawRowView(i))
		l2[r] = rowLabels[i]
	}
	two, err := Fit(context.Background(), x2, l2)
	if err != nil {
		t.Fatal(err)
	}
	if want := mat.NewDense(1, 3, []float64{10.237420553703373, 0.7781287259354066, 5.568976658705942}); !mat.EqualApprox(two.Coef, want, 1e-12) {
		t.Errorf("two classes: coefficients %v, scikit-learn %v", mat.Formatted(two.Coef), mat.Formatted(want))
	}
}

// TestFisherDirections checks the basis against the generalised
// eigenproblem S_b w = λ Σ w solved directly (Cholesky Σ = LLᵀ, the
// symmetric eigenvectors u of L⁻¹ S_b L⁻ᵀ, w = L⁻ᵀu, S_b of the class
// means about their weighted mean) on rows of K classes of unequal sizes
// in p > K dimensions, off-centre: the projections onto the K − 1
// directions of positive λ and onto the basis are the same matrix.
func TestFisherDirections(t *testing.T) {
	const n, p, k = 60, 7, 4
	rng := rand.New(rand.NewPCG(3, 1))
	x := mat.NewDense(n, p, nil)
	labels := make([]int, n)
	centres := mat.NewDense(k, p, nil)
	for c := range k {
		for j := range p {
			centres.Set(c, j, 2*rng.NormFloat64())
		}
	}
	for i := range n {
		labels[i] = i % k
		if i%7 == 0 {
			labels[i] = 0 // unequal priors
		}
		for j := range p {
			x.Set(i, j, centres.At(i%k, j)+rng.NormFloat64()*float64(1+j%3))
		}
	}
	m, err := Fit(context.Background(), x, labels)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Basis()
	if err != nil {
		t.Fatal(err)
	}
	if _, r := b.Dims(); r != k-1 {
		t.Fatalf("basis of %d directions, want %d", r, k-1)
	}
	grand := mat.NewVecDense(p, nil)
	for c := range k {
		grand.AddScaledVec(grand, m.Priors[c], m.Means.RowView(c))
	}
	sb := mat.NewSymDense(p, nil)
	for c := range k {
		var dev mat.VecDense
		dev.SubVec(m.Means.RowView(c), grand)
		sb.SymRankOne(sb, m.Priors[c], &dev)
	}
	var chol mat.Cholesky
	if !chol.Factorize(m.Covariance) {
		t.Fatal("Σ is not positive definite")
	}
	var l, linv mat.TriDense
	chol.LTo(&l)
	if err := linv.InverseTri(&l); err != nil {
		t.Fatal(err)
	}
	var a, whitened mat.Dense
	a.Mul(&linv, sb)
	whitened.Mul(&a, linv.T())
	ws := mat.NewSymDense(p, nil)
	for i := range p {
		for j := i; j < p; j++ {
			ws.SetSym(i, j, (whitened.At(i, j)+whitened.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(ws, true) {
		t.Fatal("eigendecomposition failed")
	}
	var u mat.Dense
	eig.VectorsTo(&u)
	vals := eig.Values(nil)
	if vals[p-k] > 1e-10*vals[p-1] || vals[p-k+1] < 1e-6*vals[p-1] {
		t.Fatalf("eigenvalues %v: want K − 1 = %d positive", vals, k-1)
	}
	var w mat.Dense
	w.Mul(linv.T(), u.Slice(0, p, p-k+1, p)) // the K − 1 directions of λ > 0
	proj := func(a mat.Matrix) *mat.Dense {
		// A(AᵀA)⁻¹Aᵀ.
		var ata, inv, t1, out mat.Dense
		ata.Mul(a.T(), a)
		if err := inv.Inverse(&ata); err != nil {
			t.Fatal(err)
		}
		t1.Mul(a, &inv)
		out.Mul(&t1, a.T())
		return &out
	}
	if got, want := proj(b), proj(&w); !mat.EqualApprox(got, want, 1e-9) {
		t.Errorf("projection onto the basis\n%v\nonto the Fisher directions\n%v", mat.Formatted(got), mat.Formatted(want))
	}
	var btb mat.Dense
	btb.Mul(b.T(), b)
	if !mat.EqualApprox(&btb, eye(k-1), 1e-12) {
		t.Errorf("basis not orthonormal: BᵀB = %v", mat.Formatted(&btb))
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}

// TestShrinkageLimits checks Ledoit and Wolf's δ at its limits: 0 for
// one feature, and a value in [0, 1] that falls as rows are added to
// correlated features (the empirical covariance becoming reliable).
func TestShrinkageLimits(t *testing.T) {
	if d := shrinkage(mat.NewDense(3, 1, []float64{-1, 0, 1})); d != 0 {
		t.Errorf("one feature: %v, want 0", d)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	prev := 2.0
	for _, n := range []int{10, 100, 10000} {
		z := mat.NewDense(n, 4, nil)
		for i := range n {
			a := rng.NormFloat64()
			for j := range 4 {
				z.Set(i, j, a+0.5*rng.NormFloat64())
			}
		}
		for j := range 4 {
			var mean float64
			for i := range n {
				mean += z.At(i, j)
			}
			for i := range n {
				z.Set(i, j, z.At(i, j)-mean/float64(n))
			}
		}
		d := shrinkage(z)
		if d < 0 || d > 1 || d >= prev {
			t.Errorf("n = %d: δ = %v after %v", n, d, prev)
		}
		prev = d
	}
}

func TestErrors(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 1, 1, 0, 2, 2, 3, 1})
	nan := mat.DenseCopyOf(x)
	nan.Set(2, 0, math.Inf(1))
	for _, tc := range []struct {
		name   string
		x      mat.Matrix
		labels []int
		says   string
	}{
		{"nil", nil, nil, "nil rows"},
		{"labels", x, []int{1, 2}, "2 labels for 4 rows"},
		{"one class", x, []int{1, 1, 1, 1}, "one class"},
		{"infinite", nan, []int{1, 1, 2, 2}, "row 2, feature 0 is +Inf"},
	} {
		if _, err := Fit(context.Background(), tc.x, tc.labels); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want ErrData saying %q", tc.name, err, tc.says)
		}
	}
	_, err := Fit(canceltest.Cancelled(t), x, []int{1, 1, 2, 2})
	canceltest.Check(t, "Fit, cancelled", err)
}
