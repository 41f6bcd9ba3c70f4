package dense

import "math"

// Four or eight Cholesky factorisations at once.
//
// At d = 17 a single CholLower is bound by latency, not arithmetic: each
// column pair's pivots need square roots and divisions that wait for the
// previous pair, and its dot products are too short to fill the machine.
// Chol4 factorises four matrices A_q = ½X + ½Y_q that share X together,
// lane-interleaved: element (i, j) of the four matrices is stored as four
// consecutive float64s. The four pivot chains then overlap, and with AVX2
// each step of the factorisation is one vector operation on the four
// lanes. Chol8 does the same for eight matrices in AVX-512's registers:
// the same floating-point rate on a core that executes them in two
// halves, for half the instructions per matrix, and twice the registers,
// which hold a tile of three rows' dot products.
//
// Each lane performs exactly the floating-point operations of CholLower on
// its matrix, in the same order: cholLanesOn's plain path those of
// cholLowerOn's, its assembly path those of cholLowerVec (dot2AVX's four
// partial sums per dot product, added pairwise, become four accumulators
// per lane). The log-determinants are therefore CholLower's bit for bit,
// and so are its SPD-enough decisions.

// PackHalf4 writes ½Y_q, q < 4, into h lane-interleaved: h[4(i·d+j)+q] =
// ½·y_q[i·d+j] for the upper triangle j >= i of the row-major d×d y_q
// (h has 4·d·d float64s). The halving is CholLower's, so that ½x + h_q is
// its A = (X+Y_q)/2 exactly. On a CPU with AVX2 it takes four entries of
// a row at a time in assembly (packHalfAVX).
func PackHalf4(h, y0, y1, y2, y3 []float64, d int) {
	n := d * d
	h = h[:4*n]
	y0, y1, y2, y3 = y0[:n], y1[:n], y2[:n], y3[:n]
	if haveFMA && n > 0 {
		packHalfAVX(&h[0], &y0[0], &y1[0], &y2[0], &y3[0], d, 32)
		return
	}
	ys := [...][]float64{y0, y1, y2, y3}
	packHalfGo(h, ys[:], d)
}

// PackHalf8 is PackHalf4 for eight lanes, the halves of Chol8's
// matrices: h[8(i·d+j)+q] = ½·y[q][i·d+j] for j >= i, q < 8 (h has
// 8·d·d float64s).
func PackHalf8(h []float64, y *[8][]float64, d int) {
	n := d * d
	h = h[:8*n]
	var ys [8][]float64
	for q := range ys {
		ys[q] = y[q][:n]
	}
	if haveFMA && n > 0 {
		packHalfAVX(&h[0], &ys[0][0], &ys[1][0], &ys[2][0], &ys[3][0], d, 64)
		packHalfAVX(&h[4], &ys[4][0], &ys[5][0], &ys[6][0], &ys[7][0], d, 64)
		return
	}
	packHalfGo(h, ys[:], d)
}

// packHalfGo is PackHalf4's and PackHalf8's loop for len(ys) lanes.
func packHalfGo(h []float64, ys [][]float64, d int) {
	w := len(ys)
	for i := range d {
		for o := i*d + i; o < i*d+d; o++ {
			for q, y := range ys {
				h[w*o+q] = 0.5 * y[o]
			}
		}
	}
}

// Chol4 factorises the four matrices A_q = ½x + h_q, q < 4, for the
// row-major d×d x and h as PackHalf4 leaves it, into the lane-interleaved
// l (L_jk of lane q at 4(j·d+k)+q, lower triangle; 4·d·d float64s), and
// returns their log-determinants: bit for bit CholLower(·, x, y_q, d)'s,
// on the path CholLower takes (the assembly path for d >= vecMinD on a
// CPU with AVX2 and FMA). It returns false when a pivot of any of the
// four fails CholLower's SPD-enough test. d <= PlainMaxD.
func Chol4(l, x, h []float64, d int) ([4]float64, bool) {
	var out [4]float64
	var ok bool
	if haveFMA && d >= vecMinD {
		ok = chol4Vec(l, x, h, d, out[:])
	} else {
		ok = cholLanesOn(l, x, h, d, false, out[:])
	}
	return out, ok
}

// Chol8 is Chol4 for eight matrices, h as PackHalf8 leaves it and l
// lane-interleaved by eight (8·d·d float64s): bit for bit
// CholLower(·, x, y_q, d)'s log-determinants, on the path CholLower
// takes. Its assembly kernel needs AVX-512; elsewhere it runs the Go
// model, and Lanes tells callers to take Chol4.
func Chol8(l, x, h []float64, d int) ([8]float64, bool) {
	var out [8]float64
	var ok bool
	if have512 && d >= vecMinD {
		ok = chol8Vec(l, x, h, d, &out)
	} else {
		ok = cholLanesOn(l, x, h, d, haveFMA && d >= vecMinD, out[:])
	}
	return out, ok
}

