package dense

import (
	"math"
	"testing"
	"unsafe"
)

// lanePath is one way of factorising w lane-interleaved matrices: its
// log-determinants into out (len(out) = w), false when a pivot fails.
type lanePath struct {
	name string
	w    int
	run  func(l, x, h []float64, d int, out []float64) bool
	vec  func(d int) bool // whether the path of cholLowerOn to match is the assembly one
}

// lanePaths returns every path of Chol4 and Chol8: cholLanesOn's plain
// path and its Go model of the assembly path (cholLanesPairGo), on four
// and eight lanes, Chol4 and Chol8 as they choose, and, on CPUs that have
// them, chol4Vec (AVX2 and FMA) and chol8Vec (AVX-512).
func lanePaths() []lanePath {
	never := func(int) bool { return false }
	always := func(int) bool { return true }
	chosen := func(d int) bool { return haveFMA && d >= vecMinD }
	var ps []lanePath
	for _, w := range []int{4, 8} {
		ps = append(ps,
			lanePath{"plain", w, func(l, x, h []float64, d int, out []float64) bool { return cholLanesOn(l, x, h, d, false, out) }, never},
			lanePath{"vec/Go", w, func(l, x, h []float64, d int, out []float64) bool { return cholLanesOn(l, x, h, d, true, out) }, always})
	}
	ps = append(ps,
		lanePath{"Chol4", 4, func(l, x, h []float64, d int, out []float64) bool {
			ld, ok := Chol4(l, x, h, d)
			copy(out, ld[:])
			return ok
		}, chosen},
		lanePath{"Chol8", 8, func(l, x, h []float64, d int, out []float64) bool {
			ld, ok := Chol8(l, x, h, d)
			copy(out, ld[:])
			return ok
		}, chosen})
	if haveFMA {
		ps = append(ps, lanePath{"vec/AVX2", 4, chol4Vec, always})
	}
	if have512 {
		ps = append(ps, lanePath{"vec/AVX-512", 8, func(l, x, h []float64, d int, out []float64) bool {
			return chol8Vec(l, x, h, d, (*[8]float64)(out))
		}, always})
	}
	return ps
}

// packLanes packs the halves of ys (4 or 8 of them) for Chol4 or Chol8.
func packLanes(h []float64, ys [][]float64, d int) {
	if len(ys) == 4 {
		PackHalf4(h, ys[0], ys[1], ys[2], ys[3], d)
		return
	}
	PackHalf8(h, (*[8][]float64)(ys), d)
}

// TestChol4MatchesCholLower checks that each lane of every path of
// Chol4 and Chol8 (lanePaths) gives the log-determinant of (X+Y_q)/2 bit
// for bit as the matching path of cholLowerOn does, for d = 1..50 and
// 62..64, 127 and 128 (logProd renormalises after 63 pivots) and random,
// badly scaled and condition 1e10 matrices, and leaves the same factor.
func TestChol4MatchesCholLower(t *testing.T) {
	sizes := []int{62, 63, 64, 127, 128}
	for d := 1; d <= 50; d++ {
		sizes = append(sizes, d)
	}
	for _, d := range sizes {
		for k, kind := range kinds {
			r := newRand(uint64(1000*d + k))
			x := ofKind(r, d, kind)
			ys := make([][]float64, 8)
			for q := range ys {
				ys[q] = ofKind(r, d, kind)
			}
			var want [2][8]float64 // plain, vec
			var lq [2][8][]float64
			for v := range 2 {
				if v == 1 && !haveFMA {
					// The assembly path's reference needs dot2AVX;
					// cholLanesPairGo is still checked against the
					// plain path's pivots below.
					continue
				}
				for q := range 8 {
					lq[v][q] = make([]float64, d*d)
					var ok bool
					want[v][q], ok = cholLowerOn(lq[v][q], x, ys[q], d, v == 1)
					if !ok {
						t.Fatalf("d=%d %s: reference refuses lane %d", d, kind, q)
					}
				}
			}
			for _, p := range lanePaths() {
				v := 0
				if p.vec(d) {
					v = 1
				}
				if v == 1 && !haveFMA {
					continue
				}
				l, h := make([]float64, p.w*d*d), make([]float64, p.w*d*d)
				packLanes(h, ys[:p.w], d)
				got := make([]float64, p.w)
				if !p.run(l, x, h, d, got) {
					t.Fatalf("d=%d %s %s/%d: refused", d, kind, p.name, p.w)
				}
				for q := range p.w {
					if got[q] != want[v][q] {
						t.Errorf("d=%d %s %s/%d lane %d: log det %.17g, want %.17g", d, kind, p.name, p.w, q, got[q], want[v][q])
					}
					for i := range d {
						for j := 0; j <= i; j++ {
							if g, w := l[p.w*(i*d+j)+q], lq[v][q][i*d+j]; g != w {
								t.Fatalf("d=%d %s %s/%d lane %d: L[%d][%d] = %v, want %v", d, kind, p.name, p.w, q, i, j, g, w)
							}
						}
					}
				}
			}
		}
	}
}

