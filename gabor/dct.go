package gabor

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/floats"
)

// The Symmetric-border transform engine.
//
// The half-sample mirror extension of a row I(0..n−1) is 2n-periodic and
// even about −½, so it is exactly the cosine series
//
//	I_ext(x) = Σ_{j<n} α_j â_j cos(πj(x+½)/n),  â_j = Σ_x I(x) cos(πj(x+½)/n),
//
// with α_0 = 1/n, α_j = 2/n (â is the DCT-II of the row). Convolving it with
// an even filter f multiplies â_j by F_c(j) = Σ_d f(d) cos(πjd/n); an odd
// filter maps the cosine series to the sine series Σ α_j â_j F_s(j)
// sin(πj(x+½)/n) with F_s(j) = Σ_d f(d) sin(πjd/n). Both identities hold for
// any kernel width. Every factor hc, qc, env, dc is even and hs, qs are odd,
// so each plane of combine.go is, in 2-D,
//
//	P(y, x) = Σ_{jy, jx} â[jy][jx] · Fy(jy) · Fx(jx) · By_jy(y) · Bx_jx(x),
//
// with B the cosine or sine basis. The image's 2-D DCT-II is computed once per
// image with gonum's QuarterWaveFFT (rows, then columns) and shared by all 40
// filters. The responses F of the Gabor factors are Gaussians of width
// k_v/(2π) rad/pixel around ±k_v·cos θ (or sin θ), so only a band of j is
// non-negligible; the synthesis runs over those bands only, as small
// matrix products (assembly axpy), which at face-crop sizes is far cheaper
// than full inverse transforms. A coefficient is dropped only when its
// response is below bandEps times the largest response of that factor.

// bandEps is the relative response below which a transform coefficient is
// skipped: a coefficient is kept when its weight exceeds bandEps times the
// largest weight of its 1-D factor. The dropped terms of a plane sum to at
// most bandEps·max|Fx|·max|Fy|·Σ|â|, far below the 1e-9 agreement the
// engines are tested to (they agree to ~1e-14 in practice).
const bandEps = 1e-14

// band is the index range [lo, hi) of the retained coefficients.
type band struct{ lo, hi int }

func (b band) len() int { return b.hi - b.lo }

// dctPlan holds, for one image size, the synthesis bases (j-major: row j
// holds basis function j at x = 0..n−1) and per scale the normalised
// responses and bands of every factor.
type dctPlan struct {
	w, h   int
	cw, sw []float64
	ch, sh []float64
	sc     [NumScales]dctScale
}

// dctScale: hc, hs, xb along x and qc, qs, yb along y for orientations
// 0..4; hc[4] is the envelope response, reused by the DC term, whose y
// response and band are dc, dcb.
type dctScale struct {
	hc, hs [5][]float64
	xb     [5]band
	qc, qs [5][]float64
	yb     [5]band
	dc     []float64
	dcb    band
}

// trigBasis returns cos and sin of πj(x+½)/n, j-major.
func trigBasis(n int) (c, s []float64) {
	c, s = make([]float64, n*n), make([]float64, n*n)
	for j := range n {
		for x := range n {
			a := math.Pi * float64(j) * (float64(x) + 0.5) / float64(n)
			c[j*n+x], s[j*n+x] = math.Cos(a), math.Sin(a)
		}
	}
	return c, s
}

// response returns (α_j/4)·Σ_d f(d)·cos(πjd/n) (odd false) or
// (α_j/4)·Σ_d f(d)·sin(πjd/n) (odd true) for j = 0..n−1, f having taps
// d = −R..R at f[d+R] and the stated parity. The 1/4 undoes the scaling of
// fourier.QuarterWaveFFT.CosSequence.
func response(f []float64, n int, odd bool) []float64 {
	r := (len(f) - 1) / 2
	trig := make([]float64, 2*n)
	for m := range trig {
		a := math.Pi * float64(m) / float64(n)
		if odd {
			trig[m] = math.Sin(a)
		} else {
			trig[m] = math.Cos(a)
		}
	}
	out := make([]float64, n)
	for j := range n {
		var sum float64
		if !odd {
			sum = f[r]
		}
		for d := 1; d <= r; d++ {
			sum += 2 * f[r+d] * trig[(j*d)%(2*n)]
		}
		alpha := 2 / float64(n)
		if j == 0 {
			alpha = 1 / float64(n)
		}
		out[j] = sum * alpha / 4
	}
	return out
}

