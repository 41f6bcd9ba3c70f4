package experiment

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/internal/plural"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/internal/memlimit"
	"github.com/covpipe/covpipe/internal/pool"
)

// DefaultMaxMemory is the default Options.MaxMemory, 4 GiB, describe's
// default: a fixed amount rather than a share of the machine's memory, so
// that which experiments run does not depend on the machine. Every
// shipped config runs far below it (docs/benchmarks.md, "Memory").
const DefaultMaxMemory = describe.DefaultMaxMemory

// Sizes of what a run keeps, in bytes, for the estimates of checkMemory:
// rounded up from the structures they stand for.
const (
	// repeatBytes is a finished repeat's record of a task (run.go's
	// record), and resultBytes what it keeps per method: the Outcome
	// without predictions (counts, chosen parameters), the accuracy, the
	// time, and the entries of the results.Result the repeats make.
	repeatBytes = 160
	resultBytes = 512
	// matrixBytes is the per-matrix overhead of a *mat.SymDense beside
	// its d² entries, which a synthetic repeat holds twice (drawn, then
	// copied into an spd.Set).
	matrixBytes = 128
	// regionBytes is a covariance.Region.
	regionBytes = 32
	// foldBytes is a cross-validation fold's slice header.
	foldBytes = 24
)

// estimate is the memory that one setting of a config makes a run hold.
type estimate struct {
	key   string // the setting: "repeats", "tasks[0].synthetic.samples", "data.regions"
	path  []any  // its path in the file, for its line
	what  string // what it sizes, for the error
	bytes float64
}

// memory lists the estimates of what the plan's settings size (see
// CheckMemory), one for each setting and task.
func (p *Plan) memory() []estimate {
	c := p.Config
	reps, methods := float64(c.Repeats), float64(len(p.methods))
	parallel := float64(max(1, min(pool.Workers(c.Workers), c.Repeats)))
	quantities := slices.ContainsFunc(p.allSpecs(), func(s classify.Spec) bool { return len(s.Quantities) > 0 })
	var out []estimate
	add := func(e estimate) {
		if e.bytes > 0 {
			out = append(out, e)
		}
	}
	splits := 0
	for ti, task := range p.tasks {
		spec := c.Tasks[ti]
		switch t := task.(type) {
		case combiner:
			continue
		case splitter:
			splits++
		case *energyCurveTask:
			add(estimate{"repeats", []any{"repeats"},
				fmt.Sprintf("%s keep %s of %s each", plural.Of(c.Repeats, "repeat"), plural.Of(len(p.methods)+1, "energy curve"), plural.Of(t.Energy.Iters, "iteration")),
				reps * (methods + 1) * 16 * (float64(t.Energy.Iters) + 1)})
		}
		if s, ok := task.(sizer); ok {
			for _, e := range s.sizes(spec.Index(), sizing{repeats: reps, parallel: parallel, methods: methods, quantities: quantities}) {
				add(e)
			}
		}
	}
	if splits > 0 {
		add(estimate{"repeats", []any{"repeats"},
			fmt.Sprintf("%s of %s keep the results of %s", plural.Of(c.Repeats, "repeat"), plural.Of(splits, "task"), plural.Of(len(p.methods), "method")),
			float64(splits) * reps * (repeatBytes + methods*resultBytes)})
		add(estimate{"cmc", []any{"cmc"},
			fmt.Sprintf("%s of %s keep CMC curves of %s for %s", plural.Of(c.Repeats, "repeat"), plural.Of(splits, "task"), plural.Of(c.CMC, "rank"), plural.Of(len(p.methods), "method")),
			float64(splits) * (reps + 2) * methods * 8 * float64(c.CMC)})
		add(estimate{"folds", []any{"folds"},
			fmt.Sprintf("%s in each of %s at once", plural.Of(c.Folds, "cross-validation fold"), plural.Of(int(parallel), "repeat")),
			parallel * foldBytes * float64(c.Folds)})
	}
	if d := p.data; d != nil {
		dim := float64(d.features.Dim())
		n := float64(d.layout.Count())
		add(estimate{"data.regions", []any{"data", "regions"},
			fmt.Sprintf("%s makes %s of %d×%d per image", d.layout, plural.Of(d.layout.Count(), "descriptor"), d.features.Dim(), d.features.Dim()),
			n * (8*dim*dim + regionBytes)})
		if d.w > 0 {
			add(estimate{"data.resize", []any{"data", "resize"},
				fmt.Sprintf("a %dx%d image takes 3 image and %d feature planes of float64", d.w, d.h, d.features.Dim()),
				float64(d.w) * float64(d.h) * (3 + dim) * 8})
		}
	}
	return out
}