// TestChol4Edges checks every path of Chol4 and Chol8 on lanes that
// CholLower refuses (not positive definite, a NaN entry, a pivot below
// PivotTol) and on lanes whose pivots are subnormal, which chol4Vec and
// chol8Vec hand to cholLanesOn: the same refusals, and otherwise the same
// log-determinants bit for bit, for d on both sides of vecMinD, the odd
// lane the one that differs.
func TestChol4Edges(t *testing.T) {
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
			for _, odd := range []int{1, 6} {
				r := newRand(uint64(d))
				x := spdOf(r, d, 1)
				if c.name == "subnormal" {
					for i := range x {
						x[i] *= 0x1p-1060
					}
				}
				ys := make([][]float64, 8)
				for q := range ys {
					ys[q] = spdOf(r, d, 1)
					if q == odd || c.name == "subnormal" {
						ys[q] = c.lane(ys[q], d)
					}
				}
				for _, p := range lanePaths() {
					if odd >= p.w {
						continue
					}
					vec := p.vec(d)
					if vec && !haveFMA {
						continue
					}
					h := make([]float64, p.w*d*d)
					packLanes(h, ys[:p.w], d)
					got := make([]float64, p.w)
					ok := p.run(make([]float64, p.w*d*d), x, h, d, got)
					want := make([]float64, p.w)
					wantOK := true
					for q := range p.w {
						v, okq := cholLowerOn(make([]float64, d*d), x, ys[q], d, vec)
						want[q], wantOK = v, wantOK && okq
					}
					if ok != wantOK {
						t.Fatalf("d=%d %s lane %d %s/%d: ok = %v, CholLower's %v", d, c.name, odd, p.name, p.w, ok, wantOK)
					}
					if ok {
						for q := range p.w {
							if got[q] != want[q] {
								t.Errorf("d=%d %s %s/%d: log dets %v, want %v", d, c.name, p.name, p.w, got, want)
								break
							}
						}
					}
				}
			}
		}
	}
}

// offset is a field's offset as Go lays it out and as an assembly file
// names it.
type offset struct {
	name      string
	got, want uintptr
}

