package covariance

import (
	"fmt"
	"math"
)

// integral builds into e.table the integral images of the features and of
// their pairwise products (Tuzel, Porikli and Meer, "Region covariance",
// ECCV 2006), after subtracting the image mean m̄ of each feature:
// with u = z − m̄,
//
//	P(x, y) = Σ_{x'<x, y'<y} u(x', y'),   Q(x, y) = Σ_{x'<x, y'<y} u uᵀ (upper triangle),
//
// for 0 ≤ x ≤ w, 0 ≤ y ≤ h. The m = d + d(d+1)/2 values of a point are
// contiguous, P first and then Q row by row, so a region reads 4·m
// consecutive runs. For LedoitWolf each point has d + 1 more values, the
// integrals of ‖u‖² u and of ‖u‖⁴ (e.vals in all). It returns an error
// wrapping ErrNotFinite, naming the pixel, when a feature of the image is
// NaN or ±Inf, and one wrapping ErrShape when the images would exceed
// maxIntegralValues.
func (e *Extractor) integral(planes [][]float64, w, h int) error {
	d := e.d
	m := e.vals
	size := e.tableLen(w, h)
	if size > maxIntegralValues {
		return fmt.Errorf("%w: integral images of a %dx%d image with %d features would take %d values, more than %d; use the direct method", ErrShape, w, h, d, size, maxIntegralValues)
	}
	if len(e.table) < size {
		e.table = make([]float64, size)
	}
	n := float64(w * h)
	for k, p := range planes {
		e.mean[k] = sum(p) / n
		if math.IsNaN(e.mean[k]) || math.IsInf(e.mean[k], 0) {
			return nonFinite(planes, w, Whole(w, h))
		}
	}
	stride := (w + 1) * m
	t := e.table[:size]
	clear(t[:stride])
	e.growCen(w)
	zr, mean := e.cen[:d*w], e.mean[:d]
	for y := range h {
		// The row's centred features, pixel by pixel: zr[x·d+k].
		for k, p := range planes {
			mk := mean[k]
			for x, v := range p[y*w : (y+1)*w] {
				zr[x*d+k] = v - mk
			}
		}
		prev := t[y*stride : (y+1)*stride]
		cur := t[(y+1)*stride : (y+2)*stride]
		// First the sums along the row, cur(x+1) = cur(x) + [u, u uᵀ],
		// then the row above is added: two simple loops that keep the m
		// running sums independent of each other.
		rowSums(cur, zr, d, m)
		if e.est == LedoitWolf {
			rowFourth(cur, zr, d, d+d*(d+1)/2, m)
		}
		prev = prev[:len(cur)]
		for k, v := range prev {
			cur[k] += v
		}
	}
	return nil
}

// rowSums writes into cur, (w+1) groups of m values, the running sums
// along a row of the centred features zr (w groups of d) and of their
// products: cur(0) = 0, cur(x+1) = cur(x) + [u, upper triangle of u uᵀ]
// with u = zr(x), in the first d + d(d+1)/2 values of each group. It is a
// function of its own so that the compiler keeps the loop variables in
// registers.
func rowSums(cur, zr []float64, d, m int) {
	clear(cur[:m])
	for x := range len(zr) / d {
		z := zr[x*d : (x+1)*d : (x+1)*d]
		left := cur[x*m : (x+1)*m : (x+1)*m]
		out := cur[(x+1)*m : (x+2)*m : (x+2)*m]
		l, o := left[:d], out[:d]
		for k, v := range z {
			o[k] = l[k] + v
		}
		k := d
		for i, zi := range z {
			zz := z[i:]
			l, o := left[k:k+len(zz)], out[k:k+len(zz)]
			for j, zj := range zz {
				o[j] = l[j] + zi*zj
			}
			k += len(zz)
		}
	}
}

// rowFourth writes into cur, after rowSums, the running sums along the row
// of ‖u‖² u and ‖u‖⁴ (u = zr(x)), the d + 1 values of each group of m
// from offset base on.
func rowFourth(cur, zr []float64, d, base, m int) {
	for x := range len(zr) / d {
		z := zr[x*d : (x+1)*d : (x+1)*d]
		left := cur[x*m+base : (x+1)*m : (x+1)*m]
		out := cur[(x+1)*m+base : (x+2)*m : (x+2)*m]
		var s float64
		for _, v := range z {
			s += v * v
		}
		l, o := left[:d], out[:d]
		for k, v := range z {
			o[k] = l[k] + s*v
		}
		out[d] = left[d] + s*s
	}
}

