package dense

import "math"

// Tridiagonalize8 is Tridiagonalize on eight symmetric n×n matrices at
// once, held lane-interleaved in a (entry (i, j) of matrix p at
// a[(i·n+j)·8+p], upper triangles read; a is overwritten), each lane's
// diagonal and off-diagonal left in diag[p·n : p·n+n] and
// off[p·n : p·n+n−1]; p and q are scratch of length 8n. Every lane's
// values are bit for bit Tridiagonalize's on that matrix on this CPU:
// each lane takes the same operations in the same order, those of the
// assembly path (tridiagPairsAVX, with its fused multiply-adds and its
// four partial sums a row) where Tridiagonalize takes it, else those of
// the plain loops. On a CPU with AVX-512 the loop over row pairs, the
// O(n³) part, runs in tridiagPairs8AVX512, eight matrices a vector; the
// rest, O(n²) a matrix, is the plain per-lane loops of Tridiagonalize.
func Tridiagonalize8(a []float64, n int, diag, off, p, q []float64) {
	vec := haveFMA && n >= vecMinD
	tridiagLanesOn(a, n, diag, off, p, q, vec, vec && have512)
}

// TridiagLanes reports whether Tridiagonalize8 takes its AVX-512 kernel
// for matrices of size n, that is, whether it is faster than eight calls
// of Tridiagonalize.
func TridiagLanes(n int) bool { return have512 && n >= vecMinD }

// tri8 is the number of lanes of Tridiagonalize8.
const tri8 = 8

