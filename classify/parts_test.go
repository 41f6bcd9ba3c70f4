package classify

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// interleaved returns the items of data as items of three regions, item
// after item: region 0 and region 2 are item i's descriptor, region 1
// item i+1's (cyclically).
func interleaved(data *Data) *spd.Set {
	n := data.Set.Len()
	idx := make([]int, 0, 3*n)
	for i := range n {
		idx = append(idx, i, (i+1)%n, i)
	}
	return data.Set.Subset(idx)
}

// TestSetParts checks the parts that SetParts makes against the
// descriptors they come from, that identical regions share one part and
// the item Data the first part's pairwise quantities, and the error for
// a set that is not whole items.
func TestSetParts(t *testing.T) {
	data := pairsData(t, 12)
	n := data.Set.Len()
	d := &Data{Labels: data.Labels, Workers: 2}
	if err := d.SetParts(interleaved(data), 3); err != nil {
		t.Fatal(err)
	}
	if len(d.Parts) != 3 || d.Parts[0] != d.Parts[2] || d.Parts[0] == d.Parts[1] {
		t.Fatalf("parts %p %p %p: want the first and last one Data, the middle another", d.Parts[0], d.Parts[1], d.Parts[2])
	}
	shift := make([]int, n)
	for i := range shift {
		shift[i] = (i + 1) % n
	}
	if !spd.Equal(d.Parts[0].Set, data.Set) || !spd.Equal(d.Parts[1].Set, data.Set.Subset(shift)) || d.Set != d.Parts[0].Set {
		t.Error("the parts' descriptors are not the items' regions")
	}
	p, err := d.Pairs(Stein{}, Seq(0, 6))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Block(context.Background(), Seq(6, n), Seq(0, 6), Identity); err != nil {
		t.Fatal(err)
	}
	if got, want := d.Parts[0].SteinComputations(), int64(6*(n-6)); got != want || d.Parts[1].SteinComputations() != 0 {
		t.Errorf("the first part counts %d divergences, want %d (the item Data's), the second %d, want 0", got, want, d.Parts[1].SteinComputations())
	}
	if err := (&Data{}).SetParts(data.Set.Subset(Seq(0, 7)), 3); err == nil {
		t.Error("7 descriptors in items of 3 regions: no error")
	}
}

