package dense

import (
	"math"
	"testing"
	"unsafe"
)

// TestChol4MatchesCholLower checks that each lane of chol4On's plain path,
// its Go model of the assembly path (chol4PairGo) and, on a CPU with AVX2
// and FMA, chol4Vec, and Chol4 give the log-determinant of (X+Y_q)/2 bit for bit
// as the matching path of cholLowerOn does, for d = 1..50 and 62..64, 127 and
// 128 (logProd renormalises after 63 pivots) and random, badly scaled and
// condition 1e10 matrices, and leave the same factor.
func TestChol4MatchesCholLower(t *testing.T) {
	type path struct {
		name string
		run  func(l, x, h []float64, d int) ([4]float64, bool)
		vec  bool // the path of cholLowerOn to match
	}
	paths := []path{
		{"plain", func(l, x, h []float64, d int) ([4]float64, bool) { return chol4On(l, x, h, d, false) }, false},
		{"vec/Go", func(l, x, h []float64, d int) ([4]float64, bool) { return chol4On(l, x, h, d, true) }, true},
		{"Chol4", Chol4, false},
	}
	if haveFMA {
		paths = append(paths, path{"vec/AVX", chol4Vec, true})
	}
	sizes := []int{62, 63, 64, 127, 128}
	for d := 1; d <= 50; d++ {
		sizes = append(sizes, d)
	}
	for _, d := range sizes {
		for k, kind := range kinds {
			r := newRand(uint64(1000*d + k))
			x := ofKind(r, d, kind)
			var ys [4][]float64
			for q := range ys {
				ys[q] = ofKind(r, d, kind)
			}
			l, h := make([]float64, 4*d*d), make([]float64, 4*d*d)
			PackHalf4(h, ys[0], ys[1], ys[2], ys[3], d)
			for _, p := range paths {
				vec := p.vec || p.name == "Chol4" && haveFMA && d >= vecMinD
				if vec && !haveFMA {
					// The assembly path's reference needs dot2AVX;
					// chol4PairGo is still checked against the plain
					// path's pivots below.
					continue
				}
				clear(l)
				got, ok := p.run(l, x, h, d)
				if !ok {
					t.Fatalf("d=%d %s %s: refused", d, kind, p.name)
				}
				for q := range 4 {
					lq := make([]float64, d*d)
					want, ok := cholLowerOn(lq, x, ys[q], d, vec)
					if !ok {
						t.Fatalf("d=%d %s: reference refuses lane %d", d, kind, q)
					}
					if got[q] != want {
						t.Errorf("d=%d %s %s lane %d: log det %.17g, want %.17g", d, kind, p.name, q, got[q], want)
					}
					for i := range d {
						for j := 0; j <= i; j++ {
							if g, w := l[4*(i*d+j)+q], lq[i*d+j]; g != w {
								t.Fatalf("d=%d %s %s lane %d: L[%d][%d] = %v, want %v", d, kind, p.name, q, i, j, g, w)
							}
						}
					}
				}
			}
		}
	}
}

// TestChol4Edges checks Chol4's paths on lanes that CholLower refuses (not
// positive definite, a NaN entry, a pivot below PivotTol) and on lanes
// whose pivots are subnormal, which chol4Vec hands to chol4On: the same
// refusals, and otherwise the same log-determinants bit for bit, for d
// on both sides of vecMinD.
func TestChol4Edges(t *testing.T) {
	paths := map[string]func(l, x, h []float64, d int) ([4]float64, bool){
		"plain":  func(l, x, h []float64, d int) ([4]float64, bool) { return chol4On(l, x, h, d, false) },
		"vec/Go": func(l, x, h []float64, d int) ([4]float64, bool) { return chol4On(l, x, h, d, true) },
		"Chol4":  Chol4,
	}
	if haveFMA {
		paths["vec/AVX"] = chol4Vec
	}
	// lane returns Y for the odd lane of a case from the random SPD y.
	cases := []struct {
		name string
		lane func(y []float64, d int) []float64
	}{
		{"indefinite", func(y []float64, d int) []float64 {
			y[(d-1)*d+d-1] = -y[(d-1)*d+d-1]
			return y
		}},
		{"NaN", func(y []float64, d int) []float64 {
			y[d/2*d+d-1] = math.NaN()
			return y
		}},
		{"below tol", func(y []float64, d int) []float64 {
			// Y = 2B − X for a B whose rows 0 and 1 are equal: A = B
			// but for round-off, its second pivot far below PivotTol.
			r := newRand(uint64(d) + 1)
			b := spdOf(r, d, 1)
			for j := range d {
				b[d+j] = b[j]
				b[j*d+1] = b[j*d]
			}
			x := spdOf(newRand(uint64(d)), d, 1)
			for i := range y {
				y[i] = 2*b[i] - x[i]
			}
			return y
		}},
		{"subnormal", func(y []float64, d int) []float64 {
			for i := range y {
				y[i] *= 0x1p-1060
			}
			return y
		}},
	}
	for _, d := range []int{5, 12, 13, 17, 43} {
		for _, c := range cases {
			r := newRand(uint64(d))
			x := spdOf(r, d, 1)
			if c.name == "subnormal" {
				for i := range x {
					x[i] *= 0x1p-1060
				}
			}
			var ys [4][]float64
			for q := range ys {
				ys[q] = spdOf(r, d, 1)
				if q == 1 || c.name == "subnormal" {
					ys[q] = c.lane(ys[q], d)
				}
			}
			h := make([]float64, 4*d*d)
			PackHalf4(h, ys[0], ys[1], ys[2], ys[3], d)
			for name, run := range paths {
				vec := name != "plain" && (name != "Chol4" || haveFMA && d >= vecMinD)
				if vec && !haveFMA {
					continue
				}
				got, ok := run(make([]float64, 4*d*d), x, h, d)
				var want [4]float64
				wantOK := true
				for q := range 4 {
					v, okq := cholLowerOn(make([]float64, d*d), x, ys[q], d, vec)
					want[q], wantOK = v, wantOK && okq
				}
				if ok != wantOK {
					t.Fatalf("d=%d %s %s: ok = %v, CholLower's %v", d, c.name, name, ok, wantOK)
				}
				if ok && got != want {
					t.Errorf("d=%d %s %s: log dets %v, want %v", d, c.name, name, got, want)
				}
			}
		}
	}
}

