package experiment

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/experiment/results"
	"github.com/covpipe/covpipe/internal/strictyaml"
	"github.com/covpipe/covpipe/store"
)

// Overrides are the changes covpipe run's flags make to a plan, applied
// in this order by Plan.Override: the quick subset, the methods kept, the
// repeats, the seed and the workers. A shard records them, so that Merge
// makes the plan the run made.
type Overrides struct {
	Quick   bool     `json:"quick,omitempty"`
	Methods []string `json:"methods,omitempty"`
	Repeats int      `json:"repeats,omitempty"`
	Seed    *uint64  `json:"seed,omitempty"`
	Workers *int     `json:"workers,omitempty"`
}

// Override applies o to p. It returns the errors of Quick and
// KeepMethods, and one for repeats below 1.
func (p *Plan) Override(o Overrides) error {
	if o.Quick {
		if err := p.Quick(); err != nil {
			return err
		}
	}
	if len(o.Methods) > 0 {
		if err := p.KeepMethods(o.Methods); err != nil {
			return err
		}
	}
	if o.Repeats != 0 {
		if o.Repeats < 1 {
			return fmt.Errorf("%w: %d repeats, want >= 1", config.ErrConfig, o.Repeats)
		}
		p.Config.Repeats = o.Repeats
	}
	if o.Seed != nil {
		p.Config.Seed = *o.Seed
	}
	if o.Workers != nil {
		p.Config.Workers = *o.Workers
	}
	return nil
}

// Source is an experiment file as given to a run: its path, its bytes and
// the overrides of its flags. A sharded run records it, so that Merge
// makes the same plan.
type Source struct {
	Path      string    `json:"path"`
	YAML      string    `json:"yaml"`
	Overrides Overrides `json:"overrides"`
}

// Plan parses the source and applies its overrides, as Load and
// Plan.Override do.
func (s Source) Plan() (*Plan, error) {
	p, err := parseFile(s.Path, []byte(s.YAML))
	if err != nil {
		return nil, err
	}
	if err := p.Override(s.Overrides); err != nil {
		return nil, err
	}
	return p, nil
}

// LoadSource reads the experiment file path into a Source with the
// overrides o, and makes its plan.
func LoadSource(path string, o Overrides) (Source, *Plan, error) {
	b, err := strictyaml.ReadFile(path)
	if err != nil {
		return Source{}, nil, fmt.Errorf("read experiment: %w", err)
	}
	s := Source{Path: path, YAML: string(b), Overrides: o}
	p, err := s.Plan()
	return s, p, err
}

// A unit is one share of a run's work: one method on one repeat of a task
// that draws splits, or a whole task of another kind (energy curves, open
// set). Units are numbered in the plan's order (tasks, then repeats, then
// methods), and shard I of N runs the units whose number is I modulo N,
// so that the methods of a repeat spread over the shards.
type unit struct{ task, repeat, method int }

// wholeTask marks a unit of a whole task.
const wholeTask = -1

// units lists the plan's units in order; combining tasks have none.
func (p *Plan) units() []unit {
	var out []unit
	for ti, t := range p.tasks {
		switch t.(type) {
		case splitter:
			for r := range p.Config.Repeats {
				for mi := range p.methods {
					out = append(out, unit{ti, r, mi})
				}
			}
		case runner:
			out = append(out, unit{ti, wholeTask, wholeTask})
		}
	}
	return out
}

// ownedUnits returns the units of p that shard sh runs, as a set.
func (p *Plan) ownedUnits(sh store.Shard) map[unit]bool {
	if err := sh.Check(); err != nil || sh.Count < 2 {
		sh = store.Shard{Index: 0, Count: 1}
	}
	owned := map[unit]bool{}
	for k, u := range p.units() {
		if k%sh.Count == sh.Index {
			owned[u] = true
		}
	}
	return owned
}

