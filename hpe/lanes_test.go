package hpe

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// referenceStep is the EM step as first written, a position at a time
// on the epitome's own arrays, the truth the blocked step must equal bit
// for bit.
func referenceStep(e *Epitome, p *Patches, update bool, floor float64) float64 {
	n, kk, w, h, k := e.W*e.H, e.K*e.K, e.W, e.H, e.K
	idx := make([]int, n*kk)
	for t := range n {
		for i := range kk {
			idx[t*kk+i] = ((t/w+i/k)%h)*w + (t%w+i%k)%w
		}
	}
	inv, lv, ell := make([]float64, 3*n), make([]float64, n), make([]float64, n)
	for j := range 3 * n {
		inv[j] = 1 / e.Var[j]
	}
	for t := range n {
		for _, j := range idx[t*kk : (t+1)*kk] {
			lv[t] += math.Log(e.Var[3*j]) + math.Log(e.Var[3*j+1]) + math.Log(e.Var[3*j+2])
		}
	}
	a, b, cc, position := make([]float64, n), make([]float64, 3*n), make([]float64, 3*n), make([]float64, n)
	constant := -0.5*float64(3*kk)*math.Log(2*math.Pi) - math.Log(float64(n))
	var ll float64
	for s, wt := range p.Weights {
		if wt == 0 {
			continue
		}
		z := p.Values[s*kk*3 : (s+1)*kk*3]
		best := math.Inf(-1)
		for t := range n {
			var q float64
			for i, j := range idx[t*kk : (t+1)*kk] {
				d0, d1, d2 := z[3*i]-e.Mean[3*j], z[3*i+1]-e.Mean[3*j+1], z[3*i+2]-e.Mean[3*j+2]
				q += d0*d0*inv[3*j] + d1*d1*inv[3*j+1] + d2*d2*inv[3*j+2]
			}
			ell[t] = -0.5 * (q + lv[t])
			best = max(best, ell[t])
		}
		var sum float64
		for t := range n {
			ell[t] = math.Exp(ell[t] - best)
			sum += ell[t]
		}
		ll += wt * (best + math.Log(sum) + constant)
		for t := range n {
			if ell[t] < negligible*sum {
				continue
			}
			r := wt * ell[t] / sum
			position[t] += r
			for i, j := range idx[t*kk : (t+1)*kk] {
				a[j] += r
				for c := range 3 {
					v := z[3*i+c]
					b[3*j+c] += r * v
					cc[3*j+c] += r * v * v
				}
			}
		}
	}
	if !update {
		copy(e.Usage, a)
		copy(e.Position, position)
		return ll
	}
	for j := range n {
		if a[j] <= 0 {
			continue
		}
		for c := range 3 {
			m := b[3*j+c] / a[j]
			e.Mean[3*j+c] = m
			e.Var[3*j+c] = max(floor, cc[3*j+c]/a[j]-m*m)
		}
	}
	return ll
}

// randomPatches returns m random K×K patches, about one in five of
// weight 0 and the others of weights in (0, 1].
func randomPatches(rng *rand.Rand, k, m int) *Patches {
	p := &Patches{K: k, Values: make([]float64, m*k*k*3), Weights: make([]float64, m)}
	for i := range p.Values {
		p.Values[i] = rng.Float64()
	}
	for s := range p.Weights {
		if rng.IntN(5) > 0 {
			p.Weights[s] = 1 - rng.Float64()
		}
	}
	p.Weights[0] = 1
	return p
}

// TestEpitomeEqualsReference fits epitomes with the blocked E-step (on
// the vector kernel where the CPU has one) and with referenceStep, and
// wants every mean, variance, usage, position weight and
// log-likelihood bit for bit the same, on sizes whose positions fill
// the blocks of four and sizes that leave the last block part empty.
func TestEpitomeEqualsReference(t *testing.T) {
	for _, c := range []struct{ w, h, k, m int }{
		{8, 8, 4, 90}, {5, 7, 3, 40}, {4, 4, 3, 17}, {13, 13, 4, 60}, {3, 3, 1, 9}, {9, 6, 2, 25},
	} {
		t.Run(fmt.Sprintf("%dx%d,K=%d", c.w, c.h, c.k), func(t *testing.T) {
			p := randomPatches(rand.New(rand.NewPCG(uint64(c.w), uint64(c.m))), c.k, c.m)
			o := EpitomeOptions{W: c.w, H: c.h, Patch: c.k, Iterations: 6}
			got, err := FitEpitome(context.Background(), p, o)
			if err != nil {
				t.Fatal(err)
			}
			o, _ = o.resolve()
			n := c.w * c.h
			want := &Epitome{W: c.w, H: c.h, K: c.k, Mean: make([]float64, 3*n), Var: make([]float64, 3*n), Usage: make([]float64, n), Position: make([]float64, n)}
			want.init(p, o.MinVariance)
			for it := 0; it <= o.Iterations; it++ {
				want.LogLik = append(want.LogLik, referenceStep(want, p, it < o.Iterations, o.MinVariance))
			}
			for _, f := range []struct {
				name      string
				got, want []float64
			}{
				{"Mean", got.Mean, want.Mean}, {"Var", got.Var, want.Var}, {"Usage", got.Usage, want.Usage},
				{"Position", got.Position, want.Position}, {"LogLik", got.LogLik, want.LogLik},
			} {
				if !slices.Equal(f.got, f.want) {
					t.Errorf("%s differs from the reference:\n got %v\nwant %v", f.name, f.got, f.want)
				}
			}
		})
	}
}

