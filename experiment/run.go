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

	"github.com/covpipe/covpipe/experiment/classify"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/progress"
)

// Options control a run.
type Options struct {
	// Reporter, if not nil, receives progress.
	Reporter progress.Reporter
	// Logger receives warnings (unconverged solves) and notes (descriptors
	// read from the cache); nil discards them.
	Logger *slog.Logger
	// DataRoot is the folder that dataset paths in the config are relative
	// to; "" means the current folder. Relative paths must stay under it
	// (Run refuses "../.." out of it); absolute paths read anywhere.
	DataRoot string
	// CacheDir holds descriptor caches keyed by a hash of their options;
	// "" disables caching.
	CacheDir string
	// MaxMemory bounds, in bytes, what the plan's settings may make the
	// run hold, as estimated before anything is allocated (repeats ×
	// what each repeat keeps, samples × d², regions × d² per image and
	// per dataset, ...); 0 means DefaultMaxMemory. Run refuses a plan over
	// it with an error naming the setting that takes the most. It also
	// bounds the image planes that descriptor extraction holds at once
	// (describe.Options.MaxMemory). Negative is an error.
	MaxMemory int64
}

// engine carries a run's shared state.
type engine struct {
	ctx     context.Context
	plan    *Plan
	cfg     *Config
	opts    Options
	workers int
	log     *slog.Logger
	rep     progress.Reporter
	timings map[string]float64
	mu      sync.Mutex

	// The data section's dataset, one Data per ridge candidate, loaded on
	// first use (images).
	imagesOnce sync.Once
	imageData  []*classify.Data
	imagesErr  error
	// imageNotes say what extraction left out (data.skip_bad), for the
	// report of every task over the dataset.
	imageNotes []string
	// partRegions names the regions of data.parts, in part order, and
	// fusions remembers the fusion choices made on its items.
	partRegions []string
	fusions     fusionMemo
	// bests remembers the choices of best methods (classifyBest).
	bests classify.Once[choiceKey, int]
}

func (e *engine) addTime(stage string, since time.Time) {
	e.mu.Lock()
	e.timings[stage] += time.Since(since).Seconds()
	e.mu.Unlock()
}

// seed returns the seed of repeat r of task ti: derived from the run seed
// and the indices only, so that results do not depend on which worker
// draws which repeat.
func (e *engine) seed(ti, r int) uint64 { return deriveSeed(e.cfg.Seed, uint64(ti), uint64(r)) }