// sizing is what a protocol's estimates depend on beside its own
// settings.
type sizing struct {
	repeats, parallel, methods float64
	// quantities: some method asks for pairwise quantities (Stein
	// divergences) of each split.
	quantities bool
}

// sizer is a protocol whose own settings size what a run holds (the
// number of synthetic samples), beyond the repeats and the data section
// that every task shares. index is the task's position in the file.
type sizer interface {
	sizes(index int, s sizing) []estimate
}

// CheckMemory estimates what the plan's settings, as they are now (after
// Quick, KeepMethods and overrides of Repeats and Workers), make a run
// hold, before anything is allocated, and returns an error wrapping
// config.ErrConfig and describe.ErrMemory when that exceeds limit bytes (0:
// DefaultMaxMemory; negative is an error). The error names the setting
// that takes the most (repeats, tasks[0].synthetic.samples,
// data.regions, ...), its line, what it sizes, its estimate and the
// run's. The estimates count the results every repeat keeps (repeats ×
// tasks × methods, CMC ranks), what each repeat holds while it runs
// (synthetic samples × d² and their Stein divergences, cross-validation
// folds) times the repeats that run at once (min(workers, repeats)), the
// confusion matrices of synthetic classes, the sources, samples and codes
// of energy curves, and the descriptors and image planes of one image of
// the data section; Run checks the dataset's descriptors again once it
// knows how many images it has. They are lower estimates: a plan they
// admit may still need more.
func (p *Plan) CheckMemory(limit int64) error {
	if limit < 0 {
		return fmt.Errorf("%w: memory limit %d bytes: want >= 0 (0: %s)", config.ErrConfig, limit, memlimit.Format(DefaultMaxMemory))
	}
	return p.checkEstimates(limit, p.memory()...)
}

// checkEstimates returns memlimit.Check's error for the estimates es,
// naming the line of the setting that takes the most.
func (p *Plan) checkEstimates(limit int64, es ...estimate) error {
	all := make([]memlimit.Estimate, len(es))
	paths := map[string][]any{}
	for i, e := range es {
		all[i] = memlimit.Estimate{Key: e.key, What: e.what, Bytes: e.bytes}
		paths[e.key] = e.path
	}
	err := memlimit.Check(limit, "covpipe run --max-memory, experiment.Options.MaxMemory", all...)
	var over *memlimit.Error
	if !errors.As(err, &over) {
		return err
	}
	line := ""
	if p.root != nil {
		line = config.At(p.root, paths[over.Key]...)
	}
	return fmt.Errorf("%w: %s%w", config.ErrConfig, line, err)
}

// checkDataMemory returns an error when the descriptors of a dataset of
// n images, one set per ridge candidate, would exceed limit bytes (0:
// DefaultMaxMemory), naming data.regions and the dataset.
func (p *Plan) checkDataMemory(n int, limit int64) error {
	d := p.data
	dim := float64(d.features.Dim())
	return p.checkEstimates(limit, estimate{"data.regions", []any{"data", "regions"},
		fmt.Sprintf("%s of %s with %s make %s of %d×%d, for each of %s",
			plural.Of(n, "image"), d.dataset, d.layout, plural.Of(n*d.layout.Count(), "descriptor"), d.features.Dim(), d.features.Dim(), plural.Of(len(d.regs), "ridge candidate")),
		float64(n) * float64(d.layout.Count()) * float64(len(d.regs)) * 8 * dim * dim})
}

// taskPath returns the path of a task's setting in the file and its key,
// e.g. tasks[0].synthetic.samples.
func taskPath(index int, keys ...string) ([]any, string) {
	path := []any{"tasks", index}
	for _, k := range keys {
		path = append(path, k)
	}
	return path, fmt.Sprintf("tasks[%d].%s", index, strings.Join(keys, "."))
}

// matrices is the memory of n d×d matrices held twice with their
// overhead, as a synthetic repeat holds them.
func matrices(n, d int) float64 {
	return float64(n) * (16*float64(d)*float64(d) + matrixBytes)
}

// pairwise is the memory of the Stein divergences of a split of train
// training and test test items (classify's steinPairs: the training set
// against itself, with a kernel matrix, and the test items against it).
func pairwise(train, test int) float64 {
	t := float64(train)
	return 8 * t * (2*t + float64(test))
}
