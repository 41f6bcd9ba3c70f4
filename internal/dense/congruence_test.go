package dense

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestCongruenceW checks W S Wᵀ with W = L⁻¹ against Congruence, on
// several matrices S, and that L P Lᵀ gives S back.
func TestCongruenceW(t *testing.T) {
	for _, c := range []struct{ d, n int }{{1, 1}, {3, 5}, {4, 2}, {5, 3}, {17, 4}, {43, 3}} {
		t.Run(fmt.Sprintf("d=%d/n=%d", c.d, c.n), func(t *testing.T) {
			d, n, dd := c.d, c.n, c.d*c.d
			rng := rand.New(rand.NewPCG(uint64(d), uint64(n)))
			l := make([]float64, dd)
			for i := range d {
				for j := range i {
					l[i*d+j] = rng.NormFloat64()
				}
				l[i*d+i] = 1 + rng.Float64()
			}
			s := make([]float64, n*dd)
			for k := range n {
				b := s[k*dd : (k+1)*dd]
				for i := range d {
					for j := range i + 1 {
						v := rng.NormFloat64()
						b[i*d+j], b[j*d+i] = v, v
					}
				}
			}
			w, tmp := make([]float64, dd), make([]float64, dd)
			InverseLower(w, l, tmp, d)
			p, want, scratch := make([]float64, dd), make([]float64, dd), make([]float64, dd)
			for k := range n {
				Congruence(want, s[k*dd:(k+1)*dd], l, scratch, d)
				CongruenceW(p, s[k*dd:(k+1)*dd], w, tmp, d)
				for i, w := range want {
					if math.Abs(p[i]-w) > 1e-9*(1+math.Abs(w)) {
						t.Fatalf("block %d entry %d: %v, Congruence gives %v", k, i, p[i], w)
					}
				}
				// L P Lᵀ = S.
				for i := range d {
					for j := range d {
						var v float64
						for a := range d {
							for b := range d {
								v += l[i*d+a] * p[a*d+b] * l[j*d+b]
							}
						}
						if sv := s[k*dd+i*d+j]; math.Abs(v-sv) > 1e-8*(1+math.Abs(sv)) {
							t.Fatalf("block %d: (L P Lᵀ)[%d,%d] = %v, want S's %v", k, i, j, v, sv)
						}
					}
				}
			}
		})
	}
}
