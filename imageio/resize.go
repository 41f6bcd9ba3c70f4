package imageio

import "math"

// weights is the resampling table of one dimension, m source samples to n
// output samples: output d is the sum over k < taps of
// w[d*taps+k] * src[start[d]+k]. Every output has the same number of taps
// (zero weights pad the short ones at the edges), which keeps the inner
// loops simple.
type weights struct {
	taps  int
	start []int
	w     []float64
}

// newWeights computes the table for resampling m samples to n with filter
// f, following imaging's precomputeWeights (which follows PIL): output d is
// centred at s = (d+0.5)*m/n - 0.5; the kernel is stretched by
// scale = max(m/n, 1), so that downscaling low-passes; source indices
// within scale*support of s (clipped to 0..m-1) take weight k((i-s)/scale);
// the weights are normalised to sum to 1.
func newWeights(m, n int, f Filter) *weights {
	du := float64(m) / float64(n)
	if f == Nearest {
		wt := &weights{taps: 1, start: make([]int, n), w: make([]float64, n)}
		for d := range n {
			wt.start[d] = min(int((float64(d)+0.5)*du), m-1)
			wt.w[d] = 1
		}
		return wt
	}
	scale := max(du, 1)
	ru := math.Ceil(scale * f.support())
	span := func(d int) (s float64, begin, end int) {
		s = (float64(d)+0.5)*du - 0.5
		return s, max(int(math.Ceil(s-ru)), 0), min(int(math.Floor(s+ru)), m-1)
	}
	taps := 1
	for d := range n {
		_, begin, end := span(d)
		taps = max(taps, end-begin+1)
	}
	wt := &weights{taps: taps, start: make([]int, n), w: make([]float64, n*taps)}
	for d := range n {
		s, begin, end := span(d)
		// Shift the window inside the source so that all taps are valid
		// indices; the weights outside [begin, end] stay zero.
		first := max(min(begin, m-taps), 0)
		wt.start[d] = first
		row := wt.w[d*taps : (d+1)*taps]
		var sum float64
		for i := begin; i <= end; i++ {
			k := f.kernel((float64(i) - s) / scale)
			row[i-first] = k
			sum += k
		}
		if sum != 0 {
			for k := range row {
				row[k] /= sum
			}
		}
	}
	return wt
}

// weightKey identifies a cached weight table.
type weightKey struct{ m, n int }

// maxCachedWeights bounds the weight cache of a Loader, which sees few
// distinct sizes in practice; past it the cache starts afresh.
const maxCachedWeights = 64

// resizer resamples planes with cached weight tables and a reused
// intermediate buffer.
type resizer struct {
	filter  Filter
	weights map[weightKey]*weights
	tmp     []float64
}

func (rs *resizer) table(m, n int) *weights {
	key := weightKey{m, n}
	if wt, ok := rs.weights[key]; ok {
		return wt
	}
	if rs.weights == nil || len(rs.weights) >= maxCachedWeights {
		rs.weights = make(map[weightKey]*weights)
	}
	wt := newWeights(m, n, rs.filter)
	rs.weights[key] = wt
	return wt
}

// resize resamples the sw x sh plane src, with values in [0,1], into the
// dw x dh plane dst: horizontally, then vertically. As in imaging and PIL,
// the intermediate result is clamped to [0,1] (they store it in 8 bits);
// only filters with negative lobes can leave that range. A
// dimension that keeps its size is not resampled, so equal sizes copy src.
func (rs *resizer) resize(dst, src []float64, sw, sh, dw, dh int) {
	switch {
	case sw == dw && sh == dh:
		copy(dst, src[:sw*sh])
	case sh == dh:
		horizontal(dst, src, sw, dw, sh, rs.table(sw, dw))
	case sw == dw:
		vertical(dst, src, sw, dh, rs.table(sh, dh))
	default:
		rs.tmp = grow(rs.tmp, sh*dw)
		horizontal(rs.tmp, src, sw, dw, sh, rs.table(sw, dw))
		if rs.filter.overshoots() {
			clamp01(rs.tmp)
		}
		vertical(dst, rs.tmp, dw, dh, rs.table(sh, dh))
	}
}

// clamp01 clamps the values of p to [0,1].
func clamp01(p []float64) {
	for i, v := range p {
		p[i] = clamp1(v)
	}
}

// horizontal resamples each of the rows of src (width sw) into dst (width
// dw) with table wt. Rows go four at a time, sharing the weight loads and
// giving four independent chains of additions; each row's sum is formed in
// the same order either way.
func horizontal(dst, src []float64, sw, dw, rows int, wt *weights) {
	taps := wt.taps
	y := 0
	for ; y+4 <= rows; y += 4 {
		r0, r1 := src[y*sw:(y+1)*sw], src[(y+1)*sw:(y+2)*sw]
		r2, r3 := src[(y+2)*sw:(y+3)*sw], src[(y+3)*sw:(y+4)*sw]
		d0, d1 := dst[y*dw:(y+1)*dw], dst[(y+1)*dw:(y+2)*dw]
		d2, d3 := dst[(y+2)*dw:(y+3)*dw], dst[(y+3)*dw:(y+4)*dw]
		for x := range d0 {
			ws := wt.w[x*taps : (x+1)*taps]
			s := wt.start[x]
			a0, a1 := r0[s:][:len(ws)], r1[s:][:len(ws)]
			a2, a3 := r2[s:][:len(ws)], r3[s:][:len(ws)]
			var s0, s1, s2, s3 float64
			for k, w := range ws {
				s0 += w * a0[k]
				s1 += w * a1[k]
				s2 += w * a2[k]
				s3 += w * a3[k]
			}
			d0[x], d1[x], d2[x], d3[x] = s0, s1, s2, s3
		}
	}
	for ; y < rows; y++ {
		srow := src[y*sw : (y+1)*sw]
		drow := dst[y*dw : (y+1)*dw]
		for x := range drow {
			ws := wt.w[x*taps : (x+1)*taps]
			a := srow[wt.start[x]:][:len(ws)]
			var sum float64
			for k, w := range ws {
				sum += w * a[k]
			}
			drow[x] = sum
		}
	}
}

// vertical resamples the columns of src (width w) into the dh rows of dst
// with table wt, a row at a time for sequential memory access.
func vertical(dst, src []float64, w, dh int, wt *weights) {
	taps := wt.taps
	for y := range dh {
		drow := dst[y*w : (y+1)*w]
		ws := wt.w[y*taps : (y+1)*taps]
		s := wt.start[y]
		srow := src[s*w:][:len(drow)]
		w0 := ws[0]
		for x := range drow {
			drow[x] = w0 * srow[x]
		}
		for k := 1; k < len(ws); k++ {
			wk := ws[k]
			if wk == 0 {
				continue
			}
			srow := src[(s+k)*w:][:len(drow)]
			for x := range drow {
				drow[x] += wk * srow[x]
			}
		}
	}
}

// grow returns s resliced to length n, reallocated if its capacity is too
// small.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
