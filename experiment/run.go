package experiment

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"sort"
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
	// Logger receives warnings (degenerate codes, unconverged solves,
	// dropped classes); nil discards them.
	Logger *slog.Logger
	// DataRoot is the folder that dataset paths in the config are relative
	// to (see DataRoot).
	DataRoot string
	// CacheDir holds descriptor caches keyed by a hash of their options;
	// "" disables caching.
	CacheDir string
}

// engine carries a run's shared state.
type engine struct {
	ctx     context.Context
	cfg     *Config
	opts    Options
	workers int
	log     *slog.Logger
	rep     Reporter
	methods []Method
	timings map[string]float64
	mu      sync.Mutex

	list     *datasets.List // the config's dataset, opened on first use
	variants []*Data        // its descriptors, one Data per ridge value
}

func (e *engine) addTime(stage string, since time.Time) {
	e.mu.Lock()
	e.timings[stage] += time.Since(since).Seconds()
	e.mu.Unlock()
}

// Run runs every task and method of the experiment. Repeat r of task t
// draws its random data and splits from a seed derived from (cfg.Seed, t,
// r) only, and work is split so that results do not depend on the worker
// count. Descriptors are extracted once per run (and cached on disk when
// opts.CacheDir is set); Stein divergences and other pairwise quantities
// are computed once per data set and shared by methods and repeats.
func Run(ctx context.Context, cfg *Config, opts Options) (*Results, error) {
	e := &engine{ctx: ctx, cfg: cfg, opts: opts, timings: map[string]float64{}}
	e.workers = cfg.Workers
	if opts.Workers > 0 {
		e.workers = opts.Workers
	}
	e.workers = pool.Workers(e.workers)
	e.log = opts.Logger
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.rep = opts.Reporter
	if e.rep == nil {
		e.rep = nopReporter{}
	}
	for _, mc := range cfg.Methods {
		m, err := NewMethod(mc)
		if err != nil {
			return nil, err
		}
		e.methods = append(e.methods, m)
	}
	res := &Results{
		Name: cfg.Name, Version: version.String(), Seed: cfg.Seed, Repeats: cfg.Repeats,
		Workers: e.workers, Cores: runtime.NumCPU(), Started: time.Now().UTC().Truncate(time.Second),
		Config: cfg, DataRoot: opts.DataRoot, Timings: e.timings,
	}
	start := time.Now()
	for ti, task := range cfg.Tasks {
		var rs []Result
		var err error
		switch {
		case task.Synthetic != nil:
			rs, err = e.runSynthetic(ti, task)
		case task.Average != nil:
			rs, err = average(task, res.Results, cfg.Methods)
		default:
			rs, err = e.runImages(ti, task)
		}
		if err != nil {
			return nil, fmt.Errorf("task %q: %w", task.Name, err)
		}
		for _, r := range rs {
			warn(e.log, r)
		}
		res.Results = append(res.Results, rs...)
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// instance is one repeat of a task: a split of a Data.
type instance struct {
	split *Split
	notes []string
}

// runSynthetic runs one synthetic task: every repeat draws fresh samples
// around class means fixed by the run seed alone, so tasks that differ only
// in variance share them (the paper's "fixing the mean of each class").
func (e *engine) runSynthetic(ti int, task TaskConfig) ([]Result, error) {
	t0 := time.Now()
	model, err := datasets.NewSyntheticModel(task.Synthetic.options(), e.cfg.Seed)
	if err != nil {
		return nil, err
	}
	e.addTime("data", t0)
	draw := func(r int) (*instance, error) {
		t0 := time.Now()
		defer e.addTime("data", t0)
		seed := deriveSeed(e.cfg.Seed, uint64(ti), uint64(r))
		train, test, err := model.Sample(seed)
		if err != nil {
			return nil, err
		}
		set, err := spd.NewSet(append(train.X, test.X...))
		if err != nil {
			return nil, err
		}
		data := NewData(set, append(train.Labels, test.Labels...), 1)
		return &instance{split: &Split{Data: data, Train: seq(0, len(train.X)), Test: seq(len(train.X), set.Len())}}, nil
	}
	return e.repeat(ti, task, task.Synthetic.Classes, nil, draw)
}

// runImages runs a task on image descriptors: the experiment's dataset
// with fixed selectors or random splits, or a mosaic.
func (e *engine) runImages(ti int, task TaskConfig) ([]Result, error) {
	var variants []*Data
	var notes []string
	if task.Mosaic != nil {
		t0 := time.Now()
		var err error
		variants, notes, err = mosaicData(e.opts.DataRoot, task.Mosaic, e.cfg.Data, deriveSeed(e.cfg.Seed, uint64(ti)))
		if err != nil {
			return nil, err
		}
		e.addTime("extraction", t0)
	} else {
		var err error
		if variants, err = e.listData(); err != nil {
			return nil, err
		}
	}
	for _, d := range variants {
		d.Workers = e.workers
		d.Reporter = e.rep
		if err := e.prepare(d); err != nil {
			return nil, err
		}
	}
	data := variants[0]
	all := seq(0, data.Set.Len())
	var fixedTrain, fixedTest []int
	if task.Train != nil {
		var err error
		if fixedTrain, err = selectItems(data, all, task.Train); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		if fixedTest, err = selectItems(data, all, task.Test); err != nil {
			return nil, fmt.Errorf("test: %w", err)
		}
		// Only classes seen in training can be recognised.
		seen := map[int]bool{}
		for _, i := range fixedTrain {
			seen[data.Labels[i]] = true
		}
		kept := fixedTest[:0:0]
		for _, i := range fixedTest {
			if seen[data.Labels[i]] {
				kept = append(kept, i)
			}
		}
		if n := len(fixedTest) - len(kept); n > 0 {
			notes = append(notes, fmt.Sprintf("%d test items of classes absent from training left out", n))
		}
		fixedTest = kept
		if len(fixedTrain) == 0 || len(fixedTest) == 0 {
			return nil, fmt.Errorf("selectors leave %d training and %d test items", len(fixedTrain), len(fixedTest))
		}
	}
	var group []string
	if task.Split != nil && task.Split.By != "" {
		group = make([]string, data.Set.Len())
		for i := range group {
			v, ok := data.meta(i)[task.Split.By]
			if !ok {
				return nil, fmt.Errorf("split by %q: item %d has no such metadata (keys: %v)", task.Split.By, i, keysOf(data.meta(i)))
			}
			group[i] = v
		}
	}
	draw := func(r int) (*instance, error) {
		seed := deriveSeed(e.cfg.Seed, uint64(ti), uint64(r))
		in := &instance{split: &Split{Data: data, Variants: variants}}
		switch {
		case task.Train != nil:
			in.split.Train, in.split.Test = fixedTrain, fixedTest
		case group != nil:
			var skipped int
			in.split.Train, in.split.Test, skipped = groupSplit(data.Labels, all, group, task.Split.TrainPerClass, seed)
			if skipped > 0 {
				in.notes = append(in.notes, fmt.Sprintf("%d classes seen in one %s only left out", skipped, task.Split.By))
			}
		default:
			var short []string
			in.split.Train, in.split.Test, short = perClassSplit(data.Labels, all, task.Split.TrainPerClass, seed)
			if len(short) > 0 {
				in.notes = append(in.notes, fmt.Sprintf("%d classes with too few items for %d training items: %s", len(short), task.Split.TrainPerClass, short[0]))
			}
		}
		if len(in.split.Train) == 0 || len(in.split.Test) == 0 {
			return nil, fmt.Errorf("repeat %d: split leaves %d training and %d test items", r, len(in.split.Train), len(in.split.Test))
		}
		return in, nil
	}
	return e.repeat(ti, task, data.NumClasses(), notes, draw)
}

// preparer is implemented by methods that warm a Data's shared caches, so
// that their cost shows as its own stage rather than inside a repeat.
type preparer interface {
	prepare(d *Data) error
}

func (e *engine) prepare(d *Data) error {
	for _, m := range e.methods {
		if p, ok := m.(preparer); ok {
			t0 := time.Now()
			if err := p.prepare(d); err != nil {
				return err
			}
			e.addTime("pairwise", t0)
		}
	}
	return nil
}

// repeat runs every method on cfg.Repeats instances of a task, repeats in
// parallel and, with workers to spare, each method's test items in
// parallel too. Neither changes the numbers.
func (e *engine) repeat(ti int, task TaskConfig, classes int, notes []string, draw func(r int) (*instance, error)) ([]Result, error) {
	n := e.cfg.Repeats
	// A record keeps what the results need, not the repeat's data: a
	// synthetic task draws new data, with its pairwise matrices, in every
	// repeat.
	type record struct {
		out          []*Outcome
		secs         []float64
		test         []int
		train, tests int
		notes        []string
	}
	recs := make([]record, n)
	first, err := draw(0)
	if err != nil {
		return nil, err
	}
	classNames := first.split.Data.Classes
	// Repeats run in parallel as far as there are workers for them; the
	// rest work inside each repeat (over its test items).
	outer := min(e.workers, n)
	inner := max(1, e.workers/outer)
	e.rep.Begin(fmt.Sprintf("%s: %d repeats × %d methods", task.Name, n, len(e.methods)), n*len(e.methods))
	err = pool.ForErr(n, outer, func(_, r int) error {
		if err := e.ctx.Err(); err != nil {
			return err
		}
		in := first
		if r > 0 {
			var err error
			if in, err = draw(r); err != nil {
				return err
			}
		}
		in.split.Workers = inner
		in.split.Folds = e.cfg.Folds
		// Validation folds depend on the run seed and the training set
		// only, so tasks sharing a training set share the selection.
		in.split.Seed = deriveSeed(e.cfg.Seed, hashInts(in.split.Train))
		in.split.Ranks = e.cfg.CMC
		rec := record{test: pick(in.split.Data.Labels, in.split.Test), train: len(in.split.Train), tests: len(in.split.Test), notes: in.notes}
		for mi, m := range e.methods {
			t0 := time.Now()
			out, err := m.Classify(in.split)
			if err != nil {
				return fmt.Errorf("repeat %d, method %q: %w", r, e.cfg.Methods[mi].Name, err)
			}
			rec.secs = append(rec.secs, time.Since(t0).Seconds())
			rec.out = append(rec.out, out)
			e.rep.Advance(1)
		}
		recs[r] = rec
		return nil
	})
	e.rep.End()
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(e.methods))
	for mi := range e.methods {
		res := Result{Task: task.Name, Method: e.cfg.Methods[mi].Name, Notes: slices.Clone(notes)}
		ev := newEvaluation(classes, e.cfg.CMC)
		var cmcRuns [][]float64
		var lambdas []float64
		for r, rec := range recs {
			o := rec.out[mi]
			acc, cmc, err := ev.add(o.Pred, rec.test, o.Ranking)
			if err != nil {
				return nil, fmt.Errorf("method %q, repeat %d: %w", res.Method, r, err)
			}
			res.Runs = append(res.Runs, acc)
			res.Seconds += rec.secs[mi]
			res.Degenerate = append(res.Degenerate, o.Degenerate)
			res.Unconverged = append(res.Unconverged, o.Unconverged)
			res.Params = append(res.Params, o.Params)
			lambdas = append(lambdas, o.Lambdas...)
			res.TrainItems = append(res.TrainItems, rec.train)
			res.TestItems = append(res.TestItems, rec.tests)
			if cmc != nil {
				cmcRuns = append(cmcRuns, cmc)
			}
			for _, note := range rec.notes {
				if !slices.Contains(res.Notes, note) {
					res.Notes = append(res.Notes, note)
				}
			}
		}
		res.AccuracyMean, res.AccuracyStd = meanStd(res.Runs)
		res.Lambda = spreadOf(lambdas)
		res.PerClass = percents(ev.perClass())
		res.Confusion = ev.confusion
		res.Classes = classNames
		if len(cmcRuns) > 0 {
			res.CMC, res.CMCStd = meanStdColumns(cmcRuns)
			res.CMCRuns = cmcRuns
		}
		out[mi] = res
	}
	e.timings["methods"] += sumSecs(out)
	return out, nil
}

func sumSecs(rs []Result) float64 {
	var s float64
	for _, r := range rs {
		s += r.Seconds
	}
	return s
}

// average makes, for each method, a result whose repeat r is the mean of
// the named tasks' repeat r (FERET's "average" column).
func average(task TaskConfig, done []Result, methods []MethodConfig) ([]Result, error) {
	var out []Result
	for _, m := range methods {
		var parts []Result
		for _, name := range task.Average {
			for _, r := range done {
				if r.Task == name && r.Method == m.Name {
					parts = append(parts, r)
				}
			}
		}
		if len(parts) != len(task.Average) {
			return nil, fmt.Errorf("average: method %q lacks results for some of %v", m.Name, task.Average)
		}
		res := Result{Task: task.Name, Method: m.Name, Notes: []string{fmt.Sprintf("mean of %v", task.Average)}}
		for r := range parts[0].Runs {
			var s float64
			for _, p := range parts {
				s += p.Runs[r]
			}
			res.Runs = append(res.Runs, s/float64(len(parts)))
		}
		for _, p := range parts {
			res.Seconds += p.Seconds
		}
		res.AccuracyMean, res.AccuracyStd = meanStd(res.Runs)
		out = append(out, res)
	}
	return out, nil
}

// selectItems returns the items whose metadata matches every key of sel.
func selectItems(d *Data, items []int, sel Selector) ([]int, error) {
	var out []int
	for _, i := range items {
		ok := true
		for k, vals := range sel {
			v, has := d.meta(i)[k]
			if !has {
				return nil, fmt.Errorf("selector key %q: items have no such metadata (keys: %v)", k, keysOf(d.meta(i)))
			}
			if !slices.Contains(vals, v) {
				ok = false
			}
		}
		if ok {
			out = append(out, i)
		}
	}
	return out, nil
}

func (d *Data) meta(i int) map[string]string {
	if d.Meta == nil {
		return nil
	}
	return d.Meta[i]
}

func keysOf(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func meanStdColumns(rows [][]float64) (mean, std []float64) {
	for c := range rows[0] {
		col := make([]float64, len(rows))
		for r := range rows {
			col[r] = rows[r][c]
		}
		m, s := meanStd(col)
		mean, std = append(mean, m), append(std, s)
	}
	return mean, std
}

// warn logs what the table does not show. All-zero codes are reported by
// Results.Warnings once the run is over.
func warn(log *slog.Logger, r Result) {
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

// Percent is a percentage that encodes NaN (undefined) as JSON null.
type Percent float64

// MarshalJSON writes null for NaN.
func (p Percent) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(p)) {
		return []byte("null"), nil
	}
	return []byte(fmt.Sprintf("%g", float64(p))), nil
}

// UnmarshalJSON reads null as NaN.
func (p *Percent) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*p = Percent(math.NaN())
		return nil
	}
	var f float64
	if _, err := fmt.Sscanf(string(b), "%g", &f); err != nil {
		return err
	}
	*p = Percent(f)
	return nil
}

func percents(v []float64) []Percent {
	out := make([]Percent, len(v))
	for i, x := range v {
		out[i] = Percent(x)
	}
	return out
}
