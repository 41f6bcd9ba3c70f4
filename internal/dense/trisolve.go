package dense

// SolveLowerT writes Zᵀ for Z = L⁻¹M into the upper triangle of the
// row-major d×d matrix z and zeros into its strict lower triangle, for the
// lower triangular L and M held in the lower triangles of l and m (their
// upper triangles are not read); rl is scratch of length d. d <= PlainMaxD.
//
// Row j of Zᵀ, column j of Z, is found by forward substitution (Golub and
// Van Loan, §3.1.1),
//
//	Z_ij = (M_ij − Σ_{k=j}^{i−1} L_ik Z_kj) / L_ii,  i >= j,
//
// a dot product of two contiguous rows, L's row i and Zᵀ's row j. Three
// rows of Zᵀ share the loads of two rows of L: with the zeros below the
// diagonal their sums all run over k >= j.
//
// Below the diagonal the quotient is a product with 1/L_ii, from rl: d
// divisions instead of d(d+1)/2, each as costly as several
// multiplications. The diagonal, Z_jj = M_jj/L_jj, is divided so that
// Z = L⁻¹L is exactly I (each sum below the diagonal is then exactly
// M_ij, the entry exactly 0): a distance d(X, X) computed through Z is
// exactly 0.
//
// On a CPU with AVX2 and FMA, d >= vecMinD takes the dot products four
// lanes wide in assembly (dot2AVX), which hide the latency of the
// additions that bounds the plain loops.
func SolveLowerT(z, l, m, rl []float64, d int) {
	solveLowerTOn(z, l, m, rl, d, haveFMA && d >= vecMinD)
}

// solveLowerTOn is SolveLowerT on the assembly path when vec is set
// (which needs a CPU with AVX2 and FMA), else in plain Go. SolveLowerT
// calls it in one call: inlined, no extra call at small d.
func solveLowerTOn(z, l, m, rl []float64, d int, vec bool) {
	if vec {
		solveLowerTVec(z, l, m, rl, d)
		return
	}
	n := d * d
	z, l, m, rl = z[:n], l[:n], m[:n], rl[:d]
	clear(z)
	for i := range rl {
		rl[i] = 1 / l[i*d+i]
	}
	// entry computes Z_ij, i > j, from the sum t over k < i.
	entry := func(i, j int, t float64) float64 {
		v := (m[i*d+j] - t) * rl[i]
		z[j*d+i] = v
		return v
	}
	// diag computes Z_jj.
	diag := func(j int) float64 {
		v := m[j*d+j] / l[j*d+j]
		z[j*d+j] = v
		return v
	}
	// single completes row j of Zᵀ from column i0 on.
	single := func(j, i0 int) {
		zj := z[j*d : j*d+d]
		for i := i0; i < d; i++ {
			if i == j {
				diag(j)
				continue
			}
			li := l[i*d+j : i*d+i]
			zr := zj[j:i]
			zr = zr[:len(li)]
			var t float64
			for k, v := range li {
				t += v * zr[k]
			}
			entry(i, j, t)
		}
	}
	j := 0
	for ; j+2 < d; j += 3 {
		j1, j2 := j+1, j+2
		// The 3×3 corner: Z_jj, Z_{j+1,j}, Z_{j+1,j+1}, Z_{j+2,·}.
		a := diag(j)
		b := entry(j1, j, l[j1*d+j]*a)
		c := diag(j1)
		entry(j2, j, l[j2*d+j]*a+l[j2*d+j1]*b)
		entry(j2, j1, l[j2*d+j1]*c)
		diag(j2)
		z0 := z[j*d : j*d+d]
		z1 := z[j1*d : j1*d+d]
		z2 := z[j2*d : j2*d+d]
		i := j + 3
		for ; i+1 < d; i += 2 {
			// Rows i and i+1 of L together: six sums hide the addition
			// latency. Row i+1's last term, k = i, waits for Z_i·.
			li := l[i*d+j : i*d+i]
			lk := l[(i+1)*d+j : (i+1)*d+i]
			r0, r1, r2 := z0[j:i], z1[j:i], z2[j:i]
			lk, r0, r1, r2 = lk[:len(li)], r0[:len(li)], r1[:len(li)], r2[:len(li)]
			var t0, t1, t2, u0, u1, u2 float64
			for k, v := range li {
				w := lk[k]
				x := r0[k]
				t0 += v * x
				u0 += w * x
				x = r1[k]
				t1 += v * x
				u1 += w * x
				x = r2[k]
				t2 += v * x
				u2 += w * x
			}
			c := l[(i+1)*d+i]
			entry(i+1, j, u0+c*entry(i, j, t0))
			entry(i+1, j1, u1+c*entry(i, j1, t1))
			entry(i+1, j2, u2+c*entry(i, j2, t2))
		}
		if i < d {
			li := l[i*d+j : i*d+i]
			r0, r1, r2 := z0[j:i], z1[j:i], z2[j:i]
			r0, r1, r2 = r0[:len(li)], r1[:len(li)], r2[:len(li)]
			var t0, t1, t2 float64
			for k, v := range li {
				t0 += v * r0[k]
				t1 += v * r1[k]
				t2 += v * r2[k]
			}
			entry(i, j, t0)
			entry(i, j1, t1)
			entry(i, j2, t2)
		}
	}
	for ; j < d; j++ {
		single(j, j)
	}
}

