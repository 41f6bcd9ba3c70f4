package classify

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/mat"
)

func pairsData(t testing.TB, n int) *Data {
	t.Helper()
	train, test, err := synth.Classes(synth.Options{Classes: 3, Dim: 4, Samples: n, Train: 0.5, Spread: 1, Variance: 0.5}, 3)
	if err != nil {
		t.Fatal(err)
	}
	set, err := spd.NewSet(append(train.X, test.X...))
	if err != nil {
		t.Fatal(err)
	}
	return NewData(set, append(train.Labels, test.Labels...), 2)
}

// TestPairsBlocks checks every block shape methods ask for (training set
// against itself, a fold against a fold, test items, items in both)
// against Stein divergences and log-Euclidean quantities computed directly
// by package spd, with a map applied.
func TestPairsBlocks(t *testing.T) {
	data := pairsData(t, 42)
	train := []int{1, 3, 4, 8, 9, 15, 20, 21, 33}
	fold := []int{3, 9, 20}
	rest := Without(train, fold)
	test := []int{0, 41, 2, 5, 3} // unsorted, one training item
	f := Exp(0.7)
	direct := map[Quantity]func(i, j int) float64{
		Stein{}: func(i, j int) float64 {
			s, err := spd.Stein(data.Set.View(i), data.Set.View(j))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		LogEuclideanSq{}: func(i, j int) float64 {
			d, err := spd.LogEuclidean(data.Set.View(i), data.Set.View(j))
			if err != nil {
				t.Fatal(err)
			}
			return d * d
		},
		LogCosine{}: func(i, j int) float64 {
			li, _ := spd.Log(data.Set.View(i))
			lj, _ := spd.Log(data.Set.View(j))
			var dot, ni, nj float64
			for a := range 4 {
				for b := range 4 {
					dot += li.At(a, b) * lj.At(a, b)
					ni += li.At(a, b) * li.At(a, b)
					nj += lj.At(a, b) * lj.At(a, b)
				}
			}
			return dot / math.Sqrt(ni*nj)
		},
	}
	for q, want := range direct {
		p, err := data.Pairs(q, train)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []struct{ rows, cols []int }{{train, train}, {fold, rest}, {test, train}, {test, fold}, {test[:1], train[:1]}} {
			got, err := p.Block(context.Background(), b.rows, b.cols, f)
			if err != nil {
				t.Fatal(err)
			}
			for r, i := range b.rows {
				for c, j := range b.cols {
					w := f.Apply(want(i, j))
					if g := got.At(r, c); math.Abs(g-w) > 1e-10*(1+math.Abs(w)) {
						t.Errorf("%v[%d][%d] = %v, want %v", q, i, j, g, w)
					}
				}
			}
		}
		if _, err := p.Block(context.Background(), test, []int{0}, f); err == nil && q == Quantity(Stein{}) {
			t.Errorf("%v: a column outside the training set was accepted", q)
		}
		if _, err := p.Block(context.Background(), []int{42}, train, f); err == nil {
			t.Errorf("%v: row 42 of 42 items was accepted", q)
		}
	}
}

// TestPairsComputeOnce checks that concurrent blocks of one training set
// share the divergences (each pair computed once), that another training
// set gets its own, and that a Data keeps at most keptTrainingSets of them.
func TestPairsComputeOnce(t *testing.T) {
	data := pairsData(t, 60)
	train := Seq(0, 20)
	test := Seq(20, 60)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := data.Pairs(Stein{}, train)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := p.Block(context.Background(), test, train, Identity); err != nil {
				t.Error(err)
			}
			if _, err := p.Block(context.Background(), train, train, Identity); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got, want := data.SteinComputations(), int64(20*19/2+40*20); got != want {
		t.Fatalf("%d divergences computed, want %d", got, want)
	}
	for k := range keptTrainingSets + 2 {
		p, err := data.Pairs(Stein{}, Seq(k, k+10))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Block(context.Background(), Seq(30, 31), Seq(k, k+10), Identity); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := dataState(data, steinKey{}, newSteinState)
	if n := st.pairs.Len(); n > keptTrainingSets {
		t.Errorf("%d training sets kept, want at most %d", n, keptTrainingSets)
	}
}

// TestForBlocks checks that the blocks cover the test items in order, at
// most BlockSize at a time, with the values of one whole block, whether
// new (nil Scratch) or lent by a Scratch from buffers that earlier blocks
// of other shapes filled, with a kernel and without.
func TestForBlocks(t *testing.T) {
	data := pairsData(t, 21)
	train := Seq(0, 3)
	test := Seq(0, 2*BlockSize+5)
	for i := range test {
		test[i] %= 21
	}
	var s Scratch
	for _, q := range []Quantity{LogCosine{}, LogEuclideanSq{}, Stein{}} {
		p, err := data.Pairs(q, train)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []Map{Identity, Exp(0.5)} {
			whole, err := p.Block(context.Background(), test, train, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, scratch := range []*Scratch{nil, &s} {
				next := 0
				err = ForBlocks(context.Background(), p, test, train, f, scratch, func(off int, k *mat.Dense) error {
					n, c := k.Dims()
					if off != next || n > BlockSize || c != len(train) {
						t.Fatalf("block at %d of %d×%d, want at %d, at most %d rows", off, n, c, next, BlockSize)
					}
					if !mat.Equal(k, whole.Slice(off, off+n, 0, c)) {
						t.Fatalf("%v: block at %d differs from the whole", q, off)
					}
					k.Set(0, 0, math.NaN()) // a later block must not see it
					next += n
					return nil
				})
				if err != nil || next != len(test) {
					t.Fatalf("blocks covered %d of %d items (%v)", next, len(test), err)
				}
			}
		}
	}
}

// TestScratchLends checks that a Scratch lends a buffer at most once at a
// time, keeps only what was returned, and that its blocks of a training
// set and its folds equal new ones bit for bit however dirty the buffer.
func TestScratchLends(t *testing.T) {
	data := pairsData(t, 42)
	train := Seq(0, 21)
	fold := []int{2, 7, 20}
	rest := Without(train, fold)
	p, err := data.Pairs(Stein{}, train)
	if err != nil {
		t.Fatal(err)
	}
	var s Scratch
	f := Exp(0.5)
	held := map[*float64]bool{}
	var blocks []*mat.Dense
	for _, b := range []struct{ rows, cols []int }{{train, train}, {fold, rest}, {Seq(21, 42), fold}, {rest, rest}} {
		want, err := p.Block(context.Background(), b.rows, b.cols, f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Block(context.Background(), p, b.rows, b.cols, f)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, want) {
			t.Errorf("lent block %d×%d differs from a new one", len(b.rows), len(b.cols))
		}
		first := &got.RawMatrix().Data[0]
		if held[first] {
			t.Fatal("a buffer in use was lent again")
		}
		held[first] = true
		blocks = append(blocks, got)
	}
	for _, k := range blocks {
		raw := k.RawMatrix()
		for i := range raw.Data {
			raw.Data[i] = math.NaN()
		}
		s.Release(k)
	}
	if len(s.free) != len(blocks) {
		t.Errorf("%d free buffers, want the %d returned", len(s.free), len(blocks))
	}
	for range 2 {
		want, _ := p.Block(context.Background(), train, train, f)
		got, err := s.Block(context.Background(), p, train, train, f)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, want) {
			t.Error("block in a reused buffer differs from a new one")
		}
		s.Release(got)
	}
	if _, err := s.Block(context.Background(), p, []int{42}, train, f); err == nil {
		t.Error("row 42 of 42 items was accepted")
	}
	if len(s.free) != len(blocks) {
		t.Errorf("%d free buffers after a failed block, want %d", len(s.free), len(blocks))
	}
}

// TestSplitKeepsItsPairs checks that a split in progress never computes
// its divergences twice, however many other training sets push it out of
// the Data's bounded cache.
func TestSplitKeepsItsPairs(t *testing.T) {
	data := pairsData(t, 60)
	var splits []*Split
	for k := range keptTrainingSets + 3 {
		splits = append(splits, &Split{Data: data, Train: Seq(k, k+10), Test: Seq(40, 60)})
	}
	use := func(s *Split) {
		p, err := s.Pairs(data, Stein{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Block(context.Background(), s.Test, s.Train, Identity); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range splits {
		use(s)
	}
	n := data.SteinComputations()
	for _, s := range splits {
		use(s)
	}
	if m := data.SteinComputations(); m != n {
		t.Errorf("%d divergences computed again by splits in progress", m-n)
	}
}

// TestSteinKernelBlocks checks the kernel blocks that a training set's
// kernel matrices serve (its rows, folds of it, in any order) and those
// mapped per block (other items) against the Stein kernel applied to the
// divergences one value at a time, bit for bit, for more σ than a
// steinPairs keeps, asked for again after they were dropped, with a
// training set that spans several of symm.Mirror's tiles.
func TestSteinKernelBlocks(t *testing.T) {
	data := pairsData(t, 110)
	train := Seq(5, 80)
	fold := []int{70, 6, 33, 34, 79}
	rest := Without(train, []int{6, 33, 34, 70, 79})
	test := append([]int{0, 100, 33}, Seq(81, 90)...)
	p, err := data.Pairs(Stein{}, train)
	if err != nil {
		t.Fatal(err)
	}
	sigmas := []float64{1, 0.5, 2, 3, 4, 1.5, 1}
	for _, sigma := range sigmas {
		f := Exp(sigma)
		for _, b := range []struct{ rows, cols []int }{{train, train}, {fold, rest}, {rest, rest}, {test, train}, {test, fold}} {
			got, err := p.Block(context.Background(), b.rows, b.cols, f)
			if err != nil {
				t.Fatal(err)
			}
			div, err := p.Block(context.Background(), b.rows, b.cols, Identity)
			if err != nil {
				t.Fatal(err)
			}
			k := spd.SteinKernel{Sigma: sigma}
			for r, i := range b.rows {
				for c, j := range b.cols {
					s, err := spd.Stein(data.Set.View(i), data.Set.View(j))
					if err != nil {
						t.Fatal(err)
					}
					if d := div.At(r, c); i != j && math.Abs(d-s) > 1e-12*(1+s) || i == j && d != 0 {
						t.Fatalf("S(%d, %d) = %v, want %v", i, j, d, s)
					}
					if g, w := got.At(r, c), k.FromDivergence(div.At(r, c)); g != w {
						t.Fatalf("σ = %v: k(%d, %d) = %v, want exp(−σ S) = %v", sigma, i, j, g, w)
					}
				}
			}
		}
	}
	if n := p.(*steinPairs).kernels.Len(); n != keptKernels {
		t.Errorf("%d kernel matrices kept, want %d", n, keptKernels)
	}
}

// TestSteinTrainTriangle checks the training set's divergences, which a
// steinPairs keeps as one triangle, against the symmetric block that
// spd.SteinSymBlock computes of them, bit for bit: unmapped blocks of
// training rows (every column in place, columns out of place, rows
// outside the training set among them), TrainKernel's matrix, and kernel
// blocks, which map those same values.
func TestSteinTrainTriangle(t *testing.T) {
	ctx := context.Background()
	data := pairsData(t, 90)
	train := Seq(3, 75)
	m := len(train)
	ref, err := spd.SteinSymBlock(ctx, data.Set, train, &spd.GramOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := func(i, j int) float64 {
		a, b := i-3, j-3
		return ref.At(min(a, b), max(a, b))
	}
	p, err := data.Pairs(Stein{}, train)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct{ rows, cols []int }{
		{train, train},
		{[]int{40, 3, 74}, train},
		{[]int{74, 10, 3}, []int{50, 3, 74, 12}},
		{[]int{0, 20, 80, 21}, train},
	} {
		for _, f := range []Map{Identity, Exp(0.7)} {
			got, err := p.Block(ctx, b.rows, b.cols, f)
			if err != nil {
				t.Fatal(err)
			}
			for r, i := range b.rows {
				if i < 3 || i >= 75 {
					continue
				}
				for c, j := range b.cols {
					w := want(i, j)
					if f != Identity {
						w = math.Exp(-0.7 * w)
					}
					if g := got.At(r, c); math.Float64bits(g) != math.Float64bits(w) {
						t.Fatalf("%v: entry (%d, %d) = %v, want %v", f, i, j, g, w)
					}
				}
			}
		}
	}
	if n := len(p.(*steinPairs).tt); n != m*(m+1)/2 {
		t.Errorf("%d divergences kept for %d training items, want the triangle's %d", n, m, m*(m+1)/2)
	}
	k, pos, err := TrainKernel(ctx, p, []int{9, 4}, Identity)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pos, []int{6, 1}) {
		t.Errorf("positions %v, want [6 1]", pos)
	}
	for a, i := range train {
		for b, j := range train {
			if g, w := k.RawSymmetric().Data[a*m+b], want(i, j); math.Float64bits(g) != math.Float64bits(w) {
				t.Fatalf("TrainKernel entry (%d, %d) = %v, want %v", i, j, g, w)
			}
		}
	}
}