// TestTermsKernel compares terms (the vector kernel where there is
// one) with termsGo and with the terms written out per position, bit for
// bit, and their largest with the largest of the written-out terms;
// the positions past the last of a block must be −∞.
func TestTermsKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, c := range []struct{ n, kk int }{{64, 16}, {35, 9}, {1, 1}, {7, 4}} {
		mean, inv := make([]float64, 3*c.n), make([]float64, 3*c.n)
		for j := range mean {
			mean[j], inv[j] = rng.NormFloat64(), 1/(0.01+rng.Float64())
		}
		idx := make([]int, c.n*c.kk)
		for i := range idx {
			idx[i] = rng.IntN(c.n)
		}
		z := make([]float64, 3*c.kk)
		for i := range z {
			z[i] = rng.Float64()
		}
		var l lanes
		l.prepare(c.n, c.kk)
		for tt := range c.n {
			l.lv[tt] = rng.NormFloat64()
		}
		l.gather(mean, inv, idx, c.n, c.kk)
		got, goq := make([]float64, l.blocks*laneCount), make([]float64, l.blocks*laneCount)
		best, goBest := l.terms(got, z), l.termsGo(goq, z)
		want := math.Inf(-1)
		for tt := range l.blocks * laneCount {
			w := math.Inf(-1)
			if tt < c.n {
				var q float64
				for i, j := range idx[tt*c.kk : (tt+1)*c.kk] {
					d0, d1, d2 := z[3*i]-mean[3*j], z[3*i+1]-mean[3*j+1], z[3*i+2]-mean[3*j+2]
					q += d0*d0*inv[3*j] + d1*d1*inv[3*j+1] + d2*d2*inv[3*j+2]
				}
				w = -0.5 * (q + l.lv[tt])
				want = max(want, w)
			}
			if got[tt] != w || goq[tt] != w {
				t.Errorf("n=%d, K²=%d, position %d: kernel %v, Go %v, want %v", c.n, c.kk, tt, got[tt], goq[tt], w)
			}
		}
		if best != want || goBest != want {
			t.Errorf("n=%d, K²=%d: largest %v (kernel), %v (Go), want %v", c.n, c.kk, best, goBest, want)
		}
	}
}

// TestScatterKernel compares scatter (the vector kernel where there is
// one) with scatterGo and with the plain update of A, B and C, bit for
// bit, adding patches of random posteriors into the same sums.
func TestScatterKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const n, kk = 20, 9
	acc, goAcc := make([]float64, accStride*n), make([]float64, accStride*n)
	a, b, cc := make([]float64, n), make([]float64, 3*n), make([]float64, 3*n)
	for range 30 {
		idx := rng.Perm(n)[:kk]
		z := make([]float64, 3*kk)
		for i := range z {
			z[i] = rng.Float64()
		}
		ones := withOnes(nil, z)
		r := rng.Float64()
		scatter(acc, idx, ones, r)
		scatterGo(goAcc, idx, ones, r)
		for i, j := range idx {
			a[j] += r
			for c := range 3 {
				v := z[3*i+c]
				b[3*j+c] += r * v
				cc[3*j+c] += r * v * v
			}
		}
	}
	if !slices.Equal(acc, goAcc) {
		t.Errorf("kernel %v\nGo %v", acc, goAcc)
	}
	for j := range n {
		s := acc[accStride*j:]
		if s[0] != a[j] || s[1] != b[3*j] || s[2] != b[3*j+1] || s[3] != b[3*j+2] || s[5] != cc[3*j] || s[6] != cc[3*j+1] || s[7] != cc[3*j+2] {
			t.Errorf("pixel %d: sums %v, want A %v, B %v, C %v", j, s[:accStride], a[j], b[3*j:3*j+3], cc[3*j:3*j+3])
		}
	}
}
