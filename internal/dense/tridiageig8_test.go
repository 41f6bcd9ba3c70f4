package dense

import (
	"math"
	"testing"
	"unsafe"
)

// tridiagCase returns a random symmetric tridiagonal matrix of size n of
// one of the kinds of TestPWKMatchesDsterf (0..3), or with entries beyond
// pwk's range (4: TridiagEigen's fallback to Dsterf), or of G's kind
// (5: the tridiagonal form of a Gram matrix of a random SPD pair).
func tridiagCase(n, kind int, seed uint64) (d, e []float64) {
	r := newRand(seed)
	d, e = make([]float64, n), make([]float64, max(n-1, 0))
	for i := range n {
		d[i] = r.Float64()*2 - 1
		x := r.Float64()*2 - 1
		switch kind {
		case 1, 2:
			g := math.Pow(10, -12*float64(i)/float64(n))
			if kind == 2 {
				g = math.Pow(10, -12*float64(n-1-i)/float64(n))
			}
			d[i] = math.Abs(d[i]) * g
			x *= g
		case 3:
			d[i] = float64(i / 4)
			x *= 1e-3
		case 4:
			d[i] *= 1e70
			x *= 1e70
		}
		if i < n-1 {
			e[i] = x
		}
	}
	if kind == 5 && n > 0 {
		x, y := spdOf(r, n, 2), spdOf(r, n, 2)
		l, m, z, g := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		CholLower(l, x, nil, n)
		CholLower(m, y, nil, n)
		SolveLowerT(z, l, m, make([]float64, n), n)
		GramUpperT(g, z, n)
		off := make([]float64, n)
		Tridiagonalize(g, n, d, off, make([]float64, n), make([]float64, n))
		copy(e, off)
	}
	return d, e
}

// TestTridiagEigen8BitForBit runs TridiagEigen8, its AVX-512 kernel and
// its Go model, on eight problems of one size n = 1..50 of mixed kinds
// (both QL and QR blocks, one and two sweeps at once, clusters, and the
// fallback's: a lane beyond pwk's range), and requires each lane's
// eigenvalues to be TridiagEigen's bit for bit.
func TestTridiagEigen8BitForBit(t *testing.T) {
	paths := []bool{false}
	if have512 {
		paths = append(paths, true)
	}
	for n := 1; n <= 50; n++ {
		for round := range 3 {
			var d0, e0 [8][]float64
			diag, off := make([]float64, 8*n), make([]float64, 8*n)
			for p := range 8 {
				kind := (p + round) % 6
				d0[p], e0[p] = tridiagCase(n, kind, uint64(1000*n+10*round+p))
			}
			for _, asm := range paths {
				for p := range 8 {
					copy(diag[p*n:], d0[p])
					copy(off[p*n:], e0[p])
				}
				var ok [8]bool
				tridiagEigen8On(diag, off, n, make([]float64, 16*n), &ok, asm)
				for p := range 8 {
					wd, we := append([]float64(nil), d0[p]...), append([]float64(nil), e0[p]...)
					want := TridiagEigen(wd, we, make([]float64, 2*n))
					if ok[p] != want {
						t.Fatalf("n=%d round %d asm %v: lane %d: ok %v, TridiagEigen %v", n, round, asm, p, ok[p], want)
					}
					for i, v := range wd {
						if math.Float64bits(diag[p*n+i]) != math.Float64bits(v) {
							t.Fatalf("n=%d round %d asm %v: lane %d (kind %d): λ_%d = %v, TridiagEigen %v", n, round, asm, p, (p+round)%6, i, diag[p*n+i], v)
						}
					}
				}
			}
		}
	}
}

// TestPWK8StateLayout checks the offsets of pwk8State that
// tridiageig8_amd64.s uses.
func TestPWK8StateLayout(t *testing.T) {
	var st pwk8State
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"x1", unsafe.Offsetof(st.x1), 0}, {"last", unsafe.Offsetof(st.last), 704},
		{"sig", unsafe.Offsetof(st.sig), 768}, {"p2", unsafe.Offsetof(st.p2), 1344},
		{"pd", unsafe.Offsetof(st.pd), 1408}, {"pe", unsafe.Offsetof(st.pe), 1472},
		{"qr", unsafe.Offsetof(st.qr), 1536}, {"dbl", unsafe.Offsetof(st.dbl), 1544},
		{"active", unsafe.Offsetof(st.active), 1552},
	} {
		if c.got != c.want {
			t.Errorf("pwk8State.%s at %d, tridiageig8_amd64.s has %d", c.name, c.got, c.want)
		}
	}
}
