package rsr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// mixtureSet returns m SPD d×d matrices in the manner of the paper's
// Fig. 7 data: sources are covariances of 100 draws from normals whose
// mean and variance differ per source, and each sample mixes t sources
// with weights |N(0,1)|.
func mixtureSet(tb testing.TB, seed uint64, m, d, sources, t int) *spd.Set {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x4d4958)) // "MIX"
	src := make([]*mat.SymDense, sources)
	x := mat.NewDense(100, d, nil)
	for s := range src {
		mean := rng.NormFloat64()
		sd := 0.5 + rng.Float64()
		for i := range 100 {
			for k := range d {
				x.Set(i, k, mean+sd*rng.NormFloat64())
			}
		}
		src[s] = sampleCovariance(x)
	}
	ms := make([]*mat.SymDense, m)
	for j := range ms {
		c := mat.NewSymDense(d, nil)
		for range t {
			c.AddSym(c, scaledSym(src[rng.IntN(sources)], math.Abs(rng.NormFloat64())))
		}
		ms[j] = c
	}
	set, err := spd.NewSet(ms)
	if err != nil {
		tb.Fatal(err)
	}
	return set
}

func scaledSym(a *mat.SymDense, c float64) *mat.SymDense {
	var s mat.SymDense
	s.ScaleSym(c, a)
	return &s
}

// covariance returns the sample covariance of the rows of x.
func sampleCovariance(x *mat.Dense) *mat.SymDense {
	n, d := x.Dims()
	mean := make([]float64, d)
	for i := range n {
		for k := range d {
			mean[k] += x.At(i, k) / float64(n)
		}
	}
	c := mat.NewSymDense(d, nil)
	for i := range n {
		for a := range d {
			for b := a; b < d; b++ {
				c.SetSym(a, b, c.At(a, b)+(x.At(i, a)-mean[a])*(x.At(i, b)-mean[b])/float64(n-1))
			}
		}
	}
	return c
}