// tridiagLanesOn is Tridiagonalize8 emulating tridiagonalizeOn's vec
// path (vec) or its plain loops, with the row pairs in
// tridiagPairs8AVX512 when asm is set (which needs vec and AVX-512), else
// in tridiagPairsLanesGo.
func tridiagLanesOn(a []float64, n int, diag, off, p, q []float64, vec, asm bool) {
	const L = tri8
	a = a[:n*n*L]
	if n < 3 {
		for ln := range L {
			if n == 2 {
				diag[ln*n] = a[ln]
				off[ln*n] = a[L+ln]
			}
			diag[ln*n+n-1] = a[(n*n-1)*L+ln]
		}
		return
	}
	var tau, qv [L]float64
	for ln := range L {
		diag[ln*n] = a[ln]
		var xn float64
		for j := 2; j < n; j++ {
			x := a[j*L+ln]
			xn += x * x
		}
		tau[ln] = houseLane(a[L+ln:n*L], n-1, xn, off[ln*n:])
		if asm {
			continue
		}
		// Step 0's product, as tridiagonalizeOn's.
		m := n - 1
		o := (n + 1) * L // A₂₂[0][0]
		v := a[L:]       // v_i at v[i·L+ln]
		for i := range m {
			p[i*L+ln] = 0
		}
		var s float64
		i := 0
		for ; i+1 < m; i += 2 {
			i1 := i + 1
			vi, vi1 := v[i*L+ln], v[i1*L+ln]
			x01 := a[o+(i*n+i1)*L+ln]
			s0 := a[o+(i*n+i)*L+ln]*vi + x01*vi1
			s1 := x01*vi + a[o+(i1*n+i1)*L+ln]*vi1
			for j := i + 2; j < m; j++ {
				vj := v[j*L+ln]
				x, y := a[o+(i*n+j)*L+ln], a[o+(i1*n+j)*L+ln]
				s0 += x * vj
				s1 += y * vj
				p[j*L+ln] += x*vi + y*vi1
			}
			s0 += p[i*L+ln]
			s1 += p[i1*L+ln]
			p[i*L+ln], p[i1*L+ln] = s0, s1
			s += s0*vi + s1*vi1
		}
		if i < m {
			t := p[i*L+ln] + a[o+(i*n+i)*L+ln]*v[i*L+ln]
			p[i*L+ln] = t
			s += t * v[i*L+ln]
		}
		qv[ln] = s
	}
	if asm {
		clear(p[:(n-1)*L])
		_ = a[((n-1)*n+n-1)*L+L-1]
		tridiagProd8AVX512(&a[(n+1)*L], n, n-1, &a[L], &p[0], &qv)
	}
	for k := 0; k+2 < n; k++ {
		m := n - k - 1
		o := ((k+1)*n + k + 1) * L // A₂₂[0][0]
		v := a[(k*n+k+1)*L:]       // v_j at v[j·L+ln]
		w := p                     // w_j at w[j·L+ln], in place of q = A₂₂v
		last := k+3 >= n
		if asm && !last {
			var kk, xn, scal [L]float64
			for ln, t := range tau {
				kk[ln] = -0.5 * t * (t * qv[ln])
			}
			tridiagRow8AVX512(&a[o], m, &v[0], &w[0], &tau, &kk, &xn)
			// house on each lane, its scaling of v' in scale8AVX512.
			var mask uint64
			for ln := range L {
				diag[ln*n+k+1] = a[o+ln]
				alpha := a[o+L+ln]
				if xn[ln] == 0 {
					off[ln*n+k+1] = alpha
					tau[ln] = 0
					continue
				}
				beta, t, sc := houseOf(alpha, xn[ln])
				tau[ln], scal[ln] = t, sc
				a[o+L+ln] = 1
				off[ln*n+k+1] = beta
				mask |= 1 << ln
			}
			if m > 2 && mask != 0 {
				scale8AVX512(&a[o+2*L], m-2, &scal, mask)
			}
		}
		for ln := range L {
			if asm && !last {
				break
			}
			t := tau[ln]
			kk := -0.5 * t * (t * qv[ln])
			var xn float64
			v0 := v[ln]
			w0 := t*w[ln] + kk*v0
			w1 := t*w[L+ln] + kk*v[L+ln]
			w[ln], w[L+ln] = w0, w1
			a[o+ln] -= v0*w0 + w0*v0
			a[o+L+ln] -= v0*w1 + w0*v[L+ln]
			for j := 2; j < m; j++ {
				vj := v[j*L+ln]
				wj := t*w[j*L+ln] + kk*vj
				w[j*L+ln] = wj
				x := a[o+j*L+ln] - (v0*wj + w0*vj)
				a[o+j*L+ln] = x
				xn += x * x
			}
			diag[ln*n+k+1] = a[o+ln]
			if last {
				a[o+(n+1)*L+ln] -= 2 * v[L+ln] * w[L+ln]
				off[ln*n+k+1] = a[o+L+ln]
				diag[ln*n+k+2] = a[o+(n+1)*L+ln]
				continue
			}
			tau[ln] = houseLane(a[o+L+ln:o+m*L], m-1, xn, off[ln*n+k+1:])
		}
		if last {
			return
		}
		// nv[j·L+ln] = v'_{j−1} for j >= 1; qk likewise accumulates q'.
		nv := a[o:]
		qk := q[:m*L]
		clear(qk)
		clear(qv[:])
		i := 1
		if i+1 < m {
			if asm {
				_ = a[o+((m-1)*n+m-1)*L+L-1]
				_, _, _ = v[m*L-1], w[m*L-1], qk[m*L-1]
				tridiagPairs8AVX512(&a[o], n, m, &v[0], &w[0], &nv[0], &qk[0], &qv)
			} else {
				tridiagPairsLanesGo(a[o:], n, m, v, w, nv, qk, &qv, vec)
			}
			i += (m - 1) &^ 1
		}
		if i < m {
			for ln := range L {
				x := a[o+(i*n+i)*L+ln] - 2*v[i*L+ln]*w[i*L+ln]
				a[o+(i*n+i)*L+ln] = x
				s := qk[i*L+ln] + x*nv[i*L+ln]
				qk[i*L+ln] = s
				qv[ln] += s * nv[i*L+ln]
			}
		}
		// q' is step k+1's p; p serves as the next q.
		p, q = q[L:], p
	}
}

// houseLane is house on the vector of length m at v[0], v[8], …, one
// lane of an interleaved vector.
func houseLane(v []float64, m int, xn float64, off []float64) float64 {
	alpha := v[0]
	if xn == 0 {
		off[0] = alpha
		return 0
	}
	beta, tau, scal := houseOf(alpha, xn)
	v[0] = 1
	for j := 1; j < m; j++ {
		v[j*tri8] *= scal
	}
	off[0] = beta
	return tau
}