// GramUpperT writes into the upper triangle of g that of G = ZᵀZ for the
// upper triangular zt = Zᵀ (row-major d×d, zeros below the diagonal not
// read): G_ab = Σ_{k>=b} Zᵀ_ak Zᵀ_bk, a <= b, dot
// products of contiguous rows. Columns b and b+1 are computed together,
// three rows a sharing the loads of rows b and b+1: six sums hide the
// addition latency (eight would not stay in registers). Column b's first
// term, k = b, is added first, as in the plain sum.
//
// On a CPU with AVX2 and FMA, d >= vecMinD takes gramUpperTVec (dot2AVX,
// one call per column pair). d <= PlainMaxD.
func GramUpperT(g, zt []float64, d int) {
	gramUpperTOn(g, zt, d, haveFMA && d >= vecMinD)
}

// gramUpperTOn is GramUpperT on the assembly path when vec is set (which
// needs a CPU with AVX2 and FMA), else in plain Go. GramUpperT calls it
// in one call: inlined, no extra call at small d.
func gramUpperTOn(g, zt []float64, d int, vec bool) {
	if vec {
		gramUpperTVec(g, zt, d)
		return
	}
	b := 0
	for ; b+1 < d; b += 2 {
		b1 := b + 1
		rb := zt[b*d+b1 : b*d+d]
		rc := zt[b1*d+b1 : b1*d+d]
		rc = rc[:len(rb)]
		zbb := zt[b*d+b]
		a := 0
		for ; a+2 <= b; a += 3 {
			r0 := zt[a*d+b1 : a*d+d]
			r1 := zt[(a+1)*d+b1 : (a+1)*d+d]
			r2 := zt[(a+2)*d+b1 : (a+2)*d+d]
			r0, r1, r2 = r0[:len(rb)], r1[:len(rb)], r2[:len(rb)]
			t0 := zt[a*d+b] * zbb
			t1 := zt[(a+1)*d+b] * zbb
			t2 := zt[(a+2)*d+b] * zbb
			var u0, u1, u2 float64
			for k, v := range rb {
				w := rc[k]
				x := r0[k]
				t0 += v * x
				u0 += w * x
				x = r1[k]
				t1 += v * x
				u1 += w * x
				x = r2[k]
				t2 += v * x
				u2 += w * x
			}
			g[a*d+b], g[a*d+b1] = t0, u0
			g[(a+1)*d+b], g[(a+1)*d+b1] = t1, u1
			g[(a+2)*d+b], g[(a+2)*d+b1] = t2, u2
		}
		for ; a <= b1; a++ {
			ra := zt[a*d+b1 : a*d+d]
			ra = ra[:len(rb)]
			var t, u float64
			if a <= b {
				t = zt[a*d+b] * zbb
			}
			for k, v := range rb {
				x := ra[k]
				t += v * x
				u += rc[k] * x
			}
			if a <= b {
				g[a*d+b] = t
			}
			g[a*d+b1] = u
		}
	}
	if b < d { // the last column of an odd d
		rb := zt[b*d+b : b*d+d]
		for a := 0; a <= b; a++ {
			g[a*d+b] = zt[a*d+b] * rb[0]
		}
	}
}

