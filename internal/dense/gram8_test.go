package dense

import (
	"math"
	"testing"
)

// whitenedGramRef is spd's whitenedGram on one matrix: SolveLowerT,
// MaxAbsUpper, ScaleUpper and GramUpperT.
func whitenedGramRef(l, m []float64, d int) (g []float64, s int, ok bool) {
	z, g := make([]float64, d*d), make([]float64, d*d)
	SolveLowerT(z, l, m, make([]float64, d), d)
	zmax, ok := MaxAbsUpper(z, d)
	if !ok {
		return nil, 0, false
	}
	_, s = math.Frexp(zmax)
	if s < -1000 || s > 1000 {
		return nil, 0, false
	}
	if s != 0 {
		ScaleUpper(z, d, math.Ldexp(1, -s))
	}
	GramUpperT(g, z, d)
	return g, s, true
}

// TestWhitenedGram8BitForBit wants every lane of WhitenedGram8 to be the
// one-matrix route's Gram matrix bit for bit, for d = vecMinD..50 and a
// few larger, of the kinds of ofKind (the scaled ones, entries from
// 1e-300 to 1e300, overflow Z in some lanes), with lanes left out and
// lanes with an Inf or a NaN in Z.
func TestWhitenedGram8BitForBit(t *testing.T) {
	if !have512 {
		t.Skip("no AVX-512")
	}
	ds := []int{}
	for d := vecMinD; d <= 50; d++ {
		ds = append(ds, d)
	}
	ds = append(ds, 63, 64, 97, PlainMaxD)
	var ngood, nbad int
	for _, d := range ds {
		r := newRand(uint64(7000 + d))
		x := ofKind(r, d, kinds[d%3])
		l := make([]float64, d*d)
		if _, ok := CholLower(l, x, nil, d); !ok {
			t.Fatalf("d=%d: X not SPD", d)
		}
		var ms [8][]float64
		for p := range 8 {
			if (d+p)%7 == 3 {
				continue // a lane not wanted
			}
			y := ofKind(r, d, kinds[(p+d)%3])
			ms[p] = make([]float64, d*d)
			if _, ok := CholLower(ms[p], y, nil, d); !ok {
				t.Fatalf("d=%d: Y not SPD", d)
			}
			// A lone Inf or NaN of Z, in Zᵀ's first row, last entry
			// or next to last: a lane that must not be formed.
			if d%2 == 0 && p == 5 {
				ms[p][(d-1)*d] = math.Inf(1)
			}
			if d%2 == 0 && p == 6 {
				ms[p][(d-1)*d+1] = math.NaN()
			}
		}
		// Buffers of NaN: an entry read before it is written spoils G.
		h, mz := make([]float64, 8*d*d), make([]float64, 8*d*d)
		for i := range h {
			h[i], mz[i] = math.NaN(), math.NaN()
		}
		var s [8]int
		var ok [8]bool
		WhitenedGram8(h, mz, l, &ms, d, &s, &ok)
		for p, m := range ms {
			if m == nil {
				if ok[p] {
					t.Errorf("d=%d lane %d: ok without a matrix", d, p)
				}
				continue
			}
			g, sw, okw := whitenedGramRef(l, m, d)
			if ok[p] != okw {
				t.Fatalf("d=%d lane %d: ok %v, want %v", d, p, ok[p], okw)
			}
			if !okw {
				nbad++
				continue
			}
			ngood++
			if s[p] != sw {
				t.Fatalf("d=%d lane %d: s %d, want %d", d, p, s[p], sw)
			}
			for i := range d {
				for j := i; j < d; j++ {
					if got := h[(i*d+j)*8+p]; math.Float64bits(got) != math.Float64bits(g[i*d+j]) {
						t.Fatalf("d=%d lane %d: G_%d,%d = %v, want %v", d, p, i, j, got, g[i*d+j])
					}
				}
			}
		}
	}
	if ngood < 3*nbad {
		t.Errorf("%d lanes formed, %d not: too few compared", ngood, nbad)
	}
	t.Logf("%d lanes formed, %d not", ngood, nbad)
}
