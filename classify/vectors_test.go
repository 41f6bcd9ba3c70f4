package classify

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TestLogVectorsOnDemand checks that the log-Euclidean quantities compute
// an item's log-vector only when a block reads the item, keeping those of
// the training set only, and that their blocks, however the items'
// vectors were computed (a few at a time, in any order, kept or not), are
// bit for bit those of the vectors computed directly
// (spd.Workspace.LogVecTo of every matrix, unit normalised as sqrt of
// the sum of squares, and one matrix product per block).
func TestLogVectorsOnDemand(t *testing.T) {
	ctx := context.Background()
	tr, te, err := synth.Classes(synth.Options{Classes: 3, Dim: 7, Samples: 240, Train: 0.5, Spread: 1, Variance: 0.5}, 3)
	if err != nil {
		t.Fatal(err)
	}
	set, err := spd.NewSet(append(tr.X, te.X...))
	if err != nil {
		t.Fatal(err)
	}
	n, dim := set.Len(), set.Dim()
	m := spd.VecLen(dim)
	// The vectors as they are defined, every item at once.
	ws, tmp := spd.NewWorkspace(dim), mat.NewSymDense(dim, nil)
	vecs := make([]float64, n*m)
	unit := make([]float64, n*m)
	for i := range n {
		v := vecs[i*m : (i+1)*m]
		if err := ws.LogVecTo(v, set.View(i), tmp); err != nil {
			t.Fatal(err)
		}
		var ss float64
		for _, e := range v {
			ss += e * e
		}
		for k, e := range v {
			unit[i*m+k] = e * (1 / math.Sqrt(ss))
		}
	}
	product := func(src []float64, rows, cols []int) []float64 {
		g := func(items []int) blas64.General {
			a := blas64.General{Rows: len(items), Cols: m, Stride: m, Data: make([]float64, len(items)*m)}
			for r, i := range items {
				copy(a.Data[r*m:(r+1)*m], src[i*m:(i+1)*m])
			}
			return a
		}
		c := blas64.General{Rows: len(rows), Cols: len(cols), Stride: len(cols), Data: make([]float64, len(rows)*len(cols))}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, g(rows), g(cols), 0, c)
		return c.Data
	}
	train := Seq(0, 120)
	outside := []int{n - 1, 150, 121, 150}
	data := NewData(set, nil, 2)
	p, err := data.Pairs(LogCosine{}, train)
	if err != nil {
		t.Fatal(err)
	}
	lv, err := data.logVecs()
	if err != nil {
		t.Fatal(err)
	}
	computed := func() int {
		c := 0
		for _, r := range lv.rows {
			if r != nil {
				c++
			}
		}
		return c
	}
	if c := computed(); c != 0 {
		t.Fatalf("%d log-vectors before any block", c)
	}
	// A block of a few rows: only its items (Dgemm computes it in one
	// run per entry, not from the training set's products).
	few, cols := []int{5, 3}, []int{7, 3, 9}
	got, err := p.Block(ctx, few, cols, Identity)
	if err != nil {
		t.Fatal(err)
	}
	if c := computed(); c != 4 {
		t.Errorf("%d log-vectors after a block of 4 items, want 4", c)
	}
	same := func(name string, got *mat.Dense, want []float64) {
		t.Helper()
		if !slices.EqualFunc(got.RawMatrix().Data, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
			t.Errorf("%s: block differs from the product of the vectors", name)
		}
	}
	same("few", got, product(unit, few, cols))
	// Rows outside the training set against it: the training set's
	// vectors are kept, those of the rows (150 listed twice) computed for
	// the block alone.
	got, err = p.Block(ctx, outside, train, Identity)
	if err != nil {
		t.Fatal(err)
	}
	if c := computed(); c != len(train) {
		t.Errorf("%d log-vectors kept, want the training set's %d", c, len(train))
	}
	same("outside", got, product(unit, outside, train))
	for i := range n {
		if r := lv.rows[i]; r != nil && !slices.Equal(r, vecs[i*m:(i+1)*m]) {
			t.Errorf("log-vector %d differs from LogVecTo's", i)
		}
	}
	// The squared distances over the same Data share its vectors.
	q, err := data.Pairs(LogEuclideanSq{}, train)
	if err != nil {
		t.Fatal(err)
	}
	rest := Seq(120, n)
	got, err = q.Block(ctx, rest, train, Identity)
	if err != nil {
		t.Fatal(err)
	}
	if c := computed(); c != len(train) {
		t.Errorf("%d log-vectors kept after every item's block, want the training set's %d", c, len(train))
	}
	want := product(vecs, rest, train)
	for r, i := range rest {
		for c, j := range train {
			x, y := vecs[i*m:(i+1)*m], vecs[j*m:(j+1)*m]
			want[r*len(train)+c] = math.Max(0, blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: x}, blas64.Vector{N: m, Inc: 1, Data: x})+
				blas64.Dot(blas64.Vector{N: m, Inc: 1, Data: y}, blas64.Vector{N: m, Inc: 1, Data: y})-2*want[r*len(train)+c])
		}
	}
	same("squared distances", got, want)
	if _, err := p.Block(ctx, []int{n}, train, Identity); err == nil {
		t.Error("an item out of range: no error")
	}
	if err := lv.ensure([]int{-1}); err == nil {
		t.Error("ensure of item -1: no error")
	}
}