// bandOf returns the hull of the indices where max(|a|, |b|) exceeds
// bandEps times its maximum; b may be nil.
func bandOf(a, b []float64) band {
	mag := func(j int) float64 {
		m := math.Abs(a[j])
		if b != nil {
			m = max(m, math.Abs(b[j]))
		}
		return m
	}
	var peak float64
	for j := range a {
		peak = max(peak, mag(j))
	}
	bd := band{len(a), 0}
	for j := range a {
		if mag(j) > bandEps*peak {
			bd.lo, bd.hi = min(bd.lo, j), j+1
		}
	}
	if bd.hi == 0 {
		return band{}
	}
	return bd
}

func newDCTPlan(b *Bank, w, h int) *dctPlan {
	p := &dctPlan{w: w, h: h}
	p.cw, p.sw = trigBasis(w)
	p.ch, p.sh = p.cw, p.sw
	if h != w {
		p.ch, p.sh = trigBasis(h)
	}
	for v := range NumScales {
		s, ds := &b.scales[v], &p.sc[v]
		for u := range 5 {
			ds.hc[u] = response(s.hc[u], w, false)
			ds.hs[u] = response(s.hs[u], w, true)
			ds.xb[u] = bandOf(ds.hc[u], ds.hs[u])
			ds.qc[u] = response(s.qc[u], h, false)
			ds.qs[u] = response(s.qs[u], h, true)
			ds.yb[u] = bandOf(ds.qc[u], ds.qs[u])
		}
		ds.dc = response(s.dc, h, false)
		ds.dcb = bandOf(ds.dc, nil)
	}
	return p
}

// cost estimates the seconds per image: the forward transforms plus the
// multiply-adds and assembly calls of the band-limited synthesis (see run;
// the mirror symmetry of the bases halves the multiply-adds of both steps).
func (p *dctPlan) cost() float64 {
	w, h := float64(p.w), float64(p.h)
	// xs: x-synthesised coefficient rows (w/2 MACs each per retained jx);
	// ys: y-synthesis weights per output row (w/2 MACs each per plane);
	// yc: y-synthesis calls per mirror pair of output rows.
	var xs, ys, yc float64
	for v := range NumScales {
		ds := &p.sc[v]
		y0, y4 := float64(ds.yb[0].len()), float64(ds.yb[4].len())
		xs += float64(ds.dcb.len()*ds.xb[4].len()) + 2*y0*float64(ds.xb[0].len()) + y4*float64(ds.xb[4].len())
		ys += float64(ds.dcb.len()) + 2*y0 + 2*y4
		yc += float64(ds.dcb.len()) + y0 + 2*y4
		for u := 1; u < 4; u++ {
			yu := float64(ds.yb[u].len())
			xs += 2 * yu * float64(ds.xb[u].len())
			ys += 4 * yu
			yc += 2 * yu
		}
	}
	macs := (xs*w + ys*w*h) / 2
	calls := xs + yc*h/2
	return macs*secPerMAC + calls*secPerCall + h*fftSec(p.w)/2 + w*fftSec(p.h)/2
}