// TestChol4StateLayout checks the offsets that chol4_amd64.s and
// chol8_amd64.s use.
func TestChol4StateLayout(t *testing.T) {
	var s chol4State
	var s8 chol8State
	for file, fields := range map[string][]offset{
		"chol4_amd64.s": {
			{"c", unsafe.Offsetof(s.c), 0}, {"cn", unsafe.Offsetof(s.cn), 96},
			{"s", unsafe.Offsetof(s.s), 192}, {"qs", unsafe.Offsetof(s.qs), 288},
			{"m", unsafe.Offsetof(s.m), 384}, {"e", unsafe.Offsetof(s.e), 416},
			{"n", unsafe.Offsetof(s.n), 448}, {"tol", unsafe.Offsetof(s.tol), 456},
			{"i", unsafe.Offsetof(s.i), 464}, {"p", unsafe.Offsetof(s.p), 472},
			{"cont", unsafe.Offsetof(s.cont), 480}, {"done", unsafe.Offsetof(s.done), 488},
			{"rows", unsafe.Offsetof(s.rows), 496}, {"save", unsafe.Offsetof(s.save), 504},
		},
		"chol8_amd64.s": {
			{"cn", unsafe.Offsetof(s8.cn), 0},
			{"s", unsafe.Offsetof(s8.s), 192}, {"qs", unsafe.Offsetof(s8.qs), 384},
			{"m", unsafe.Offsetof(s8.m), 576}, {"e", unsafe.Offsetof(s8.e), 640},
			{"n", unsafe.Offsetof(s8.n), 704}, {"tol", unsafe.Offsetof(s8.tol), 712},
			{"i", unsafe.Offsetof(s8.i), 720}, {"p", unsafe.Offsetof(s8.p), 728},
			{"cont", unsafe.Offsetof(s8.cont), 736}, {"done", unsafe.Offsetof(s8.done), 744},
			{"rows", unsafe.Offsetof(s8.rows), 752}, {"save", unsafe.Offsetof(s8.save), 760},
		},
	} {
		for _, f := range fields {
			if f.got != f.want {
				t.Errorf("state field %s at %d, %s says %d", f.name, f.got, file, f.want)
			}
		}
	}
}

// TestPackHalf4 checks PackHalf4 and PackHalf8 against their definition
// for d = 1..20: h[w(i·d+j)+q] = ½·y_q[i·d+j] on the upper triangle,
// nothing written below it.
func TestPackHalf4(t *testing.T) {
	for d := 1; d <= 20; d++ {
		for _, w := range []int{4, 8} {
			r := newRand(uint64(d))
			ys := make([][]float64, w)
			for q := range ys {
				ys[q] = make([]float64, d*d)
				for k := range ys[q] {
					ys[q][k] = r.NormFloat64()
				}
			}
			h := make([]float64, w*d*d)
			for k := range h {
				h[k] = 42
			}
			packLanes(h, ys, d)
			for i := range d {
				for j := range d {
					for q := range w {
						want := 42.0
						if j >= i {
							want = 0.5 * ys[q][i*d+j]
						}
						if got := h[w*(i*d+j)+q]; got != want {
							t.Fatalf("d=%d w=%d: h[%d(%d·d+%d)+%d] = %v, want %v", d, w, w, i, j, q, got, want)
						}
					}
				}
			}
		}
	}
}

// TestKernelsAllocateNothing checks that the factorisations of a Stein
// entry and of a Stein block's four and eight lanes, and the packing of
// the lanes, allocate nothing, at sizes on both sides of vecMinD.
func TestKernelsAllocateNothing(t *testing.T) {
	for _, d := range []int{5, 17, 43} {
		r := newRand(uint64(d))
		x, y := spdOf(r, d, 1), spdOf(r, d, 1)
		l, h, l4 := make([]float64, d*d), make([]float64, 4*d*d), make([]float64, 4*d*d)
		h8, l8 := make([]float64, 8*d*d), make([]float64, 8*d*d)
		ys := [8][]float64{y, y, y, y, y, y, y, y}
		for name, f := range map[string]func(){
			"CholLower": func() { CholLower(l, x, y, d) },
			"PackHalf4": func() { PackHalf4(h, y, y, y, y, d) },
			"Chol4":     func() { Chol4(l4, x, h, d) },
			"PackHalf8": func() { PackHalf8(h8, &ys, d) },
			"Chol8":     func() { Chol8(l8, x, h8, d) },
		} {
			if n := testing.AllocsPerRun(20, f); n != 0 {
				t.Errorf("d=%d %s: %v allocations per call, want 0", d, name, n)
			}
		}
	}
}
