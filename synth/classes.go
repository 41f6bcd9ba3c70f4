package synth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// ErrConfig is wrapped by the errors for invalid options.
var ErrConfig = errors.New("synth: invalid configuration")

// MaxValues bounds the matrix entries, in float64s, that one draw makes:
// Samples·Dim² for Model.Sample and Mixture, Points·Dim for a Mixture's
// sources. At 2³² values (32 GiB) it refuses what cannot be allocated,
// such as a config's samples: 2000000000, as an error instead of a fatal
// out-of-memory; smaller bounds are for the caller (experiment files are
// held to --max-memory).
const MaxValues = 1 << 32

// checkValues returns an error wrapping ErrConfig when n items of per
// values each exceed MaxValues; what names the items.
func checkValues(what string, n, per int) error {
	if n > MaxValues/per {
		return fmt.Errorf("%w: %s: %d × %d = %.3g values, more than %d (MaxValues)", ErrConfig, what, n, per, float64(n)*float64(per), MaxValues)
	}
	return nil
}

// checkEvery is how many samples a draw makes between looks at its
// context.
const checkEvery = 64

// Options describe the synthetic classification data of the paper's
// Sec. 5.1.1 (Table 1): Classes classes on Sym+^Dim, each with a random
// base point P_c, whose samples are drawn from a normal distribution in
// the tangent space at P_c and mapped onto the manifold with the
// exponential map.
//
// Base points are P_c = exp(B_c) with B_c a random symmetric matrix whose
// entries are normal with standard deviation Spread (Spread/√2 off the
// diagonal). A sample of class c is
//
//	X = Exp_{P_c}(P_c^{1/2} W P_c^{1/2}) = P_c^{1/2} exp(W) P_c^{1/2},
//
// with W symmetric, W_ii ~ N(0, Variance), W_ij ~ N(0, Variance/2): a
// tangent vector whose distribution is isotropic for the AIRM at P_c, with
// E‖W‖²_F = Variance·d(d+1)/2. The paper does not give its variances;
// configs/synthetic.yaml documents ours. A Model holds the base points;
// its Sample draws the samples. The tags are the keys of the synthetic
// tasks of experiment files.
type Options struct {
	Classes int     `yaml:"classes" json:"classes"` // number of classes, paper: 4
	Dim     int     `yaml:"dim" json:"dim"`         // matrix size d, paper: 3
	Samples int     `yaml:"samples" json:"samples"` // total samples, split evenly over classes, paper: 512
	Train   float64 `yaml:"train" json:"train"`     // fraction of each class used for training, paper: 0.5
	Spread  float64 `yaml:"spread" json:"spread"`   // standard deviation of the base points' logarithms
	// Variance is the class variance in the tangent space. 'easy' and
	// 'hard' tasks differ only in it.
	Variance float64 `yaml:"variance" json:"variance"`
}

// Paper returns the paper's layout (4 classes on Sym+^3, 512 samples,
// half for training) with the given spread and class variance.
func Paper(spread, variance float64) Options {
	return Options{Classes: 4, Dim: 3, Samples: 512, Train: 0.5, Spread: spread, Variance: variance}
}

// Validate reports the first invalid option, wrapping ErrConfig: fewer
// than 2 classes, d outside 1..64, fewer than 2 samples per class, a
// training fraction outside (0, 1) or one that leaves a class without
// training or test samples, a negative or non-finite spread or variance.
func (o Options) Validate() error {
	switch {
	case o.Classes < 2:
		return fmt.Errorf("%w: synthetic classes = %d, want >= 2", ErrConfig, o.Classes)
	case o.Dim < 1 || o.Dim > 64:
		return fmt.Errorf("%w: synthetic dim = %d, want 1..64", ErrConfig, o.Dim)
	case o.Samples < 2*o.Classes:
		return fmt.Errorf("%w: synthetic samples = %d, want at least 2 per class (%d)", ErrConfig, o.Samples, 2*o.Classes)
	case !(o.Train > 0 && o.Train < 1):
		return fmt.Errorf("%w: synthetic train fraction = %v, want in (0, 1)", ErrConfig, o.Train)
	case !(o.Spread >= 0) || math.IsInf(o.Spread, 0):
		return fmt.Errorf("%w: synthetic spread = %v, want finite and >= 0", ErrConfig, o.Spread)
	case !(o.Variance >= 0) || math.IsInf(o.Variance, 0):
		return fmt.Errorf("%w: synthetic variance = %v, want finite and >= 0", ErrConfig, o.Variance)
	}
	perClass := o.Samples / o.Classes
	if n := int(math.Round(o.Train * float64(perClass))); n < 1 || n >= perClass {
		return fmt.Errorf("%w: train fraction %v of %d samples per class leaves an empty training or test set", ErrConfig, o.Train, perClass)
	}
	return nil
}

// Data is a labelled list of SPD matrices: X[i] has label Labels[i].
type Data struct {
	X      []*mat.SymDense
	Labels []int
}