// tridiagPairsLanesGo is the loop over row pairs i, i+1 = 1, 2; 3, 4; …
// (i+1 < m) of one step of tridiagLanesOn on the block at a, each lane
// as tridiagonalizeOn's plain loop does it, or, with vec, as
// tridiagPairsAVX does (fused multiply-adds, four partial sums a row,
// column j's in sum (j−i−2) mod 4, added as (s₀+s₁)+(s₂+s₃)). It adds
// the pairs' part of q'ᵀv' to qv. tridiagPairs8AVX512 is its vec path in
// assembly.
func tridiagPairsLanesGo(a []float64, n, m int, v, w, nv, qk []float64, qv *[tri8]float64, vec bool) {
	const L = tri8
	for ln := range L {
		s := qv[ln]
		for i := 1; i+1 < m; i += 2 {
			i1 := i + 1
			r0, r1 := (i*n)*L+ln, (i1*n)*L+ln // column 0 of rows i, i+1
			ui, ui1, wi, wi1 := v[i*L+ln], v[i1*L+ln], w[i*L+ln], w[i1*L+ln]
			ni, ni1 := nv[i*L+ln], nv[i1*L+ln]
			if !vec {
				x00 := a[r0+i*L] - (ui*wi + wi*ui)
				x01 := a[r0+i1*L] - (ui*wi1 + wi*ui1)
				x11 := a[r1+i1*L] - (ui1*wi1 + wi1*ui1)
				a[r0+i*L], a[r0+i1*L], a[r1+i1*L] = x00, x01, x11
				s0 := x00*ni + x01*ni1
				s1 := x01*ni + x11*ni1
				for j := i + 2; j < m; j++ {
					vj, wj, nj := v[j*L+ln], w[j*L+ln], nv[j*L+ln]
					x := a[r0+j*L] - (ui*wj + wi*vj)
					y := a[r1+j*L] - (ui1*wj + wi1*vj)
					a[r0+j*L], a[r1+j*L] = x, y
					s0 += x * nj
					s1 += y * nj
					qk[j*L+ln] += x*ni + y*ni1
				}
				s0 += qk[i*L+ln]
				s1 += qk[i1*L+ln]
				qk[i*L+ln], qk[i1*L+ln] = s0, s1
				s += s0*ni + s1*ni1
				continue
			}
			var p0, p1 [4]float64
			for j := i + 2; j < m; j++ {
				vj, wj, nj := v[j*L+ln], w[j*L+ln], nv[j*L+ln]
				x := math.FMA(-vj, wi, math.FMA(-wj, ui, a[r0+j*L]))
				y := math.FMA(-vj, wi1, math.FMA(-wj, ui1, a[r1+j*L]))
				a[r0+j*L], a[r1+j*L] = x, y
				t := (j - i - 2) & 3
				p0[t] = math.FMA(x, nj, p0[t])
				p1[t] = math.FMA(y, nj, p1[t])
				qk[j*L+ln] = math.FMA(y, ni1, math.FMA(x, ni, qk[j*L+ln]))
			}
			t := ui * wi
			x00 := a[r0+i*L] - (t + t)
			x01 := a[r0+i1*L] - math.FMA(wi, ui1, ui*wi1)
			t = ui1 * wi1
			x11 := a[r1+i1*L] - (t + t)
			a[r0+i*L], a[r0+i1*L], a[r1+i1*L] = x00, x01, x11
			s0 := math.FMA(x01, ni1, x00*ni) + ((p0[0] + p0[1]) + (p0[2] + p0[3]))
			s1 := math.FMA(x11, ni1, x01*ni) + ((p1[0] + p1[1]) + (p1[2] + p1[3]))
			s0 += qk[i*L+ln]
			s1 += qk[i1*L+ln]
			qk[i*L+ln], qk[i1*L+ln] = s0, s1
			s = math.FMA(ni1, s1, math.FMA(ni, s0, s))
		}
		qv[ln] = s
	}
}

// houseOf is house's β, τ and scaling 1/(α−β) of a reflection of x with
// x₀ = alpha and xn = Σ_{j>=1} x_j² > 0.
func houseOf(alpha, xn float64) (beta, tau, scal float64) {
	beta = -math.Copysign(math.Sqrt(alpha*alpha+xn), alpha)
	return beta, (beta - alpha) / beta, 1 / (alpha - beta)
}
