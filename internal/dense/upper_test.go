package dense

import (
	"math"
	"testing"
)

// TestMaxAbsUpper compares MaxAbsUpper and ScaleUpper with their plain
// loops, d = 1..20, on random entries spread over 1e±300, with a NaN or
// an Inf in the upper triangle (found) or the lower (ignored), and with
// the lower triangle's entries larger than the upper's (not read).
func TestMaxAbsUpper(t *testing.T) {
	r := newRand(9)
	for d := 1; d <= 20; d++ {
		for kind := range 5 {
			z := make([]float64, d*d)
			for i := range d {
				for j := range d {
					v := (r.Float64()*2 - 1) * math.Pow(10, float64(r.IntN(601)-300))
					if j < i {
						v = 1e305
					}
					z[i*d+j] = v
				}
			}
			i, j := r.IntN(d), r.IntN(d)
			switch kind {
			case 1:
				z[min(i, j)*d+max(i, j)] = math.NaN()
			case 2:
				z[min(i, j)*d+max(i, j)] = math.Inf(-1)
			case 3:
				if d > 1 {
					z[max(i, j, 1)*d+min(i, j, 0)] = math.NaN()
				}
			}
			m, ok := MaxAbsUpper(z, d)
			wm, wok := maxAbsUpperGo(z, d)
			if ok != wok || (ok && math.Float64bits(m) != math.Float64bits(wm)) {
				t.Fatalf("d=%d kind %d: MaxAbsUpper %v, %v; plain loops %v, %v", d, kind, m, ok, wm, wok)
			}
			if kind == 0 {
				f := math.Ldexp(1, -r.IntN(2000)+1000)
				got, want := append([]float64(nil), z...), append([]float64(nil), z...)
				ScaleUpper(got, d, f)
				scaleUpperGo(want, d, f)
				for k := range got {
					if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
						t.Fatalf("d=%d: ScaleUpper entry %d = %v, plain loops %v", d, k, got[k], want[k])
					}
				}
			}
		}
	}
}
