package experiment

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/internal/plural"
	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/internal/version"
	"github.com/covpipe/covpipe/progress"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
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
	// Shard, for RunPartial, names the share of the run's units to
	// compute (see Merge); the zero value is all of them.
	Shard store.Shard
}

// engine carries a run's shared state.
type engine struct {
	ctx     context.Context
	scratch classify.Scratch // the block buffers of every method and split of the run
	// resident bounds the parts of data.parts whose descriptors are
	// unpacked at once (classify.Data.PackParts).
	resident spd.Residency
	plan     *Plan
	cfg      *config.Config
	opts     Options
	workers  int
	log      *slog.Logger
	rep      progress.Reporter
	timings  map[string]float64
	mu       sync.Mutex

	// The data section's dataset, one Data per ridge candidate, loaded on
	// first use (images).
	imagesOnce sync.Once
	imageData  []*classify.Data
	imagesErr  error
	// imageNotes say what extraction left out (data.skip_bad), for the
	// report of every task over the dataset.
	imageNotes []string
	// partRegions names the regions of data.parts, in part order.
	partRegions []string
	// sources are the cache entries' files that the parts read their
	// descriptors from (partReader), closed when the run ends.
	sources []*store.Descriptors
	// vectorFiles are the cache entries' files that the methods read the
	// items' vectors from (vectorFile), closed when the run ends.
	vectorFiles []*store.Rows
	// methods holds the methods run (methodOf), which remember the
	// choices they make by cross-validation (fusions, best methods').
	methods once.Cache[methodKey, classify.Method]
	// owned holds the units this run computes (Options.Shard), and
	// partial gathers their records.
	owned   map[unit]bool
	partial *Partial
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
// opts.Shard is ignored: RunPartial runs a share.
func Run(ctx context.Context, plan *Plan, opts Options) (*results.Results, error) {
	opts.Shard = store.Shard{}
	p, err := RunPartial(ctx, plan, Source{}, opts)
	if err != nil {
		return nil, err
	}
	res, err := p.results(plan)
	if err != nil {
		return nil, err
	}
	if opts.Logger != nil {
		for _, r := range res.Results {
			warn(opts.Logger, r)
		}
	}
	return res, nil
}

// RunPartial runs the units of the plan that opts.Shard names (every
// unit for the zero value: see Merge), as Run runs them, and returns
// their records; src, the plan's experiment file and overrides, is
// recorded for Merge. It returns Run's errors.
func RunPartial(ctx context.Context, plan *Plan, src Source, opts Options) (*Partial, error) {
	cfg := plan.Config
	if err := checkRun(cfg); err != nil {
		return nil, fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	if err := opts.Shard.Check(); err != nil {
		return nil, err
	}
	if err := plan.CheckMemory(opts.MaxMemory); err != nil {
		return nil, err
	}
	if err := plan.checkPaths(opts.DataRoot); err != nil {
		return nil, err
	}
	e := &engine{ctx: ctx, plan: plan, cfg: cfg, opts: opts, timings: map[string]float64{}, owned: plan.ownedUnits(opts.Shard)}
	defer func() {
		for _, d := range e.sources {
			d.Close()
		}
		for _, f := range e.vectorFiles {
			f.Close()
		}
	}()
	e.workers = pool.Workers(cfg.Workers)
	e.log = opts.Logger
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.rep = progress.Or(opts.Reporter)
	e.partial = &Partial{
		Source: src, Shard: opts.Shard, Units: len(plan.units()), Version: version.String(), Workers: e.workers, Cores: runtime.NumCPU(),
		Started: time.Now().UTC().Truncate(time.Second), Timings: e.timings, DataRoot: opts.DataRoot,
	}
	if e.partial.Shard == (store.Shard{}) {
		e.partial.Shard = store.Shard{Index: 0, Count: 1}
	}
	start := time.Now()
	for ti, task := range plan.tasks {
		name := cfg.Tasks[ti].Name
		var err error
		switch t := task.(type) { // one of the three (checkProtocol)
		case runner:
			if e.owned[unit{ti, wholeTask, wholeTask}] {
				var rs []results.Result
				if rs, err = t.run(e, ti); err == nil {
					e.taskPart(ti).Results = rs
				}
			}
		case splitter:
			if e.ownsAny(ti) {
				var dr *drawer
				if dr, err = t.open(e, ti); err == nil {
					err = e.repeat(ti, name, dr)
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("task %q: %w", name, err)
		}
	}
	e.partial.Seconds = time.Since(start).Seconds()
	return e.partial, nil
}

// ownsAny reports whether the run computes a unit of task ti.
func (e *engine) ownsAny(ti int) bool {
	for u := range e.owned {
		if u.task == ti {
			return true
		}
	}
	return false
}

// owns reports whether the run computes method mi on repeat r of task ti:
// its unit, or the whole task.
func (e *engine) owns(ti, r, mi int) bool {
	return e.owned[unit{ti, r, mi}] || e.owned[unit{ti, wholeTask, wholeTask}]
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

// repeat runs every method the run owns on the cfg.Repeats instances of
// a task (classifyRepeats) and records each outcome (UnitRecord), its
// predictions scored and dropped, and the task's confusion counts.
func (e *engine) repeat(ti int, task string, dr *drawer) error {
	methods := e.plan.methods
	tp := e.taskPart(ti)
	tp.Classes, tp.Notes, tp.Confusion = dr.classes, slices.Clone(dr.notes), make([][][]int, len(methods))
	// The predictions are n_test × classes per method and repeat: each is
	// scored as soon as its method finishes. The confusion counts are
	// sums, the same in any order.
	evs := make([]*evaluation, len(methods))
	namesFrom := -1
	err := e.classifyRepeats(ti, task, dr, func(r, mi int, in *instance, out *classify.Outcome, secs float64) error {
		e.mu.Lock()
		defer e.mu.Unlock()
		if in.truth == nil {
			in.truth = classify.Pick(in.split.Data.Labels, in.split.Test)
		}
		truth := in.truth
		if evs[mi] == nil {
			evs[mi] = newEvaluation(dr.classes, e.cfg.CMC)
		}
		acc, cmc, err := evs[mi].add(out.Pred, truth, out.Ranking)
		if err != nil {
			return fmt.Errorf("method %q, repeat %d: %w", e.cfg.Methods[mi].Name, r, err)
		}
		if namesFrom < 0 || r < namesFrom {
			namesFrom, tp.ClassNames = r, in.split.Data.Classes
		}
		rec := UnitRecord{
			Task: ti, Repeat: r, Method: mi, Accuracy: acc, CMC: cmc, Seconds: secs,
			Train: len(in.split.Train), Test: len(in.split.Test), Notes: in.notes,
			Degenerate: out.Degenerate, Unconverged: out.Unconverged, Params: out.Params, Lambdas: out.Lambdas,
			Fusion: out.Fusion, Chosen: out.Chosen, Items: results.NewItemScores(truth, out.Scores),
		}
		if est, ok := classify.Estimate(out.CV); ok {
			rec.CVEstimate = &est
		}
		e.partial.Records = append(e.partial.Records, rec)
		e.timings["methods"] += secs
		return nil
	})
	if err != nil {
		return err
	}
	for mi, ev := range evs {
		if ev != nil {
			tp.Confusion[mi] = ev.confusion
		}
	}
	return nil
}

// classifyRepeats runs every method on the cfg.Repeats instances of a
// task that dr draws, repeats in parallel and, with workers to spare,
// each method's test items in parallel too (neither changes the
// numbers), and passes each method's outcome on each repeat, with the
// seconds it took, to each, which is called from the repeat's goroutine,
// for the methods in order.
func (e *engine) classifyRepeats(ti int, task string, dr *drawer, each func(r, mi int, in *instance, out *classify.Outcome, secs float64) error) error {
	n := e.cfg.Repeats
	methods := e.plan.methods
	var repeats []int // those with a method to run
	total := 0
	for r := range n {
		k := 0
		for mi := range methods {
			if e.owns(ti, r, mi) {
				k++
			}
		}
		if k > 0 {
			repeats = append(repeats, r)
			total += k
		}
	}
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
	if len(repeats) == 0 {
		return nil
	}
	first, err := draw(repeats[0])
	if err != nil {
		return err
	}
	e.warnThinClasses(task, first.split, methods)
	outer, inner := e.parallelism()
	e.rep.Begin(fmt.Sprintf("%s: %s × %s", task, plural.Of(n, "repeat"), plural.Of(len(methods), "method")), total)
	err = pool.ForCtx(e.ctx, len(repeats), outer, func(_, k int) error {
		r := repeats[k]
		var in *instance
		if k == 0 {
			// Only the first repeat reads first: once it is done, its split
			// and the pairwise values it holds can go.
			in, first = first, nil
		} else {
			var err error
			if in, err = draw(r); err != nil {
				return err
			}
		}
		in.split.Workers = inner
		in.split.Folds, in.split.FoldsBy = e.cfg.Folds, e.plan.FoldGroups()
		// Validation folds depend on the run seed and the training set
		// only, so tasks sharing a training set share the selection.
		in.split.Seed = FoldSeed(e.cfg.Seed, in.split.Train)
		in.split.Ranks = e.cfg.CMC
		in.split.Share = e.shared(in.split.Data.Parts != nil)
		in.split.Scratch = &e.scratch
		if err := e.prepareSplit(in.split); err != nil {
			return fmt.Errorf("repeat %d: %w", r, err)
		}
		for mi, m := range methods {
			if !e.owns(ti, r, mi) {
				continue
			}
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

func sumSecs(rs []results.Result) float64 {
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

// warnThinClasses logs a warning when a class of s, the first repeat's
// split of task, has fewer training items than the cross-validation
// folds that a method of methods chooses by (parameter candidates,
// ridge variants, a best method, a chosen fusion): stratified folds
// then leave it out of some folds' held-out items, so the choice sees
// it less than the others. It changes nothing (covpipe fit refuses such
// a training set instead).
func (e *engine) warnThinClasses(task string, s *classify.Split, methods []plannedMethod) {
	cv := len(s.Variants) > 1
	if dp := e.plan.data; s.Data.Parts != nil && dp != nil && (classify.Fusing{Sets: dp.partSets, Rules: dp.fusion}).Chooses() {
		cv = true
	}
	for _, m := range methods {
		cv = cv || m.best != nil || m.spec.Candidates > 1
	}
	label, n := classify.SmallestClass(s.Data.Labels, s.Train)
	if !cv || e.cfg.Folds < 2 || e.plan.FoldGroups().Key != "" || label < 0 || n >= e.cfg.Folds {
		return
	}
	class := strconv.Itoa(label)
	if label < len(s.Data.Classes) {
		class = s.Data.Classes[label]
	}
	e.log.Warn("a class has fewer training items than cross-validation folds, so some folds hold none of it and the choice sees it less than the others: lower folds, or train on more of it",
		"task", task, "class", class, "items", n, "folds", e.cfg.Folds)
}

// warn logs what the table does not show. All-zero codes are reported
// with the results (package experiment/report) once the run is over.
func warn(log *slog.Logger, r results.Result) {
	if n := sum(r.Unconverged); n > 0 {
		log.Warn("the method's solver hit its iteration cap (sparse coding's sweeps, an SVM's or a logistic regression's iterations); answers used as they were", "task", r.Task, "method", r.Method, "queries", n)
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