// dctScratch holds the per-image buffers of the DCT engine.
//
// The x-synthesised rows of the cosine and sine parts are stored side by
// side, xx[jy] = [Xc[jy] | Xs[jy]], because the y synthesis applies the same
// weight to both: one axpy of length 2w then yields [Pcc | Psc] (weights
// qc·cos) or [Pcs | Pss] (weights qs·sin), halving the calls. Output rows
// come in mirror pairs: t for row y, b for row h−1−y.
type dctScratch struct {
	qw, qh   *fourier.QuarterWaveFFT
	a        []float64 // 2-D DCT-II of the image, [jy][jx]
	col, odd []float64
	xx       []float64 // [Xc | Xs] rows, stride 2w
	xg       []float64 // x-synthesised rows of the DC term, stride w
	dc       []float64 // DC plane of the current scale
	t, b     rows2
}

// rows2 holds one output row of [Pcc | Psc] (c) and of [Pcs | Pss] (s).
type rows2 struct{ c, s []float64 }

func newDCTScratch(w, h int) *dctScratch {
	return &dctScratch{
		qw: fourier.NewQuarterWaveFFT(w), qh: fourier.NewQuarterWaveFFT(h),
		a: make([]float64, w*h), col: make([]float64, h), odd: make([]float64, w),
		xx: make([]float64, 2*w*h), xg: make([]float64, w*h),
		dc: make([]float64, w*h),
		t:  rows2{make([]float64, 2*w), make([]float64, 2*w)},
		b:  rows2{make([]float64, 2*w), make([]float64, 2*w)},
	}
}

// Both synthesis steps use the mirror symmetry of the bases,
// B_j(n−1−x) = par·(−1)^j·B_j(x) with par = +1 for cosines and −1 for sines:
// the partial sums E over even j and O over odd j at x give the outputs
// E+O at x and par·(E−O) at n−1−x, halving the multiply-adds.

// xSynth writes, for the rows jy in rows, X[jy] = Σ_{jx ∈ cols} a[jy][jx]·
// resp[jx]·basis[jx] into x[jy·stride:][:w]; odd is scratch of length
// ≥ (w+1)/2.
func xSynth(x []float64, stride int, odd, a []float64, w int, rows, cols band, resp, basis []float64, par float64) {
	half := (w + 1) / 2
	for jy := rows.lo; jy < rows.hi; jy++ {
		xr := x[jy*stride : jy*stride+w]
		e, o := xr[:half], odd[:half]
		clear(e)
		clear(o)
		ar := a[jy*w : (jy+1)*w]
		for jx := cols.lo; jx < cols.hi; jx++ {
			acc := e
			if jx&1 == 1 {
				acc = o
			}
			floats.AddScaled(acc, ar[jx]*resp[jx], basis[jx*w:jx*w+half])
		}
		for i := range w / 2 {
			ev, ov := e[i], o[i]
			xr[i], xr[w-1-i] = ev+ov, par*(ev-ov)
		}
		if w&1 == 1 {
			xr[w/2] = e[w/2] + o[w/2]
		}
	}
}

// ySynth writes output rows y (into t) and h−1−y (into b) of
// Σ_{jy ∈ rows} resp[jy]·basis[jy][·]·x[jy·stride:][:len(t)]. When they are
// the same (middle row of an odd height) both get the full sum; t and b may
// alias only in that case.
func ySynth(t, b []float64, y, h int, rows band, resp, basis, x []float64, stride int, par float64) {
	n := len(t)
	clear(t)
	if y == h-1-y {
		for jy := rows.lo; jy < rows.hi; jy++ {
			floats.AddScaled(t, resp[jy]*basis[jy*h+y], x[jy*stride:jy*stride+n])
		}
		copy(b, t)
		return
	}
	clear(b)
	for jy := rows.lo; jy < rows.hi; jy++ {
		acc := t
		if jy&1 == 1 {
			acc = b
		}
		floats.AddScaled(acc, resp[jy]*basis[jy*h+y], x[jy*stride:jy*stride+n])
	}
	b = b[:n]
	for i := range t {
		e, o := t[i], b[i]
		t[i], b[i] = e+o, par*(e-o)
	}
}