// TestChol4StateLayout checks the offsets that chol4_amd64.s uses.
func TestChol4StateLayout(t *testing.T) {
	var s chol4State
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"c", unsafe.Offsetof(s.c), 0}, {"cn", unsafe.Offsetof(s.cn), 96},
		{"s", unsafe.Offsetof(s.s), 192}, {"qs", unsafe.Offsetof(s.qs), 288},
		{"m", unsafe.Offsetof(s.m), 384}, {"e", unsafe.Offsetof(s.e), 416},
		{"n", unsafe.Offsetof(s.n), 448}, {"tol", unsafe.Offsetof(s.tol), 456},
		{"i", unsafe.Offsetof(s.i), 464}, {"p", unsafe.Offsetof(s.p), 472},
		{"cont", unsafe.Offsetof(s.cont), 480}, {"done", unsafe.Offsetof(s.done), 488},
		{"rows", unsafe.Offsetof(s.rows), 496}, {"save", unsafe.Offsetof(s.save), 504},
	} {
		if f.got != f.want {
			t.Errorf("chol4State.%s at %d, chol4_amd64.s says %d", f.name, f.got, f.want)
		}
	}
}

// TestPackHalf4 checks PackHalf4 against its definition for d = 1..20:
// h[4(i·d+j)+q] = ½·y_q[i·d+j] on the upper triangle, nothing written
// below it.
func TestPackHalf4(t *testing.T) {
	for d := 1; d <= 20; d++ {
		r := newRand(uint64(d))
		var ys [4][]float64
		for q := range ys {
			ys[q] = make([]float64, d*d)
			for k := range ys[q] {
				ys[q][k] = r.NormFloat64()
			}
		}
		h := make([]float64, 4*d*d)
		for k := range h {
			h[k] = 42
		}
		PackHalf4(h, ys[0], ys[1], ys[2], ys[3], d)
		for i := range d {
			for j := range d {
				for q := range 4 {
					want := 42.0
					if j >= i {
						want = 0.5 * ys[q][i*d+j]
					}
					if got := h[4*(i*d+j)+q]; got != want {
						t.Fatalf("d=%d: h[4(%d·d+%d)+%d] = %v, want %v", d, i, j, q, got, want)
					}
				}
			}
		}
	}
}

// TestKernelsAllocateNothing checks that the factorisations of a Stein
// entry and of a Stein block's four lanes, and the packing of the lanes,
// allocate nothing, at sizes on both sides of vecMinD.
func TestKernelsAllocateNothing(t *testing.T) {
	for _, d := range []int{5, 17, 43} {
		r := newRand(uint64(d))
		x, y := spdOf(r, d, 1), spdOf(r, d, 1)
		l, h, l4 := make([]float64, d*d), make([]float64, 4*d*d), make([]float64, 4*d*d)
		for name, f := range map[string]func(){
			"CholLower": func() { CholLower(l, x, y, d) },
			"PackHalf4": func() { PackHalf4(h, y, y, y, y, d) },
			"Chol4":     func() { Chol4(l4, x, h, d) },
		} {
			if n := testing.AllocsPerRun(20, f); n != 0 {
				t.Errorf("d=%d %s: %v allocations per call, want 0", d, name, n)
			}
		}
	}
}
