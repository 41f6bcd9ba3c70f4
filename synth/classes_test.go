package synth

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

func TestSyntheticLayout(t *testing.T) {
	o := Paper(1, 0.1)
	train, test, err := Classes(o, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(train.X) != 256 || len(test.X) != 256 || len(train.Labels) != 256 || len(test.Labels) != 256 {
		t.Fatalf("sizes %d/%d, want 256/256", len(train.X), len(test.X))
	}
	counts := map[int][2]int{}
	for _, l := range train.Labels {
		c := counts[l]
		c[0]++
		counts[l] = c
	}
	for _, l := range test.Labels {
		c := counts[l]
		c[1]++
		counts[l] = c
	}
	for c := range 4 {
		if counts[c] != [2]int{64, 64} {
			t.Errorf("class %d: train/test %v, want 64/64", c, counts[c])
		}
	}
	for i, x := range append(train.X, test.X...) {
		if err := spd.Validate(x); err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		if n := x.SymmetricDim(); n != 3 {
			t.Fatalf("sample %d is %d×%d", i, n, n)
		}
	}
}

func TestSyntheticSeedDeterminism(t *testing.T) {
	o := Paper(1, 0.2)
	a, _, _ := Classes(o, 11)
	b, _, _ := Classes(o, 11)
	c, _, _ := Classes(o, 12)
	for i := range a.X {
		if !mat.Equal(a.X[i], b.X[i]) {
			t.Fatalf("same seed, sample %d differs", i)
		}
	}
	if mat.Equal(a.X[0], c.X[0]) {
		t.Error("different seeds gave the same first sample")
	}
}

// TestSyntheticTangentModel checks the generative model: with Variance 0
// every sample of a class is its base point P_c, and for the same seed the
// AIRM distance d_g(P_c, X) = √Variance·‖W‖_F scales exactly with the class
// standard deviation, with E d_g² = Variance·d(d+1)/2.
func TestSyntheticTangentModel(t *testing.T) {
	o := Options{Classes: 3, Dim: 4, Samples: 3 * 400, Train: 0.5, Spread: 1}
	base, _, err := Classes(o, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(base.X); i++ {
		if base.Labels[i] == base.Labels[i-1] && !mat.EqualApprox(base.X[i], base.X[i-1], 1e-12) {
			t.Fatal("variance 0: samples of one class differ")
		}
	}
	o.Variance = 0.04
	small, _, _ := Classes(o, 5)
	o.Variance = 0.25
	large, _, _ := Classes(o, 5)
	var ss float64
	for i := range base.X {
		ds, err := spd.AIRM(base.X[i], small.X[i])
		if err != nil {
			t.Fatal(err)
		}
		dl, _ := spd.AIRM(base.X[i], large.X[i])
		if math.Abs(ds/0.2-dl/0.5) > 1e-8*math.Max(1, dl) {
			t.Fatalf("sample %d: d/σ = %g and %g, want equal", i, ds/0.2, dl/0.5)
		}
		ss += dl * dl
	}
	mean := ss / float64(len(base.X))
	want := 0.25 * 4 * 5 / 2
	// Mean of 600 χ²-type variables with 10 degrees of freedom: relative
	// standard error ≈ sqrt(2/10/600) ≈ 1.8%.
	if math.Abs(mean-want) > 0.08*want {
		t.Errorf("mean d_g² = %g, want ≈ %g", mean, want)
	}
}

func TestSyntheticExpMap(t *testing.T) {
	// The sample equals spd.ExpMap at the base point of the tangent vector
	// P^{1/2} W P^{1/2}; recover W from a variance-1 draw and check.
	o := Options{Classes: 2, Dim: 3, Samples: 8, Train: 0.5, Spread: 1, Variance: 1}
	x, _, _ := Classes(o, 3)
	o.Variance = 0
	p, _, _ := Classes(o, 3)
	v, err := spd.LogMap(p.X[0], x.X[0])
	if err != nil {
		t.Fatal(err)
	}
	back, err := spd.ExpMap(p.X[0], v)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(back, x.X[0], 1e-10) {
		t.Error("Exp_P(Log_P(X)) != X")
	}
}

func TestOptionsErrors(t *testing.T) {
	bad := []Options{
		{Classes: 1, Dim: 3, Samples: 10, Train: 0.5},
		{Classes: 4, Dim: 0, Samples: 512, Train: 0.5},
		{Classes: 4, Dim: 3, Samples: 4, Train: 0.5},
		{Classes: 4, Dim: 3, Samples: 512, Train: 1},
		{Classes: 4, Dim: 3, Samples: 512, Train: 0.5, Variance: -1},
		{Classes: 4, Dim: 3, Samples: 512, Train: 0.5, Spread: math.NaN()},
		{Classes: 4, Dim: 3, Samples: 8, Train: 0.1},
	}
	for i, o := range bad {
		if _, _, err := Classes(o, 1); !errors.Is(err, ErrConfig) {
			t.Errorf("case %d: got %v, want ErrConfig", i, err)
		}
	}
}

// TestSizesThatCannotBeAllocated checks that the draws refuse, before
// allocating, sizes whose matrices cannot be held (a config's samples:
// 2000000000), naming what is too large, and accept the largest shipped
// sizes.
func TestSizesThatCannotBeAllocated(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Classes: 4, Dim: 3, Samples: 2000000000, Train: 0.5}, "synthetic samples of 3×3: 2000000000 × 9 = 1.8e+10 values, more than 4294967296"},
		{Options{Classes: 2, Dim: 64, Samples: 1 << 21, Train: 0.5}, "synthetic samples of 64×64"},
	} {
		if _, err := NewModel(tc.o, 1); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewModel(%+v): %v, want %q", tc.o, err, tc.want)
		}
	}
	if _, err := NewModel(Options{Classes: 10, Dim: 17, Samples: 50000, Train: 0.02, Spread: 0.2, Variance: 1}, 1); err != nil {
		t.Errorf("configs/scale.yaml's model: %v", err)
	}
	for _, tc := range []struct {
		o    MixtureOptions
		want string
	}{
		{MixtureOptions{Sources: 2, Dim: 5, Points: 1 << 40, Samples: 4, Mix: 2}, "mixture points: 1099511627776 × 5"},
		{MixtureOptions{Sources: 2, Dim: 5, Points: 100, Samples: 1 << 40, Mix: 2}, "mixture samples of 5×5"},
		{MixtureOptions{Sources: 1 << 40, Dim: 5, Points: 100, Samples: 4, Mix: 2}, "mixture sources of 5×5"},
		{MixtureOptions{Sources: 2, Dim: 1 << 40, Points: 1<<40 + 1, Samples: 4, Mix: 2}, "dim 1099511627776, more than"},
	} {
		if _, _, err := Mixture(tc.o, 1); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Mixture(%+v): %v, want %q", tc.o, err, tc.want)
		}
	}
}