// mirrorRows calls f for the output rows y and h−1−y of each mirror pair
// (once for the middle row of an odd height) with the matching buffers.
func mirrorRows(y, h int, t, b *rows2, f func(row int, r *rows2)) {
	f(y, t)
	if h-1-y != y {
		f(h-1-y, b)
	}
}

func (p *dctPlan) run(dst [][]float64, img []float64, s *dctScratch) {
	w, h := p.w, p.h
	for y := range h {
		s.qw.CosSequence(s.a[y*w:(y+1)*w], img[y*w:(y+1)*w])
	}
	for jx := range w {
		for y := range h {
			s.col[y] = s.a[y*w+jx]
		}
		s.qh.CosSequence(s.col, s.col)
		for jy := range h {
			s.a[jy*w+jx] = s.col[jy]
		}
	}
	t, b := &s.t, &s.b
	for v := range NumScales {
		ds := &p.sc[v]
		base := v * NumOrientations
		xSynth(s.xg, w, s.odd, s.a, w, ds.dcb, ds.xb[4], ds.hc[4], p.cw, 1)
		for y := range (h + 1) / 2 {
			ySynth(s.dc[y*w:(y+1)*w], s.dc[(h-1-y)*w:(h-y)*w], y, h, ds.dcb, ds.dc, p.ch, s.xg, w, 1)
		}
		dcRow := func(row int) []float64 { return s.dc[row*w : (row+1)*w] }
		// u = 0: qs = 0, so only [Pcc | Psc] is needed.
		yb := ds.yb[0]
		xSynth(s.xx, 2*w, s.odd, s.a, w, yb, ds.xb[0], ds.hc[0], p.cw, 1)
		xSynth(s.xx[w:], 2*w, s.odd, s.a, w, yb, ds.xb[0], ds.hs[0], p.sw, -1)
		for y := range (h + 1) / 2 {
			ySynth(t.c, b.c, y, h, yb, ds.qc[0], p.ch, s.xx, 2*w, 1)
			mirrorRows(y, h, t, b, func(row int, r *rows2) {
				combineOne(dst[base][row*w:(row+1)*w], dcRow(row), r.c[:w], r.c[w:])
			})
		}
		// u = 4: hs = 0 and hc = envelope, so only Xc, Pcc and Pcs.
		yb = ds.yb[4]
		xSynth(s.xx, 2*w, s.odd, s.a, w, yb, ds.xb[4], ds.hc[4], p.cw, 1)
		for y := range (h + 1) / 2 {
			ySynth(t.c[:w], b.c[:w], y, h, yb, ds.qc[4], p.ch, s.xx, 2*w, 1)
			ySynth(t.s[:w], b.s[:w], y, h, yb, ds.qs[4], p.sh, s.xx, 2*w, -1)
			mirrorRows(y, h, t, b, func(row int, r *rows2) {
				combineOne(dst[base+4][row*w:(row+1)*w], dcRow(row), r.c[:w], r.s[:w])
			})
		}
		for u := 1; u < 4; u++ {
			yb = ds.yb[u]
			xSynth(s.xx, 2*w, s.odd, s.a, w, yb, ds.xb[u], ds.hc[u], p.cw, 1)
			xSynth(s.xx[w:], 2*w, s.odd, s.a, w, yb, ds.xb[u], ds.hs[u], p.sw, -1)
			gu, gbar := dst[base+u], dst[base+NumOrientations-u]
			for y := range (h + 1) / 2 {
				ySynth(t.c, b.c, y, h, yb, ds.qc[u], p.ch, s.xx, 2*w, 1)
				ySynth(t.s, b.s, y, h, yb, ds.qs[u], p.sh, s.xx, 2*w, -1)
				mirrorRows(y, h, t, b, func(row int, r *rows2) {
					o := row * w
					combinePair(gu[o:o+w], gbar[o:o+w], dcRow(row), r.c[:w], r.s[w:], r.c[w:], r.s[:w])
				})
			}
		}
	}
}