// UnitRecord is what the results keep of one method's outcome on one
// repeat of a task that draws splits.
type UnitRecord struct {
	Task        int                 `json:"task"`
	Repeat      int                 `json:"repeat"`
	Method      int                 `json:"method"`
	Accuracy    float64             `json:"accuracy"`
	CMC         []float64           `json:"cmc,omitempty"`
	Seconds     float64             `json:"seconds"`
	Train       int                 `json:"train"`
	Test        int                 `json:"test"`
	Notes       []string            `json:"notes,omitempty"`
	Degenerate  int                 `json:"degenerate"`
	Unconverged int                 `json:"unconverged"`
	Params      map[string]float64  `json:"params"`
	Lambdas     []float64           `json:"lambdas,omitempty"`
	Fusion      *classify.Fusion    `json:"fusion,omitempty"`
	Chosen      string              `json:"chosen,omitempty"`
	CVEstimate  *float64            `json:"cv_estimate,omitempty"`
	Items       *results.ItemScores `json:"items,omitempty"`
}

// TaskPart is what a shard measured of one task: for a task that draws
// splits, its classes, notes and each method's confusion counts summed
// over the shard's units; for a whole task, its results.
type TaskPart struct {
	Task       int      `json:"task"`
	Classes    int      `json:"classes,omitempty"`
	ClassNames []string `json:"class_names,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	// Confusion holds, per method, the confusion counts of the shard's
	// units (nil for a method without any).
	Confusion [][][]int        `json:"confusion,omitempty"`
	Results   []results.Result `json:"results,omitempty"`
}

// Partial is what one shard of a run measured (Options.Shard), for
// Merge: the records of its units and what it measured of their tasks.
type Partial struct {
	Source  Source             `json:"source"`
	Shard   store.Shard        `json:"shard"`
	Units   int                `json:"units"` // of the whole run
	Version string             `json:"version"`
	Workers int                `json:"workers"`
	Cores   int                `json:"cores"`
	Started time.Time          `json:"started"`
	Seconds float64            `json:"seconds"`
	Timings map[string]float64 `json:"timings"`
	// DataRoot is the folder dataset paths were resolved against.
	DataRoot string       `json:"data_root,omitempty"`
	Records  []UnitRecord `json:"records"`
	Tasks    []TaskPart   `json:"tasks"`
}

// PartialFile is the name of the file of a Partial in a shard's folder.
const PartialFile = "partial.json"

// Encode returns the JSON of p.
func (p *Partial) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encode partial results: %w", err)
	}
	return append(b, '\n'), nil
}

// DecodePartial decodes b, the content of the partial.json at path.
func DecodePartial(path string, b []byte) (*Partial, error) {
	var p Partial
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &p, nil
}

// part returns p's part of task ti, nil when it has none. The pointer
// holds until p.Tasks grows.
func (p *Partial) part(ti int) *TaskPart {
	if k := slices.IndexFunc(p.Tasks, func(t TaskPart) bool { return t.Task == ti }); k >= 0 {
		return &p.Tasks[k]
	}
	return nil
}

// taskPart returns the shard's part of task ti, made on first use.
func (e *engine) taskPart(ti int) *TaskPart {
	e.mu.Lock()
	defer e.mu.Unlock()
	if tp := e.partial.part(ti); tp != nil {
		return tp
	}
	e.partial.Tasks = append(e.partial.Tasks, TaskPart{Task: ti})
	return &e.partial.Tasks[len(e.partial.Tasks)-1]
}

// Merge joins the partial results of the shards of one run, given in any
// order, into the results.Results the run would have made unsharded: the
// same numbers, the same config, the tasks that combine others computed
// from the merged results; timings are summed over the shards and the wall
// time spans them all. It returns an error naming the shards for shards
// of different runs (config, overrides, version), a shard missing or
// given twice, and units that no shard or two shards ran.
func Merge(parts []*Partial) (*results.Results, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("merge: no shards")
	}
	parts = slices.Clone(parts)
	slices.SortFunc(parts, func(a, b *Partial) int { return cmp.Compare(a.Shard.Index, b.Shard.Index) })
	first := parts[0]
	n := first.Shard.Count
	seen := map[int]bool{}
	for _, p := range parts {
		switch {
		case p.Shard.Count != n:
			return nil, fmt.Errorf("merge: shard %s and shard %s are of runs split %d and %d ways", first.Shard, p.Shard, n, p.Shard.Count)
		case seen[p.Shard.Index]:
			return nil, fmt.Errorf("merge: shard %s given twice", p.Shard)
		case !reflect.DeepEqual(p.Source, first.Source):
			return nil, fmt.Errorf("merge: shard %s ran %s otherwise than shard %s (another config file or other flags)", p.Shard, p.Source.Path, first.Shard)
		case p.Version != first.Version:
			return nil, fmt.Errorf("merge: shard %s ran covpipe %s, shard %s covpipe %s", p.Shard, p.Version, first.Shard, first.Version)
		}
		seen[p.Shard.Index] = true
	}
	var missing []string
	for i := range n {
		if !seen[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("merge: shard %s missing: rerun it with covpipe run --shard I/N and the same config and flags", strings.Join(missing, ", "))
	}
	plan, err := first.Source.Plan()
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	all := &Partial{Source: first.Source, Shard: store.Shard{Index: 0, Count: 1}, Version: first.Version, Workers: first.Workers, Cores: first.Cores,
		Started: first.Started, Timings: map[string]float64{}, DataRoot: first.DataRoot}
	var end time.Time
	for _, p := range parts {
		if p.Started.Before(all.Started) {
			all.Started = p.Started
		}
		if t := p.Started.Add(time.Duration(p.Seconds * float64(time.Second))); t.After(end) {
			end = t
		}
		for k, v := range p.Timings {
			all.Timings[k] += v
		}
		all.Records = append(all.Records, p.Records...)
		for _, tp := range p.Tasks {
			if err := all.addTask(tp, len(plan.methods)); err != nil {
				return nil, fmt.Errorf("merge: shard %s: %w", p.Shard, err)
			}
		}
	}
	all.Seconds = end.Sub(all.Started).Seconds()
	return all.results(plan)
}

// addTask adds a shard's part of a task to p's: whole-task results are
// taken from the one shard that ran the task, confusion counts summed.
func (p *Partial) addTask(tp TaskPart, methods int) error {
	have := p.part(tp.Task)
	if have == nil {
		p.Tasks = append(p.Tasks, TaskPart{Task: tp.Task, Classes: tp.Classes, ClassNames: tp.ClassNames, Notes: tp.Notes, Results: tp.Results,
			Confusion: make([][][]int, methods)})
		have = &p.Tasks[len(p.Tasks)-1]
	} else {
		switch {
		case len(tp.Results) > 0 && len(have.Results) > 0:
			return fmt.Errorf("task %d ran on two shards", tp.Task)
		case len(tp.Results) > 0:
			have.Results = tp.Results
		case have.Classes != tp.Classes || !slices.Equal(have.ClassNames, tp.ClassNames) || !slices.Equal(have.Notes, tp.Notes):
			return fmt.Errorf("task %d: the shards drew other data (%d classes, notes %q; %d, %q)", tp.Task, have.Classes, have.Notes, tp.Classes, tp.Notes)
		}
	}
	for mi, c := range tp.Confusion {
		if c == nil {
			continue
		}
		if mi >= methods {
			return fmt.Errorf("task %d: confusion counts of method %d of %d", tp.Task, mi, methods)
		}
		if have.Confusion[mi] == nil {
			have.Confusion[mi] = c
			continue
		}
		for t, row := range c {
			for q, v := range row {
				have.Confusion[mi][t][q] += v
			}
		}
	}
	return nil
}

// results turns the records of every unit of plan, held by p, into the
// run's results.Results: each task's results in the plan's order, the
// combining tasks computed from the earlier ones. It returns an error for
// units missing or recorded twice.
func (p *Partial) results(plan *Plan) (*results.Results, error) {
	cfg := plan.Config
	res := &results.Results{
		Name: cfg.Name, Version: p.Version, Seed: cfg.Seed, Repeats: cfg.Repeats, Workers: p.Workers, Cores: p.Cores,
		Started: p.Started, Seconds: p.Seconds, Timings: p.Timings, Config: cfg, DataRoot: p.DataRoot,
	}
	recs := map[unit]*UnitRecord{}
	for k := range p.Records {
		r := &p.Records[k]
		u := unit{r.Task, r.Repeat, r.Method}
		if recs[u] != nil {
			return nil, fmt.Errorf("merge: task %d, repeat %d, method %d recorded twice", r.Task, r.Repeat, r.Method)
		}
		recs[u] = r
	}
	for ti, task := range plan.tasks {
		name := cfg.Tasks[ti].Name
		var rs []results.Result
		switch t := task.(type) {
		case combiner:
			var err error
			if rs, err = combineAll(t, res.Results, cfg.Methods); err != nil {
				return nil, fmt.Errorf("task %q: %w", name, err)
			}
		case runner:
			tp := p.part(ti)
			if tp == nil || len(tp.Results) == 0 {
				return nil, fmt.Errorf("merge: task %q: no shard ran it", name)
			}
			rs = tp.Results
		case splitter:
			tp := p.part(ti)
			if tp == nil {
				return nil, fmt.Errorf("merge: task %q: no shard ran it", name)
			}
			var missing []string
			for r := range cfg.Repeats {
				for mi := range plan.methods {
					if recs[unit{ti, r, mi}] == nil {
						missing = append(missing, fmt.Sprintf("repeat %d of %s", r, cfg.Methods[mi].Name))
					}
				}
			}
			if len(missing) > 0 {
				return nil, fmt.Errorf("merge: task %q: no shard ran %s", name, strings.Join(missing, ", "))
			}
			rs = aggregate(name, cfg, tp, func(r, mi int) *UnitRecord { return recs[unit{ti, r, mi}] })
		}
		res.Results = append(res.Results, rs...)
	}
	return res, nil
}

// aggregate makes the results of a task that draws splits from its units'
// records (rec(r, mi)) and its part tp: each method's accuracies, CMC
// curves, parameters and scores in repeat order, its per-class accuracy
// from the summed confusion counts.
func aggregate(task string, cfg *config.Config, tp *TaskPart, rec func(r, mi int) *UnitRecord) []results.Result {
	out := make([]results.Result, len(cfg.Methods))
	for mi, m := range cfg.Methods {
		res := results.Result{Task: task, Method: m.Name, Notes: slices.Clone(tp.Notes)}
		var cmcRuns [][]float64
		var lambdas []float64
		for r := range cfg.Repeats {
			u := rec(r, mi)
			res.Runs = append(res.Runs, u.Accuracy)
			res.Seconds += u.Seconds
			res.Degenerate = append(res.Degenerate, u.Degenerate)
			res.Unconverged = append(res.Unconverged, u.Unconverged)
			res.Params = append(res.Params, u.Params)
			if u.Fusion != nil {
				res.Parts = append(res.Parts, u.Fusion)
			}
			if u.Chosen != "" {
				res.Chosen = append(res.Chosen, u.Chosen)
			}
			if u.CVEstimate != nil {
				res.CVEstimate = append(res.CVEstimate, *u.CVEstimate)
			}
			if u.Items != nil {
				res.Items = append(res.Items, u.Items)
			}
			lambdas = append(lambdas, u.Lambdas...)
			res.TrainItems = append(res.TrainItems, u.Train)
			res.TestItems = append(res.TestItems, u.Test)
			if u.CMC != nil {
				cmcRuns = append(cmcRuns, u.CMC)
			}
			for _, note := range u.Notes {
				if !slices.Contains(res.Notes, note) {
					res.Notes = append(res.Notes, note)
				}
			}
		}
		ev := newEvaluation(tp.Classes, cfg.CMC)
		if c := tp.Confusion[mi]; c != nil {
			ev.confusion = c
		}
		res.AccuracyMean, res.AccuracyStd = results.MeanStd(res.Runs)
		res.Lambda = results.NewSpread(lambdas)
		res.PerClass = results.Percents(ev.perClass())
		res.Confusion = ev.confusion
		res.Classes = tp.ClassNames
		if len(cmcRuns) > 0 {
			res.CMC, res.CMCStd = results.MeanStdColumns(cmcRuns)
			res.CMCRuns = cmcRuns
		}
		out[mi] = res
	}
	return out
}
