package spd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomSet returns n random d×d SPD matrices, Wishart with d + 2
// degrees of freedom.
func randomSet(t *testing.T, n, d int, seed uint64) *Set {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	ms := make([]*mat.SymDense, n)
	for i := range ms {
		m, err := Wishart(d, d+2, rng)
		if err != nil {
			t.Fatal(err)
		}
		ms[i] = m
	}
	s, err := NewSet(ms)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPack checks a packed Set against the dense one it packs, bit for
// bit: every matrix (View, At, Data), its log-determinant, a Subset and
// the Stein divergences of a block over it, for matrix sizes of one, a
// few and more entries than a row of the triangle holds.
func TestPack(t *testing.T) {
	for _, d := range []int{1, 2, 5, 13} {
		s := randomSet(t, 9, d, 3)
		var r Residency
		p, err := Pack(s, &r)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Packed() || s.Packed() || p.Len() != s.Len() || p.Dim() != d {
			t.Fatalf("d = %d: Packed %v (dense %v), %d matrices of %d", d, p.Packed(), s.Packed(), p.Len(), p.Dim())
		}
		for i := range s.Len() {
			if !sameBits(p.View(i).RawSymmetric().Data, s.View(i).RawSymmetric().Data) || !sameBits(p.At(i).RawSymmetric().Data, s.View(i).RawSymmetric().Data) {
				t.Errorf("d = %d: matrix %d differs", d, i)
			}
			if math.Float64bits(p.LogDet(i)) != math.Float64bits(s.LogDet(i)) {
				t.Errorf("d = %d: log det %d is %v, want %v", d, i, p.LogDet(i), s.LogDet(i))
			}
		}
		if !sameBits(p.Data(), s.Data()) || !Equal(p, s) || !Equal(s, p) {
			t.Errorf("d = %d: Data differs", d)
		}
		idx := []int{7, 0, 3}
		if !Equal(p.Subset(idx), s.Subset(idx)) || p.Subset(idx).Packed() {
			t.Errorf("d = %d: Subset differs or is packed", d)
		}
		rows, cols := []int{0, 4, 8}, []int{1, 2, 3, 5}
		want, got := mat.NewDense(3, 4, nil), mat.NewDense(3, 4, nil)
		if err := SteinBlockTo(context.Background(), want, s, rows, s, cols, nil); err != nil {
			t.Fatal(err)
		}
		if err := SteinBlockTo(context.Background(), got, p, rows, p, cols, nil); err != nil {
			t.Fatal(err)
		}
		if !sameBits(got.RawMatrix().Data, want.RawMatrix().Data) {
			t.Errorf("d = %d: Stein divergences differ", d)
		}
		if _, err := Regroup(p, 3); !errors.Is(err, errPacked) {
			t.Errorf("d = %d: Regroup of a packed Set: error %v, want errPacked", d, err)
		}
	}
	if _, err := Pack(&Set{}, new(Residency)); !errors.Is(err, ErrEmpty) {
		t.Errorf("packing an empty Set: error %v, want ErrEmpty", err)
	}
}

// TestResidency checks the budget: Sets used in turn unpack once each
// within it and at every use beyond it, and a matrix read before its
// Set was dropped stays as it was.
func TestResidency(t *testing.T) {
	a, b := randomSet(t, 4, 3, 1), randomSet(t, 4, 3, 2)
	for _, tc := range []struct {
		max  int
		want int64
	}{{0, 6}, {1, 6}, {2, 2}, {3, 2}} {
		r := Residency{Max: tc.max}
		pa, pb := packTwo(t, a, b, &r)
		v := pa.View(1)
		for range 3 {
			pa.View(0)
			pb.View(0)
		}
		if got := r.Unpacked(); got != tc.want {
			t.Errorf("Max %d: %d unpackings, want %d", tc.max, got, tc.want)
		}
		if !sameBits(v.RawSymmetric().Data, a.View(1).RawSymmetric().Data) {
			t.Errorf("Max %d: a view taken before its Set was dropped changed", tc.max)
		}
	}
}

// TestResidencyConcurrent reads two packed Sets from several goroutines
// at once within a budget of one, so that each read may drop the other
// Set's storage while it is read, and checks every matrix bit for bit
// (run with -race).
func TestResidencyConcurrent(t *testing.T) {
	a, b := randomSet(t, 6, 4, 1), randomSet(t, 6, 4, 2)
	pa, pb := packTwo(t, a, b, new(Residency))
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			var bad error
			for k := range 200 {
				s, p := a, pa
				if (g+k)%2 == 1 {
					s, p = b, pb
				}
				i := k % s.Len()
				if !sameBits(p.View(i).RawSymmetric().Data, s.View(i).RawSymmetric().Data) {
					bad = errors.New("a matrix read concurrently differs")
				}
			}
			errs <- bad
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// packTwo packs a and b within r.
func packTwo(t *testing.T, a, b *Set, r *Residency) (pa, pb *Set) {
	t.Helper()
	var err error
	if pa, err = Pack(a, r); err == nil {
		pb, err = Pack(b, r)
	}
	if err != nil {
		t.Fatal(err)
	}
	return pa, pb
}