// TestSyntheticModelFixesBases checks that base points depend on the model
// seed only (shared between variances: the paper's "fixing the mean of each
// class"), while samples are redrawn per sample seed.
func TestSyntheticModelFixesBases(t *testing.T) {
	easy, err := NewModel(Paper(1, 1), 42)
	if err != nil {
		t.Fatal(err)
	}
	hard, _ := NewModel(Paper(1, 3), 42)
	for c := range easy.Bases() {
		if !mat.Equal(easy.Bases()[c], hard.Bases()[c]) {
			t.Fatalf("class %d: base point differs between variances", c)
		}
	}
	a, _, _ := easy.Sample(1)
	b, _, _ := easy.Sample(2)
	if mat.Equal(a.X[0], b.X[0]) {
		t.Error("different sample seeds drew the same sample")
	}
	// Samples scatter around their own class's base point.
	for i, x := range a.X {
		own, _ := spd.AIRM(easy.Bases()[a.Labels[i]], x)
		if own > 6 {
			t.Fatalf("sample %d is %g from its base point", i, own)
		}
	}
}

// TestDrawsStopWhenCancelled checks that long draws return the context's
// error once it is cancelled, instead of running to the end (SIGTERM
// cancels a run's context), and that a live context draws what the plain
// forms draw.
func TestDrawsStopWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, err := NewModel(Options{Classes: 2, Dim: 3, Samples: 1 << 24, Train: 0.5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.SampleContext(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("SampleContext(cancelled): %v, want context.Canceled", err)
	}
	o := MixtureOptions{Sources: 4, Dim: 3, Points: 1 << 24, Samples: 1 << 24, Mix: 2}
	if _, _, err := MixtureContext(ctx, o, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("MixtureContext(cancelled): %v, want context.Canceled", err)
	}

	small, err := NewModel(Paper(1, 0.5), 3)
	if err != nil {
		t.Fatal(err)
	}
	tr, te, err := small.Sample(4)
	tr2, te2, err2 := small.SampleContext(context.Background(), 4)
	if err != nil || err2 != nil || len(tr.X) != len(tr2.X) || len(te.X) != len(te2.X) || tr.X[5].At(1, 2) != tr2.X[5].At(1, 2) || te.X[9].At(0, 0) != te2.X[9].At(0, 0) {
		t.Errorf("SampleContext differs from Sample (%v, %v)", err, err2)
	}
}