// Lanes returns how many matrices a caller should factorise at once at
// size d: 8 where Chol8 runs its AVX-512 kernel (d >= vecMinD on a CPU
// with AVX-512 F), 4 elsewhere.
func Lanes(d int) int {
	if have512 && d >= vecMinD {
		return 8
	}
	return 4
}

// chol4Vec is Chol4's assembly path: the whole factorisation in one call
// of chol4AVX, the pivots of the four lanes as vectors too (square roots
// and divisions are correctly rounded, lane by lane as one by one, and
// every other operation is pivotPair's, unfused, in its order), and each
// pair's next pivots computed as soon as their two rows are, so that
// their serial chain of square roots and divisions overlaps the rows
// below. A subnormal pivot, whose mantissa and exponent logProd takes
// from math.Frexp, hands the factorisation to cholLanesOn's Go model.
func chol4Vec(l, x, h []float64, d int, out []float64) bool {
	n := d * d
	l, x, h = l[:4*n], x[:n], h[:4*n]
	st := chol4State{m: [4]float64{1, 1, 1, 1}, tol: PivotTol(d)}
	switch chol4AVX(&l[0], &x[0], &h[0], d, &st) {
	case 0:
	case 1:
		return false
	default:
		return cholLanesOn(l, x, h, d, true, out)
	}
	logDets(st.m[:], st.e[:], out)
	return true
}

// chol8Vec is Chol8's assembly path, chol4Vec's on eight lanes in
// chol8AVX512.
func chol8Vec(l, x, h []float64, d int, out *[8]float64) bool {
	n := d * d
	l, x, h = l[:8*n], x[:n], h[:8*n]
	st := chol8State{m: [8]float64{1, 1, 1, 1, 1, 1, 1, 1}, tol: PivotTol(d)}
	switch chol8AVX512(&l[0], &x[0], &h[0], d, &st) {
	case 0:
	case 1:
		return false
	default:
		return cholLanesOn(l, x, h, d, true, out[:])
	}
	logDets(st.m[:], st.e[:], out[:])
	return true
}

// logDets sets out[q] to the logarithm of the logProd of mantissa m[q]
// and exponent e[q] that the kernels leave in their states.
func logDets(m []float64, e []int64, out []float64) {
	for q := range out {
		ld := logProd{m: m[q], e: int(e[q])}
		out[q] = ld.log()
	}
}

// chol4State is chol4AVX's working state; chol4_amd64.s names its
// offsets (TestChol4StateLayout checks them).
type chol4State struct {
	c, cn [3][4]float64 // 1/L_ii, 1/L_{i+1,i+1}, L_{i+1,i} of the current and the next pair
	s, qs [3][4]float64 // the next pivots' sums over k < i+2, and over k < i
	m     [4]float64    // the lanes' logProd: mantissas,
	e     [4]int64      // exponents
	n     int           // and factors since the last renormalisation
	tol   float64       // PivotTol(d)
	i, p  int           // the current pair; the column whose pivots are taken
	cont  int           // where the pivots return: 0 the start, 1 the rows
	done  int           // the current pair's next pivots are taken
	rows  int           // rows below the current pair
	save  [6]int        // the loop's registers while the pivots run
}

// chol8State is chol8AVX512's, chol4State on eight lanes; chol8_amd64.s
// names its offsets (TestChol4StateLayout checks them).
type chol8State struct {
	cn, s, qs [3][8]float64
	m         [8]float64
	e         [8]int64
	n         int
	tol       float64
	i, p      int
	cont      int
	done      int
	rows      int
	save      [4]int
}

// maxLanes is the most lanes of the Go model.
const maxLanes = 8