// Run runs every task and method of the experiment. It first refuses a
// plan whose settings make the run hold more than opts.MaxMemory
// (Plan.CheckMemory), and one whose relative dataset or mosaic paths
// leave opts.DataRoot. Repeat r of task t draws its random data and splits
// from a seed derived from (Seed, t, r) only, and work is split so that
// results do not depend on the worker count. Descriptors are extracted once per run (and cached on disk when
// opts.CacheDir is set); Stein divergences and other pairwise quantities
// are computed once per data set and shared by methods and repeats.
func Run(ctx context.Context, plan *Plan, opts Options) (*Results, error) {
	cfg := plan.Config
	if err := cfg.checkRun(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if err := plan.CheckMemory(opts.MaxMemory); err != nil {
		return nil, err
	}
	if err := plan.checkPaths(opts.DataRoot); err != nil {
		return nil, err
	}
	e := &engine{ctx: ctx, plan: plan, cfg: cfg, opts: opts, timings: map[string]float64{}}
	e.workers = pool.Workers(cfg.Workers)
	e.log = opts.Logger
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.rep = progress.Or(opts.Reporter)
	res := &Results{
		Name: cfg.Name, Version: version.String(), Seed: cfg.Seed, Repeats: cfg.Repeats,
		Workers: e.workers, Cores: runtime.NumCPU(), Started: time.Now().UTC().Truncate(time.Second),
		Config: cfg, DataRoot: opts.DataRoot, Timings: e.timings,
	}
	start := time.Now()
	for ti, task := range plan.tasks {
		name := cfg.Tasks[ti].Name
		var rs []Result
		var err error
		switch t := task.(type) { // one of the three (checkProtocol)
		case combiner:
			rs, err = combineAll(t, res.Results, cfg.Methods)
		case runner:
			rs, err = t.run(e, ti)
		case splitter:
			var dr *drawer
			if dr, err = t.open(e, ti); err == nil {
				rs, err = e.repeat(name, dr)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("task %q: %w", name, err)
		}
		for _, r := range rs {
			warn(e.log, r)
		}
		res.Results = append(res.Results, rs...)
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// images returns the data section's dataset, one Data per ridge
// candidate, with its vectors made and its parallelism set.
func (e *engine) images() ([]*classify.Data, error) {
	e.imagesOnce.Do(func() {
		e.imageData, e.imagesErr = e.listData()
		if e.imagesErr == nil {
			e.imagesErr = e.vectors(e.imageData)
		}
		if e.imagesErr == nil {
			e.setWorkers(e.imageData)
		}
	})
	return e.imageData, e.imagesErr
}

// parallelism returns how many repeats run at once and the workers inside
// each: repeats run in parallel as far as there are workers for them; the
// rest work inside each repeat (over its test items and pairwise blocks).
func (e *engine) parallelism() (outer, inner int) {
	outer = max(1, min(e.workers, e.cfg.Repeats))
	return outer, max(1, e.workers/outer)
}

// setWorkers sets the parallelism of each Data's pairwise computations.
func (e *engine) setWorkers(variants []*classify.Data) {
	for _, d := range variants {
		d.Workers = e.workers
	}
}

// prepareSplit computes ahead the pairwise quantities that the methods
// declare (Spec.Quantities) on a split (Stein divergences of the training
// set and the test items against it), timed as its own stage.
func (e *engine) prepareSplit(s *classify.Split) error {
	t0 := time.Now()
	defer e.addTime("pairwise", t0)
	for _, spec := range e.plan.allSpecs() {
		for _, q := range spec.Quantities {
			if err := classify.PrepareSplit(e.ctx, s, q); err != nil {
				return err
			}
		}
	}
	return nil
}

// repeat runs every method on cfg.Repeats instances of a task
// (classifyRepeats) and scores their predictions.
func (e *engine) repeat(task string, dr *drawer) ([]Result, error) {
	n := e.cfg.Repeats
	// A record keeps what the results need, not the repeat's data: a
	// synthetic task draws new data, with its pairwise matrices, in every
	// repeat.
	type record struct {
		out          []*classify.Outcome // without predictions, rankings and scores
		items        []*ItemScores
		acc          []float64
		cmc          [][]float64
		secs         []float64
		train, tests int
		notes        []string
	}
	methods := e.plan.methods
	recs := make([]record, n)
	// Each repeat's predictions are scored as soon as its methods finish
	// and then dropped: they are n_test × classes per method and repeat.
	// The confusion counts are sums, the same in any order.
	evs := make([]*evaluation, len(methods))
	for mi := range evs {
		evs[mi] = newEvaluation(dr.classes, e.cfg.CMC)
	}
	var evMu sync.Mutex
	var classNames []string
	err := e.classifyRepeats(task, dr, func(r, mi int, in *instance, out *classify.Outcome, secs float64) error {
		rec := &recs[r]
		if mi == 0 {
			*rec = record{train: len(in.split.Train), tests: len(in.split.Test), notes: in.notes}
			if r == 0 {
				classNames = in.split.Data.Classes
			}
		}
		truth := classify.Pick(in.split.Data.Labels, in.split.Test)
		rec.secs = append(rec.secs, secs)
		evMu.Lock()
		acc, cmc, err := evs[mi].add(out.Pred, truth, out.Ranking)
		evMu.Unlock()
		if err != nil {
			return fmt.Errorf("method %q, repeat %d: %w", e.cfg.Methods[mi].Name, r, err)
		}
		rec.items = append(rec.items, itemScores(truth, out.Scores))
		out.Pred, out.Ranking, out.Scores, out.Costs = nil, nil, nil, nil
		rec.out = append(rec.out, out)
		rec.acc = append(rec.acc, acc)
		rec.cmc = append(rec.cmc, cmc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(methods))
	for mi := range methods {
		res := Result{Task: task, Method: e.cfg.Methods[mi].Name, Notes: slices.Clone(dr.notes)}
		ev := evs[mi]
		var cmcRuns [][]float64
		var lambdas []float64
		for _, rec := range recs {
			o, cmc := rec.out[mi], rec.cmc[mi]
			res.Runs = append(res.Runs, rec.acc[mi])
			res.Seconds += rec.secs[mi]
			res.Degenerate = append(res.Degenerate, o.Degenerate)
			res.Unconverged = append(res.Unconverged, o.Unconverged)
			res.Params = append(res.Params, o.Params)
			if o.Fusion != nil {
				res.Parts = append(res.Parts, o.Fusion)
			}
			if o.Chosen != "" {
				res.Chosen = append(res.Chosen, o.Chosen)
			}
			if items := rec.items[mi]; items != nil {
				res.Items = append(res.Items, items)
			}
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

// classifyRepeats runs every method on the cfg.Repeats instances of a
// task that dr draws, repeats in parallel and, with workers to spare,
// each method's test items in parallel too (neither changes the
// numbers), and passes each method's outcome on each repeat, with the
// seconds it took, to each, which is called from the repeat's goroutine,
// for the methods in order.
func (e *engine) classifyRepeats(task string, dr *drawer, each func(r, mi int, in *instance, out *classify.Outcome, secs float64) error) error {
	n := e.cfg.Repeats
	methods := e.plan.methods
	draw := func(r int) (*instance, error) {
		in, err := dr.draw(r)
		if err != nil {
			return nil, err
		}
		if len(in.split.Train) == 0 || len(in.split.Test) == 0 {
			return nil, fmt.Errorf("repeat %d: the split leaves %d training and %d test items", r, len(in.split.Train), len(in.split.Test))
		}
		return in, nil
	}
	first, err := draw(0)
	if err != nil {
		return err
	}
	outer, inner := e.parallelism()
	e.rep.Begin(fmt.Sprintf("%s: %d repeats × %d methods", task, n, len(methods)), n*len(methods))
	err = pool.ForCtx(e.ctx, n, outer, func(_, r int) error {
		var in *instance
		if r == 0 {
			// Only repeat 0 reads first: once it is done, its split and the
			// pairwise values it holds can go.
			in, first = first, nil
		} else {
			var err error
			if in, err = draw(r); err != nil {
				return err
			}
		}
		in.split.Workers = inner
		in.split.Folds = e.cfg.Folds
		// Validation folds depend on the run seed and the training set
		// only, so tasks sharing a training set share the selection.
		in.split.Seed = deriveSeed(e.cfg.Seed, classify.HashInts(in.split.Train))
		in.split.Ranks = e.cfg.CMC
		if err := e.prepareSplit(in.split); err != nil {
			return fmt.Errorf("repeat %d: %w", r, err)
		}
		for mi, m := range methods {
			t0 := time.Now()
			out, err := e.classifyMethod(m, in.split)
			if err != nil {
				return fmt.Errorf("repeat %d, method %q: %w", r, e.cfg.Methods[mi].Name, err)
			}
			if err := each(r, mi, in, out, time.Since(t0).Seconds()); err != nil {
				return err
			}
			e.rep.Advance(1)
		}
		return nil
	})
	e.rep.End()
	return err
}

func sumSecs(rs []Result) float64 {
	var s float64
	for _, r := range rs {
		s += r.Seconds
	}
	return s
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

// warn logs what the table does not show. All-zero codes are reported
// with the results (package experiment/report) once the run is over.
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
