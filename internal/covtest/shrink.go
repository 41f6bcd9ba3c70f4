package covtest

import "github.com/covpipe/covpipe/covariance"

// LedoitWolf returns n/(n−1) times the Ledoit–Wolf estimate that
// scikit-learn's ledoit_wolf computes from the n pixels of region r (d×d
// row-major), by its route rather than covpipe's: the data matrix X
// (n×d) centred on its mean, S = XᵀX/n, μ = tr S/d, X2 = X∘X,
//
//	β = (Σ_ij (X2ᵀX2)_ij / n − Σ_ij S_ij²) / (d n),
//	δ = (Σ_ij S_ij² − 2μ tr S + d μ²) / d,
//	ρ = min(β, δ)/δ (0 when that minimum is 0),
//
// and (1−ρ) S + ρ μ I, scaled to covpipe's normalisation by n − 1. It
// shares no code with package covariance.
func LedoitWolf(planes [][]float64, w int, r covariance.Region) []float64 {
	x, n, d := centred(planes, w, r)
	s := gram(x, n, d)
	fn, fd := float64(n), float64(d)
	var tr, frob float64
	for i := range d {
		tr += s[i*d+i]
	}
	for _, v := range s {
		frob += v * v
	}
	var b float64
	for i := range d {
		for j := range d {
			for t := range n {
				b += x[t*d+i] * x[t*d+i] * x[t*d+j] * x[t*d+j]
			}
		}
	}
	mu := tr / fd
	beta := (b/fn - frob) / (fd * fn)
	delta := (frob - 2*mu*tr + fd*mu*mu) / fd
	beta = min(beta, delta)
	rho := 0.0
	if beta != 0 {
		rho = beta / delta
	}
	return shrunk(s, d, n, rho, mu)
}

// OAS returns n/(n−1) times the Oracle Approximating Shrinkage estimate
// that scikit-learn's oas computes from the n pixels of region r (d×d
// row-major), by its route: S = XᵀX/n of the centred data, α the mean of
// the d² squared entries of S, μ = tr S/d,
//
//	ρ = min((α + μ²) / ((n+1)(α − μ²/d)), 1)   (1 when the denominator is 0),
//
// and (1−ρ) S + ρ μ I, scaled to covpipe's normalisation by n − 1. It
// shares no code with package covariance.
func OAS(planes [][]float64, w int, r covariance.Region) []float64 {
	x, n, d := centred(planes, w, r)
	s := gram(x, n, d)
	var tr, alpha float64
	for i := range d {
		tr += s[i*d+i]
	}
	for _, v := range s {
		alpha += v * v
	}
	alpha /= float64(d * d)
	mu := tr / float64(d)
	den := float64(n+1) * (alpha - mu*mu/float64(d))
	rho := 1.0
	if den != 0 {
		rho = min((alpha+mu*mu)/den, 1)
	}
	return shrunk(s, d, n, rho, mu)
}

// centred returns the n×d data matrix of the pixels of r, row t holding
// pixel t's features less their means over r.
func centred(planes [][]float64, w int, r covariance.Region) (x []float64, n, d int) {
	d, n = len(planes), r.W*r.H
	x = make([]float64, n*d)
	for k, p := range planes {
		var mean float64
		for y := r.Y; y < r.Y+r.H; y++ {
			for i := r.X; i < r.X+r.W; i++ {
				mean += p[y*w+i]
			}
		}
		mean /= float64(n)
		t := 0
		for y := r.Y; y < r.Y+r.H; y++ {
			for i := r.X; i < r.X+r.W; i++ {
				x[t*d+k] = p[y*w+i] - mean
				t++
			}
		}
	}
	return x, n, d
}

// gram returns XᵀX/n of the n×d x, as the sum of the rows' outer
// products.
func gram(x []float64, n, d int) []float64 {
	s := make([]float64, d*d)
	for t := range n {
		row := x[t*d : (t+1)*d]
		for i, a := range row {
			for j, b := range row {
				s[i*d+j] += a * b
			}
		}
	}
	for k := range s {
		s[k] /= float64(n)
	}
	return s
}

// shrunk returns n/(n−1) ((1−rho) s + rho mu I).
func shrunk(s []float64, d, n int, rho, mu float64) []float64 {
	scale := float64(n) / float64(n-1)
	out := make([]float64, len(s))
	for k, v := range s {
		out[k] = scale * (1 - rho) * v
	}
	for i := 0; i < len(s); i += d + 1 {
		out[i] += scale * rho * mu
	}
	return out
}
