package classify

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/covpipe/covpipe/internal/canceltest"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/mat"
)

// TestChooseSharesCrossValidation checks that tasks sharing a training set
// cross-validate once, also when they run at the same time, that every
// task gets the same choice, and that a failed choice is retried.
func TestChooseSharesCrossValidation(t *testing.T) {
	labels := make([]int, 40)
	for i := range labels {
		labels[i] = i % 2
	}
	data := &Data{Labels: labels}
	train, test := Seq(0, 30), Seq(30, 40)
	var calls atomic.Int64
	run := func(d *Data, tr, te []int, p float64) (*Outcome, error) {
		calls.Add(1)
		pred := Pick(d.Labels, te)
		if p == 1 { // candidate 1 predicts everything wrong
			for i := range pred {
				pred[i] = 1 - pred[i]
			}
		}
		return &Outcome{Pred: pred}, nil
	}
	var memo Memo[float64]
	var wg sync.WaitGroup
	chosen := make([]float64, 8)
	for k := range chosen {
		wg.Go(func() {
			s := &Split{Data: data, Train: train, Test: test, Folds: 3, Seed: 1}
			c, _, err := Choose(context.Background(), s.Fitting(), []float64{1, 2}, &memo, run)
			if err != nil {
				t.Error(err)
			}
			chosen[k] = c.Params
		})
	}
	wg.Wait()
	// 2 candidates × 3 folds once; the final fit is the method's.
	if got, want := calls.Load(), int64(2*3); got != want {
		t.Errorf("%d runs, want %d", got, want)
	}
	for k, c := range chosen {
		if c != 2 {
			t.Errorf("task %d chose %v, want 2", k, c)
		}
	}

	var failing Memo[float64]
	fail := true
	flaky := func(d *Data, tr, te []int, p float64) (*Outcome, error) {
		if fail {
			return nil, errors.New("boom")
		}
		return run(d, tr, te, p)
	}
	s := &Split{Data: data, Train: train, Test: test, Folds: 3, Seed: 1}
	if _, _, err := Choose(context.Background(), s.Fitting(), []float64{1, 2}, &failing, flaky); err == nil {
		t.Fatal("no error from a failing runner")
	}
	fail = false
	if c, _, err := Choose(context.Background(), s.Fitting(), []float64{1, 2}, &failing, flaky); err != nil || c.Params != 2 {
		t.Errorf("after a failure: %v, %v", c, err)
	}
}

// TestMemoDoesNotKeepData checks that a remembered choice does not keep
// its Data alive: protocols that draw new data every repeat would
// otherwise hold every repeat's pairwise matrices (1.3 GB for the
// synthetic protocol's 100 repeats).
func TestMemoDoesNotKeepData(t *testing.T) {
	var memo Memo[float64]
	freed := make(chan struct{})
	func() {
		labels := make([]int, 40)
		for i := range labels {
			labels[i] = i % 2
		}
		data := &Data{Labels: labels}
		runtime.AddCleanup(data, func(ch chan struct{}) { close(ch) }, freed)
		run := func(d *Data, tr, te []int, p float64) (*Outcome, error) {
			return &Outcome{Pred: Pick(d.Labels, te)}, nil
		}
		s := &Split{Data: data, Train: Seq(0, 30), Test: Seq(30, 40), Folds: 3, Seed: 1}
		if _, _, err := Choose(context.Background(), s.Fitting(), []float64{1, 2}, &memo, run); err != nil {
			t.Fatal(err)
		}
	}()
	defer runtime.KeepAlive(&memo)
	for range 20 {
		runtime.GC()
		select {
		case <-freed:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Error("the memo keeps a Data alive after its split is gone")
}

// TestCancelled checks that Choose and ForBlocks start no work once their
// context is cancelled and return its error.
func TestCancelled(t *testing.T) {
	labels := make([]int, 20)
	for i := range labels {
		labels[i] = i % 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &Split{Data: &Data{Labels: labels}, Train: Seq(0, 15), Test: Seq(15, 20), Folds: 3, Seed: 1, Workers: 2}
	var runs atomic.Int64
	run := func(d *Data, tr, te []int, p float64) (*Outcome, error) {
		runs.Add(1)
		return &Outcome{Pred: Pick(d.Labels, te)}, nil
	}
	for _, params := range [][]float64{{1}, {1, 2}} {
		var memo Memo[float64]
		if _, _, err := Choose(ctx, s.Fitting(), params, &memo, run); !errors.Is(err, context.Canceled) {
			t.Errorf("%d candidates: %v, want context.Canceled", len(params), err)
		}
	}
	data := pairsData(t, 12)
	p, err := data.Pairs(LogCosine{}, Seq(0, 6))
	if err != nil {
		t.Fatal(err)
	}
	err = ForBlocks(ctx, p, Seq(6, 12), Seq(0, 6), Identity, nil, func(int, *mat.Dense) error {
		runs.Add(1)
		return nil
	})
	if !errors.Is(err, context.Canceled) || runs.Load() != 0 {
		t.Errorf("ForBlocks: %v after %d calls, want context.Canceled before any", err, runs.Load())
	}
}

// TestPairsCancelled checks that the pairwise stage stops on a cancelled
// context, before its computation (a tiny split) or during it (a split
// whose training set's Stein divergences take far longer than the
// delay), with the context's error; and that a cancelled computation is
// not kept: a later call computes the divergences in full.
func TestPairsCancelled(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n, dim int
		ctx    func(testing.TB) context.Context
		again  bool
	}{{"tiny", 12, 3, canceltest.Cancelled, true}, {"large", 3000, 16, canceltest.Soon, false}} {
		train, test, err := synth.Classes(synth.Options{Classes: 3, Dim: tc.dim, Samples: tc.n, Train: 0.5, Spread: 1, Variance: 0.5}, 3)
		if err != nil {
			t.Fatal(err)
		}
		set, err := spd.NewSet(append(train.X, test.X...))
		if err != nil {
			t.Fatal(err)
		}
		data := NewData(set, append(train.Labels, test.Labels...), 1)
		s := &Split{Data: data, Train: Seq(0, tc.n/2), Test: Seq(tc.n/2, tc.n)}
		canceltest.Check(t, "PrepareSplit, "+tc.name, PrepareSplit(tc.ctx(t), s, Stein{}))
		p, err := s.Pairs(data, Stein{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Block(tc.ctx(t), s.Test, s.Train, Identity)
		canceltest.Check(t, "Block, "+tc.name, err)
		if !tc.again {
			continue
		}
		if err := PrepareSplit(context.Background(), s, Stein{}); err != nil {
			t.Fatalf("%s: after a cancelled call: %v", tc.name, err)
		}
		m := int64(len(s.Train))
		if got, want := data.SteinComputations(), m*(m-1)/2+int64(len(s.Test))*m; got != want {
			t.Errorf("%s: %d divergences computed in all, want %d (each once, after the cancelled calls computed none)", tc.name, got, want)
		}
	}
}
