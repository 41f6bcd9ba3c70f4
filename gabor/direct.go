package gabor

import "gonum.org/v1/gonum/floats"

// op1 is a 1-D convolution with border extension folded in: output i is
// Σ_j c[j]·in[lo+j] with (lo, c) = row(i). Folding the extension into the
// taps makes the operator exact for any kernel width, and caps the work per
// output at the signal length when the kernel is wider than the image
// (the usual case for the coarse scales of small face crops). Rows whose
// taps all fall inside the signal (R ≤ i < n−R) share one copy of the
// reversed filter; only the border rows are stored.
type op1 struct {
	r       int
	rev     []float64 // rev[j] = f(R−j), the interior row
	lo, off []int32   // border rows i < R and i ≥ max(R, n−R), in that order
	coef    []float64
}

// extIndex maps position i of the extended signal onto [0, n), or −1 for a
// zero-padded position.
func extIndex(i, n int, border Border) int {
	if border == ZeroPad {
		if i < 0 || i >= n {
			return -1
		}
		return i
	}
	m := i % (2 * n)
	if m < 0 {
		m += 2 * n
	}
	if m >= n {
		m = 2*n - 1 - m
	}
	return m
}

// newOp1 folds the filter f (taps d = −R..R at f[d+R]) into an operator on
// signals of length n: out(i) = Σ_d f(d)·in_ext(i − d).
func newOp1(f []float64, n int, border Border) op1 {
	r := (len(f) - 1) / 2
	o := op1{r: r, rev: make([]float64, len(f)), off: []int32{0}}
	for j := range f {
		o.rev[j] = f[len(f)-1-j]
	}
	row := make([]float64, n)
	for i := range n {
		if o.interior(i, n) {
			continue
		}
		lo, hi := n, -1
		for t, fd := range f {
			j := extIndex(i-(t-r), n, border)
			if j < 0 {
				continue
			}
			row[j] += fd
			lo, hi = min(lo, j), max(hi, j)
		}
		if hi < lo {
			lo, hi = 0, -1
		}
		o.lo = append(o.lo, int32(lo))
		o.coef = append(o.coef, row[lo:hi+1]...)
		o.off = append(o.off, int32(len(o.coef)))
		clear(row)
	}
	return o
}

func (o *op1) interior(i, n int) bool { return i >= o.r && i < n-o.r }

// row returns the taps of output i of a signal of length n, which must be
// the length the operator was built for.
func (o *op1) row(i, n int) (lo int, c []float64) {
	if o.interior(i, n) {
		return i - o.r, o.rev
	}
	k := i
	if i >= o.r {
		k = i - max(0, n-2*o.r) // skip the interior rows
	}
	return int(o.lo[k]), o.coef[o.off[k]:o.off[k+1]]
}

// opSpan returns the taps the operator applies over all n outputs,
// Σ_i (hi_i − lo_i + 1), without building it; it drives the cost model.
func opSpan(r, n int, border Border) int {
	total := 0
	for i := range n {
		if border == ZeroPad {
			total += min(n-1, i+r) - max(0, i-r) + 1
			continue
		}
		lo, hi := n, -1
		for d := -r; d <= r; d++ {
			j := extIndex(i-d, n, border)
			lo, hi = min(lo, j), max(hi, j)
			if lo == 0 && hi == n-1 {
				break
			}
		}
		total += hi - lo + 1
	}
	return total
}

// directPlan holds the folded 1-D operators of every scale for one image size.
type directPlan struct {
	w, h int
	sc   [NumScales]directScale
}

// directScale holds one scale's operators: along x the envelope (index 0)
// and hc, hs of orientations 0..3 (indices 1..4 and 5..8); along y the DC
// factor and qc, qs of orientations 0..4 (qs[0] is identically zero and
// unused). Orientation 4 reuses the envelope along x, orientations 5..7
// reuse 3..1.
type directScale struct {
	x      [9]op1
	dc     op1
	qc, qs [5]op1
}

func newDirectPlan(b *Bank, w, h int) *directPlan {
	p := &directPlan{w: w, h: h}
	for v := range NumScales {
		s, ds := &b.scales[v], &p.sc[v]
		ds.x[0] = newOp1(s.env, w, b.border)
		for u := range 4 {
			ds.x[1+u] = newOp1(s.hc[u], w, b.border)
			ds.x[5+u] = newOp1(s.hs[u], w, b.border)
		}
		ds.dc = newOp1(s.dc, h, b.border)
		for u := range 5 {
			ds.qc[u] = newOp1(s.qc[u], h, b.border)
			if u > 0 {
				ds.qs[u] = newOp1(s.qs[u], h, b.border)
			}
		}
	}
	return p
}