// Model is a fixed set of class base points from which synthetic
// train/test splits are sampled. The paper fixes "the mean of each class"
// and varies the class variance between its easy and hard problems, and
// repeats the data creation 100 times: one model, many samples.
type Model struct {
	opts  Options
	bases []*mat.SymDense
	roots []*mat.SymDense // P_c^{1/2}
}

// NewModel draws the class base points P_c = exp(B_c) from the seed.
// Base points depend only on the seed, Classes, Dim and Spread, so tasks
// that differ only in Variance share their class means. It returns the
// error of o.Validate, one wrapping ErrConfig when Samples·Dim² exceeds
// MaxValues, and one naming the class when a base point cannot be
// computed.
func NewModel(o Options, seed uint64) (*Model, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkValues(fmt.Sprintf("synthetic samples of %d×%d", o.Dim, o.Dim), o.Samples, o.Dim*o.Dim); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x42415345)) // "BASE"
	d := o.Dim
	w := spd.NewWorkspace(d)
	g := mat.NewSymDense(d, nil)
	m := &Model{opts: o}
	for c := range o.Classes {
		randSym(rng, g, o.Spread)
		p, root := mat.NewSymDense(d, nil), mat.NewSymDense(d, nil)
		if err := w.ExpTo(p, g); err != nil {
			return nil, fmt.Errorf("synthetic base point of class %d: %w", c, err)
		}
		if err := w.SqrtTo(root, p); err != nil {
			return nil, fmt.Errorf("synthetic base point of class %d: %w", c, err)
		}
		m.bases = append(m.bases, p)
		m.roots = append(m.roots, root)
	}
	return m, nil
}

// Bases returns the class base points P_c (not copies: do not modify).
func (m *Model) Bases() []*mat.SymDense { return m.bases }

// Sample draws a train/test split from the seed: Samples/Classes samples
// per class (remainder dropped), round(Train·that) of them for training,
// each X = P_c^{1/2} exp(W) P_c^{1/2} (see Options). Labels are
// 0..Classes−1. It returns an error naming the sample when exp(W) cannot
// be computed.
func (m *Model) Sample(seed uint64) (train, test Data, err error) {
	return m.SampleContext(context.Background(), seed)
}

// SampleContext is Sample, returning ctx.Err() as soon as it sees ctx
// cancelled, which it checks every few samples: a config's Samples can
// make the draw long.
func (m *Model) SampleContext(ctx context.Context, seed uint64) (train, test Data, err error) {
	o := m.opts
	rng := rand.New(rand.NewPCG(seed, 0x53414d50)) // "SAMP"
	d := o.Dim
	perClass := o.Samples / o.Classes
	nTrain := int(math.Round(o.Train * float64(perClass)))
	w := spd.NewWorkspace(d)
	ew := mat.NewSymDense(d, nil)
	g := mat.NewSymDense(d, nil)
	var t, u mat.Dense // scratch of sandwich, reused across samples
	sd := math.Sqrt(o.Variance)
	for c := range o.Classes {
		for i := range perClass {
			if i%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return Data{}, Data{}, err
				}
			}
			randSym(rng, g, sd)
			if err := w.ExpTo(ew, g); err != nil {
				return train, test, fmt.Errorf("synthetic sample %d of class %d: %w", i, c, err)
			}
			x := sandwich(m.roots[c], ew, &t, &u)
			dst := &test
			if i < nTrain {
				dst = &train
			}
			dst.X = append(dst.X, x)
			dst.Labels = append(dst.Labels, c)
		}
	}
	return train, test, nil
}

// Classes draws a model and one train/test split from the seed:
// NewModel(o, seed), then Model.Sample(seed). It returns their errors.
func Classes(o Options, seed uint64) (train, test Data, err error) {
	m, err := NewModel(o, seed)
	if err != nil {
		return train, test, err
	}
	return m.Sample(seed)
}

// randSym fills g with a symmetric Gaussian matrix: N(0, sd²) on the
// diagonal and N(0, sd²/2) above it, the Gaussian orthogonal ensemble,
// whose law is invariant under rotations.
func randSym(rng *rand.Rand, g *mat.SymDense, sd float64) {
	d := g.SymmetricDim()
	for i := range d {
		g.SetSym(i, i, sd*rng.NormFloat64())
		for j := i + 1; j < d; j++ {
			g.SetSym(i, j, sd/math.Sqrt2*rng.NormFloat64())
		}
	}
}

// sandwich returns S E S for symmetric S and E, exactly symmetrised; t and
// u are scratch for the products S E and S E S.
func sandwich(s, e mat.Symmetric, t, u *mat.Dense) *mat.SymDense {
	t.Mul(s, e)
	u.Mul(t, s)
	d := s.SymmetricDim()
	out := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			out.SetSym(i, j, 0.5*(u.At(i, j)+u.At(j, i)))
		}
	}
	return out
}
