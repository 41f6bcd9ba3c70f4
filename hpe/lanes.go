package hpe

import (
	"math"

	"github.com/covpipe/covpipe/appearance"
)

// laneCount is the number of positions of a block of lanes.
const laneCount = 4

// lanes holds, for the E-step, the means μ and inverse variances 1/φ
// under every position of the epitome, four positions a block: channel c
// of patch pixel i at position t = 4b + l is at ((b·K² + i)·3 + c)·4 + l
// of mean and inv; lv[t] is Σ log φ under position t. The positions past
// the last of the last block hold zero means and inverse variances and
// lv = +∞, so that their terms are −∞. The layout makes a patch's terms
// at four positions the same operations on four lanes, each lane the
// plain loop's operations in their order, so that the terms are bit for
// bit those of a position at a time.
type lanes struct {
	blocks, kk    int
	mean, inv, lv []float64
}

// prepare sizes l for n positions of K² = kk pixels.
func (l *lanes) prepare(n, kk int) {
	l.blocks, l.kk = (n+laneCount-1)/laneCount, kk
	size := l.blocks * kk * 3 * laneCount
	l.mean = appearance.Grow(l.mean, size)
	l.inv = appearance.Grow(l.inv, size)
	l.lv = appearance.Grow(l.lv, l.blocks*laneCount)
	for t := n; t < len(l.lv); t++ {
		l.lv[t] = math.Inf(1)
	}
}

// gather lays out mean and inv (per epitome pixel and channel) under
// each of the n positions, idx[t·kk + i] the epitome pixel under patch
// pixel i at position t.
func (l *lanes) gather(mean, inv []float64, idx []int, n, kk int) {
	for b := range l.blocks {
		for lane := range laneCount {
			t := b*laneCount + lane
			for i := range kk {
				at := (b*kk + i) * 3 * laneCount
				if t >= n {
					for c := range 3 {
						l.mean[at+c*laneCount+lane], l.inv[at+c*laneCount+lane] = 0, 0
					}
					continue
				}
				j := idx[t*kk+i]
				for c := range 3 {
					l.mean[at+c*laneCount+lane], l.inv[at+c*laneCount+lane] = mean[3*j+c], inv[3*j+c]
				}
			}
		}
	}
}

// termsGo sets ell[t] = −½ (Σ_i Σ_c (z_ic − μ_{t(i)c})² / φ_{t(i)c} +
// lv[t]), the log-likelihood of the patch z (K² pixels of 3 channels) at
// position t without its constant, at every position t of l's blocks
// (the channels of a pixel summed first, then added to the pixels'
// running sum, in the order of the pixels), and returns their largest.
func (l *lanes) termsGo(ell, z []float64) float64 {
	best := math.Inf(-1)
	kk := l.kk
	z = z[:3*kk]
	for b := range l.blocks {
		m := l.mean[b*kk*3*laneCount : (b+1)*kk*3*laneCount]
		v := l.inv[b*kk*3*laneCount : (b+1)*kk*3*laneCount]
		var q0, q1, q2, q3 float64
		for i := range kk {
			z0, z1, z2 := z[3*i], z[3*i+1], z[3*i+2]
			m, v := m[12*i:12*i+12], v[12*i:12*i+12]
			a0, b0, c0 := z0-m[0], z1-m[4], z2-m[8]
			a1, b1, c1 := z0-m[1], z1-m[5], z2-m[9]
			a2, b2, c2 := z0-m[2], z1-m[6], z2-m[10]
			a3, b3, c3 := z0-m[3], z1-m[7], z2-m[11]
			q0 += a0*a0*v[0] + b0*b0*v[4] + c0*c0*v[8]
			q1 += a1*a1*v[1] + b1*b1*v[5] + c1*c1*v[9]
			q2 += a2*a2*v[2] + b2*b2*v[6] + c2*c2*v[10]
			q3 += a3*a3*v[3] + b3*b3*v[7] + c3*c3*v[11]
		}
		for lane, q := range [laneCount]float64{q0, q1, q2, q3} {
			t := b*laneCount + lane
			ell[t] = -0.5 * (q + l.lv[t])
			best = max(best, ell[t])
		}
	}
	return best
}

// withOnes returns, in buf, the pixels (3 channels each) of values as
// 4-vectors (1, z0, z1, z2).
func withOnes(buf, values []float64) []float64 {
	buf = appearance.Grow(buf, len(values)/3*4)
	for i := range len(values) / 3 {
		buf[4*i] = 1
		copy(buf[4*i+1:4*i+4], values[3*i:3*i+3])
	}
	return buf
}

// scatterGo adds a patch's pixels, ones (see withOnes), weighted by the
// posterior r, to the M-step sums acc of the epitome pixels idx under
// them: pixel i to j = idx[i], acc[8j+c] += r·p_c and acc[8j+4+c] +=
// (r·p_c)·p_c for p = ones[4i : 4i+4]. Lane 0 adds r to A (and to the
// spare); lanes 1 to 3 add r·z_c to B_c and (r·z_c)·z_c to C_c, the
// operations of the plain update.
func scatterGo(acc []float64, idx []int, ones []float64, r float64) {
	for i, j := range idx {
		sj, p := acc[accStride*j:accStride*j+accStride], ones[4*i:4*i+4]
		for c, v := range p {
			rv := r * v
			sj[c] += rv
			sj[4+c] += rv * v
		}
	}
}

// expLow and expHigh bound the arguments x whose e^x math.Exp's amd64
// path computes without its denormal and overflow branches: there
// k = round(x·log₂e) lies in [−1021, 1023], so that 2^k is a normal
// number (−708·log₂e ≈ −1021.4, 709·log₂e ≈ 1022.9).
const (
	expLow  = -708
	expHigh = 709
)
