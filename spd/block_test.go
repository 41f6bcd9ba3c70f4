package spd

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// steinBlock returns SteinBlockTo's block of the rows against the cols
// of s, failing t on an error.
func steinBlock(t *testing.T, s *Set, rows, cols []int, opts *GramOptions) *mat.Dense {
	t.Helper()
	dst := mat.NewDense(len(rows), len(cols), nil)
	if err := SteinBlockTo(context.Background(), dst, s, rows, s, cols, opts); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestSteinBlocks checks SteinBlockTo and SteinSymBlock, on index lists
// that repeat and reorder items, against the standalone divergence
// (three Cholesky factorisations per pair, no cached log-determinants),
// for any number of workers.
func TestSteinBlocks(t *testing.T) {
	for _, d := range []int{1, 3, 17} {
		s, ms := randSet(t, 40+uint64(d), 12, d)
		w := NewWorkspace(d)
		want := func(i, j int) float64 {
			v, err := w.Stein(ms[i], ms[j])
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		rows, cols := []int{11, 0, 3, 3, 7}, []int{5, 0, 11, 2}
		for _, workers := range []int{1, 3} {
			opts := &GramOptions{Workers: workers}
			dst := steinBlock(t, s, rows, cols, opts)
			for r, i := range rows {
				for c, j := range cols {
					if got, w := dst.At(r, c), want(i, j); math.Abs(got-w) > 1e-12*(1+w) {
						t.Errorf("d=%d: S[%d][%d] = %v, want %v", d, i, j, got, w)
					}
				}
			}
			sym, err := SteinSymBlock(context.Background(), s, rows, opts)
			if err != nil {
				t.Fatal(err)
			}
			for r, i := range rows {
				for c, j := range rows {
					if got, w := sym.At(r, c), want(i, j); math.Abs(got-w) > 1e-12*(1+w) {
						t.Errorf("d=%d: symmetric S[%d][%d] = %v, want %v", d, i, j, got, w)
					}
				}
			}
		}
	}
}

// TestSteinBlocksFourAtOnce checks that the blocks, which compute groups
// of eight (with AVX-512) and four columns at a time with steinLanes,
// give bit for bit the entries of steinEntry for d = 1..50 (d < 4 and
// the last columns that make no group take steinEntry itself) on random,
// condition 1e10 and badly scaled matrices, for 1 and 3 workers, on
// blocks with groups of both widths and a tail; that S(X, X) is exactly
// 0 for byte-identical matrices at different indices; and that a
// factorisation failing in one lane of a group gives steinEntry's error,
// naming the items.
func TestSteinBlocksFourAtOnce(t *testing.T) {
	for d := 1; d <= 50; d++ {
		for k, kind := range matrixKinds {
			r := newRand(uint64(7000 + 10*d + k))
			ms := make([]*mat.SymDense, 11)
			for i := range ms {
				ms[i] = randOfKind(r, d, kind)
			}
			ms[9] = ms[2] // byte-identical to item 2
			s := mustSet(t, ms)
			buf := make([]float64, d*d)
			want := func(i, j int) float64 {
				v, ok := steinEntry(buf, s.block(i), s.block(j), d, s.logdet[i], s.logdet[j])
				if !ok {
					t.Fatalf("d=%d %s: steinEntry refuses %d, %d", d, kind, i, j)
				}
				return v
			}
			rows, cols := []int{9, 0, 3, 2, 7, 10}, []int{5, 2, 0, 9, 8, 1, 2, 4, 3, 6, 10, 7, 1, 0, 9} // 15 columns: 8 + 4 + 3 or 4 + 4 + 4 + 3
			for _, workers := range []int{1, 3} {
				opts := &GramOptions{Workers: workers}
				dst := steinBlock(t, s, rows, cols, opts)
				for ri, i := range rows {
					for ci, j := range cols {
						got, w := dst.At(ri, ci), want(i, j)
						if got != w {
							t.Errorf("d=%d %s workers=%d: S[%d][%d] = %.17g, steinEntry %.17g", d, kind, workers, i, j, got, w)
						}
						if (i == j || i+j == 11 && (i == 2 || i == 9)) && got != 0 {
							t.Errorf("d=%d %s: S(X%d, X%d) = %v for identical matrices, want exactly 0", d, kind, i, j, got)
						}
					}
				}
				items := []int{4, 2, 0, 9, 1, 3, 10, 5, 6, 7, 8, 0, 5, 3, 1, 6} // rows 0..2: 8 + 4 + a tail
				sym, err := SteinSymBlock(context.Background(), s, items, opts)
				if err != nil {
					t.Fatal(err)
				}
				for ri, i := range items {
					for ci, j := range items {
						if ci <= ri {
							continue
						}
						if got, w := sym.At(ri, ci), want(i, j); got != w {
							t.Errorf("d=%d %s workers=%d: symmetric S[%d][%d] = %.17g, steinEntry %.17g", d, kind, workers, i, j, got, w)
						}
					}
				}
				if got := sym.At(1, 3); got != 0 {
					t.Errorf("d=%d %s: symmetric S(X2, X9) = %v for identical matrices, want exactly 0", d, kind, got)
				}
			}
		}
	}
	// One lane of four fails: column item 3 is made indefinite behind the
	// Set's back, so that (X + Y_3)/2 is indefinite for every X.
	for _, d := range []int{5, 17} {
		s, _ := randSet(t, 60+uint64(d), 8, d)
		bad := s.block(3)
		for i := range bad {
			bad[i] = 0
		}
		for i := range d {
			bad[i*d+i] = -1e6
		}
		dst := mat.NewDense(2, 8, nil)
		err := SteinBlockTo(context.Background(), dst, s, []int{6, 7}, s, seq(8), &GramOptions{Workers: 1})
		if wantMsg := "Stein divergence of a[6] and b[3]: spd: matrix is not positive definite: Cholesky factorisation of (X+Y)/2 failed"; !errors.Is(err, ErrNotSPD) || err.Error() != wantMsg {
			t.Errorf("d=%d: SteinBlockTo error %v, want %q", d, err, wantMsg)
		}
		_, err = SteinSymBlock(context.Background(), s, []int{6, 0, 1, 2, 3, 4, 5}, &GramOptions{Workers: 1})
		if wantMsg := "Stein divergence of a[6] and a[3]: spd: matrix is not positive definite: Cholesky factorisation of (X+Y)/2 failed"; !errors.Is(err, ErrNotSPD) || err.Error() != wantMsg {
			t.Errorf("d=%d: SteinSymBlock error %v, want %q", d, err, wantMsg)
		}
	}
}
