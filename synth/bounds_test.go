package synth

import (
	"context"
	"errors"
	"strings"
	"testing"
)

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
