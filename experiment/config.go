package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/internal/strictyaml"
	"go.yaml.in/yaml/v3"
)

// ErrConfig reports an invalid experiment configuration.
var ErrConfig = errors.New("experiment: invalid configuration")

// Config is an experiment file: its data, its tasks, the methods compared
// on them, the number of random repeats and the seed that fixes every
// random choice. Tasks and methods are decoded by their own types (see
// the protocol table in protocols.go and package method).
type Config struct {
	// Name names the experiment in reports; default: the file name.
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Seed fixes every random choice of the run.
	Seed uint64 `yaml:"seed" json:"seed"`
	// Repeats is the number of random repetitions (the paper: 100 for the
	// synthetic data, 20 for textures and re-identification).
	Repeats int `yaml:"repeats" json:"repeats"`
	// Workers bounds parallelism; 0 means all cores. It is the one place
	// the worker count is set (covpipe run --workers writes it).
	Workers int `yaml:"workers,omitempty" json:"workers,omitempty"`
	// Folds is the number of stratified cross-validation folds inside each
	// training set used to choose among candidate parameters (lists of
	// sigma, lambda or ridge): 3 when the file leaves it out, which is not
	// the same as folds: 0, an error.
	Folds int `yaml:"folds,omitempty" json:"folds,omitempty"`
	// CMC is the length of the cumulative matching characteristic to
	// report (ranks 1..CMC); 0 reports accuracy only.
	CMC int `yaml:"cmc,omitempty" json:"cmc,omitempty"`
	// Plot selects the report figure: cmc, bars, energy, roc or none (see
	// Plot); cmc needs CMC > 0.
	Plot Plot `yaml:"plot,omitempty" json:"plot,omitempty"`
	// Quick is the documented subset that `covpipe run --quick` runs
	// (Plan.Quick): fewer repeats and tasks.
	Quick *QuickConfig `yaml:"quick,omitempty" json:"quick,omitempty"`
	// Data describes the images and descriptors of image tasks.
	Data    *DataConfig  `yaml:"data,omitempty" json:"data,omitempty"`
	Tasks   []TaskSpec   `yaml:"tasks" json:"tasks"`
	Methods []MethodSpec `yaml:"methods" json:"methods"`
}

// QuickConfig is a quick subset of an experiment.
type QuickConfig struct {
	// Repeats replaces the experiment's repeats (0: keep them).
	Repeats int `yaml:"repeats,omitempty" json:"repeats,omitempty"`
	// Tasks lists the tasks to keep (empty: all). Averages and bests keep
	// the kept tasks they name.
	Tasks []string `yaml:"tasks,omitempty" json:"tasks,omitempty"`
	// Methods lists the methods to keep, by name (empty: all): a table's
	// slow column (TSC on FERET) can be left out of the quick run.
	Methods []string `yaml:"methods,omitempty" json:"methods,omitempty"`
}

// TaskSpec is one task of an experiment file: a table row of the report.
// Its protocol (task kind) is recognised from its keys and decodes the
// rest; see the protocol table.
type TaskSpec struct {
	Name string
	// Kind names the task's protocol.
	Kind string
	node *yaml.Node
	// config is the protocol's decoded config, recorded in results.json.
	config any
	raw    map[string]any
	// index is the task's position in the file, which names its settings
	// in errors (tasks[3].synthetic.samples) once Quick dropped others.
	index int
}

// UnmarshalYAML keeps the task's mapping for its protocol to decode.
func (t *TaskSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a task is a mapping (name: ..., and its data source)", n.Line)
	}
	t.node = n
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "name" {
			t.Name = n.Content[i+1].Value
		}
	}
	return nil
}

// MarshalJSON records the task as its protocol decoded it.
func (t TaskSpec) MarshalJSON() ([]byte, error) {
	if t.config != nil {
		return json.Marshal(t.config)
	}
	return json.Marshal(t.raw)
}

// UnmarshalJSON reads a recorded task back (for reports; not validated).
func (t *TaskSpec) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &t.raw); err != nil {
		return err
	}
	t.Name, _ = t.raw["name"].(string)
	return nil
}

// MethodSpec is one method of an experiment file: its report name, its
// type (package method) and the type's own parameters.
type MethodSpec struct {
	// Name labels the method in reports; default: Type.
	Name string
	// Type is the method type; default: Name.
	Type   string
	params *yaml.Node // the mapping without name and type
	line   int
	// Params is the method's decoded parameters, recorded in results.json.
	Params any
	raw    map[string]any
}

// UnmarshalYAML splits the mapping into name, type and parameters.
func (m *MethodSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a method is a mapping (name: ..., type: ..., parameters)", n.Line)
	}
	m.line = n.Line
	m.params = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "name":
			m.Name = v.Value
		case "type":
			m.Type = v.Value
		default:
			m.params.Content = append(m.params.Content, k, v)
		}
	}
	return nil
}

// MarshalJSON records the name, the type and the decoded parameters.
func (m MethodSpec) MarshalJSON() ([]byte, error) {
	out := map[string]any{}
	for k, v := range m.raw {
		out[k] = v
	}
	if m.Params != nil {
		b, err := json.Marshal(m.Params)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, err
		}
	}
	out["name"], out["type"] = m.Name, m.Type
	return json.Marshal(out)
}

// UnmarshalJSON reads a recorded method back (for reports).
func (m *MethodSpec) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &m.raw); err != nil {
		return err
	}
	m.Name, _ = m.raw["name"].(string)
	m.Type, _ = m.raw["type"].(string)
	return nil
}