// directCost estimates the seconds per image of the direct engine: 9 row
// and 17 column real convolutions per scale, each one multiply-add per
// stored tap, plus a per-call overhead of the assembly dot and axpy kernels
// (10 column calls per tap, see directScratch).
func directCost(b *Bank, w, h int) float64 {
	var macs, calls float64
	for v := range NumScales {
		r := b.scales[v].radius
		sx, sy := float64(opSpan(r, w, b.border)), float64(opSpan(r, h, b.border))
		macs += 9*float64(h)*sx + 17*float64(w)*sy
		calls += 9*float64(h*w) + 10*sy
	}
	return macs*secPerMAC + calls*secPerCall
}

// directScratch holds the row-pass planes of one scale, the DC plane and
// one output row of each column-pass plane pair. As in the DCT engine, the
// hc and hs results of orientation u are stored side by side,
// cs[u] row y = [hc⊛I | hs⊛I], because the column pass applies the same
// weights to both: one axpy of length 2w yields [Pcc | Psc] (weights qc) or
// [Pcs | Pss] (weights qs).
type directScratch struct {
	env  []float64    // envelope row pass, stride w
	cs   [4][]float64 // [hc | hs] row pass of orientations 0..3, stride 2w
	dc   []float64    // DC plane, stride w
	c, s []float64    // [Pcc | Psc] and [Pcs | Pss] of one output row
}

func newDirectScratch(w, h int) *directScratch {
	s := &directScratch{env: make([]float64, w*h), dc: make([]float64, w*h), c: make([]float64, 2*w), s: make([]float64, 2*w)}
	for u := range s.cs {
		s.cs[u] = make([]float64, 2*w*h)
	}
	return s
}

// colRow writes out = Σ_j c[j]·plane[(lo+j)·stride:][:len(out)].
func colRow(out, c []float64, lo int, plane []float64, stride int) {
	n := len(out)
	clear(out)
	for j, cj := range c {
		i := (lo + j) * stride
		floats.AddScaled(out, cj, plane[i:i+n])
	}
}

func (p *directPlan) run(dst [][]float64, img []float64, s *directScratch) {
	w, h := p.w, p.h
	for v := range NumScales {
		ds := &p.sc[v]
		for f := range ds.x {
			op := &ds.x[f]
			out, stride, off := s.env, w, 0
			if f > 0 {
				out, stride = s.cs[(f-1)%4], 2*w
				if f > 4 {
					off = w
				}
			}
			for x := range w {
				lo, c := op.row(x, w)
				for y := range h {
					i := y*w + lo
					out[y*stride+off+x] = floats.Dot(c, img[i:i+len(c)])
				}
			}
		}
		for y := range h {
			lo, c := ds.dc.row(y, h)
			colRow(s.dc[y*w:(y+1)*w], c, lo, s.env, w)
		}
		base := v * NumOrientations
		for y := range h {
			row := y * w
			dc := s.dc[row : row+w]
			// u = 0: qs = 0.
			lo, c := ds.qc[0].row(y, h)
			colRow(s.c, c, lo, s.cs[0], 2*w)
			combineOne(dst[base][row:row+w], dc, s.c[:w], s.c[w:])
			// u = 4: hc = envelope, hs = 0.
			lo, c = ds.qc[4].row(y, h)
			colRow(s.c[:w], c, lo, s.env, w)
			lo, c = ds.qs[4].row(y, h)
			colRow(s.s[:w], c, lo, s.env, w)
			combineOne(dst[base+4][row:row+w], dc, s.c[:w], s.s[:w])
			for u := 1; u < 4; u++ {
				lo, c = ds.qc[u].row(y, h)
				colRow(s.c, c, lo, s.cs[u], 2*w)
				lo, c = ds.qs[u].row(y, h)
				colRow(s.s, c, lo, s.cs[u], 2*w)
				combinePair(dst[base+u][row:row+w], dst[base+NumOrientations-u][row:row+w], dc, s.c[:w], s.s[w:], s.c[w:], s.s[:w])
			}
		}
	}
}