// cholLanesOn is Chol4 and Chol8 in Go for w = len(out) lanes (L_jk of
// lane q at w(j·d+k)+q), on the path of cholLowerOn's for vec: the plain
// path or, with vec, the lanes of the assembly paths' arithmetic, the
// rows below each column pair in cholLanesPairGo (math.FMA for the fused
// multiply-adds).
//
// The plain path performs, lane by lane, the operations of cholLowerOn's
// plain path for each column pair, in the same order (cholLanesGoPair);
// the lanes' column pairs are independent, so the processor overlaps one
// lane's pivots with another's dot products. The vec path takes the
// pivots lane by lane, written as cholLowerVec writes them, and keeps
// dot2AVX's summation order in each lane.
func cholLanesOn(l, x, h []float64, d int, vec bool, out []float64) bool {
	w := len(out)
	n := d * d
	l, x, h = l[:w*n], x[:n], h[:w*n]
	tol := PivotTol(d)
	var ld [maxLanes]logProd
	for q := range w {
		ld[q].m = 1
	}
	var s00, s01, s11 [maxLanes]float64 // Σ_{k<i} of L_ik², L_ik L_{i+1,k}, L_{i+1,k}², per lane
	i := 0
	if !vec {
		for ; i+1 < d; i += 2 {
			for q := range w {
				if !cholLanesGoPair(l, x, h, d, w, i, q, tol, &ld[q], &s00[q], &s01[q], &s11[q]) {
					return false
				}
			}
		}
		return cholLanesFinish(l, x, h, d, i, tol, &ld, &s00, out)
	}
	var c, qs [3][maxLanes]float64 // 1/L_ii, 1/L_{i+1,i+1}, L_{i+1,i}; the next pivots' dot products
	for ; i+1 < d; i += 2 {
		i1 := i + 1
		oi, o1 := i*d, i1*d
		for q := range w {
			a00 := 0.5*x[oi+i] + h[w*(oi+i)+q]
			p0 := a00 - s00[q]
			b := 0.5*x[oi+i1] + h[w*(oi+i1)+q] - s01[q]
			a11 := 0.5*x[o1+i1] + h[w*(o1+i1)+q]
			l00, l10, l11, inv0, inv1, p1, ok := pivotPair(a00, p0, b, a11, s11[q], tol)
			if !ok {
				return false
			}
			l[w*(oi+i)+q] = l00
			l[w*(o1+i)+q] = l10
			l[w*(o1+i1)+q] = l11
			ld[q].mul(p0)
			ld[q].mul(p1)
			c[0][q], c[1][q], c[2][q] = inv0, inv1, l10
		}
		m := d - i - 2 // rows i+2 on
		if m <= 0 {
			continue
		}
		cholLanesPairGo(l, x, h, d, w, i, &c, &qs)
		o2 := w * (oi + 2*d)
		for q := range w {
			lj0, lj1 := l[o2+w*i+q], l[o2+w*i1+q]
			s00[q] = qs[0][q] + lj0*lj0 + lj1*lj1
			if m >= 2 {
				lk0, lk1 := l[o2+w*d+w*i+q], l[o2+w*d+w*i1+q]
				s01[q] = qs[1][q] + lj0*lk0 + lj1*lk1
				s11[q] = qs[2][q] + lk0*lk0 + lk1*lk1
			}
		}
	}
	return cholLanesFinish(l, x, h, d, i, tol, &ld, &s00, out)
}

// cholLanesGoPair is one column pair i, i+1 of the plain path for lane q
// of cholLanesOn's w, the sums of the pair's pivots in s00, s01, s11 on
// entry and the next pair's on return.
func cholLanesGoPair(l, x, h []float64, d, w, i, q int, tol float64, ld *logProd, ps00, ps01, ps11 *float64) bool {
	at := func(o int) float64 { return 0.5*x[o] + h[w*o+q] }
	// L(j, k) is the index of L_jk of lane q.
	L := func(j, k int) int { return w*(j*d+k) + q }
	s00, s01, s11 := *ps00, *ps01, *ps11
	i1 := i + 1
	oi, o1 := i*d, i1*d
	a00 := at(oi + i)
	p0 := a00 - s00
	b := at(oi+i1) - s01
	a11 := at(o1 + i1)
	l00, l10, l11, inv0, inv1, p1, ok := pivotPair(a00, p0, b, a11, s11, tol)
	if !ok {
		return false
	}
	l[L(i, i)] = l00
	l[L(i1, i)] = l10
	l[L(i1, i1)] = l11
	ld.mul(p0)
	ld.mul(p1)
	finish := func(j int, t0, t1 float64) (float64, float64) {
		lj0 := (at(oi+j) - t0) * inv0
		lj1 := (at(o1+j) - t1 - lj0*l10) * inv1
		l[L(j, i)] = lj0
		l[L(j, i1)] = lj1
		return lj0, lj1
	}
	ri, r1 := L(i, 0), L(i1, 0)
	j := i + 2
	switch {
	case j+1 < d:
		rj, rk := L(j, 0), L(j+1, 0)
		var t00, t01, t10, t11, q00, q01, q11 float64
		for k := 0; k < w*i; k += w {
			v, u, x, y := l[ri+k], l[r1+k], l[rj+k], l[rk+k]
			t00 += x * v
			t01 += x * u
			t10 += y * v
			t11 += y * u
			q00 += x * x
			q01 += x * y
			q11 += y * y
		}
		lj0, lj1 := finish(j, t00, t01)
		lk0, lk1 := finish(j+1, t10, t11)
		s00 = q00 + lj0*lj0 + lj1*lj1
		s01 = q01 + lj0*lk0 + lj1*lk1
		s11 = q11 + lk0*lk0 + lk1*lk1
		j += 2
	case j < d:
		rj := L(j, 0)
		var t00, t01, q00 float64
		for k := 0; k < w*i; k += w {
			x := l[rj+k]
			t00 += x * l[ri+k]
			t01 += x * l[r1+k]
			q00 += x * x
		}
		lj0, lj1 := finish(j, t00, t01)
		s00 = q00 + lj0*lj0 + lj1*lj1
		j++
	}
	for ; j+2 < d; j += 3 {
		r0, r1_, r2 := L(j, 0), L(j+1, 0), L(j+2, 0)
		var t00, t01, t10, t11, t20, t21 float64
		for k := 0; k < w*i; k += w {
			v, u := l[ri+k], l[r1+k]
			x := l[r0+k]
			t00 += x * v
			t01 += x * u
			x = l[r1_+k]
			t10 += x * v
			t11 += x * u
			x = l[r2+k]
			t20 += x * v
			t21 += x * u
		}
		finish(j, t00, t01)
		finish(j+1, t10, t11)
		finish(j+2, t20, t21)
	}
	for ; j < d; j++ {
		rj := L(j, 0)
		var t00, t01 float64
		for k := 0; k < w*i; k += w {
			x := l[rj+k]
			t00 += x * l[ri+k]
			t01 += x * l[r1+k]
		}
		finish(j, t00, t01)
	}
	*ps00, *ps01, *ps11 = s00, s01, s11
	return true
}

