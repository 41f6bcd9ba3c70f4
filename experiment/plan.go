package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/experiment/config"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/internal/strictyaml"
	"go.yaml.in/yaml/v3"
)

// Plan is a validated experiment: the Config as given (with defaults
// filled in, for the record) and every setting resolved into the typed
// values Run consumes, so that nothing is parsed twice. Callers may change
// the Config's Seed, Repeats, Workers and Name before Run (command-line
// overrides); Run checks them again.
type Plan struct {
	Config  *config.Config
	root    *yaml.Node // the file's document, for the lines of errors
	data    *dataPlan
	tasks   []protocol
	methods []plannedMethod
	// vectors holds the feature planes of the methods' vector requests,
	// parsed once.
	vectors  map[classify.VectorRequest]*features.Set
	folds    classify.FoldGroups // folds_by or folds_within, parsed once
	warnings []string
}

// FoldGroups returns the groups that the config's validation folds keep
// together (folds_by, folds_within), none for stratified folds.
func (p *Plan) FoldGroups() classify.FoldGroups { return p.folds }

// Warnings returns what the config should change although it loads, such
// as deprecated spellings, one message each, naming the method.
func (p *Plan) Warnings() []string { return slices.Clone(p.warnings) }

// Load reads and validates an experiment file. YAML is strict: an unknown
// key is an error naming the key, its line and the keys allowed there. A
// file over 1 MiB (strictyaml.MaxSize) is refused before it is parsed,
// naming the file and the limit.
func Load(path string) (*Plan, error) {
	b, err := strictyaml.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read experiment: %w", err)
	}
	return parseFile(path, b)
}

