package spd

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randSet(t testing.TB, seed uint64, n, d int) (*Set, []*mat.SymDense) {
	r := newRand(seed)
	ms := make([]*mat.SymDense, n)
	for i := range ms {
		ms[i] = randSPD(r, d, 1.5)
	}
	return mustSet(t, ms), ms
}

func TestGramMatchesPairwise(t *testing.T) {
	a, am := randSet(t, 20, 9, 4)
	b, bm := randSet(t, 21, 7, 4)
	k := SteinKernel{Sigma: 1.5}
	g, err := k.Gram(context.Background(), a, b, &GramOptions{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	div, _ := SteinDivergences(context.Background(), a, b, nil)
	for i := range am {
		for j := range bm {
			want, _ := k.Eval(am[i], bm[j])
			assertClose(t, "Gram", g.At(i, j), want, 1e-12)
			s, _ := Stein(am[i], bm[j])
			assertClose(t, "divergence", div.At(i, j), s, 1e-12)
			assertClose(t, "FromDivergence", k.FromDivergence(div.At(i, j)), want, 1e-12)
		}
	}
	gs, err := k.GramSym(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	gaa, _ := k.Gram(context.Background(), a, a, nil)
	for i := range am {
		if gs.At(i, i) != 1 {
			t.Errorf("K_ii = %v, want exactly 1", gs.At(i, i))
		}
		for j := range am {
			assertClose(t, "GramSym vs Gram", gs.At(i, j), gaa.At(i, j), 1e-14)
		}
	}
}

func TestGramIndependentOfWorkers(t *testing.T) {
	a, _ := randSet(t, 22, 50, 6)
	k := SteinKernel{Sigma: 2.5}
	ref, err := k.GramSym(context.Background(), a, &GramOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 7} {
		var entries atomic.Int64
		g, err := k.GramSym(context.Background(), a, &GramOptions{Workers: w, Progress: func(n int) { entries.Add(int64(n)) }})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(g, ref) {
			t.Errorf("workers=%d: Gram differs bitwise from workers=1", w)
		}
		if got, want := entries.Load(), int64(50*51/2); got != want {
			t.Errorf("progress reported %d entries, want %d", got, want)
		}
	}
}

func TestSetConstructionAndSubset(t *testing.T) {
	a, ms := randSet(t, 23, 5, 3)
	if a.Len() != 5 || a.Dim() != 3 {
		t.Fatalf("Len, Dim = %d, %d", a.Len(), a.Dim())
	}
	for i, m := range ms {
		ld, _ := LogDet(m)
		assertClose(t, "cached logdet", a.LogDet(i), ld, 1e-13)
		assertSymClose(t, "At", a.At(i), m, 0)
	}
	sub := a.Subset([]int{4, 1})
	assertSymClose(t, "Subset[0]", sub.View(0), ms[4], 0)
	assertClose(t, "Subset logdet", sub.LogDet(1), a.LogDet(1), 0)
	c := a.At(0)
	c.SetSym(0, 0, 99)
	if a.View(0).At(0, 0) == 99 {
		t.Error("At returned a view, want a copy")
	}
	data := append([]float64(nil), a.Data()...)
	b, err := NewSetFromData(3, data)
	if err != nil {
		t.Fatal(err)
	}
	assertSymClose(t, "NewSetFromData", b.View(2), ms[2], 0)
}

func TestSetErrors(t *testing.T) {
	good := diag(1, 2)
	tests := []struct {
		name string
		fn   func() error
		want error
	}{
		{"empty", func() error { _, err := NewSet(nil); return err }, ErrEmpty},
		{"mixed", func() error { _, err := NewSet([]*mat.SymDense{good, diag(1, 2, 3)}); return err }, ErrDimension},
		{"indefinite", func() error { _, err := NewSet([]*mat.SymDense{good, diag(1, -1)}); return err }, ErrNotSPD},
		{"data length", func() error { _, err := NewSetFromData(2, make([]float64, 7)); return err }, ErrDimension},
		{"data NaN", func() error { _, err := NewSetFromData(2, []float64{1, 0, 0, math.NaN()}); return err }, ErrNotFinite},
		{"data asymmetric", func() error { _, err := NewSetFromData(2, []float64{1, 0.5, 0.2, 1}); return err }, ErrNotSymmetric},
		{"data zero", func() error { _, err := NewSetFromData(2, make([]float64, 4)); return err }, ErrNotSPD},
		{"data d", func() error { _, err := NewSetFromData(0, nil); return err }, ErrDimension},
		{"gram sizes", func() error {
			a, _ := NewSet([]*mat.SymDense{good})
			b, _ := NewSet([]*mat.SymDense{diag(1, 2, 3)})
			_, err := SteinKernel{Sigma: 1}.Gram(context.Background(), a, b, nil)
			return err
		}, ErrDimension},
		{"gram nil", func() error { _, err := SteinKernel{Sigma: 1}.GramSym(context.Background(), nil, nil); return err }, ErrEmpty},
	}
	for _, tc := range tests {
		if err := tc.fn(); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
	_, err := NewSet([]*mat.SymDense{good, good, diag(1, -1)})
	if err == nil || err.Error()[:8] != "matrix 2" {
		t.Errorf("error should name the index: %v", err)
	}
}

// TestConcat checks Concat against a Set built from the joined data (the
// same matrices and log-determinants, bit for bit), with empty sets on
// either side, and its refusal of matrices of different sizes.
func TestConcat(t *testing.T) {
	a, _ := randSet(t, 31, 4, 3)
	b, _ := randSet(t, 32, 2, 3)
	want, err := NewSetFromData(3, append(slices.Clone(a.Data()), b.Data()...))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		x, y *Set
		want *Set
	}{
		{"both", a, b, want},
		{"empty first", &Set{}, b, b},
		{"nil second", a, nil, a},
	} {
		got, err := Concat(tc.x, tc.y)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(got.Data(), tc.want.Data()) || !slices.Equal(got.logdet, tc.want.logdet) || got.Len() != tc.want.Len() {
			t.Errorf("%s: Concat differs from the set of the joined data", tc.name)
		}
	}
	c, _ := randSet(t, 33, 2, 4)
	if _, err := Concat(a, c); !errors.Is(err, ErrDimension) {
		t.Errorf("3×3 and 4×4 sets: %v, want ErrDimension", err)
	}
}
