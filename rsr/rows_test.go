package rsr

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestAddRowsMatchesAddScaled checks addRows, on the dispatching path and
// on the plain-Go one, against successive floats.AddScaled calls bit for
// bit: lengths 0 to 70 (every remainder of the vector loops), 0 to 9 rows
// (whole groups of four and the rest), unaligned starts, magnitudes
// spanning 1e±30 so that any fused or reordered rounding shows.
func TestAddRowsMatchesAddScaled(t *testing.T) {
	r := newRand(21)
	const n = 80
	k := make([]float64, n*n)
	for i := range k {
		k[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(61)-30))
	}
	for trial := range 400 {
		m := r.IntN(71)
		off := r.IntN(n - m + 1)
		rows := r.IntN(10)
		idx := make([]int, rows)
		coef := make([]float64, rows)
		for p := range idx {
			idx[p] = r.IntN(n)
			coef[p] = r.NormFloat64() * math.Pow(10, float64(r.IntN(21)-10))
		}
		base := make([]float64, n)
		for i := range base {
			base[i] = r.NormFloat64()
		}
		want := append([]float64(nil), base...)
		for p, i := range idx {
			floats.AddScaled(want[off:off+m], coef[p], k[i*n+off:i*n+off+m])
		}
		for _, path := range []string{"dispatch", "go"} {
			got := append([]float64(nil), base...)
			dst := got[off : off+m]
			if path == "dispatch" {
				addRows(dst, k[off:], n, idx, coef)
			} else {
				p := 0
				for ; p+4 <= rows; p += 4 {
					row := func(q int) []float64 { i := idx[q]*n + off; return k[i : i+m] }
					addRows4Go(dst, [4]float64(coef[p:p+4]), row(p), row(p+1), row(p+2), row(p+3))
				}
				for ; p < rows; p++ {
					floats.AddScaled(dst, coef[p], k[idx[p]*n+off:idx[p]*n+off+m])
				}
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("trial %d (%s, m=%d off=%d rows=%d): entry %d = %v, AddScaled gives %v", trial, path, m, off, rows, i, got[i], want[i])
				}
			}
		}
	}
}

// TestAddRowMatchesAddScaled checks addRow and addRowGo against
// floats.AddScaled bit for bit, for lengths 0 to 70 at unaligned starts.
func TestAddRowMatchesAddScaled(t *testing.T) {
	r := newRand(22)
	for trial := range 300 {
		m := r.IntN(71)
		x := make([]float64, m+3)
		y := make([]float64, m+3)
		for i := range x {
			x[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(61)-30))
			y[i] = r.NormFloat64()
		}
		a := r.NormFloat64() * math.Pow(10, float64(r.IntN(21)-10))
		off := r.IntN(4)
		if off+m > len(x) {
			off = 0
		}
		want := append([]float64(nil), y...)
		floats.AddScaled(want[off:off+m], a, x[off:off+m])
		for _, f := range []func([]float64, float64, []float64){addRow, addRowGo} {
			got := append([]float64(nil), y...)
			f(got[off:off+m], a, x[off:])
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("trial %d (m=%d off=%d): entry %d = %v, AddScaled gives %v", trial, m, off, i, got[i], want[i])
				}
			}
		}
	}
}
