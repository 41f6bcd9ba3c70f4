package method

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TestPCASRCWorkers checks that pca-src's cross-validated choice and
// predictions do not depend on the worker count, whose runs share the
// folds' fits in a different order.
func TestPCASRCWorkers(t *testing.T) {
	var want *classify.Outcome
	for _, workers := range []int{1, 2, 5} {
		data, train, test := syntheticData(t, 3, 3, 90, 0.2, 18)
		x := classVectors(data.Labels, 30, 1)
		data.Vectors = map[classify.VectorRequest]*classify.Vectors{{Features: "I", Step: 1}: classify.NewVectors(x)}
		m := newMethod(t, "pca-src", "{dims: 8, lambda_ratio: [0.02, 0.1, 0.3, 0.6]}")
		out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Folds: 3, Seed: 1, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = out
			continue
		}
		if !reflect.DeepEqual(out.Params, want.Params) || !reflect.DeepEqual(out.Pred, want.Pred) || !reflect.DeepEqual(out.Lambdas, want.Lambdas) {
			t.Errorf("%d workers: params %v, predictions differ: %v; 1 worker: %v", workers, out.Params, !reflect.DeepEqual(out.Pred, want.Pred), want.Params)
		}
	}
}

// TestPCAFoldAgainstGram checks a validation fold's fit, made from the
// training set's Gram matrix (pcaBase.fitFold), against PCA fitted on the
// fold's own centred vectors (pcaGram): the same number of components
// and the same kernel values to 1e-10 on the training items, NaN
// elsewhere; and that a fold item outside the training set is an error.
func TestPCAFoldAgainstGram(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ n, m, rank, dims int }{
		{120, 300, 300, 20}, // more values than training items (the faces)
		{120, 15, 15, 10},   // fewer
		{120, 40, 12, 8},    // deficient rank, fewer components asked
	} {
		x := lowRankRows(tc.n, tc.m, tc.rank, 11, 5)
		var train, fold []int
		for i := range tc.n {
			if i%4 != 3 {
				train = append(train, i)
				if i%3 != 0 {
					fold = append(fold, i)
				}
			}
		}
		b, err := newPCABase(ctx, x, train, 2)
		if err != nil {
			t.Fatal(err)
		}
		got, k, err := b.fitFold(ctx, fold, tc.dims)
		if err != nil {
			t.Fatal(err)
		}
		want, kw, err := pcaGram(ctx, x, fold, tc.dims)
		if err != nil {
			t.Fatal(err)
		}
		if k != kw || k != tc.dims {
			t.Errorf("%+v: %d components, from the vectors %d", tc, k, kw)
			continue
		}
		all := classify.Seq(0, tc.n)
		g, err := got.Block(ctx, all, all, classify.Identity)
		if err != nil {
			t.Fatal(err)
		}
		w, err := want.Block(ctx, all, all, classify.Identity)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tc.n {
			for j := range tc.n {
				if i%4 == 3 || j%4 == 3 {
					if !math.IsNaN(g.At(i, j)) {
						t.Fatalf("%+v: G[%d,%d] = %v outside the training set", tc, i, j, g.At(i, j))
					}
				} else if d := math.Abs(g.At(i, j) - w.At(i, j)); !(d <= 1e-10) {
					t.Fatalf("%+v: G[%d,%d] = %v, from the vectors %v", tc, i, j, g.At(i, j), w.At(i, j))
				}
			}
		}
		if _, _, err := b.fitFold(ctx, []int{0, 3}, tc.dims); err == nil {
			t.Errorf("a fold item outside the training set: no error")
		}
	}
}

// classVectors returns a vector of m values for each item of labels: unit
// Gaussian noise, plus shift on the values j with j%3 equal to the label.
func classVectors(labels []int, m int, shift float64) *mat.Dense {
	rng := rand.New(rand.NewPCG(4, 5))
	x := mat.NewDense(len(labels), m, nil)
	for i := range labels {
		for j := range m {
			mean := 0.0
			if j%3 == labels[i] {
				mean = shift
			}
			x.Set(i, j, mean+rng.NormFloat64())
		}
	}
	return x
}

