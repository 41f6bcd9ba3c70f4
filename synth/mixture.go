package synth

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// MixtureOptions configure Mixture, the synthetic data of the paper's
// dictionary-learning experiment (Sec. 5.2.1, Fig. 7).
type MixtureOptions struct {
	// Sources is the number of source points (32 in the paper), Dim the
	// matrix size d (5).
	Sources int `yaml:"sources" json:"sources"`
	Dim     int `yaml:"dim" json:"dim"`
	// Points is the number of normal samples whose covariance makes a
	// source (100).
	Points int `yaml:"points" json:"points"`
	// Samples is the number of mixtures (512), each of Mix sources (4).
	Samples int `yaml:"samples" json:"samples"`
	Mix     int `yaml:"mix" json:"mix"`
}

// Mixture draws the paper's synthetic dictionary-learning data (Sec.
// 5.2.1, Fig. 7): each of the Sources source points is the sample
// covariance
//
//	S = 1/(Points−1) Σ_p (x_p − x̄)(x_p − x̄)ᵀ
//
// of Points draws x_p from a Dim-variate normal whose mean and variance
// differ per source (mean entries N(0, 1), variance uniform in [0.5, 2));
// each of the Samples samples is
//
//	X = Σ_{t=1..Mix} w_t S_{k_t}
//
// over Mix sources k_t chosen uniformly without replacement, with weights
// w_t = |N(0, 1)| ("random positive weights, normal with zero mean and
// unit variance"). A sum of SPD matrices with positive weights is SPD.
// The paper gives neither the means and variances of its sources nor
// whether sources repeat within a sample; these are ours. It depends on
// the seed only and returns the error of o.Validate.
func Mixture(o MixtureOptions, seed uint64) (sources, samples []*mat.SymDense, err error) {
	return MixtureContext(context.Background(), o, seed)
}

// MixtureContext is Mixture, returning ctx.Err() as soon as it sees ctx
// cancelled, which it checks every few sources and samples: a config's
// Points and Samples can make the draw long.
func MixtureContext(ctx context.Context, o MixtureOptions, seed uint64) (sources, samples []*mat.SymDense, err error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x4d4958)) // "MIX"
	d := o.Dim
	x := mat.NewDense(o.Points, d, nil)
	for range o.Sources {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		scale := math.Sqrt(0.5 + 1.5*rng.Float64())
		mean := make([]float64, d)
		for i := range mean {
			mean[i] = rng.NormFloat64()
		}
		for p := range o.Points {
			if p%(checkEvery<<10) == 0 {
				if err := ctx.Err(); err != nil {
					return nil, nil, err
				}
			}
			for i := range d {
				x.Set(p, i, mean[i]+scale*rng.NormFloat64())
			}
		}
		c := mat.NewSymDense(d, nil)
		covariance(c, x)
		sources = append(sources, c)
	}
	for i := range o.Samples {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		s := mat.NewSymDense(d, nil)
		for _, k := range rng.Perm(o.Sources)[:o.Mix] {
			w := math.Abs(rng.NormFloat64())
			for i := range d {
				for j := i; j < d; j++ {
					s.SetSym(i, j, s.At(i, j)+w*sources[k].At(i, j))
				}
			}
		}
		samples = append(samples, s)
	}
	return sources, samples, nil
}

// Validate reports the first invalid option, as Mixture does, without
// drawing anything: an error wrapping ErrConfig for sources, dim or
// samples below 1, Points ≤ Dim (a singular covariance), Mix outside
// 1..Sources, or Points·Dim, Sources·Dim² or Samples·Dim² above
// MaxValues.
func (o MixtureOptions) Validate() error {
	switch {
	case o.Sources < 1 || o.Dim < 1 || o.Samples < 1:
		return fmt.Errorf("%w: mixture: sources %d, dim %d, samples %d must be >= 1", ErrConfig, o.Sources, o.Dim, o.Samples)
	case o.Points <= o.Dim:
		return fmt.Errorf("%w: mixture: %d points cannot make a full-rank %d×%d covariance", ErrConfig, o.Points, o.Dim, o.Dim)
	case o.Mix < 1 || o.Mix > o.Sources:
		return fmt.Errorf("%w: mixture: mix %d, want 1..%d sources", ErrConfig, o.Mix, o.Sources)
	case o.Dim > MaxValues/o.Dim:
		return fmt.Errorf("%w: mixture: dim %d, more than %d values a matrix", ErrConfig, o.Dim, MaxValues)
	}
	for _, c := range []struct {
		what   string
		n, per int
	}{
		{"mixture points", o.Points, o.Dim},
		{fmt.Sprintf("mixture sources of %d×%d", o.Dim, o.Dim), o.Sources, o.Dim * o.Dim},
		{fmt.Sprintf("mixture samples of %d×%d", o.Dim, o.Dim), o.Samples, o.Dim * o.Dim},
	} {
		if err := checkValues(c.what, c.n, c.per); err != nil {
			return err
		}
	}
	return nil
}

// covariance sets c to the sample covariance (n−1 denominator) of the rows
// of x.
func covariance(c *mat.SymDense, x *mat.Dense) {
	n, d := x.Dims()
	mean := make([]float64, d)
	for p := range n {
		for i := range d {
			mean[i] += x.At(p, i) / float64(n)
		}
	}
	for i := range d {
		for j := i; j < d; j++ {
			var s float64
			for p := range n {
				s += (x.At(p, i) - mean[i]) * (x.At(p, j) - mean[j])
			}
			c.SetSym(i, j, s/float64(n-1))
		}
	}
}
