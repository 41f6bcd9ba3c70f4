package classify

import (
	"context"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/mat"
)

// TestTrainGramBitForBit checks the blocks that the log-Euclidean
// quantities take from a training set's products (trainGram) against
// the matrix product of the same vectors that each block was before, bit
// for bit: vectors of 78 values (two of Dgemm's runs), blocks that Dgemm
// splits into blocks and blocks it does not, rows in the training set
// and outside, and that the products are computed once per training set.
func TestTrainGramBitForBit(t *testing.T) {
	ctx := context.Background()
	train, test, err := synth.Classes(synth.Options{Classes: 2, Dim: 12, Samples: 300, Train: 0.5, Spread: 1, Variance: 0.5}, 5)
	if err != nil {
		t.Fatal(err)
	}
	set, err := spd.NewSet(append(train.X, test.X...))
	if err != nil {
		t.Fatal(err)
	}
	data := NewData(set, append(train.Labels, test.Labels...), 2)
	n := set.Len()
	items := Seq(0, n-20)
	var drop []int
	for i := 0; i < n-20; i += 3 {
		drop = append(drop, i)
	}
	fold := Without(items, drop)
	for _, q := range []Quantity{LogCosine{}, LogEuclideanSq{}} {
		p, err := data.Pairs(q, items)
		if err != nil {
			t.Fatal(err)
		}
		plain := *p.(*vectorPairs)
		plain.gram = nil
		for _, tc := range []struct {
			name       string
			rows, cols []int
		}{
			{"training set", items, items},
			{"fold", fold, fold},
			{"few rows", fold[:3], fold},
			{"small block", fold[:40], fold[:100]},
			{"outside", Seq(n-20, n), items},
		} {
			for _, f := range []Map{Identity, Exp(0.2)} {
				got, err := p.Block(ctx, tc.rows, tc.cols, f)
				if err != nil {
					t.Fatal(err)
				}
				want, err := plain.Block(ctx, tc.rows, tc.cols, f)
				if err != nil {
					t.Fatal(err)
				}
				if !mat.Equal(got, want) {
					t.Errorf("%v, %s, map %v: the block differs from its product", q, tc.name, f)
				}
			}
		}
		if g := p.(*vectorPairs).gram; g.tri == nil {
			t.Errorf("%v: no products kept", q)
		}
		again, _ := data.Pairs(q, items)
		if again.(*vectorPairs).gram != p.(*vectorPairs).gram {
			t.Errorf("%v: the training set's products made twice", q)
		}
	}
}

// TestBlocksWithinAllocateNothing checks that the blocks a fold takes
// from its training set's quantities, once computed, allocate nothing:
// a Stein view's, and log-Euclidean products' into a caller's matrix.
func TestBlocksWithinAllocateNothing(t *testing.T) {
	ctx := context.Background()
	data := pairsData(t, 300)
	outer := &Split{Data: data, Train: Seq(0, 280)}
	fold := Seq(0, 200)
	inner := (&Split{Data: data, Train: fold, within: outer}).Fitting()
	for _, q := range []Quantity{Stein{}, LogCosine{}} {
		p, err := inner.Pairs(data, q)
		if err != nil {
			t.Fatal(err)
		}
		dst := mat.NewDense(len(fold), len(fold), nil)
		if err := p.BlockTo(ctx, dst, fold, fold, Exp(0.5)); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(5, func() {
			if err := p.BlockTo(ctx, dst, fold, fold, Exp(0.5)); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%v: %v allocations per block", q, n)
		}
	}
}