// solveLowerTVec is solveLowerTOn's assembly path, the dot products in
// dot2AVX: for each pair of rows i, i+1 of Z, one call computes Σ_k L_ik
// Z_kj and Σ_k L_{i+1,k} Z_kj for every column j < i, as products of the
// rows of Zᵀ found so far with the rows of L (tri: Zᵀ's zeros below the
// diagonal are skipped four at a time). The quotients are as in the plain
// path, four columns a vector in cholRowsAVX, so Z = L⁻¹L is still
// exactly I. Only used when haveFMA.
func solveLowerTVec(z, l, m, rl []float64, d int) {
	n := d * d
	z, l, m, rl = z[:n], l[:n], m[:n], rl[:d]
	clear(z)
	for i := range rl {
		rl[i] = 1 / l[i*d+i]
	}
	var buf [2 * PlainMaxD]float64
	t0, t1 := buf[:d], buf[PlainMaxD:PlainMaxD+d]
	i := 0
	for ; i+1 < d; i += 2 {
		i1 := i + 1
		oi, o1 := i*d, i1*d
		if i > 0 {
			dot2AVX(&z[0], d, i, i, &l[oi], &l[o1], &t0[0], &t1[0], true)
		}
		c := l[o1+i]
		r0, r1 := rl[i], rl[i1]
		if i > 0 {
			cs := [3]float64{r0, r1, c}
			cholRowsAVX(&z[i], d, i, &m[oi], &m[o1], nil, nil, &t0[0], &t1[0], &cs, true)
		}
		v := m[oi+i] / l[oi+i]
		z[oi+i] = v
		z[oi+i1] = (m[o1+i] - c*v) * r1
		z[o1+i1] = m[o1+i1] / l[o1+i1]
	}
	if i < d { // the last row of an odd d
		oi := i * d
		dot2AVX(&z[0], d, i, i, &l[oi], &l[oi], &t0[0], &t1[0], true)
		for j, s := range t0[:i] {
			z[j*d+i] = (m[oi+j] - s) * rl[i]
		}
		z[oi+i] = m[oi+i] / l[oi+i]
	}
}

// gramUpperTVec is gramUpperTOn's assembly path, the dot products in
// dot2AVX: for each pair of columns b, b+1 of G, one call computes the
// products of rows b and b+1 of Zᵀ, from column b+1 on, with every row a <=
// b+1. Only used when haveFMA.
func gramUpperTVec(g, zt []float64, d int) {
	var buf [2 * PlainMaxD]float64
	t0, t1 := buf[:d], buf[PlainMaxD:PlainMaxD+d]
	b := 0
	for ; b+1 < d; b += 2 {
		b1 := b + 1
		dot2AVX(&zt[b1], d, b+2, d-b1, &zt[b*d+b1], &zt[b1*d+b1], &t0[0], &t1[0], false)
		zbb := zt[b*d+b]
		for a := 0; a <= b; a++ {
			g[a*d+b] = zt[a*d+b]*zbb + t0[a]
			g[a*d+b1] = t1[a]
		}
		g[b1*d+b1] = t1[b1]
	}
	if b < d { // the last column of an odd d
		rb := zt[b*d+b : b*d+d]
		for a := 0; a <= b; a++ {
			g[a*d+b] = zt[a*d+b] * rb[0]
		}
	}
}