// Plan is a validated experiment: the Config as given (with defaults
// filled in, for the record) and every setting resolved into the typed
// values Run consumes, so that nothing is parsed twice. Callers may change
// the Config's Seed, Repeats, Workers and Name before Run (command-line
// overrides); Run checks them again.
type Plan struct {
	Config  *Config
	root    *yaml.Node // the file's document, for the lines of errors
	data    *dataPlan
	tasks   []protocol
	methods []plannedMethod
	// vectors holds the feature planes of the methods' vector requests,
	// parsed once.
	vectors  map[classify.VectorRequest]*features.Set
	warnings []string
}

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

// Parse decodes and validates an experiment from YAML. It refuses, before
// decoding, a document over 1 MiB and one whose aliases stand for more
// than strictyaml.MaxAliasNodes nodes; the errors of an aliased node are
// reported once, not at each use of the alias.
func Parse(b []byte) (*Plan, error) {
	var cfg Config
	if err := strictyaml.Unmarshal(b, &cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: empty file", ErrConfig)
		}
		if errors.Is(err, strictyaml.ErrTooLarge) {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		return nil, fmt.Errorf("%w: %s", ErrConfig, explainYAML(err))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return cfg.plan(&root)
}

var unknownField = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)

// explainYAML rewrites yaml.v3's unknown-field messages into ones that name
// the section and list the allowed keys.
func explainYAML(err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		msgs[i] = m
		sub := unknownField.FindStringSubmatch(m)
		if sub == nil {
			continue
		}
		if t, ok := configTypes[sub[3]]; ok {
			msgs[i] = fmt.Sprintf("line %s: unknown key %q in %s (allowed: %s)", sub[1], sub[2], t.section, strings.Join(strictyaml.Keys(t.typ), ", "))
		}
	}
	return strings.Join(msgs, "; ")
}

var configTypes = map[string]struct {
	section string
	typ     reflect.Type
}{
	"experiment.Config":      {"the experiment", reflect.TypeFor[Config]()},
	"experiment.DataConfig":  {"data", reflect.TypeFor[DataConfig]()},
	"experiment.QuickConfig": {"quick", reflect.TypeFor[QuickConfig]()},
	"experiment.PartsConfig": {"data.parts", reflect.TypeFor[PartsConfig]()},
}

// at returns "line N: " for the node reached by following mapping keys and
// sequence indices from the document root, or "" when it is absent.
func at(root *yaml.Node, path ...any) string {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, p := range path {
		switch k := p.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return ""
			}
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					next = n.Content[i+1]
				}
			}
			if next == nil {
				return fmt.Sprintf("line %d: ", n.Line)
			}
			n = next
		case int:
			if n.Kind != yaml.SequenceNode || k >= len(n.Content) {
				return ""
			}
			n = n.Content[k]
		}
	}
	return fmt.Sprintf("line %d: ", n.Line)
}

// sets reports whether the file whose document is root gives the
// top-level key, so that a zero it gives is not taken for a default.
func sets(root *yaml.Node, key string) bool {
	if root == nil {
		return false
	}
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

// failFunc returns a configuration error naming the line of the setting
// at path (at).
type failFunc func(path []any, format string, args ...any) error

// plan validates c and resolves it. Errors name the line of the setting.
func (c *Config) plan(root *yaml.Node) (*Plan, error) {
	fail := func(path []any, format string, args ...any) error {
		return fmt.Errorf("%w: %s%s", ErrConfig, at(root, path...), fmt.Sprintf(format, args...))
	}
	if err := c.checkRun(); err != nil {
		return nil, fail([]any{"repeats"}, "%v", err)
	}
	if c.Folds == 0 && sets(root, "folds") {
		return nil, fail([]any{"folds"}, "folds = 0, want >= 1 (leave folds out for the default, 3)")
	}
	if c.Folds == 0 {
		c.Folds = 3
	}
	if c.Folds < 0 {
		return nil, fail([]any{"folds"}, "folds = %d, want >= 2", c.Folds)
	}
	if c.CMC < 0 {
		return nil, fail([]any{"cmc"}, "cmc = %d, want >= 0", c.CMC)
	}
	if c.Plot == PlotCMC && c.CMC == 0 {
		return nil, fail([]any{"plot"}, "plot: cmc needs cmc: R (the number of ranks)")
	}
	p := &Plan{Config: c, root: root}
	if c.Data != nil {
		var err error
		if p.data, err = c.Data.resolve(); err != nil {
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
		t.index = i
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
				return nil, fmt.Errorf("%w: task %q: %v", ErrConfig, t.Name, err)
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
	lists, err := c.planMethods(p, root, fail)
	if err != nil {
		return nil, err
	}
	lists = lists || c.Data != nil && len(c.Data.Ridge) > 1
	if q := c.Quick; q != nil {
		if q.Repeats < 0 {
			return nil, fail([]any{"quick"}, "quick: repeats = %d, want >= 0", q.Repeats)
		}
		for _, n := range q.Tasks {
			if !slices.ContainsFunc(c.Tasks, func(t TaskSpec) bool { return t.Name == n }) {
				return nil, fail([]any{"quick"}, "quick: no task %q", n)
			}
		}
		for _, n := range q.Methods {
			if !slices.ContainsFunc(c.Methods, func(m MethodSpec) bool { return m.Name == n }) {
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
		return fmt.Errorf("%w: %s has no quick section", ErrConfig, p.Config.Name)
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
	var specs []TaskSpec
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
			return fmt.Errorf("%w: %s has no method %q (it has %s)", ErrConfig, p.Config.Name, n, strings.Join(have, ", "))
		}
	}
	var specs []MethodSpec
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
func (c *Config) checkRun() error {
	if c.Repeats < 1 {
		return fmt.Errorf("repeats = %d, want >= 1", c.Repeats)
	}
	if c.Workers < 0 {
		return fmt.Errorf("workers = %d, want >= 0 (0: all cores)", c.Workers)
	}
	return nil
}