// cholLanesPairGo is a column pair of the assembly kernels' rows in plain
// Go for w lanes, math.FMA for their fused multiply-adds: for the column
// pair i, i+1 it sets qs to the lanes' sums Σ_{k<i} L_{i+2,k}²,
// L_{i+2,k}L_{i+3,k} and L_{i+3,k}² (those rows that exist), then
// computes L_ji and L_{j,i+1} for the rows j >= i+2 from c = (1/L_ii,
// 1/L_{i+1,i+1}, L_{i+1,i}). Each sum Σ_{k<i} u_k v_k is dot2AVX's: four
// partial sums s_r over k ≡ r (mod 4), fused, added as (s_0+s_1) +
// (s_2+s_3). It is the readable model of chol4AVX and chol8AVX512, which
// compute the same partial sums for three rows at a time: the tests
// check the kernels' lanes against it and both against CholLower; Chol4
// and Chol8 take it only after a subnormal pivot.
func cholLanesPairGo(l, x, h []float64, d, w, i int, c, qs *[3][maxLanes]float64) {
	dot := func(u, v int) (s [maxLanes]float64) {
		var p [4][maxLanes]float64
		for k := range i {
			for q := range w {
				p[k&3][q] = math.FMA(l[u+w*k+q], l[v+w*k+q], p[k&3][q])
			}
		}
		for q := range w {
			s[q] = (p[0][q] + p[1][q]) + (p[2][q] + p[3][q])
		}
		return s
	}
	i1 := i + 1
	oi, o1 := i*d, i1*d
	rj := w * (i + 2) * d
	qs[0] = dot(rj, rj)
	if i+3 < d {
		qs[1] = dot(rj, rj+w*d)
		qs[2] = dot(rj+w*d, rj+w*d)
	}
	for j := i + 2; j < d; j++ {
		r := w * j * d
		t0, t1 := dot(r, w*oi), dot(r, w*o1)
		for q := range w {
			lj0 := (0.5*x[oi+j] + h[w*(oi+j)+q] - t0[q]) * c[0][q]
			lj1 := (0.5*x[o1+j] + h[w*(o1+j)+q] - t1[q] - lj0*c[2][q]) * c[1][q]
			l[r+w*i+q] = lj0
			l[r+w*i1+q] = lj1
		}
	}
}

// cholLanesFinish ends both paths of cholLanesOn after their column
// pairs, at column i: the last column of an odd d (s00 holds the lanes'
// sums of its squares), then each lane's log-determinant into out.
func cholLanesFinish(l, x, h []float64, d, i int, tol float64, ld *[maxLanes]logProd, s00 *[maxLanes]float64, out []float64) bool {
	w := len(out)
	for q := range w {
		if o := i*d + i; i < d {
			p, ok := lastPivot(l, w*o+q, 0.5*x[o]+h[w*o+q], s00[q], tol)
			if !ok {
				return false
			}
			ld[q].mul(p)
		}
	}
	for q := range w {
		out[q] = ld[q].log()
	}
	return true
}