// parseFile parses b, the content of the experiment file path, as Load
// does.
func parseFile(path string, b []byte) (*Plan, error) {
	p, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.Config.Name == "" {
		base := path[strings.LastIndexAny(path, `/\`)+1:]
		p.Config.Name = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	}
	return p, nil
}

// Parse decodes (config.Decode) and validates an experiment from YAML. It
// refuses, before decoding, a document over 1 MiB and one whose aliases
// stand for more than strictyaml.MaxAliasNodes nodes; the errors of an
// aliased node are reported once, not at each use of the alias. Its
// errors wrap config.ErrConfig.
func Parse(b []byte) (*Plan, error) {
	cfg, root, err := config.Decode(b)
	if err != nil {
		return nil, err
	}
	return newPlan(cfg, root)
}

// failFunc returns a configuration error naming the line of the setting
// at path (config.At).
type failFunc func(path []any, format string, args ...any) error

// newPlan validates c, decoded from the document root, and resolves it.
// Errors name the line of the setting.
func newPlan(c *config.Config, root *yaml.Node) (*Plan, error) {
	fail := func(path []any, format string, args ...any) error {
		return fmt.Errorf("%w: %s%s", config.ErrConfig, config.At(root, path...), fmt.Sprintf(format, args...))
	}
	if err := checkRun(c); err != nil {
		return nil, fail([]any{"repeats"}, "%v", err)
	}
	if c.Folds == 0 && config.Sets(root, "folds") {
		return nil, fail([]any{"folds"}, "folds = 0, want >= 1 (leave folds out for the default, 3)")
	}
	if c.Folds == 0 {
		c.Folds = 3
	}
	if c.Folds < 0 {
		return nil, fail([]any{"folds"}, "folds = %d, want >= 2", c.Folds)
	}
	folds, err := c.FoldGroups()
	if err != nil {
		return nil, fail([]any{"folds_within"}, "%v", err)
	}
	if c.CMC < 0 {
		return nil, fail([]any{"cmc"}, "cmc = %d, want >= 0", c.CMC)
	}
	if c.Plot == config.PlotCMC && c.CMC == 0 {
		return nil, fail([]any{"plot"}, "plot: cmc needs cmc: R (the number of ranks)")
	}
	p := &Plan{Config: c, root: root, folds: folds}
	if c.Data != nil {
		var err error
		if p.data, err = resolveData(c.Data); err != nil {
			return nil, fail([]any{"data"}, "%v", err)
		}
	}
	if len(c.Tasks) == 0 {
		return nil, fail(nil, "no tasks")
	}
	names := map[string]bool{}
	planned := map[string]protocol{}
	for i := range c.Tasks {
		t := &c.Tasks[i]
		path := []any{"tasks", i}
		if t.Name == "" {
			return nil, fail(path, "task %d has no name", i+1)
		}
		if names[t.Name] {
			return nil, fail(path, "duplicate task name %q", t.Name)
		}
		pr, err := newProtocol(t, p.data, names)
		if err != nil {
			if strings.HasPrefix(err.Error(), "line ") {
				return nil, fmt.Errorf("%w: task %q: %v", config.ErrConfig, t.Name, err)
			}
			return nil, fail(path, "task %q: %v", t.Name, err)
		}
		if err := checkProtocol(pr, planned); err != nil {
			return nil, fail(path, "task %q: %v", t.Name, err)
		}
		names[t.Name] = true
		planned[t.Name] = pr
		p.tasks = append(p.tasks, pr)
	}
	lists, err := planMethods(c, p, root, fail)
	if err != nil {
		return nil, err
	}
	lists = lists || c.Data != nil && len(c.Data.Ridge) > 1
	if q := c.Quick; q != nil {
		if q.Repeats < 0 {
			return nil, fail([]any{"quick"}, "quick: repeats = %d, want >= 0", q.Repeats)
		}
		for _, n := range q.Tasks {
			if !slices.ContainsFunc(c.Tasks, func(t config.TaskSpec) bool { return t.Name == n }) {
				return nil, fail([]any{"quick"}, "quick: no task %q", n)
			}
		}
		for _, n := range q.Methods {
			if !slices.ContainsFunc(c.Methods, func(m config.MethodSpec) bool { return m.Name == n }) {
				return nil, fail([]any{"quick"}, "quick: no method %q", n)
			}
		}
	}
	if d := p.data; d != nil && d.fusion != nil && (classify.Fusing{Sets: d.partSets, Rules: d.fusion}).Chooses() && c.Folds < 2 {
		return nil, fail([]any{"folds"}, "folds = %d: data.parts' layout and fusion rule are chosen (or the parts weighted) by cross-validation, which needs folds >= 2", c.Folds)
	}
	if lists && c.Folds < 2 {
		return nil, fail([]any{"folds"}, "folds = %d: parameter lists are chosen by cross-validation, which needs folds >= 2", c.Folds)
	}
	return p, nil
}

// Quick reduces the plan to its config's quick subset (the `quick:`
// section): its repeats, tasks and methods. It returns an error for an
// experiment without one.
func (p *Plan) Quick() error {
	q := p.Config.Quick
	if q == nil {
		return fmt.Errorf("%w: %s has no quick section", config.ErrConfig, p.Config.Name)
	}
	if q.Repeats > 0 {
		p.Config.Repeats = q.Repeats
	}
	if len(q.Methods) > 0 {
		if err := p.KeepMethods(q.Methods); err != nil {
			return err
		}
	}
	if len(q.Tasks) == 0 {
		return nil
	}
	var specs []config.TaskSpec
	var tasks []protocol
	for i, t := range p.Config.Tasks {
		if slices.Contains(q.Tasks, t.Name) {
			specs = append(specs, t)
			tasks = append(tasks, p.tasks[i])
		}
	}
	for _, t := range tasks {
		if c, ok := t.(combiner); ok {
			src := c.sources()
			*src = slices.DeleteFunc(*src, func(n string) bool { return !slices.Contains(q.Tasks, n) })
		}
	}
	p.Config.Tasks, p.tasks = specs, tasks
	return nil
}

// KeepMethods reduces the plan to the methods named, in the config's
// order (`covpipe run --methods`). It returns an error naming a method the
// config does not have, and the ones it has.
func (p *Plan) KeepMethods(names []string) error {
	var have []string
	for _, m := range p.Config.Methods {
		have = append(have, m.Name)
	}
	for _, n := range names {
		if !slices.Contains(have, n) {
			return fmt.Errorf("%w: %s has no method %q (it has %s)", config.ErrConfig, p.Config.Name, n, strings.Join(have, ", "))
		}
	}
	var specs []config.MethodSpec
	var methods []plannedMethod
	for i, m := range p.Config.Methods {
		if slices.Contains(names, m.Name) {
			specs = append(specs, m)
			methods = append(methods, p.methods[i])
		}
	}
	p.Config.Methods, p.methods = specs, methods
	return nil
}

// checkRun checks the settings that command-line flags may override.
func checkRun(c *config.Config) error {
	if c.Repeats < 1 {
		return fmt.Errorf("repeats = %d, want >= 1", c.Repeats)
	}
	if c.Workers < 0 {
		return fmt.Errorf("workers = %d, want >= 0 (0: all cores)", c.Workers)
	}
	return nil
}