// fromIntegral writes into c (d×d, exactly symmetric) the unbiased
// covariance of region r from the integral images: with the region sums
// p = Σ u and q = Σ u uᵀ, each from four corners as in Tuzel et al.,
//
//	C = (q − p pᵀ/n) / (n−1).
//
// Error analysis. Let N = w·h, n the region's pixels, ε = 2⁻⁵³, s̄² the mean
// of u_i² over the image and σ² the region's variance. Values of Q grow to
// N·s̄² and are sums along a row and then down a column, with a rounding
// error bounded by about ε·(w+h)·N·s̄² and typically ε·√(w+h)·N·s̄². The
// four-corner difference keeps that absolute error while the region's sum
// is only n·σ², so the relative error of C is about
//
//	ε · √(w+h) · (N/n) · s̄²/σ²,
//
// plus the cancellation of q against p pᵀ/n, relative to (σ² + δ²)/σ² for
// a region mean δ away from the image mean. Without centring, s̄² would be
// m̄² + s̄²: features of mean 10³ and unit spread would lose six more digits
// (the tests see 1e-6 instead of 1e-14). With it, a 32×32 region of a
// 256×256 image is good to about 1e-13·s̄²/σ², and the tests find
// agreement with the direct path to 3e-12 or better for regions of at
// least 16×16 in 640×640 Brodatz textures. Tiny regions of large images, or
// regions far flatter than the image, lose accuracy in proportion.
//
// For LedoitWolf it returns the fourth moments about the region's mean
// z̄ = m̄ + a, a = p/n, from the region sums f = Σ ‖u‖⁴ and
// g = Σ ‖u‖² u: expanding ‖u − a‖⁴ = (‖u‖² − 2uᵀa + ‖a‖²)² and using
// Σ u = n a,
//
//	Σ ‖u − a‖⁴ = f − 4 aᵀg + 4 aᵀq a + 2 ‖a‖² tr q − 3n ‖a‖⁴.
//
// Its terms grow as the fourth power of the spread, so the error bound
// above holds with (s̄²/σ²)² in place of s̄²/σ². It returns 0 otherwise.
func (e *Extractor) fromIntegral(c []float64, w int, r Region) float64 {
	d := e.d
	m := e.vals
	stride := (w + 1) * m
	at := func(x, y int) []float64 { return e.table[y*stride+x*m : y*stride+(x+1)*m] }
	x0, y0, x1, y1 := r.X, r.Y, r.X+r.W, r.Y+r.H
	a, b, cc, dd := at(x1, y1), at(x0, y1), at(x1, y0), at(x0, y0)
	s := e.acc[:m]
	b, cc, dd = b[:m], cc[:m], dd[:m]
	for k := range s {
		s[k] = (a[k] - b[k]) - (cc[k] - dd[k])
	}
	p, q := s[:d], s[d:]
	tri := q[:d*(d+1)/2]
	n := float64(r.Area())
	inv := 1 / (n - 1)
	for i := range d {
		for j := i; j < d; j++ {
			v := (q[0] - p[i]*p[j]/n) * inv
			q = q[1:]
			c[i*d+j] = v
			c[j*d+i] = v
		}
	}
	if e.est != LedoitWolf {
		return 0
	}
	g, f := s[d+len(tri):2*d+len(tri)], s[2*d+len(tri)]
	var aqa, ag, aa, trq float64
	k := 0
	for i := range d {
		ai := p[i] / n
		aa += ai * ai
		ag += ai * g[i]
		trq += tri[k]
		aqa += tri[k] * ai * ai
		k++
		var off float64
		for j := i + 1; j < d; j++ {
			off += tri[k] * (p[j] / n)
			k++
		}
		aqa += 2 * ai * off
	}
	return f - 4*ag + 4*aqa + 2*aa*trq - 3*n*aa*aa
}