// TestFoldPairsAreViews checks that the Pairs of a split within another
// (a cross-validation fold of its training set) give the values of the
// fold's own Pairs bit for bit, for training and other rows, with a map
// and without, and through TrainKernel, computing no divergence the
// outer training set's Pairs do not hold; and that a column outside the
// fold is an error.
func TestFoldPairsAreViews(t *testing.T) {
	ctx := context.Background()
	data, fresh := pairsData(t, 40), pairsData(t, 40)
	outer := &Split{Data: data, Train: Seq(0, 20)}
	fold := []int{1, 2, 5, 8, 9, 13, 17, 19}
	inner := &Split{Data: data, Train: fold, within: outer}
	rows := []int{3, 30, 1, 25, 19}
	own, err := fresh.Pairs(Stein{}, fold)
	if err != nil {
		t.Fatal(err)
	}
	view, err := inner.Fitting().Pairs(data, Stein{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Map{Identity, Exp(0.3)} {
		want, err := own.Block(ctx, rows, fold, f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := view.Block(ctx, rows, fold, f)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, want) {
			t.Errorf("map %v: the view's block differs from the fold's own", f)
		}
		wantTT, err := own.Block(ctx, fold, fold, f)
		if err != nil {
			t.Fatal(err)
		}
		k, pos, err := TrainKernel(ctx, view, fold, f)
		if err != nil {
			t.Fatal(err)
		}
		for a := range fold {
			for b := range fold {
				if g, w := k.At(pos[a], pos[b]), wantTT.At(a, b); g != w {
					t.Errorf("map %v: TrainKernel of items %d, %d is %v, want %v", f, fold[a], fold[b], g, w)
				}
			}
		}
	}
	if got, want := data.SteinComputations(), int64(20*19/2+2*20); got != want {
		t.Errorf("%d divergences computed, want %d: the outer training set's and two other rows'", got, want)
	}
	if _, err := view.Block(ctx, rows, []int{1, 4}, Identity); err == nil {
		t.Error("a column outside the fold: no error")
	}
	if _, _, err := TrainKernel(ctx, view, []int{4}, Identity); err == nil {
		t.Error("TrainKernel of an item outside the fold: no error")
	}
	if _, err := (&Split{Data: data, Train: []int{1, 25}, within: outer}).Pairs(data, Stein{}); err == nil {
		t.Error("a fold with an item outside the outer training set: no error")
	}
}

// countingFits is a method that counts its fits.
type countingFits struct {
	*fakeCosts
	fits int
}

func (c *countingFits) Fit(ctx context.Context, t *Train) (Fitted, error) {
	c.fits++
	return c.fakeCosts.Fit(ctx, t)
}

// TestChooseFusionSharesParts checks that a part that is another's Data
// (SetParts' identical regions) is fitted once per fold, and that the
// choice and its table are those of two distinct Data of the same
// costs.
func TestChooseFusionSharesParts(t *testing.T) {
	choose := func(shared bool) (FusionChoice, *CVTable, int) {
		d, f := sumWrongParts()
		if shared {
			d.Parts[2] = d.Parts[1]
			f.parts[2] = f.parts[1]
		}
		m := &countingFits{fakeCosts: f}
		s := &Split{Data: d, Train: Seq(0, 8), Folds: 2, Seed: 1}
		fu := Fusing{Sets: [][]int{{0, 1}, {0, 1, 2}}, Layouts: []string{"a", "b"}, Rules: []FusionRule{FuseSum, FuseVote, FuseWeighted}}
		c, table, err := chooseFusion(context.Background(), m, s, fu)
		if err != nil {
			t.Fatal(err)
		}
		return c, table, m.fits
	}
	c0, t0, n0 := choose(false)
	c1, t1, n1 := choose(true)
	if n0 != 6 || n1 != 4 {
		t.Errorf("%d and %d fits, want 3 and 2 parts' per fold (6, 4)", n0, n1)
	}
	if c0.Set != c1.Set || c0.Rule != c1.Rule || !slices.Equal(c0.Weights, c1.Weights) {
		t.Errorf("choice %+v with a shared part, want %+v", c1, c0)
	}
	for i := range t0.Candidates {
		if !slices.Equal(t0.Candidates[i].Folds, t1.Candidates[i].Folds) {
			t.Errorf("candidate %d: folds %v with a shared part, want %v", i, t1.Candidates[i].Folds, t0.Candidates[i].Folds)
		}
	}
}

// TestPackParts checks that packed parts (PackParts) give every pairwise
// quantity bit for bit as the dense parts they were made from, the
// training set's blocks and test rows, on each part and on the items'
// Data; that identical regions stay one part; that parts used one after
// another unpack once each within a budget of one; and the error for a
// Data without parts.
func TestPackParts(t *testing.T) {
	data := pairsData(t, 14)
	n := data.Set.Len()
	dense := &Data{Labels: data.Labels, Workers: 2}
	packed := &Data{Labels: data.Labels, Workers: 2}
	for _, d := range []*Data{dense, packed} {
		if err := d.SetParts(interleaved(data), 3); err != nil {
			t.Fatal(err)
		}
	}
	var r spd.Residency
	if err := packed.PackParts(&r); err != nil {
		t.Fatal(err)
	}
	if !packed.Set.Packed() || packed.Set != packed.Parts[0].Set || packed.Parts[0] != packed.Parts[2] || !packed.Parts[1].Set.Packed() {
		t.Fatal("the parts are not packed, or no longer shared")
	}
	train, test := Seq(0, 8), Seq(8, n)
	ctx := context.Background()
	for k := range 2 {
		for _, q := range []Quantity{Stein{}, LogCosine{}, LogEuclideanSq{}} {
			pd, err := dense.Parts[k].Pairs(q, train)
			if err != nil {
				t.Fatal(err)
			}
			pp, err := packed.Parts[k].Pairs(q, train)
			if err != nil {
				t.Fatal(err)
			}
			for _, rows := range [][]int{train, test, {9, 2, n - 1}} {
				want, err := pd.Block(ctx, rows, train, Exp(0.3))
				if err != nil {
					t.Fatal(err)
				}
				got, err := pp.Block(ctx, rows, train, Exp(0.3))
				if err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(got.RawMatrix().Data, want.RawMatrix().Data, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
					t.Errorf("%v, part %d, rows %v: packed block differs", q, k, rows)
				}
			}
		}
	}
	// Three quantities on part 0 then three on part 1, each unpacked
	// when first read: two unpackings, not one per quantity.
	if got := r.Unpacked(); got != 2 {
		t.Errorf("%d unpackings, want 2", got)
	}
	if err := (&Data{Set: data.Set}).PackParts(&r); err == nil {
		t.Error("packing a Data without parts: no error")
	}
}
