package experiment

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/spd"
)

// Reporter receives the progress of long stages, for progress bars or log
// lines. Implementations must be safe for concurrent use.
type Reporter interface {
	// Begin starts a stage of total units of work.
	Begin(stage string, total int)
	// Advance records n finished units.
	Advance(n int)
	// End finishes the stage.
	End()
}

// Options control a run; they override the config where set.
type Options struct {
	// Workers, when > 0, overrides Config.Workers.
	Workers int
	// Reporter, if not nil, receives progress.
	Reporter Reporter
	// Logger receives warnings (degenerate codes, unconverged solves);
	// nil discards them.
	Logger *slog.Logger
}

// Run runs every task and method of the experiment, repeating each task's
// random data and splits cfg.Repeats times. Repeat r of task t draws its
// samples from a seed derived from (cfg.Seed, t, r) only, and repeats run
// in parallel without sharing mutable state, so results do not depend on
// the worker count.
func Run(ctx context.Context, cfg *Config, opts Options) (*Results, error) {
	workers := cfg.Workers
	if opts.Workers > 0 {
		workers = opts.Workers
	}
	workers = pool.Workers(workers)
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rep := opts.Reporter
	if rep == nil {
		rep = nopReporter{}
	}
	methods := make([]Method, len(cfg.Methods))
	for i, mc := range cfg.Methods {
		m, err := NewMethod(mc)
		if err != nil {
			return nil, err
		}
		methods[i] = m
	}
	res := &Results{
		Name: cfg.Name, Version: version.String(), Seed: cfg.Seed, Repeats: cfg.Repeats,
		Workers: workers, Cores: runtime.NumCPU(), Started: time.Now().UTC().Truncate(time.Second), Config: cfg,
	}
	start := time.Now()
	for ti, task := range cfg.Tasks {
		rs, err := runSynthetic(ctx, cfg, ti, task, methods, workers, rep)
		if err != nil {
			return nil, fmt.Errorf("task %q: %w", task.Name, err)
		}
		for _, r := range rs {
			warn(log, r)
		}
		res.Results = append(res.Results, rs...)
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// runSynthetic runs one synthetic task: every repeat draws fresh data.
func runSynthetic(ctx context.Context, cfg *Config, ti int, task TaskConfig, methods []Method, workers int, rep Reporter) ([]Result, error) {
	type repeat struct {
		acc         []float64
		secs        []float64
		degenerate  []int
		unconverged []int
		params      []map[string]float64
	}
	runs := make([]repeat, cfg.Repeats)
	// The class means are fixed by the run seed alone, so tasks that differ
	// only in variance share them; every repeat redraws the samples.
	model, err := datasets.NewSyntheticModel(task.Synthetic.options(), cfg.Seed)
	if err != nil {
		return nil, err
	}
	rep.Begin(fmt.Sprintf("%s: %d repeats", task.Name, cfg.Repeats), cfg.Repeats)
	var mu sync.Mutex
	var dataSecs float64
	err = pool.ForErr(cfg.Repeats, workers, func(_, r int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		seed := deriveSeed(cfg.Seed, uint64(ti), uint64(r))
		t0 := time.Now()
		train, test, err := model.Sample(seed)
		if err != nil {
			return err
		}
		set, err := spd.NewSet(append(train.X, test.X...))
		if err != nil {
			return fmt.Errorf("repeat %d: %w", r, err)
		}
		data := NewData(set, append(train.Labels, test.Labels...), 1)
		split := &Split{Data: data, Train: seq(0, len(train.X)), Test: seq(len(train.X), set.Len()), Workers: 1, Seed: seed}
		mu.Lock()
		dataSecs += time.Since(t0).Seconds()
		mu.Unlock()
		rr := repeat{}
		for mi, m := range methods {
			t1 := time.Now()
			out, err := m.Classify(split)
			if err != nil {
				return fmt.Errorf("repeat %d, method %q: %w", r, cfg.Methods[mi].Name, err)
			}
			rr.secs = append(rr.secs, time.Since(t1).Seconds())
			rr.acc = append(rr.acc, accuracy(out.Pred, pick(data.Labels, split.Test)))
			rr.degenerate = append(rr.degenerate, out.Degenerate)
			rr.unconverged = append(rr.unconverged, out.Unconverged)
			rr.params = append(rr.params, out.Params)
		}
		runs[r] = rr
		rep.Advance(1)
		return nil
	})
	rep.End()
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(methods))
	for mi := range methods {
		res := Result{Task: task.Name, Method: cfg.Methods[mi].Name}
		for _, rr := range runs {
			res.Runs = append(res.Runs, rr.acc[mi])
			res.Seconds += rr.secs[mi]
			res.Degenerate = append(res.Degenerate, rr.degenerate[mi])
			res.Unconverged = append(res.Unconverged, rr.unconverged[mi])
			res.Params = append(res.Params, rr.params[mi])
		}
		res.AccuracyMean, res.AccuracyStd = meanStd(res.Runs)
		res.DataSeconds = dataSecs
		out[mi] = res
	}
	return out, nil
}

func warn(log *slog.Logger, r Result) {
	if n := sum(r.Degenerate); n > 0 {
		log.Warn("all-zero sparse codes: predictions arbitrary for those queries; lambda is too large for the kernel's scale",
			"task", r.Task, "method", r.Method, "queries", n)
	}
	if n := sum(r.Unconverged); n > 0 {
		log.Warn("sparse coding hit its sweep cap; codes used as they were", "task", r.Task, "method", r.Method, "queries", n)
	}
}

func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// deriveSeed mixes the run seed with a task and repeat index (SplitMix64
// finaliser), so that every repeat's randomness is independent of which
// worker runs it and in which order.
func deriveSeed(seed uint64, parts ...uint64) uint64 {
	z := seed
	for _, p := range parts {
		z += 0x9e3779b97f4a7c15 * (p + 1)
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
	}
	return z
}

func seq(a, b int) []int {
	out := make([]int, 0, b-a)
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	return out
}

type nopReporter struct{}

func (nopReporter) Begin(string, int) {}
func (nopReporter) Advance(int)       {}
func (nopReporter) End()              {}