// lowRankRows returns n rows of m values of rank at most rank: Gaussian
// coefficients, of standard deviation rank−j on the j-th and offset by
// offset, times a Gaussian basis (seeded by m and seed).
func lowRankRows(n, m, rank int, seed uint64, offset float64) *mat.Dense {
	rng := rand.New(rand.NewPCG(uint64(m), seed))
	basis := mat.NewDense(rank, m, nil)
	for i := range rank {
		for j := range m {
			basis.Set(i, j, rng.NormFloat64())
		}
	}
	coef := mat.NewDense(n, rank, nil)
	for i := range n {
		for j := range rank {
			coef.Set(i, j, offset+rng.NormFloat64()*float64(rank-j))
		}
	}
	var x mat.Dense
	x.Mul(coef, basis)
	return &x
}

// TestTrainKept checks that the kept training block is the linear
// kernel's own, on every call, that other blocks pass through, and that
// a destination of the wrong size is an error.
func TestTrainKept(t *testing.T) {
	ctx := context.Background()
	x := lowRankRows(30, 12, 12, 2, 0)
	inner, _, err := pcaGram(ctx, x, classify.Seq(0, 20), 6)
	if err != nil {
		t.Fatal(err)
	}
	train, test := classify.Seq(0, 20), classify.Seq(20, 30)
	p := &trainKept{Pairs: inner, train: train}
	for _, b := range [][2][]int{{train, train}, {test, train}, {train, train}, {train[:5], train}} {
		want, err := inner.Block(ctx, b[0], b[1], classify.Identity)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Block(ctx, b[0], b[1], classify.Identity)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, want) {
			t.Errorf("block of %d×%d items differs from the kernel's", len(b[0]), len(b[1]))
		}
	}
	if err := p.BlockTo(ctx, mat.NewDense(20, 19, nil), train, train, classify.Identity); err == nil {
		t.Error("a 20×19 destination for the 20×20 training block: no error")
	}
}

// TestGramUpper checks the tiled, parallel Gram matrix against Dsyrk bit
// for bit, whatever the worker count, on a row count that does not divide
// into tiles.
func TestGramUpper(t *testing.T) {
	x := lowRankRows(37, 50, 50, 4, 1)
	want := make([]float64, 37*37)
	blas64.Syrk(blas.NoTrans, 1, x.RawMatrix(), 0, blas64.Symmetric{Uplo: blas.Upper, N: 37, Stride: 37, Data: want})
	for _, workers := range []int{1, 2, 3} {
		got := make([]float64, 37*37)
		if err := gramUpper(context.Background(), x, got, workers); err != nil {
			t.Fatal(err)
		}
		for i := range 37 {
			for j := i; j < 37; j++ {
				if math.Float64bits(got[i*37+j]) != math.Float64bits(want[i*37+j]) {
					t.Fatalf("%d workers: G[%d,%d] = %v, Dsyrk %v", workers, i, j, got[i*37+j], want[i*37+j])
				}
			}
		}
	}
}

// TestPCAPredictAfterFitCancelled checks that cancelling the context of
// a finished Fit leaves the fitted method able to answer new items,
// whose projections are fitted when it answers.
func TestPCAPredictAfterFitCancelled(t *testing.T) {
	for _, typ := range []string{"pca-src", "gsr"} {
		t.Run(typ, func(t *testing.T) {
			m := newMethod(t, typ, Types()[typ].Example)
			d, n, _, test := roundTripData(t, m, typ)
			ctx, cancel := context.WithCancel(context.Background())
			f, err := m.Fit(ctx, &classify.Train{Data: trainingPart(d, n), Items: classify.Seq(0, n), Workers: 2, Seed: 3, Folds: 3})
			if err != nil {
				t.Fatal(err)
			}
			cancel()
			if _, err := f.Predict(context.Background(), &classify.Query{Data: d, Items: test, Workers: 2}); err != nil {
				t.Fatalf("predict after the fit's context was cancelled: %v", err)
			}
		})
	}
}
